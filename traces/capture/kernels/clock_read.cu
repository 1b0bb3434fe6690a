// How long a clock read waits after a tensor op (traces/capture/clock_read.py; warpsim.timing.clock_read): each
// warp runs TRIPS trips of: t0 = %clock64; K mma of one form, each on the last one's accumulator; t1 = %clock64;
// and keeps the least, the greatest and the sum of t1 - t0 over the trips after the first (the first waits for
// the operands' loads), written once at the end. K = 0 is two clock reads back to back. The operands are the
// kernel's arguments (their values do not matter); the sparse forms' metadata is 0x44444444 (indices 0 and 1).
#define TRIPS 33

#include "clock_mma.cuh"

// sparse m16n8k32 f32 (24)
__device__ __forceinline__ void mma_sp_k32(float *d, const unsigned *a, const unsigned *b, unsigned e)
{
    asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, 0;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]),
                   "r"(e));
}

// dense m16n8k16 f32 (24)
__device__ __forceinline__ void mma_k16(float *d, const unsigned *a, const unsigned *b, unsigned)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

template <int K, void (*MMA)(float *, const unsigned *, const unsigned *, unsigned)>
__device__ __forceinline__ void clock_after(const unsigned *in, long long *T, float *sink)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned a[4], b[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        a[i] = in[lane * 8 + i];
        b[i] = in[lane * 8 + 4 + i];
    }
    float d[4] = {0.f, 0.f, 0.f, 0.f};
    long long lo = 1LL << 40, hi = 0, sum = 0;
#pragma unroll 1
    for (int trip = 0; trip < TRIPS; ++trip) {
        const long long t0 = clock_read();
#pragma unroll
        for (int k = 0; k < K; ++k) MMA(d, a, b, 0x44444444u);
        const long long t1 = clock_read();
        if (trip > 0) {
            const long long dt = t1 - t0;
            lo = dt < lo ? dt : lo;
            hi = dt > hi ? dt : hi;
            sum += dt;
        }
    }
    if (lane == 0) {
        T[3 * warp] = lo;
        T[3 * warp + 1] = hi;
        T[3 * warp + 2] = sum;
    }
    sink[threadIdx.x] = d[0] + d[1] + d[2] + d[3];
}

template <int U>
__device__ __forceinline__ void clock_use(long long *T, float *sink)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    long long lo = 1LL << 40, hi = 0, sum = 0, x = lane;
#pragma unroll 1
    for (int trip = 0; trip < TRIPS; ++trip) {
        const long long t0 = clock_read();
        asm volatile("xor.b64 %0, %0, %1;" : "+l"(x) : "l"(t0));
#pragma unroll
        for (int u = 1; u < U; ++u) asm volatile("xor.b64 %0, %0, 1;" : "+l"(x));
        const long long t1 = clock_read();
        if (trip > 0) {
            const long long dt = t1 - t0;
            lo = dt < lo ? dt : lo;
            hi = dt > hi ? dt : hi;
            sum += dt;
        }
    }
    if (lane == 0) {
        T[3 * warp] = lo;
        T[3 * warp + 1] = hi;
        T[3 * warp + 2] = sum;
    }
    sink[threadIdx.x] = (float)(x & 1);
}

#define CLOCK_USE(NAME, U)                                                                            \
    extern "C" __global__ void NAME(const unsigned *, long long *T, float *sink) { clock_use<U>(T, sink); }

CLOCK_USE(clock_use_1, 1)
CLOCK_USE(clock_use_2, 2)

template <int K>
__device__ __forceinline__ void clock_loop(const unsigned *in, long long *T, float *sink)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned a[4], b[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        a[i] = in[lane * 8 + i];
        b[i] = in[lane * 8 + 4 + i];
    }
    float d[4] = {0.f, 0.f, 0.f, 0.f};
    long long lo = 1LL << 40, hi = 0, sum = 0, x = 0, t0 = clock_read();
#pragma unroll 1
    for (int trip = 0; trip < TRIPS; ++trip) {
#pragma unroll
        for (int k = 0; k < K; ++k) mma_sp_k16(d, a, b, 0x44444444u);
        const long long t1 = clock_read();
        x ^= t1;
        if (trip > 0) {
            const long long dt = t1 - t0;
            lo = dt < lo ? dt : lo;
            hi = dt > hi ? dt : hi;
            sum += dt;
        }
        t0 = t1;
    }
    if (lane == 0) {
        T[3 * warp] = lo;
        T[3 * warp + 1] = hi;
        T[3 * warp + 2] = sum;
    }
    sink[threadIdx.x] = d[0] + d[1] + d[2] + d[3] + (float)(x & 1);
}

#define CLOCK_LOOP(NAME, K)                                                                           \
    extern "C" __global__ void NAME(const unsigned *in, long long *T, float *sink) { clock_loop<K>(in, T, sink); }

CLOCK_LOOP(clock_loop_0, 0)
CLOCK_LOOP(clock_loop_sp_k16_1, 1)
CLOCK_LOOP(clock_loop_sp_k16_8, 8)

#define CLOCK_AFTER(NAME, K, MMA)                                                                     \
    extern "C" __global__ void NAME(const unsigned *in, long long *T, float *sink)                    \
    {                                                                                                 \
        clock_after<K, MMA>(in, T, sink);                                                             \
    }

CLOCK_AFTER(clock_none, 0, mma_sp_k16)
CLOCK_AFTER(clock_sp_k16_1, 1, mma_sp_k16)
CLOCK_AFTER(clock_sp_k16_2, 2, mma_sp_k16)
CLOCK_AFTER(clock_sp_k16_4, 4, mma_sp_k16)
CLOCK_AFTER(clock_sp_k32_1, 1, mma_sp_k32)
CLOCK_AFTER(clock_sp_k32_2, 2, mma_sp_k32)
CLOCK_AFTER(clock_sp_k32_4, 4, mma_sp_k32)
CLOCK_AFTER(clock_k16_1, 1, mma_k16)
CLOCK_AFTER(clock_k16_2, 2, mma_k16)
CLOCK_AFTER(clock_k16_4, 4, mma_k16)
