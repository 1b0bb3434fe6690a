// The tiled sparse GEMM of prog_spgemm_clock.cu with a clock read at each phase of a K step (traces/capture/
// spgemm_phase.py; warpsim.timing.spgemm_phase): where the step's cycles go.
//
// The kernel body is prog_spgemm_clock.cu's (B staged in shared memory, A and the metadata from global memory, two
// mma.sp::ordered_metadata.m16n8k32 a step, no prefetch) with, every K step, five reads of %clock, each stored by
// every lane of the warp to the same shared word (no branch): P0 at the top of the step, P1 after the four shared
// stores of B (they wait for its global loads), P2 after the first bar.sync, P3 after the first mma (it waits
// for A and the metadata), P4 after the second bar.sync. At the end each warp copies its stamps to
// T[cta][warp][step][phase] (u32 clock values).
#define M 64
#define N 64
#define PHASES 5

#define STAMP(s, k) asm volatile("mov.u32 %0, %%clock;" : "=r"(clk)::"memory"); stamps[warp][s][k] = clk

template <int K, int W>
__device__ __forceinline__ void spgemm_phase(const unsigned short *Ac, const unsigned short *Em,
                                             const unsigned short *Bt, const float *C, float *D, unsigned *T)
{
    constexpr int STEPS = K / 32;
    __shared__ unsigned sB[32][17];
    __shared__ unsigned stamps[W][STEPS][PHASES];
    const int tid = threadIdx.x;
    const int lane = tid & 31, warp = tid >> 5;
    constexpr int LOADS = 512 / (32 * W);
    unsigned clk;
    const int g = lane >> 2, t = lane & 3;
    const int m0 = blockIdx.y * 32 * (W / 4) + (warp >> 1) * 16;
    const int ncta = blockIdx.x * 32;
    const int nw = (warp & 1) * 16;
    const unsigned *Acw = (const unsigned *)Ac;
    const unsigned *Btw = (const unsigned *)Bt;

    float acc[2][4];
#pragma unroll
    for (int j = 0; j < 2; ++j)
#pragma unroll
        for (int i = 0; i < 4; ++i)
            acc[j][i] = C[(m0 + g + 8 * (i >> 1)) * N + ncta + nw + 8 * j + 2 * t + (i & 1)];

#pragma unroll 1
    for (int kb = 0; kb < K; kb += 32) {
        const int s = kb / 32;
        STAMP(s, 0);
#pragma unroll
        for (int q = 0; q < LOADS; ++q) {
            const int idx = tid + 32 * W * q;
            const int nn = idx >> 4, w = idx & 15;
            sB[nn][w] = Btw[((ncta + nn) * K + kb) / 2 + w];
        }
        STAMP(s, 1);
        __syncthreads();
        STAMP(s, 2);
        unsigned a[4];
#pragma unroll
        for (int r = 0; r < 4; ++r)
            a[r] = Acw[((m0 + g + 8 * (r & 1)) * (K / 2) + kb / 2 + 2 * t + 8 * (r >> 1)) / 2];
        const int j = t & 1;
        const unsigned e = (unsigned)Em[(m0 + g) * (K / 16) + kb / 16 + j]
                         | ((unsigned)Em[(m0 + g + 8) * (K / 16) + kb / 16 + j] << 16);
#pragma unroll
        for (int jn = 0; jn < 2; ++jn) {
            const int nn = nw + 8 * jn + g;
            const unsigned b0 = sB[nn][t], b1 = sB[nn][t + 4], b2 = sB[nn][t + 8], b3 = sB[nn][t + 12];
            asm volatile(
                "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 "
                "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, 0;"
                : "+f"(acc[jn][0]), "+f"(acc[jn][1]), "+f"(acc[jn][2]), "+f"(acc[jn][3])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "r"(b2), "r"(b3), "r"(e));
            if (jn == 0) {
                STAMP(s, 3);
            }
        }
        __syncthreads();
        STAMP(s, 4);
    }

#pragma unroll
    for (int j = 0; j < 2; ++j)
#pragma unroll
        for (int i = 0; i < 4; ++i)
            D[(m0 + g + 8 * (i >> 1)) * N + ncta + nw + 8 * j + 2 * t + (i & 1)] = acc[j][i];
    unsigned *Tw = T + ((blockIdx.y * gridDim.x + blockIdx.x) * W + warp) * STEPS * PHASES;
    for (int i = lane; i < STEPS * PHASES; i += 32) Tw[i] = (&stamps[warp][0][0])[i];
}

#define SPGEMM_PHASE(NAME, K, W)                                                                                 \
    extern "C" __global__ void __launch_bounds__(32 * W) NAME(                                                   \
        const unsigned short *Ac, const unsigned short *Em, const unsigned short *Bt, const float *C, float *D, \
        unsigned *T)                                                                                             \
    {                                                                                                            \
        spgemm_phase<K, W>(Ac, Em, Bt, C, D, T);                                                                 \
    }

SPGEMM_PHASE(spgemm_phase_k1024, 1024, 4)
SPGEMM_PHASE(spgemm_phase_w8_k1024, 1024, 8)
SPGEMM_PHASE(spgemm_phase_k256, 256, 4)
