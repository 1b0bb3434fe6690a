// Sparse tcgen05.mma.sp.cta_group::1.kind::i8: D[128 x 64] (s32) = A[128 x 64, 2:4 sparse, s8] * B[64 x 64, s8],
// accumulating onto D (enable-input-d = 1 on the second of two instructions; the first clears).
// A packed (128 x 32 s8), B (64 x 64 s8, K-major), metadata 128 x 16 B (lane = row, 2 columns used),
// all in shared-memory byte order. Launch: 1 block of 128 threads. out: 128 x 64 s32.
#include "tcgen05_common.cuh"

__global__ void mma_sp_i8(const uint8_t* a, const uint8_t* b, const uint8_t* meta, int32_t* out) {
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
    const uint32_t idesc = (1u << 2) | (2u << 4) | (1u << 7) | (1u << 10) | ((64u >> 3) << 17) | ((128u >> 4) << 24);
    const uint64_t ad = smem_desc(smem_u32(sa), 128 * 16, 128, 0), bd = smem_desc(smem_u32(sb), 128 * 8, 128, 0);
    asm volatile("tcgen05.cp.cta_group::1.128x128b [%0], %1;" :: "r"(tmem_base + 64), "l"(smem_desc(smem_u32(se), 0, 128, 0)));
    for (uint32_t acc = 0; acc < 2; ++acc)
      asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %5, 0;\n"
                   " tcgen05.mma.sp.cta_group::1.kind::i8 [%0], %1, %2, [%3], %4, p;\n}"
                   :: "r"(tmem_base), "l"(ad), "l"(bd), "r"(tmem_base + 64), "r"(idesc), "r"(acc));
    commit(&bar);
  }
  mbar_wait(&bar, 0);
  fence_after();
  tmem_to_global(tmem_base, reinterpret_cast<uint32_t*>(out), 64);
  fence_before();
  __syncthreads();
  if (w == 0) tmem_dealloc(tmem_base, 128);
}
