// Misuse of Tensor Memory and of tcgen05 ordering, one kernel, the misuse chosen at run time by ``mode``
// (tests/test_tcgen05_misuse.py). Mode 0 is the correct program: D[128 x 64] (f32) = A[128 x 16] * B[16 x 64]
// (f16, K-major, no swizzle), as mma_f16.cu. Launch: 1 block of 128 threads.
//   1 allocate beyond the 512 columns   2 dealloc a wrong size        3 warp 1 reads warp 0's lane quarter
//   4 read D with no commit             5 commit, read D, no wait     6 wait, read D, no fence::after_thread_sync
//   7 exit with TMEM allocated          8 a second MMA of another shape on the same columns, unfinished
//   9 tcgen05.st over D while the MMA may still write it              10 dealloc before the MMA is known complete
//   11 tcgen05.ld right after tcgen05.st of the same cells without wait::st
//   12 no fence.proxy.async between the stores of A and B to shared memory and the MMA that reads them
#include "tcgen05_common.cuh"

__device__ __forceinline__ void mma_f16_128xN(uint32_t d, uint64_t ad, uint64_t bd, uint32_t n, uint32_t acc) {
  const uint32_t idesc = (1u << 4) | ((n >> 3) << 17) | ((128u >> 4) << 24);  // D f32, A/B f16, N, M 128
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n"
               " tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}"
               :: "r"(d), "l"(ad), "l"(bd), "r"(idesc), "r"(acc));
}

__global__ void misuse(const uint8_t* a, const uint8_t* b, float* out, uint32_t mode) {
  __shared__ alignas(1024) uint8_t sa[128 * 32];
  __shared__ alignas(1024) uint8_t sb[64 * 32];
  __shared__ uint32_t tmem_base, extra;
  __shared__ uint64_t bar;
  const uint32_t w = threadIdx.x / 32;
  copy_to_smem(sa, a, sizeof(sa));
  copy_to_smem(sb, b, sizeof(sb));
  if (mode != 12) fence_proxy_async();
  if (w == 0) {
    tmem_alloc(&tmem_base, mode == 1 ? 512 : 128);
    if (mode == 1) tmem_alloc(&extra, 32);  // nothing left: the allocation can never be satisfied
  }
  if (threadIdx.x == 32) mbar_init(&bar, 1);
  fence_before();
  __syncthreads();
  fence_after();
  const uint32_t tm = tmem_base;
  if (mode == 3 && w == 1) {  // warp 1 may only reach lanes 32..63
    uint32_t r;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(r) : "r"(tm));
    wait_ld();
    out[threadIdx.x] = __uint_as_float(r);
  }
  const uint64_t ad = smem_desc(smem_u32(sa), 128 * 16, 128, 0), bd = smem_desc(smem_u32(sb), 128 * 8, 128, 0);
  if (threadIdx.x == 0) {
    mma_f16_128xN(tm, ad, bd, 64, 0);
    if (mode == 8) mma_f16_128xN(tm, ad, bd, 32, 1);  // same columns, another N: not a pipelined pair
    if (mode != 4) commit(&bar);
  }
  if (mode == 9) {  // every warp overwrites its lanes of D column 0 while the MMA is in flight
    const uint32_t zero = 0;
    asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" :: "r"(tm + ((32 * w) << 16)), "r"(zero));
    wait_st();
  }
  if (mode == 11) {  // st then ld of the same cells, no wait::st in between
    const uint32_t v = threadIdx.x;
    uint32_t r;
    asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" :: "r"(tm + 100 + ((32 * w) << 16)), "r"(v));
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(r) : "r"(tm + 100 + ((32 * w) << 16)));
    wait_ld();
    wait_st();
    out[threadIdx.x] = __uint_as_float(r);
  }
  if (mode == 10) {
    fence_before();
    __syncthreads();
    if (w == 0) tmem_dealloc(tm, 128);
    return;
  }
  if (mode == 4 || mode == 5) {
    fence_before();
    __syncthreads();
    fence_after();
  } else {
    mbar_wait(&bar, 0);
    if (mode != 6) fence_after();
  }
  tmem_to_global(tm, reinterpret_cast<uint32_t*>(out), 64);
  fence_before();
  __syncthreads();
  if (w == 0 && mode != 7) tmem_dealloc(tm, mode == 2 ? 64 : 128);
}
