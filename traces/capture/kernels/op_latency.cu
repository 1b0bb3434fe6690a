// What the table's non-tensor classes cost (traces/capture/op_latency.py; warpsim.timing.op_latency): each warp
// runs TRIPS trips of: t0 = %clock64; STEPS steps of one kind; t1 = %clock64; and keeps the least, the greatest and
// the sum of t1 - t0 over the trips after the first, and the clocks its second trip starts and its last ends. A
// chain kernel's steps each read the last one's result (the class's latency); a stream kernel's steps are WAYS
// independent chains side by side (the class's issue rate). op_none is the two clock reads alone. The operands are the kernel's
// argument words (kept opaque to ptxas); every asm is volatile so that ptxas keeps each step.
#define TRIPS 33
#define STEPS 16
#define WAYS 8

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

// one step of each kind on x (its result in x)
struct Xor {  // xor then add: LOP3 and IADD3, which ptxas cannot fold into one
    static __device__ __forceinline__ void step(unsigned &x, const Words &w)
    {
        asm volatile("xor.b32 %0, %0, %1;\n\tadd.u32 %0, %0, %2;" : "+r"(x) : "r"(w.y), "r"(w.z));
    }
};
struct Lop3 {  // two LOP3.LUT on four other words, which ptxas cannot fold into one (the ALU pipe alone)
    static __device__ __forceinline__ void step(unsigned &x, const Words &w)
    {
        asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;\n\tlop3.b32 %0, %0, %3, %4, 0xe8;"
                     : "+r"(x) : "r"(w.y), "r"(w.z), "r"(w.u), "r"(w.v));
    }
};
struct Add2 {  // two add.u32, which ptxas may fuse into one IADD3
    static __device__ __forceinline__ void step(unsigned &x, const Words &w)
    {
        asm volatile("add.u32 %0, %0, %1;\n\tadd.u32 %0, %0, %2;" : "+r"(x) : "r"(w.y), "r"(w.z));
    }
};
struct SetpSelp {  // a compare and a select on it (ISETP, SEL)
    static __device__ __forceinline__ void step(unsigned &x, const Words &w)
    {
        asm volatile("{\n\t.reg .pred p;\n\tsetp.lt.u32 p, %0, %1;\n\tselp.b32 %0, %2, %1, p;\n\t}"
                     : "+r"(x) : "r"(w.y), "r"(w.z));
    }
};
struct Mad {
    static __device__ __forceinline__ void step(unsigned &x, const Words &w)
    {
        asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(w.y), "r"(w.z));
    }
};
struct Fma {
    static __device__ __forceinline__ void step(float &x, const Words &w)
    {
        asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(w.fy), "f"(w.fz));
    }
};
struct Div {
    static __device__ __forceinline__ void step(float &x, const Words &w)
    {
        asm volatile("div.rn.f32 %0, %1, %0;" : "+f"(x) : "f"(w.fy));
    }
};
struct CvtInt {  // s32 -> f32 -> s32: I2F and F2I
    static __device__ __forceinline__ void step(unsigned &x, const Words &)
    {
        asm volatile("{\n\t.reg .f32 f;\n\tcvt.rn.f32.s32 f, %0;\n\tcvt.rzi.s32.f32 %0, f;\n\t}" : "+r"(x));
    }
};
struct CvtHalf {  // f32 -> f16 -> f32, as a GEMM's epilogue converts
    static __device__ __forceinline__ void step(float &x, const Words &)
    {
        asm volatile("{\n\t.reg .b16 h;\n\tcvt.rn.f16.f32 h, %0;\n\tcvt.f32.f16 %0, h;\n\t}" : "+f"(x));
    }
};
struct Bar {  // every warp of the CTA at barrier 0
    static __device__ __forceinline__ void step(unsigned &x, const Words &)
    {
        asm volatile("bar.sync 0;" ::: "memory");
    }
};

// the kernel's start value of a chain: its argument word as the type the steps take
__device__ __forceinline__ void start(unsigned &x, unsigned word) { x = word; }
__device__ __forceinline__ void start(float &x, unsigned word) { x = __uint_as_float(word); }
__device__ __forceinline__ unsigned bits(unsigned x) { return x; }
__device__ __forceinline__ unsigned bits(float x) { return __float_as_uint(x); }

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

// a chase through a shared table: every lane's word names the next one (its bank stays the lane's)
__device__ __forceinline__ void chase_shared(const unsigned *in, long long *T, unsigned *sink)
{
    __shared__ unsigned table[256];
    const unsigned base = (unsigned)__cvta_generic_to_shared(table);
    for (int i = threadIdx.x; i < 256; i += blockDim.x) table[i] = base + 4u * ((i + 32u) & 255u);
    __syncthreads();
    unsigned x = base + 4u * (threadIdx.x & 31);
    Trips trips;
#pragma unroll 1
    for (int trip = 0; trip < TRIPS; ++trip) {
        const long long t0 = clock_read();
#pragma unroll
        for (int s = 0; s < STEPS; ++s) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(x)::"memory");
        trips.count(trip, t0, clock_read());
    }
    trips.keep(T);
    sink[threadIdx.x] = x;
}

#define CHAIN(NAME, V, OP, N)                                                                         \
    extern "C" __global__ void NAME(const unsigned *in, long long *T, unsigned *sink) { chain<V, OP, N>(in, T, sink); }
#define STREAM(NAME, V, OP)                                                                           \
    extern "C" __global__ void NAME(const unsigned *in, long long *T, unsigned *sink) { stream<V, OP>(in, T, sink); }

CHAIN(op_none, unsigned, Xor, 0)
CHAIN(chain_xor_add, unsigned, Xor, STEPS)
CHAIN(chain_mad, unsigned, Mad, STEPS)
CHAIN(chain_lop3, unsigned, Lop3, STEPS)
CHAIN(chain_add, unsigned, Add2, STEPS)
CHAIN(chain_setp_selp, unsigned, SetpSelp, STEPS)
CHAIN(chain_fma, float, Fma, STEPS)
CHAIN(chain_div, float, Div, STEPS)
CHAIN(chain_cvt_int, unsigned, CvtInt, STEPS)
CHAIN(chain_cvt_half, float, CvtHalf, STEPS)
CHAIN(bar_sync, unsigned, Bar, STEPS)
STREAM(stream_xor_add, unsigned, Xor)
STREAM(stream_mad, unsigned, Mad)
STREAM(stream_fma, float, Fma)

extern "C" __global__ void chain_ld_shared(const unsigned *in, long long *T, unsigned *sink)
{
    chase_shared(in, T, sink);
}
