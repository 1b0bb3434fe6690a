// The two warps of the scheduler microbenchmarks (sched_probe.cu, sched_gap.cu): warp 0 (the hog) times hog_n
// trips of HOG; warp 4 (the probe, the same sub-partition: warp id mod 4), after sleeping delay_ns, reads
// %clock64 after each of 16 steps of 4 LOP3 (chain 1: dependent, 2: independent; ptxas predicates both paths into
// one sequence, so every step issues the same instructions). Warps 1-3 do nothing. Expects the kernel's out,
// hog_n, delay_ns, chain, w (warp id), y, z and x0..x3 in scope. -DHOG_WARP=4 -DPROBE_WARP=0 swaps the two warps'
// ages (traces/capture/age_swap.py); each writes its row of out (out + 64 x its warp id).
#ifndef HOG_WARP
#define HOG_WARP 0
#endif
#ifndef PROBE_WARP
#define PROBE_WARP 4
#endif
#define L(r) asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(r) : "r"(y), "r"(z))
#define SCHED_WARPS(HOG) \
  long long* o = out + w * 64; \
  if (w == HOG_WARP) { \
    long long t0 = clock64(); \
    for (int r = 0; r < hog_n; ++r) { HOG; } \
    long long t1 = clock64(); \
    o[0] = t0; o[1] = t1; \
  } else if (w == PROBE_WARP && chain > 0) { \
    long long t0 = clock64(); \
    __nanosleep(delay_ns); \
    long long s[17]; \
    s[0] = clock64(); \
    _Pragma("unroll") \
    for (int k = 0; k < 16; ++k) { \
      if (chain == 1) { L(x0); L(x0); L(x0); L(x0); } \
      else { L(x0); L(x1); L(x2); L(x3); } \
      s[k + 1] = clock64(); \
    } \
    o[0] = t0; \
    for (int k = 0; k < 17; ++k) o[2 + k] = s[k]; \
  }
