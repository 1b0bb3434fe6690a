// Timing of queued tcgen05.mma on the timed engine: thread 0 reads %clock64, issues ``count`` back-to-back
// tcgen05.mma.cta_group::1.kind::f16 (M 128, N = ``n``, A and B from shared memory, one accumulator), commits
// to an mbarrier, waits for it and reads %clock64 again: out[0] = cycles from before the first MMA to the wait
// seeing the phase complete. Launch: 1 block of 32 threads (tests/test_tcgen05_timing.py).
#include "tcgen05_common.cuh"

__global__ void timing_mma(unsigned long long* out, uint32_t n, uint32_t count) {
  __shared__ alignas(1024) uint8_t sa[128 * 32];
  __shared__ alignas(1024) uint8_t sb[256 * 32];
  __shared__ uint32_t tmem_base;
  __shared__ uint64_t bar;
  for (uint32_t i = threadIdx.x * 16; i < sizeof(sa); i += 32 * 16) *reinterpret_cast<uint4*>(sa + i) = make_uint4(0, 0, 0, 0);
  for (uint32_t i = threadIdx.x * 16; i < sizeof(sb); i += 32 * 16) *reinterpret_cast<uint4*>(sb + i) = make_uint4(0, 0, 0, 0);
  fence_proxy_async();
  tmem_alloc(&tmem_base, 256);
  if (threadIdx.x == 0) mbar_init(&bar, 1);
  const uint32_t tm = tmem_base;
  unsigned long long t0 = 0;
  if (threadIdx.x == 0) {
    const uint32_t idesc = (1u << 4) | ((n >> 3) << 17) | ((128u >> 4) << 24);
    const uint64_t ad = smem_desc(smem_u32(sa), 128 * 16, 128, 0), bd = smem_desc(smem_u32(sb), 256 * 16, 128, 0);
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0) :: "memory");
    for (uint32_t i = 0; i < count; ++i)
      asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n"
                   " tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}"
                   :: "r"(tm), "l"(ad), "l"(bd), "r"(idesc), "r"(i) : "memory");
    commit(&bar);
  }
  mbar_wait(&bar, 0);
  fence_after();
  if (threadIdx.x == 0) {
    unsigned long long t1;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1) :: "memory");
    out[0] = t1 - t0;
  }
  tmem_dealloc(tm, 256);
}
