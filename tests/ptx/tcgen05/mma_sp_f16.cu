// Sparse tcgen05.mma.sp.cta_group::1.kind::f16: D[128 x 64] (f32) = A[128 x 32, 2:4 sparse] * B[32 x 64].
// A packed (128 x 16 f16) and B (64 x 32 f16, K-major) arrive in shared-memory byte order (no swizzle,
// LBO = 128 * rows/8, SBO = 128). The metadata arrives as one 128 x 16 B lane-major atom
// (CUTLASS TensorEAtom for 16-bit A) and is moved by tcgen05.cp.128x128b to TMEM columns 64..67;
// this instruction reads column 64 + sparsity_selector (idesc bits 1:0 = sel).
// Launch: 1 block of 128 threads. out: 128 x 64 f32.
#include "tcgen05_common.cuh"

__global__ void mma_sp_f16(const uint8_t* a, const uint8_t* b, const uint8_t* meta, float* out, uint32_t sel) {
  __shared__ alignas(1024) uint8_t sa[128 * 32];
  __shared__ alignas(1024) uint8_t sb[64 * 64];
  __shared__ alignas(128) uint8_t se[128 * 16];
  __shared__ uint32_t tmem_base;
  __shared__ uint64_t bar;
  const uint32_t w = threadIdx.x / 32;
  copy_to_smem(sa, a, sizeof(sa));
  copy_to_smem(sb, b, sizeof(sb));
  copy_to_smem(se, meta, sizeof(se));
  fence_proxy_async();
  if (w == 0) { tmem_alloc(&tmem_base, 128); tmem_relinquish(); }
  if (threadIdx.x == 32) mbar_init(&bar, 1);
  fence_before();
  __syncthreads();
  fence_after();
  if (threadIdx.x == 0) {
    const uint32_t idesc = (sel & 3) | (1u << 2) | (1u << 4) | ((64u >> 3) << 17) | ((128u >> 4) << 24);
    const uint64_t ad = smem_desc(smem_u32(sa), 128 * 16, 128, 0), bd = smem_desc(smem_u32(sb), 128 * 8, 128, 0);
    const uint64_t ed = smem_desc(smem_u32(se), 0, 128, 0);
    asm volatile("tcgen05.cp.cta_group::1.128x128b [%0], %1;" :: "r"(tmem_base + 64), "l"(ed));
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %5, 0;\n"
                 " tcgen05.mma.sp.cta_group::1.kind::f16 [%0], %1, %2, [%3], %4, p;\n}"
                 :: "r"(tmem_base), "l"(ad), "l"(bd), "r"(tmem_base + 64), "r"(idesc), "r"(0u));
    commit(&bar);
  }
  mbar_wait(&bar, 0);
  fence_after();
  tmem_to_global(tmem_base, reinterpret_cast<uint32_t*>(out), 64);
  fence_before();
  __syncthreads();
  if (w == 0) tmem_dealloc(tmem_base, 128);
}
