// Ordinary code: loops, divergent ifs, shared memory, %clock64, a device call,
// printf (extern .func + string globals), constant and initialised globals, a local array.
#include <cstdio>

__constant__ float coeffs[4] = {1.0f, 0.5f, 0.25f, 0.125f};
__device__ int counter = 7;
__device__ unsigned table[3] = {1u, 2u, 0xFFFFFFFFu};

__device__ __noinline__ int mix(int a, int b) {
    return (a ^ b) * 3 + (a >> 2);
}

__global__ void basic(const float* __restrict__ in, float* out, long long* clk, int n) {
    __shared__ float tile[128];
    long long t0 = clock64();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < 4; ++k) {
        acc += tile[(threadIdx.x + k) % 128] * coeffs[k];
    }
    if (threadIdx.x & 1) {
        acc = -acc * 1.5f;
    } else {
        acc += (float)mix(i, n);
    }
    int local[5];
    for (int k = 0; k < 5; ++k) local[k] = i * k;
    acc += local[i % 5];
    if (i < n) out[i] = acc;
    if (i == 0) {
        atomicAdd(&counter, 1);
        printf("n=%d t=%lld\n", n, clock64() - t0);
    }
    clk[i] = clock64() - t0 + table[i % 3];
}
