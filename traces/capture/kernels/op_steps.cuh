// What op_latency.cu and op_fused.cu share: a warp's operand words and the chain and stream kernels' bodies
// (each warp runs TRIPS trips of: t0 = %clock64; the steps; t1 = %clock64, kept by Trips).
#pragma once

#include "clock_trips.cuh"

struct Words {
    unsigned y, z, u, v;
    float fy, fz;
};

__device__ __forceinline__ Words words(const unsigned *in)
{
    const int lane = threadIdx.x & 31;
    Words w;
    w.y = in[lane] | 1u;
    w.z = in[32 + lane];
    w.u = in[96 + lane];
    w.v = in[128 + lane];
    w.fy = __uint_as_float(0x3f7ff000u | (w.y & 0xfu)); // just under 1: the fma chains stay finite
    w.fz = __uint_as_float(0x3c000000u | (w.z & 0xfu));
    return w;
}

// the kernel's start value of a chain: its argument word as the type the steps take
__device__ __forceinline__ void start(unsigned &x, unsigned word) { x = word; }
__device__ __forceinline__ void start(float &x, unsigned word) { x = __uint_as_float(word); }
__device__ __forceinline__ unsigned bits(unsigned x) { return x; }
__device__ __forceinline__ unsigned bits(float x) { return __float_as_uint(x); }
__device__ __forceinline__ void start(unsigned long long &x, unsigned word) { x = word * 0x100000001ull; }
__device__ __forceinline__ unsigned bits(unsigned long long x) { return (unsigned)x ^ (unsigned)(x >> 32); }

template <class V, class Op, int N>
__device__ __forceinline__ void chain(const unsigned *in, long long *T, unsigned *sink)
{
    const Words w = words(in);
    V x;
    start(x, in[64 + (threadIdx.x & 31)]);
    Trips trips;
#pragma unroll 1
    for (int trip = 0; trip < TRIPS; ++trip) {
        const long long t0 = clock_read();
#pragma unroll
        for (int s = 0; s < N; ++s) Op::step(x, w);
        trips.count(trip, t0, clock_read());
    }
    trips.keep(T);
    sink[threadIdx.x] = bits(x);
}

template <class V, class Op>
__device__ __forceinline__ void stream(const unsigned *in, long long *T, unsigned *sink)
{
    const Words w = words(in);
    V x[WAYS];
#pragma unroll
    for (int k = 0; k < WAYS; ++k) start(x[k], in[64 + (threadIdx.x & 31)] + k);
    Trips trips;
#pragma unroll 1
    for (int trip = 0; trip < TRIPS; ++trip) {
        const long long t0 = clock_read();
#pragma unroll
        for (int s = 0; s < STEPS; ++s)
#pragma unroll
            for (int k = 0; k < WAYS; ++k) Op::step(x[k], w);
        trips.count(trip, t0, clock_read());
    }
    trips.keep(T);
    unsigned all = 0;
#pragma unroll
    for (int k = 0; k < WAYS; ++k) all ^= bits(x[k]);
    sink[threadIdx.x] = all;
}
