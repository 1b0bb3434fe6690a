// Warp-scheduler microbenchmark (traces/capture/sched_probe.py drives it): does a warp that keeps the ALU pipe
// busy (independent LOP3, one every 2 cycles, ptxas's yield flag on every sixth) let another warp of its
// sub-partition (warp 4 beside warp 0: sub-partition = warp id mod 4) issue ALU instructions, and how often?
// Warp 0 (the hog) times hog_n x 64 LOP3; warp 4 (the probe) times its steps (sched_warps.cuh).
#include "sched_warps.cuh"
#define L8 L(x0); L(x1); L(x2); L(x3); L(x4); L(x5); L(x6); L(x7)
#define L64 L8; L8; L8; L8; L8; L8; L8; L8
extern "C" __global__ void probe(long long* out, unsigned* sink, int hog_n, int delay_ns, int chain) {
  int w = threadIdx.x >> 5;
  unsigned y = threadIdx.x * 3 + 1, z = threadIdx.x ^ 0x55;
  unsigned x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6,
           x7 = x0 + 7;
  SCHED_WARPS(L64)
  sink[threadIdx.x] = x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6 ^ x7;
}
