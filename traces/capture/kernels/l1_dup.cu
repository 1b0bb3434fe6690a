// Whether a warp's requests for sectors it is already fetching are fetched again (traces/capture/l1_dup.py;
// warpsim.timing.l1_dup).
//
// Every warp of one CTA issues N independent 4-byte global loads, each request spread over P lines (P = 1: the
// warp's 128 bytes in one line; 8: 16 bytes of one sector in each of 8; 32: 4 bytes in each of 32), from lines of
// its own, and stores %clock64 before and after; the second clock waits for the data (a branch on the loads'
// xor), as in l1_merge.cu. MODE says where request j goes: 0 (distinct) lines of its own, P * ROW * j bytes on;
// 1 (same) the same words as request 0; 2 (sector) the same lines, sector j % 4; with the suffix _r128 the lines
// of a request are side by side (128 bytes apart, not 256). MODE 3 (record, P 10) is the recorded timing kernels'
// pattern: each lane a record of 10 words, 40 bytes on from the last lane's (10 lines side by side a request),
// request j its word j; MODE 4 (record_same) every request word 0. Each offset has j times the kernel argument
// `zero` (0) added, so no compiler can fold two loads of the same words into one.
#define ROW 256  // bytes between the lines of one request (the _r128 kernels: 128, the lines side by side)

template <int N, int P, int MODE, int RB>
__device__ __forceinline__ void l1_dup(const unsigned *buf, long long *T, unsigned *sink, int zero)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned per = 32 / P;  // lanes a line
    const unsigned *b = MODE >= 3 ? buf + (warp * 32 * 32 * ROW + lane * 40) / 4
                                  : buf + (warp * 32 * 32 * ROW + (lane / per) * RB) / 4 + lane % per;
    unsigned acc = 0;
    const long long t0 = clock64();
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const int off = MODE == 0 ? j * P * RB / 4 : MODE == 1 || MODE == 4 ? 0 : MODE == 2 ? (j % 4) * 8 : j;
        acc ^= b[off + j * zero];
    }
    if (acc == 0x9e3779b9u) sink[threadIdx.x] = acc;
    const long long t1 = clock64();
    if (lane == 0) {
        T[2 * warp] = t0;
        T[2 * warp + 1] = t1;
    }
}

#define L1_DUP(NAME, N, P, MODE, RB, SUFFIX)                                                             \
    extern "C" __global__ void l1_dup_##NAME##_n##N##_p##P##SUFFIX(const unsigned *buf, long long *T,    \
                                                                   unsigned *sink, int zero)             \
    {                                                                                                    \
        l1_dup<N, P, MODE, RB>(buf, T, sink, zero);                                                      \
    }

#define L1_DUP_N(NAME, P, MODE, RB, SUFFIX) \
    L1_DUP(NAME, 1, P, MODE, RB, SUFFIX)    \
    L1_DUP(NAME, 2, P, MODE, RB, SUFFIX)    \
    L1_DUP(NAME, 4, P, MODE, RB, SUFFIX)    \
    L1_DUP(NAME, 8, P, MODE, RB, SUFFIX)    \
    L1_DUP(NAME, 16, P, MODE, RB, SUFFIX)

L1_DUP_N(distinct, 1, 0, ROW, )
L1_DUP_N(distinct, 8, 0, ROW, )
L1_DUP_N(distinct, 32, 0, ROW, )
L1_DUP_N(same, 1, 1, ROW, )
L1_DUP_N(same, 8, 1, ROW, )
L1_DUP_N(same, 32, 1, ROW, )
L1_DUP_N(sector, 8, 2, ROW, )
L1_DUP_N(sector, 32, 2, ROW, )
L1_DUP_N(distinct, 8, 0, 128, _r128)
L1_DUP_N(distinct, 32, 0, 128, _r128)
L1_DUP_N(same, 8, 1, 128, _r128)
L1_DUP_N(same, 32, 1, 128, _r128)
L1_DUP(record, 1, 10, 3, 0, )
L1_DUP(record, 2, 10, 3, 0, )
L1_DUP(record, 4, 10, 3, 0, )
L1_DUP(record, 8, 10, 3, 0, )
L1_DUP(record_same, 2, 10, 4, 0, )
L1_DUP(record_same, 4, 10, 4, 0, )
L1_DUP(record_same, 8, 10, 4, 0, )

