// What an L1 hit costs by the request's shape (traces/capture/l1_hit.py; warpsim.timing.l1_hit): each lane of
// every warp of one CTA loads 4-byte words ``stride`` bytes apart (lane * stride), N requests each in its own
// region of ``region`` bytes, from the lines of group warp % groups (a power of 2). A first pass loads them all and waits for
// them (the lines are then in the L1); the second, between two %clock64 reads, loads them again: N independent
// requests (xor'ed, the second clock waiting for them) or, for ``chain``, N requests each at an address that
// adds the word the one before loaded (the buffer holds zeros), so each waits for the last.
#define MAGIC 0x9e3779b9u

__device__ __forceinline__ long long clock_read()
{
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

template <int N, bool CHAIN>
__device__ __forceinline__ void l1_hit(const unsigned *buf, long long *T, unsigned *sink, int stride,
                                       int region, int groups)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned *p = buf + ((warp & (groups - 1)) * N * region + lane * stride) / 4;
    const int step = region / 4;
    unsigned acc = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) acc ^= p[j * step];
    if (acc == MAGIC) sink[threadIdx.x] = acc;
    const long long t0 = clock_read();
    unsigned v = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) {
        if (CHAIN) v = p[j * step + v];
        else v ^= p[j * step];
    }
    if (v == MAGIC) sink[threadIdx.x + 1024] = v;
    const long long t1 = clock_read();
    if (lane == 0) {
        T[2 * warp] = t0;
        T[2 * warp + 1] = t1;
    }
}

#define L1_HIT(NAME, N, CHAIN)                                                                          \
    extern "C" __global__ void NAME(const unsigned *buf, long long *T, unsigned *sink, int stride,     \
                                    int region, int groups)                                           \
    {                                                                                                   \
        l1_hit<N, CHAIN>(buf, T, sink, stride, region, groups);                                         \
    }

L1_HIT(l1_hit_n1, 1, false)
L1_HIT(l1_hit_n4, 4, false)
L1_HIT(l1_hit_n16, 16, false)
L1_HIT(l1_chain_n8, 8, true)
