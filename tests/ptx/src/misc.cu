// Declarations: extern shared, struct (byte-array) params, __grid_constant__, __maxnreg__,
// weak template functions, recursion (forward .func declaration), an indirect call
// (.callprototype), #pragma unroll 1, vector loads, f16/f64 constants, special registers.
#include <cuda_fp16.h>

struct Args { float scale; int n; double bias; };

template <typename T>
__device__ __noinline__ T twice(T x) { return x + x; }

__device__ __noinline__ int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

__device__ __noinline__ float sq(float x) { return x * x; }
__device__ __noinline__ float cube(float x) { return x * x * x; }
typedef float (*fn_t)(float);
__device__ fn_t fns[2] = {sq, cube};

__global__ void __maxnreg__(64) misc(const __grid_constant__ Args args, float4* v, __half* h,
                                      double* dd, unsigned* ids, int sel) {
    extern __shared__ __align__(16) float dyn[];
    unsigned lt, smid, warpid;
    unsigned long long gt;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm("mov.u32 %0, %%smid;" : "=r"(smid));
    asm("mov.u32 %0, %%warpid;" : "=r"(warpid));
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt));
    int t = threadIdx.x + threadIdx.y * blockDim.x;
    float4 x = v[t];
    dyn[t] = x.x * args.scale + x.w;
    __syncthreads();
    float s = 0.f;
#pragma unroll 1
    for (int k = 0; k < args.n; ++k) s += dyn[(t + k) & 63];
    s = fns[sel & 1](s) + twice(s);
    h[t] = __hadd(__float2half(s), __float2half(-2.5f));
    dd[t] = twice(args.bias) * 1.0000001 + (double)fact(t & 7);
    ids[t] = lt ^ smid ^ warpid ^ (unsigned)gt ^ gridDim.z ^ blockIdx.y;
}
