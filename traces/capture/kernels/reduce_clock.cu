// A block reduction with clock stamps (traces/capture/reduce_clock.py; warpsim.timing.reduce_clock): the kind of
// kernel a user steps through, not a microbenchmark. One CTA of W warps; each thread makes N values from its
// index (an integer hash, I2F), sums them with FMA, the warp sums its lanes with five shfl.sync.bfly, lane 0 puts
// the warp's sum in shared memory, bar.sync, warp 0 reads the W sums, sums them with shfl.sync.down and stores
// the CTA's sum. Lane 0 of each warp reads %clock64 at entry (P0), after its own sum (P1), after the warp's (P2),
// after the bar.sync and warp 0's reads of the sums (P3, warp 0; the others right after the bar.sync) and at the
// end (P4), and stores them to T[warp][5].
#define STAMPS 5

#include "clock_mma.cuh"

template <int N>
__device__ __forceinline__ void reduce(const unsigned *in, float *out, long long *T)
{
    __shared__ float part[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    long long t[STAMPS];
    t[0] = clock_read();
    unsigned h = threadIdx.x * 0x9E3779B9u ^ in[lane];
    float acc = 0.f;
#pragma unroll
    for (int i = 0; i < N; ++i) {
        h = (h ^ (h >> 13)) * 0x5bd1e995u + i;
        acc = fmaf(acc, 0.999f, (float)(h >> 8) * 0x1p-24f);
    }
    t[1] = clock_read();
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, m);
    t[2] = clock_read();
    if (lane == 0) part[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        float s = lane < warps ? part[lane] : 0.f;
#pragma unroll
        for (int m = 16; m > 0; m >>= 1) s += __shfl_down_sync(0xffffffffu, s, m);
        t[3] = clock_read();
        if (lane == 0) out[blockIdx.x] = s;
    } else {
        t[3] = clock_read();
    }
    t[4] = clock_read();
    if (lane == 0) {
#pragma unroll
        for (int k = 0; k < STAMPS; ++k) T[(blockIdx.x * warps + warp) * STAMPS + k] = t[k];
    }
}

#define REDUCE(NAME, N)                                                                               \
    extern "C" __global__ void NAME(const unsigned *in, float *out, long long *T) { reduce<N>(in, out, T); }

REDUCE(reduce_n8, 8)
REDUCE(reduce_n32, 32)
