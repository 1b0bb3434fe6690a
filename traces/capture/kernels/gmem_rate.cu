// The SM's global-memory path under load (traces/capture/gmem_rate.py; warpsim.timing.gmem_rate): every warp of
// one CTA issues 32 independent 4-byte global loads or stores, each request spread over P lines (P = 1: the warp's
// 128 bytes in one line, 4 sectors; P = 8: 16 bytes in each of 8 lines; P = 32: 4 bytes in each of 32 lines),
// its own addresses (``pair``: warps 2k and 2k + 1 load the same ones, as the GEMM's warps load their A rows),
// and stores %clock64 before and after. After loads the second clock waits for their data (a
// branch on their xor); after stores it reads when the last store has issued. ``hit`` loads the same lines twice
// and times the second pass (L1 hits).
#define ROW 256  // bytes between the lines of one request

template <int P, int OP>  // OP 0: load (L2), 1: store, 2: load twice, the second timed, 3: load (L2) in pairs
__device__ __forceinline__ void gmem_rate(unsigned *buf, long long *T, unsigned *sink)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned per = 32 / P;  // lanes a line
    const int owner = OP == 3 ? warp >> 1 : warp;  // whose lines
    unsigned *b = buf + (owner * 32 * 32 * ROW + (lane / per) * ROW) / 4 + lane % per;
    unsigned acc = 0;
    if (OP == 2) {
#pragma unroll
        for (int j = 0; j < 32; ++j) acc ^= b[j * P * ROW / 4];
        if (acc == 0x9e3779b9u) sink[threadIdx.x] = acc;
    }
    const long long t0 = clock64();
    if (OP == 1) {
#pragma unroll
        for (int j = 0; j < 32; ++j) b[j * P * ROW / 4] = lane + j;
    } else {
#pragma unroll
        for (int j = 0; j < 32; ++j) acc ^= b[j * P * ROW / 4];
        if (acc == 0x9e3779b9u) sink[threadIdx.x] = acc;
    }
    const long long t1 = clock64();
    if (lane == 0) {
        T[2 * warp] = t0;
        T[2 * warp + 1] = t1;
    }
}

#define GMEM_RATE(NAME, P, OP)                                                                    \
    extern "C" __global__ void NAME(unsigned *buf, long long *T, unsigned *sink)                  \
    {                                                                                             \
        gmem_rate<P, OP>(buf, T, sink);                                                           \
    }

GMEM_RATE(gmem_load_p1, 1, 0)
GMEM_RATE(gmem_load_p8, 8, 0)
GMEM_RATE(gmem_load_p32, 32, 0)
GMEM_RATE(gmem_store_p1, 1, 1)
GMEM_RATE(gmem_store_p8, 8, 1)
GMEM_RATE(gmem_store_p32, 32, 1)
GMEM_RATE(gmem_hit_p1, 1, 2)
GMEM_RATE(gmem_hit_p8, 8, 2)
GMEM_RATE(gmem_hit_p32, 32, 2)
GMEM_RATE(gmem_pair_p8, 8, 3)
GMEM_RATE(gmem_pair_p32, 32, 3)
