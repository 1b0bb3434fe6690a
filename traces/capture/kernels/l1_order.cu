// In what order the L1 serves several warps' hits (traces/capture/l1_order.py; warpsim.timing.l1_order): every
// warp of one CTA loads 16 requests of 4-byte words ``stride`` bytes apart a lane (each request in its own
// region), all warps the same lines, once to bring them into the L1 and once timed: after the first clock read
// the 16 loads issue back to back, then the warp takes their words in order, and after each it reads the clock
// again (the read waits for that word: a branch on the running xor), so T holds when each request's data came
// back, as far as 16 reads ~20 cycles apart can tell.
#define MAGIC 0x9e3779b9u
#define N 16

__device__ __forceinline__ long long clock_read()
{
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

extern "C" __global__ void l1_order(const unsigned *buf, long long *T, unsigned *sink, int stride, int region)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned *p = buf + (lane * stride) / 4;
    const int step = region / 4;
    unsigned acc = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) acc ^= p[j * step];
    if (acc == MAGIC) sink[threadIdx.x] = acc;
    long long t[N + 1];
    t[0] = clock_read();
    unsigned v[N];
#pragma unroll
    for (int j = 0; j < N; ++j) v[j] = p[j * step];
    acc = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) {
        acc ^= v[j];
        if (acc == MAGIC + j) sink[threadIdx.x + 1024] = acc;
        t[j + 1] = clock_read();
    }
    if (lane == 0) {
#pragma unroll
        for (int j = 0; j <= N; ++j) T[warp * (N + 1) + j] = t[j];
    }
}
