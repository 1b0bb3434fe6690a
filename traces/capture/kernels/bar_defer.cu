// What a warp may issue after bar.sync before the barrier releases it (traces/capture/bar_defer.py;
// warpsim.timing.bar_defer): ptxas makes bar.sync a BAR.SYNC.DEFER_BLOCKING. Each trip, warp w first runs
// w x SKEW dependent mad.lo.u32 (so the CTA's warps arrive SKEW x ~4 cycles apart, warp 0 first), then
// t0 = %clock64; bar.sync 0; one kind of work; t1 = %clock64. A warp keeps the least, the greatest and the sum of
// t1 - t0 over the trips after the first, and the clocks its second trip starts and its last ends (Trips). If
// the barrier holds the warp at the bar.sync, an early warp's t1 - t0 is its wait for the last arrival; if it
// holds it only at some later instruction, the work before that goes on meanwhile.
#define TRIPS 17

#include "clock_trips.cuh"

struct Words {
    unsigned y, z, addr;
    const unsigned *g;
};

struct Nothing {
    static __device__ __forceinline__ unsigned run(unsigned &, const Words &) { return 0; }
};
struct Alu {  // 4 dependent xor + add on the skew chain's result
    static __device__ __forceinline__ unsigned run(unsigned &x, const Words &w)
    {
#pragma unroll
        for (int i = 0; i < 4; ++i)
            asm volatile("xor.b32 %0, %0, %1;\n\tadd.u32 %0, %0, %2;" : "+r"(x) : "r"(w.y), "r"(w.z));
        return 0;
    }
};
struct LoadShared {  // a shared load, its value not waited for before t1
    static __device__ __forceinline__ unsigned run(unsigned &, const Words &w)
    {
        unsigned v;
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(w.addr) : "memory");
        return v;
    }
};
struct StoreShared {
    static __device__ __forceinline__ unsigned run(unsigned &x, const Words &w)
    {
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(w.addr), "r"(x) : "memory");
        return 0;
    }
};
struct LoadGlobal {  // a global load (an L1 hit after the first trip), its value not waited for before t1
    static __device__ __forceinline__ unsigned run(unsigned &, const Words &w)
    {
        unsigned v;
        asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(w.g) : "memory");
        return v;
    }
};
struct Barrier {  // a second barrier (1) right after
    static __device__ __forceinline__ unsigned run(unsigned &, const Words &)
    {
        asm volatile("bar.sync 1;" ::: "memory");
        return 0;
    }
};

#define ADD4 "add.u32 %0, %0, %1;\n\tmul.lo.u32 %0, %0, %0;\n\tadd.u32 %0, %0, 3;\n\txor.b32 %0, %0, %1;\n\t"
struct Branch {  // a taken branch over 32 dependent steps (too many for ptxas to predicate them instead)
    static __device__ __forceinline__ unsigned run(unsigned &x, const Words &w)
    {
        asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\t@p bra.uni BAR_DEFER_SKIP_%=;\n\t"
                     ADD4 ADD4 ADD4 ADD4 ADD4 ADD4 ADD4 ADD4 "\nBAR_DEFER_SKIP_%=:\n\t}"
                     : "+r"(x) : "r"(w.y));
        return 0;
    }
};
struct Shuffle {  // a shfl.sync, its value not waited for before t1
    static __device__ __forceinline__ unsigned run(unsigned &x, const Words &)
    {
        unsigned v;
        asm volatile("shfl.sync.bfly.b32 %0, %1, 1, 0x1f, 0xffffffff;" : "=r"(v) : "r"(x));
        return v;
    }
};
struct Mma {  // a sparse m16n8k16 f32 mma on the words (its result not waited for before t1)
    static __device__ __forceinline__ unsigned run(unsigned &x, const Words &w)
    {
        float d[4] = {0.f, 0.f, 0.f, 0.f};
        const unsigned a[2] = {w.y, w.z}, b[2] = {w.z, w.y};
        mma_sp_k16(d, a, b, 0x44444444u);
        return __float_as_uint(d[0]) ^ __float_as_uint(d[3]);
    }
};

template <int SKEW, class After, class Before = Nothing>
__device__ __forceinline__ void defer(const unsigned *in, long long *T, unsigned *sink)
{
    __shared__ unsigned word[1024];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    Words w;
    w.y = in[lane] | 1u;
    w.z = in[32 + lane];
    w.addr = (unsigned)__cvta_generic_to_shared(word + threadIdx.x);
    w.g = in + 64 + lane;
    word[threadIdx.x] = w.z;
    __syncthreads();
    unsigned x = in[64 + lane], got = 0;
    Trips trips;
#pragma unroll 1
    for (int trip = 0; trip < TRIPS; ++trip) {
#pragma unroll 1
        for (int i = 0; i < warp * SKEW; ++i) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(w.y), "r"(w.z));
        const long long t0 = clock_read();
        unsigned v = Before::run(x, w);
        asm volatile("bar.sync 0;" ::: "memory");
        v ^= After::run(x, w);
        trips.count(trip, t0, clock_read());
        got ^= v;
    }
    trips.keep(T);
    sink[threadIdx.x] = x ^ got;
}

#define DEFER(NAME, SKEW, AFTER)                                                                      \
    extern "C" __global__ void NAME(const unsigned *in, long long *T, unsigned *sink)                 \
    {                                                                                                 \
        defer<SKEW, AFTER>(in, T, sink);                                                              \
    }

DEFER(bar_none_0, 0, Nothing)
DEFER(bar_none_32, 32, Nothing)
DEFER(bar_alu_0, 0, Alu)
DEFER(bar_alu_32, 32, Alu)
DEFER(bar_lds_0, 0, LoadShared)
DEFER(bar_lds_32, 32, LoadShared)
DEFER(bar_sts_0, 0, StoreShared)
DEFER(bar_sts_32, 32, StoreShared)
DEFER(bar_ldg_0, 0, LoadGlobal)
DEFER(bar_ldg_32, 32, LoadGlobal)
DEFER(bar_bar_0, 0, Barrier)
DEFER(bar_bar_32, 32, Barrier)
DEFER(bar_bra_0, 0, Branch)
DEFER(bar_bra_32, 32, Branch)
DEFER(bar_shfl_0, 0, Shuffle)
DEFER(bar_shfl_32, 32, Shuffle)
DEFER(bar_mma_0, 0, Mma)
DEFER(bar_mma_32, 32, Mma)

// work before the bar.sync: does the barrier wait for it? (ptxas keeps an mma, or a load with a value unused,
// before a barrier only when it must: these three keep their places, STS / LDG, BAR, LDS, CS2R)
#define PRE(NAME, BEFORE, AFTER)                                                                      \
    extern "C" __global__ void NAME(const unsigned *in, long long *T, unsigned *sink)                 \
    {                                                                                                 \
        defer<0, AFTER, BEFORE>(in, T, sink);                                                         \
    }

PRE(pre_sts_none, StoreShared, Nothing)
PRE(pre_sts_lds, StoreShared, LoadShared)
PRE(pre_ldg_lds, LoadGlobal, LoadShared)
