// What the table's non-tensor classes cost (traces/capture/op_latency.py; warpsim.timing.op_latency): each warp
// runs TRIPS trips of: t0 = %clock64; STEPS steps of one kind; t1 = %clock64; and keeps the least, the greatest and
// the sum of t1 - t0 over the trips after the first, and the clocks its second trip starts and its last ends. A
// chain kernel's steps each read the last one's result (the class's latency); a stream kernel's steps are WAYS
// independent chains side by side (the class's issue rate). op_none is the two clock reads alone. The operands are the kernel's
// argument words (kept opaque to ptxas); every asm is volatile so that ptxas keeps each step.
#define TRIPS 33
#define STEPS 16
#define WAYS 8

#include "op_steps.cuh"

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

// pairs of PTX instructions that ptxas makes one SASS instruction of (warpsim.timing.analysis.FUSED): the first's
// result is read by the second alone
struct Lea {  // shl.b32 + add.u32: LEA
    static __device__ __forceinline__ void step(unsigned &x, const Words &w)
    {
        asm volatile("{\n\t.reg .b32 t;\n\tshl.b32 t, %0, 3;\n\tadd.u32 %0, t, %1;\n\t}" : "+r"(x) : "r"(w.y));
    }
};
struct LeaHi {  // shr.u32 + add.u32: LEA.HI
    static __device__ __forceinline__ void step(unsigned &x, const Words &w)
    {
        asm volatile("{\n\t.reg .b32 t;\n\tshr.u32 t, %0, 29;\n\tadd.u32 %0, t, %1;\n\t}" : "+r"(x) : "r"(w.y));
    }
};
struct LeaHiSx {  // shr.s32 + add.s32: LEA.HI.SX32
    static __device__ __forceinline__ void step(unsigned &x, const Words &w)
    {
        asm volatile("{\n\t.reg .b32 t;\n\tshr.s32 t, %0, 1;\n\tadd.s32 %0, t, %1;\n\t}" : "+r"(x) : "r"(w.y));
    }
};
struct MulAdd {  // mul.lo.u32 + add.u32: IMAD
    static __device__ __forceinline__ void step(unsigned &x, const Words &w)
    {
        asm volatile("{\n\t.reg .b32 t;\n\tmul.lo.u32 t, %0, %1;\n\tadd.u32 %0, t, %2;\n\t}"
                     : "+r"(x) : "r"(w.y), "r"(w.z));
    }
};
struct AndXorAdd {  // and.b32 + xor.b32 (one LOP3.LUT) + add.u32 (IADD3): the two that fuse and one that does not
    static __device__ __forceinline__ void step(unsigned &x, const Words &w)
    {
        asm volatile("{\n\t.reg .b32 t;\n\tand.b32 t, %0, %1;\n\txor.b32 %0, t, %2;\n\tadd.u32 %0, %0, %3;\n\t}"
                     : "+r"(x) : "r"(w.y), "r"(w.z), "r"(w.u));
    }
};
struct WideAdd {  // mul.wide.u32 of the low word + add.s64 on the last result: IMAD.WIDE.U32 (x's both words)
    static __device__ __forceinline__ void step(unsigned long long &x, const Words &w)
    {
        asm volatile("{\n\t.reg .b64 d;\n\t.reg .b32 lo;\n\tcvt.u32.u64 lo, %0;\n\tmul.wide.u32 d, lo, %1;\n\t"
                     "add.s64 %0, d, %0;\n\t}" : "+l"(x) : "r"(w.y));
    }
};
struct Add64 {  // add.s64 on the last result and a pair of words: IADD3 with a carry out and IADD3.X
    static __device__ __forceinline__ void step(unsigned long long &x, const Words &w)
    {
        asm volatile("{\n\t.reg .b64 b;\n\tmov.b64 b, {%1, %2};\n\tadd.s64 %0, %0, b;\n\t}"
                     : "+l"(x) : "r"(w.u), "r"(w.v));
    }
};

// a chase through the argument words in global memory: each step's index is the last word loaded (its low 5 bits)
// and its address that index's (mul.wide.u32 + add.s64: IMAD.WIDE.U32, then LDG, an L1 hit); with WIDE false the
// address is a 64-bit pointer added to (add.s64 of a cvt.u64.u32: IADD3 + IADD3.X, or LEA + LEA.HI.X)
template <bool WIDE>
__device__ __forceinline__ void chase_global(const unsigned *in, long long *T, unsigned *sink)
{
    unsigned x = threadIdx.x & 31;
    Trips trips;
#pragma unroll 1
    for (int trip = 0; trip < TRIPS; ++trip) {
        const long long t0 = clock_read();
#pragma unroll
        for (int s = 0; s < STEPS; ++s) {
            if (WIDE)
                asm volatile("{\n\t.reg .b64 o, p;\n\t.reg .b32 i;\n\tand.b32 i, %0, 31;\n\tmul.wide.u32 o, i, 4;\n\t"
                             "add.s64 p, %1, o;\n\tld.global.u32 %0, [p];\n\t}" : "+r"(x) : "l"(in) : "memory");
            else
                asm volatile("{\n\t.reg .b64 o, p;\n\t.reg .b32 i;\n\tand.b32 i, %0, 124;\n\tcvt.u64.u32 o, i;\n\t"
                             "add.s64 p, %1, o;\n\tld.global.u32 %0, [p];\n\t}" : "+r"(x) : "l"(in) : "memory");
        }
        trips.count(trip, t0, clock_read());
    }
    trips.keep(T);
    sink[threadIdx.x] = x;
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
CHAIN(chain_lea, unsigned, Lea, STEPS)
CHAIN(chain_lea_hi, unsigned, LeaHi, STEPS)
CHAIN(chain_lea_hi_sx, unsigned, LeaHiSx, STEPS)
CHAIN(chain_mul_add, unsigned, MulAdd, STEPS)
CHAIN(chain_and_xor_add, unsigned, AndXorAdd, STEPS)
CHAIN(chain_wide_add, unsigned long long, WideAdd, STEPS)
CHAIN(chain_add64, unsigned long long, Add64, STEPS)
STREAM(stream_lea_hi, unsigned, LeaHi)
STREAM(stream_mul_add, unsigned, MulAdd)
STREAM(stream_and_xor_add, unsigned, AndXorAdd)
STREAM(stream_wide_add, unsigned long long, WideAdd)
STREAM(stream_add64, unsigned long long, Add64)

extern "C" __global__ void chain_ld_shared(const unsigned *in, long long *T, unsigned *sink)
{
    chase_shared(in, T, sink);
}

extern "C" __global__ void chase_global_wide(const unsigned *in, long long *T, unsigned *sink)
{
    chase_global<true>(in, T, sink);
}

extern "C" __global__ void chase_global_add64(const unsigned *in, long long *T, unsigned *sink)
{
    chase_global<false>(in, T, sink);
}
