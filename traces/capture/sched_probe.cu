// Warp-scheduler microbenchmark (traces/capture/sched_probe.py drives it): does a warp that keeps the ALU pipe
// busy (independent LOP3, one every 2 cycles, ptxas's yield flag on every sixth) let another warp of its
// sub-partition (warp 4 beside warp 0: sub-partition = warp id mod 4) issue ALU instructions, and how often?
// Warp 0 (the hog) times hog_n x 64 LOP3; warp 4 (the probe), after sleeping delay_ns, reads %clock64 after
// each of 16 steps of 4 LOP3 (chain 1: dependent, 2: independent; ptxas predicates both paths into one
// sequence, so every step issues the same instructions). Warps 1-3 do nothing.
#define L(r) asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(r) : "r"(y), "r"(z))
#define L8 L(x0); L(x1); L(x2); L(x3); L(x4); L(x5); L(x6); L(x7)
#define L64 L8; L8; L8; L8; L8; L8; L8; L8
extern "C" __global__ void probe(long long* out, unsigned* sink, int hog_n, int delay_ns, int chain) {
  int w = threadIdx.x >> 5;
  unsigned y = threadIdx.x * 3 + 1, z = threadIdx.x ^ 0x55;
  unsigned x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6,
           x7 = x0 + 7;
  long long* o = out + w * 64;
  if (w == 0) {
    long long t0 = clock64();
    for (int r = 0; r < hog_n; ++r) { L64; }
    long long t1 = clock64();
    o[0] = t0; o[1] = t1;
  } else if (w == 4 && chain > 0) {
    long long t0 = clock64();
    __nanosleep(delay_ns);
    long long s[17];
    s[0] = clock64();
    #pragma unroll
    for (int k = 0; k < 16; ++k) {
      if (chain == 1) { L(x0); L(x0); L(x0); L(x0); }
      else { L(x0); L(x1); L(x2); L(x3); }
      s[k + 1] = clock64();
    }
    o[0] = t0;
    for (int k = 0; k < 17; ++k) o[2 + k] = s[k];
  }
  sink[threadIdx.x] = x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6 ^ x7;
}
