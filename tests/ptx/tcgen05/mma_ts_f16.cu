// tcgen05.mma with A in TMEM ("TS"): every warp stores its 32 rows of A (16 f16 = 8 cells per row)
// to TMEM columns 64..71 with tcgen05.st.32x32b.x8; then D[128 x 32] (f32) = A[128 x 16] * B[16 x 32].
// a: 128 rows x 8 words (two f16 per word, low half = even k); b: shared-memory byte order (K-major,
// no swizzle, LBO 512, SBO 128). Launch: 1 block of 128 threads. out: 128 x 32 f32.
#include "tcgen05_common.cuh"

__global__ void mma_ts_f16(const uint32_t* a, const uint8_t* b, float* out) {
  __shared__ alignas(1024) uint8_t sb[32 * 32];
  __shared__ uint32_t tmem_base;
  __shared__ uint64_t bar;
  const uint32_t w = threadIdx.x / 32;
  copy_to_smem(sb, b, sizeof(sb));
  fence_proxy_async();
  if (w == 0) { tmem_alloc(&tmem_base, 128); tmem_relinquish(); }
  if (threadIdx.x == 32) mbar_init(&bar, 1);
  fence_before();
  __syncthreads();
  fence_after();
  const uint32_t* row = a + threadIdx.x * 8;
  asm volatile("tcgen05.st.sync.aligned.32x32b.x8.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};"
               :: "r"(tmem_base + 64 + ((32 * w) << 16)), "r"(row[0]), "r"(row[1]), "r"(row[2]), "r"(row[3]),
                  "r"(row[4]), "r"(row[5]), "r"(row[6]), "r"(row[7]));
  wait_st();
  fence_before();
  __syncthreads();
  fence_after();
  if (threadIdx.x == 0) {
    const uint32_t idesc = (1u << 4) | ((32u >> 3) << 17) | ((128u >> 4) << 24);
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n"
                 " tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, p;\n}"
                 :: "r"(tmem_base), "r"(tmem_base + 64), "l"(smem_desc(smem_u32(sb), 128 * 4, 128, 0)), "r"(idesc), "r"(0u));
    commit(&bar);
  }
  mbar_wait(&bar, 0);
  fence_after();
  tmem_to_global(tmem_base, reinterpret_cast<uint32_t*>(out), 32);
  fence_before();
  __syncthreads();
  if (w == 0) tmem_dealloc(tmem_base, 128);
}
