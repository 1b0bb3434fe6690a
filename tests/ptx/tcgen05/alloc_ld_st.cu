// TMEM round trip: warp 0 allocates 32 columns; every warp stores 16 words per thread to its lane
// quarter with 32x32b.x16, loads them back with 32x32b.x16, then loads columns 0..15 of 16 lanes with
// 16x256b.x1.pack::16b (low halves of adjacent columns packed); warp 0 frees TMEM.
// Launch: 1 block of 128 threads. in: 128 x 16 words. out: 128 x 16 words, then 128 x 4 words.
#include "tcgen05_common.cuh"

#define REGS16(r) "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]), \
  "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15])
#define VALS16(v) "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]), "r"(v[4]), "r"(v[5]), "r"(v[6]), "r"(v[7]), \
  "r"(v[8]), "r"(v[9]), "r"(v[10]), "r"(v[11]), "r"(v[12]), "r"(v[13]), "r"(v[14]), "r"(v[15])

__global__ void tmem_round_trip(const uint32_t* in, uint32_t* out) {
  __shared__ uint32_t tmem_base;
  const uint32_t w = threadIdx.x / 32;
  if (w == 0) { tmem_alloc(&tmem_base, 32); tmem_relinquish(); }
  fence_before();
  __syncthreads();
  fence_after();
  const uint32_t base = tmem_base + ((32 * w) << 16);
  uint32_t v[16], r[16];
  for (int i = 0; i < 16; ++i) v[i] = in[threadIdx.x * 16 + i];
  asm volatile("tcgen05.st.sync.aligned.32x32b.x16.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, "
               "%13, %14, %15, %16};" :: "r"(base), VALS16(v));
  wait_st();
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, "
               "%14, %15}, [%16];" : REGS16(r) : "r"(base));
  wait_ld();
  for (int i = 0; i < 16; ++i) out[threadIdx.x * 16 + i] = r[i];
  asm volatile("tcgen05.ld.sync.aligned.16x256b.x1.pack::16b.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(base));
  wait_ld();
  for (int i = 0; i < 4; ++i) out[128 * 16 + threadIdx.x * 4 + i] = r[i];
  fence_before();
  __syncthreads();
  if (w == 0) tmem_dealloc(tmem_base, 32);
}
