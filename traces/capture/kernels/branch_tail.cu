// What a loop's taken branch costs after a tail of work (traces/capture/branch_tail.py;
// warpsim.timing.branch_tail): one trip first (the operands' loads), then the clock, TRIPS trips and the clock
// again. A trip: K sparse m16n8k16 f32 mma, each on the last one's accumulator (the next trip's first on the
// last one's); t = %clock (it waits for no mma); T dependent integer multiply-adds on it (y = y * y + t, which
// ptxas cannot fold or hoist above the clock read); the loop's count, compare and branch. The kernel writes the
// two clocks' difference, three times (the (least, greatest, sum) layout of clock_read's kernels). The operands
// are the kernel's arguments (their values do not matter); the metadata is 0x44444444 (indices 0 and 1).
#define TRIPS 32

#include "clock_mma.cuh"

template <int K, int T>
__device__ __forceinline__ void trip(float *d, const unsigned *a, const unsigned *b, unsigned &y)
{
#pragma unroll
    for (int k = 0; k < K; ++k) mma_sp_k16(d, a, b, 0x44444444u);
    unsigned t;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(t)::"memory");
#pragma unroll
    for (int u = 0; u < T; ++u) asm volatile("mad.lo.u32 %0, %0, %0, %1;" : "+r"(y) : "r"(t));
}

template <int K, int T>
__device__ __forceinline__ void branch_tail(const unsigned *in, long long *out, float *sink)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned a[2], b[2], y = lane;
    for (int i = 0; i < 2; ++i) {
        a[i] = in[lane * 8 + i];
        b[i] = in[lane * 8 + 4 + i];
    }
    float d[4] = {0.f, 0.f, 0.f, 0.f};
    trip<K, T>(d, a, b, y);
    const long long t0 = clock_read();
#pragma unroll 1
    for (int n = 0; n < TRIPS; ++n) trip<K, T>(d, a, b, y);
    const long long t1 = clock_read();
    if (lane == 0) {
        out[3 * warp] = t1 - t0;
        out[3 * warp + 1] = t1 - t0;
        out[3 * warp + 2] = t1 - t0;
    }
    sink[threadIdx.x] = d[0] + d[1] + d[2] + d[3] + (float)(y & 1);
}

#define BRANCH_TAIL(K, T)                                                                             \
    extern "C" __global__ void branch_tail_k##K##_t##T(const unsigned *in, long long *out, float *sink) \
    {                                                                                                 \
        branch_tail<K, T>(in, out, sink);                                                             \
    }

BRANCH_TAIL(1, 0)
BRANCH_TAIL(1, 1)
BRANCH_TAIL(1, 2)
BRANCH_TAIL(1, 3)
BRANCH_TAIL(1, 4)
BRANCH_TAIL(1, 6)
BRANCH_TAIL(1, 8)
BRANCH_TAIL(1, 12)
BRANCH_TAIL(8, 0)
BRANCH_TAIL(8, 1)
BRANCH_TAIL(8, 2)
BRANCH_TAIL(8, 3)
BRANCH_TAIL(8, 4)
BRANCH_TAIL(8, 6)
BRANCH_TAIL(8, 8)
BRANCH_TAIL(8, 12)
