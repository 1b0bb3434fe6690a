// The recorded timing kernels' loads, with and without the warps sharing them (traces/capture/record_merge.py;
// warpsim.timing.record_merge).
//
// Each lane reads a record of 10 words, as the timing kernels' fragments (timing_*.cu: p = in + lane * 10): the
// last 4 words first (the accumulators, before the first clock read, their xor waited for), then the first 6 (the
// A and B fragments) between the two clock reads, the second clock waiting for them (a branch on their xor). The
// records are the same for every warp when ``own`` is 0 (as recorded), the warp's own when it is 1.
extern "C" __global__ void record_merge(const unsigned *in, long long *T, unsigned *sink, int own)
{
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const unsigned *p = in + (lane + (own ? warp * 32u : 0u)) * 10u;
    unsigned c = p[6] ^ p[7] ^ p[8] ^ p[9];
    if (c == 0x9e3779b9u) sink[threadIdx.x] = c;
    long long t0, t1;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0)::"memory");
    const unsigned ab = p[0] ^ p[1] ^ p[2] ^ p[3] ^ p[4] ^ p[5];
    if (ab == 0x9e3779b9u) sink[threadIdx.x + 1024] = ab;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1)::"memory");
    if (lane == 0) {
        T[2 * warp] = t0;
        T[2 * warp + 1] = t1;
    }
}
