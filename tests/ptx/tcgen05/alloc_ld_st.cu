// TMEM round trip: warp 0 allocates 32 columns, every warp stores then loads its lane quarter
// with 32x32b.x4 and 16x256b.x1 (.pack::16b on the second load), then warp 0 frees TMEM.
// Launch: 1 block of 128 threads. out: 128 x 4 words (32x32b) followed by 128 x 4 words (16x256b, packed).
#include "tcgen05_common.cuh"

__global__ void tmem_round_trip(const uint32_t* in, uint32_t* out) {
  __shared__ uint32_t tmem_base;
  const uint32_t w = threadIdx.x / 32;
  if (w == 0) { tmem_alloc(&tmem_base, 32); tmem_relinquish(); }
  fence_before();
  __syncthreads();
  fence_after();
  const uint32_t base = tmem_base + ((32 * w) << 16);
  uint32_t v0 = in[threadIdx.x * 4 + 0], v1 = in[threadIdx.x * 4 + 1], v2 = in[threadIdx.x * 4 + 2], v3 = in[threadIdx.x * 4 + 3];
  asm volatile("tcgen05.st.sync.aligned.32x32b.x4.b32 [%0], {%1, %2, %3, %4};" :: "r"(base), "r"(v0), "r"(v1), "r"(v2), "r"(v3));
  wait_st();
  uint32_t r0, r1, r2, r3;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(base));
  wait_ld();
  out[threadIdx.x * 4 + 0] = r0; out[threadIdx.x * 4 + 1] = r1; out[threadIdx.x * 4 + 2] = r2; out[threadIdx.x * 4 + 3] = r3;
  asm volatile("tcgen05.ld.sync.aligned.16x256b.x1.pack::16b.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(base + 4));
  wait_ld();
  uint32_t* o2 = out + 512;
  o2[threadIdx.x * 4 + 0] = r0; o2[threadIdx.x * 4 + 1] = r1; o2[threadIdx.x * 4 + 2] = r2; o2[threadIdx.x * 4 + 3] = r3;
  fence_before();
  __syncthreads();
  if (w == 0) tmem_dealloc(tmem_base, 32);
}
