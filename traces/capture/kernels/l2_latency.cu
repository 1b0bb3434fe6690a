// The latency of one global load, and of a few issued together, as one warp sees it (traces/capture/l2_latency.py;
// warpsim.timing.l2_latency).
//
// chase_ca / chase_cg: lane 0 follows a chain of word indices through the buffer (each link in a line of its own,
// the links' order a random cycle the host sets), two passes over the chain's n links, with a plain ld.global (the
// L1 keeps the line: the second pass hits) or ld.global.cg (the L2 only). Between two clock reads one load and a
// shared store of the index it loaded (so the second read waits for the data); the cycles of each load go to
// shared memory, then to T[pass][link].
//
// burst_<N>_l<LANES>: the warp's 32 lanes (each 4 bytes of a 128-byte line) or lane 0 alone issue N independent
// loads, each from a line of its own, 256 bytes apart; the second clock waits for all of them (a branch on their
// xor), as in gmem_rate.cu. T = {first clock, second clock}.
#define MAX_LINKS 512

template <bool CG>
__device__ __forceinline__ void chase(const unsigned *buf, unsigned start, int n, long long *T)
{
    __shared__ unsigned lat[2 * MAX_LINKS];
    __shared__ unsigned got;
    if (threadIdx.x != 0) return;
    const unsigned sa = (unsigned)__cvta_generic_to_shared(&got);
    unsigned j = start;
    for (int p = 0; p < 2; ++p)
        for (int i = 0; i < n; ++i) {
            long long t0, t1;
            asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0)::"memory");
            j = CG ? __ldcg(buf + j) : buf[j];
            asm volatile("st.shared.u32 [%0], %1;" ::"r"(sa), "r"(j) : "memory");
            asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1)::"memory");
            lat[p * n + i] = (unsigned)(t1 - t0);
        }
    for (int i = 0; i < 2 * n; ++i) T[i] = lat[i];
}

template <int N, int LANES>
__device__ __forceinline__ void burst(const unsigned *buf, long long *T, unsigned *sink)
{
    const int lane = threadIdx.x & 31;
    if (lane >= LANES) return;
    const unsigned *b = buf + lane;
    unsigned acc = 0;
    const long long t0 = clock64();
#pragma unroll
    for (int k = 0; k < N; ++k) acc ^= b[k * 64];
    if (acc == 0x9e3779b9u) sink[lane] = acc;
    const long long t1 = clock64();
    if (lane == 0) {
        T[0] = t0;
        T[1] = t1;
    }
}

extern "C" __global__ void chase_ca(const unsigned *buf, unsigned start, int n, long long *T)
{
    chase<false>(buf, start, n, T);
}

extern "C" __global__ void chase_cg(const unsigned *buf, unsigned start, int n, long long *T)
{
    chase<true>(buf, start, n, T);
}

#define BURST(N, LANES)                                                                                 \
    extern "C" __global__ void burst_##N##_l##LANES(const unsigned *buf, long long *T, unsigned *sink) \
    {                                                                                                   \
        burst<N, LANES>(buf, T, sink);                                                                  \
    }

BURST(1, 32)
BURST(2, 32)
BURST(4, 32)
BURST(8, 32)
BURST(16, 32)
BURST(32, 32)
BURST(1, 1)
BURST(2, 1)
BURST(4, 1)
BURST(8, 1)
BURST(16, 1)
BURST(32, 1)
