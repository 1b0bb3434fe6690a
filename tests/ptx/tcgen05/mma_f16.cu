// Dense tcgen05.mma.cta_group::1.kind::f16: D[128 x 64] (f32) = A[128 x 16] * B[16 x 64], one instruction.
// A and B arrive already in shared-memory byte order: K-major, no swizzle, 8 x 16 B core matrices,
// LBO = 128 * rows/8 (next K chunk), SBO = 128 (next 8-row group). idesc: f16 x f16 -> f32, M 128, N 64.
// Launch: 1 block of 128 threads. out: 128 x 64 f32 (row = D row).
#include "tcgen05_common.cuh"

__global__ void mma_f16(const uint8_t* a, const uint8_t* b, float* out) {
  __shared__ alignas(1024) uint8_t sa[128 * 32];
  __shared__ alignas(1024) uint8_t sb[64 * 32];
  __shared__ uint32_t tmem_base;
  __shared__ uint64_t bar;
  const uint32_t w = threadIdx.x / 32;
  copy_to_smem(sa, a, sizeof(sa));
  copy_to_smem(sb, b, sizeof(sb));
  fence_proxy_async();
  if (w == 0) { tmem_alloc(&tmem_base, 64); tmem_relinquish(); }
  if (threadIdx.x == 32) mbar_init(&bar, 1);
  fence_before();
  __syncthreads();
  fence_after();
  if (threadIdx.x == 0) {
    const uint32_t idesc = (1u << 4) | ((64u >> 3) << 17) | ((128u >> 4) << 24);  // D f32, A/B f16, N 64, M 128
    const uint64_t ad = smem_desc(smem_u32(sa), 128 * 16, 128, 0), bd = smem_desc(smem_u32(sb), 128 * 8, 128, 0);
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n"
                 " tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}"
                 :: "r"(tmem_base), "l"(ad), "l"(bd), "r"(idesc), "r"(0u));
    commit(&bar);
  }
  mbar_wait(&bar, 0);
  fence_after();
  tmem_to_global(tmem_base, reinterpret_cast<uint32_t*>(out), 64);
  fence_before();
  __syncthreads();
  if (w == 0) tmem_dealloc(tmem_base, 64);
}