// S sectors of each of 8 lines side by side a request (4 lanes a line, lane k of a line in sector k * S / 4):
// MODE 0 (distinct) each request other lines, 1 (same) every request the same words, 5 (shared) the same words
// as request 0 of every warp (warp 0's lines).
template <int N, int S, int MODE>
__device__ __forceinline__ void l1_dup_s(const unsigned *buf, long long *T, unsigned *sink, int zero)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int k = lane & 3;
    const unsigned *b = buf + ((MODE == 5 ? 0 : warp * 32 * 32 * ROW) + (lane >> 2) * 128 + (k * S / 4) * 32 + k * 4) / 4;
    unsigned acc = 0;
    const long long t0 = clock64();
#pragma unroll
    for (int j = 0; j < N; ++j) acc ^= b[(MODE == 0 ? j * 8 * 128 / 4 : 0) + j * zero];
    if (acc == 0x9e3779b9u) sink[threadIdx.x] = acc;
    const long long t1 = clock64();
    if (lane == 0) {
        T[2 * warp] = t0;
        T[2 * warp + 1] = t1;
    }
}

#define L1_DUP_S(NAME, N, S, MODE)                                                                         \
    extern "C" __global__ void l1_dup_s##S##_##NAME##_n##N(const unsigned *buf, long long *T, unsigned *sink, \
                                                          int zero)                                       \
    {                                                                                                     \
        l1_dup_s<N, S, MODE>(buf, T, sink, zero);                                                         \
    }

#define L1_DUP_S_N(NAME, S, MODE) \
    L1_DUP_S(NAME, 1, S, MODE)    \
    L1_DUP_S(NAME, 2, S, MODE)    \
    L1_DUP_S(NAME, 4, S, MODE)    \
    L1_DUP_S(NAME, 8, S, MODE)

L1_DUP_S_N(distinct, 1, 0)
L1_DUP_S_N(distinct, 2, 0)
L1_DUP_S_N(distinct, 3, 0)
L1_DUP_S_N(distinct, 4, 0)
L1_DUP_S_N(same, 1, 1)
L1_DUP_S_N(same, 2, 1)
L1_DUP_S_N(same, 3, 1)
L1_DUP_S_N(same, 4, 1)
L1_DUP_S_N(shared, 1, 5)
L1_DUP_S_N(shared, 2, 5)
L1_DUP_S_N(shared, 3, 5)
L1_DUP_S_N(shared, 4, 5)

// Lane l at B * l bytes (B = 32..128: the warp's words side by side in 8-32 lines, one lane a sector at most):
// MODE 0 (distinct) each request 4 KB on, 1 (same) every request the same words.
template <int N, int B, int MODE>
__device__ __forceinline__ void l1_dup_stride(const unsigned *buf, long long *T, unsigned *sink, int zero)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned *b = buf + (warp * 32 * 32 * ROW + lane * B) / 4;
    unsigned acc = 0;
    const long long t0 = clock64();
#pragma unroll
    for (int j = 0; j < N; ++j) acc ^= b[(MODE == 0 ? j * 1024 : 0) + j * zero];
    if (acc == 0x9e3779b9u) sink[threadIdx.x] = acc;
    const long long t1 = clock64();
    if (lane == 0) {
        T[2 * warp] = t0;
        T[2 * warp + 1] = t1;
    }
}

#define L1_DUP_B(NAME, N, B, MODE)                                                                          \
    extern "C" __global__ void l1_dup_b##B##_##NAME##_n##N(const unsigned *buf, long long *T, unsigned *sink, \
                                                          int zero)                                        \
    {                                                                                                      \
        l1_dup_stride<N, B, MODE>(buf, T, sink, zero);                                                     \
    }

#define L1_DUP_B_N(B)              \
    L1_DUP_B(distinct, 1, B, 0)    \
    L1_DUP_B(distinct, 2, B, 0)    \
    L1_DUP_B(distinct, 8, B, 0)    \
    L1_DUP_B(same, 2, B, 1)        \
    L1_DUP_B(same, 8, B, 1)

L1_DUP_B_N(32)
L1_DUP_B_N(36)
L1_DUP_B_N(40)
L1_DUP_B_N(44)
L1_DUP_B_N(48)
L1_DUP_B_N(64)
L1_DUP_B_N(128)
