// Warp-scheduler microbenchmark, the turn taken in a stall (traces/capture/sched_gap.py drives it): warp 0 (the
// hog) issues independent FFMA, one a cycle to the FMA pipes, ptxas's yield flag on some; warp 4 (the probe, the
// same sub-partition) times its steps of LOP3 on the ALU as in sched_probe.cu (sched_warps.cuh). The two warps
// want different pipes: the probe is slowed only if the hog's FFMA, issued while the probe waits out a stall
// count, takes the sub-partition's turn from it and keeps it to the hog's next yield. Warps 1-3 do nothing.
#ifdef HOG_IMAD  // the hog on the FMA-heavy pipe alone (IMAD), as the s4 routines' fillers: -DHOG_IMAD
#define F(r) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(r) : "r"(y), "r"(z))
#define HOG_T unsigned
#define HOG_BITS(v) (v)
#else
#define F(r) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(r) : "f"(fy), "f"(fz))
#define HOG_T float
#define HOG_BITS(v) __float_as_uint(v)
#endif
#define F8 F(f0); F(f1); F(f2); F(f3); F(f4); F(f5); F(f6); F(f7)
#define F64 F8; F8; F8; F8; F8; F8; F8; F8
#include "sched_warps.cuh"
extern "C" __global__ void gap(long long* out, unsigned* sink, int hog_n, int delay_ns, int chain) {
  int w = threadIdx.x >> 5;
  unsigned y = threadIdx.x * 3 + 1, z = threadIdx.x ^ 0x55;
#ifndef HOG_IMAD
  float fy = 1.0f + threadIdx.x * 1e-7f, fz = 1e-9f * threadIdx.x;
#endif
  unsigned x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;
  HOG_T f0 = x0, f1 = f0 + 1, f2 = f0 + 2, f3 = f0 + 3, f4 = f0 + 4, f5 = f0 + 5, f6 = f0 + 6, f7 = f0 + 7;
  SCHED_WARPS(F64)
  sink[threadIdx.x] = x0 ^ x1 ^ x2 ^ x3 ^ HOG_BITS(f0 + f1 + f2 + f3 + f4 + f5 + f6 + f7);
}
