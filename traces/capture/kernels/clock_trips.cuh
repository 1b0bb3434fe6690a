// What op_latency.cu and bar_defer.cu share: the clock read (clock_mma.cuh) and a warp's record of its trips.
#pragma once

#include "clock_mma.cuh"

// a warp's trips: the least, the greatest and the sum of t1 - t0 over the trips after the first, the t0 of the
// second trip and the t1 of the last
struct Trips {
    long long lo = 1LL << 40, hi = 0, sum = 0, begin = 0, end = 0;

    __device__ __forceinline__ void count(int trip, long long t0, long long t1)
    {
        if (trip > 0) {
            const long long dt = t1 - t0;
            lo = dt < lo ? dt : lo;
            hi = dt > hi ? dt : hi;
            sum += dt;
            begin = trip == 1 ? t0 : begin;
            end = t1;
        }
    }

    __device__ __forceinline__ void keep(long long *T) const
    {
        const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        if (lane == 0) {
            T[5 * warp] = lo;
            T[5 * warp + 1] = hi;
            T[5 * warp + 2] = sum;
            T[5 * warp + 3] = begin;
            T[5 * warp + 4] = end;
        }
    }
};
