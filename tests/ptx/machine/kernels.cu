#include <cuda_fp16.h>
// Small kernels for tests/test_machine_kernels.py. Regenerate kernels.ptx with:
//   nvcc -ptx -gencode=arch=compute_90a,code=sm_90a kernels.cu -o kernels.ptx
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void reduce(const float* a, float* out, int n) {
    extern __shared__ float s[];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? a[i] : 0.f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// per-lane trip counts and an if/else inside the loop
extern "C" __global__ void divergent(int* out, int n) {
    int t = threadIdx.x, acc = 0;
    for (int k = 0; k < t % 7 + n; k++) {
        acc = acc * 3 + (k ^ t);
        if (acc & 1) acc += 5; else acc -= t;
    }
    if (t & 2) out[t] = acc; else out[t] = -acc;
}

// 2-D grid, 2-D blocks: c[y][x] = a[y][x] * s + y
extern "C" __global__ void scale2d(const double* a, double* c, int w, int h, double s) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) c[y * w + x] = a[y * w + x] * s + y;
}

// static shared memory, several warps, half-precision conversions
extern "C" __global__ void transpose_h(const float* in, unsigned short* out) {
    __shared__ float tile[32][33];
    int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = in[y * 32 + x];
    __syncthreads();
    __half h = __float2half_rz(tile[x][y]);
    out[y * 32 + x] = *(unsigned short*)&h;
}
