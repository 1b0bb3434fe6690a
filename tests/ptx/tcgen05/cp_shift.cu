// tcgen05.cp.cta_group::1.128x256b (128 rows x 32 B, no swizzle: row r's chunk c at (r/8)*128 + (r%8)*16
// + c*2048) into columns 0..7, then tcgen05.shift.cta_group::1.down on lanes 0..31, then every warp
// reads its lanes back. Launch: 1 block of 128 threads. out: 128 x 8 words.
#include "tcgen05_common.cuh"

__global__ void cp_shift(const uint8_t* src, uint32_t* out) {
  __shared__ alignas(1024) uint8_t s[128 * 32];
  __shared__ uint32_t tmem_base;
  __shared__ uint64_t bar[2];  // one per phase: a waiter that misses two phase flips of one barrier would hang
  const uint32_t w = threadIdx.x / 32;
  copy_to_smem(s, src, sizeof(s));
  fence_proxy_async();
  if (w == 0) { tmem_alloc(&tmem_base, 32); tmem_relinquish(); }
  if (threadIdx.x == 32) { mbar_init(&bar[0], 1); mbar_init(&bar[1], 1); }
  fence_before();
  __syncthreads();
  fence_after();
  if (threadIdx.x == 0) {  // cp -> shift is not a pipelined pair (9.7.16.6): complete the cp first
    asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;" :: "r"(tmem_base), "l"(smem_desc(smem_u32(s), 2048, 128, 0)));
    commit(&bar[0]);
    mbar_wait(&bar[0], 0);
    fence_after();
    asm volatile("tcgen05.shift.cta_group::1.down [%0];" :: "r"(tmem_base));
    commit(&bar[1]);
  }
  mbar_wait(&bar[1], 0);
  fence_after();
  tmem_to_global(tmem_base, out, 8);
  fence_before();
  __syncthreads();
  if (w == 0) tmem_dealloc(tmem_base, 32);
}
