// Which warps' loads of the same lines share the L1's fill (traces/capture/l1_merge.py; warpsim.timing.l1_merge).
//
// Every warp of one CTA issues N independent 4-byte global loads, each request spread over P lines (P = 1: the
// warp's 128 bytes in one line; 8: 16 bytes in each of 8; 32: 4 bytes in each of 32), from the lines of group
// warp % G (G, a kernel argument: the CTA's warp count gives every warp lines of its own, 1 gives every warp
// the same lines, 4 the warps of a sub-partition the same), and stores %clock64 before and after; the second
// clock waits for the data (a branch on the loads' xor), as in gmem_rate.cu.
#define ROW 256  // bytes between the lines of one request

template <int N, int P>
__device__ __forceinline__ void l1_merge(const unsigned *buf, long long *T, unsigned *sink, int groups)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned per = 32 / P;  // lanes a line
    const int owner = warp % groups;
    const unsigned *b = buf + (owner * 32 * 32 * ROW + (lane / per) * ROW) / 4 + lane % per;
    unsigned acc = 0;
    const long long t0 = clock64();
#pragma unroll
    for (int j = 0; j < N; ++j) acc ^= b[j * P * ROW / 4];
    if (acc == 0x9e3779b9u) sink[threadIdx.x] = acc;
    const long long t1 = clock64();
    if (lane == 0) {
        T[2 * warp] = t0;
        T[2 * warp + 1] = t1;
    }
}

#define L1_MERGE(N, P)                                                                                  \
    extern "C" __global__ void l1_merge_n##N##_p##P(const unsigned *buf, long long *T, unsigned *sink, \
                                                    int groups)                                        \
    {                                                                                                   \
        l1_merge<N, P>(buf, T, sink, groups);                                                           \
    }

L1_MERGE(1, 1)
L1_MERGE(4, 1)
L1_MERGE(16, 1)
L1_MERGE(1, 8)
L1_MERGE(4, 8)
L1_MERGE(16, 8)
L1_MERGE(1, 32)
L1_MERGE(4, 32)
L1_MERGE(16, 32)
