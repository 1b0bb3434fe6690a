// Linkage with -rdc=true: .extern .func / .extern .global, .weak template functions,
// .visible .func and .global, __launch_bounds__ (.maxntid), and -lineinfo .file/.loc.
extern __device__ int ext_fn(int);
extern __device__ int ext_var;
__device__ int vis_var[4] = {-1, 0x7fffffff, -2147483647 - 1, 3};

template <int N>
__device__ __noinline__ int scaled(int x) { return x * N + ext_var; }

__device__ __noinline__ int visible_fn(int x) { return scaled<3>(x) + scaled<5>(x); }

__global__ void __launch_bounds__(256) linkage(int* out) {
    int i = threadIdx.x;
    int r = visible_fn(i);
    if (i % 3 == 0) r = ext_fn(r);
    out[i] = r + vis_var[i & 3];
}
