// The tiled sparse GEMM of prog_spgemm.cu with clock stamps: a realistic kernel for the timing model, not a
// microbenchmark (traces/capture/spgemm_clock.py; warpsim.timing.spgemm_clock).
//
//   D[M][N] = A[M][K] * B[K][N] + C[M][N],   M = N = 64, A 2:4-sparse f16 (ordered codes), B f16, C/D f32.
//
// Storage and fragments as in prog_spgemm.cu: Ac[M][K/2] f16 kept values, Em[M][K/16] u16 codes, Bt[N][K] f16.
// CTAs of W warps (grid (2, 2) with 4, (2, 1) with 8), each warp a 16x16 tile of D; a K step of 32 stages the
// CTA's 32x32 B tile in shared memory (bar.sync before and after), loads each lane's A fragment and metadata
// from global memory and issues two mma.sp::ordered_metadata.m16n8k32. With PREFETCH the B tile of the next step
// is loaded into registers during this one (software pipelining). Lane 0 of every warp stores %clock64 into
// T[cta][warp][s]: s = 0 at entry, 1 + i after K step i (its second bar.sync), and STEPS + 1 after D is stored.
#define M 64
#define N 64

template <int K, int W, bool PREFETCH>
__device__ __forceinline__ void spgemm_clock(const unsigned short *Ac, const unsigned short *Em,
                                             const unsigned short *Bt, const float *C, float *D,
                                             long long *T)
{
    constexpr int STEPS = K / 32, STAMPS = STEPS + 2;
    __shared__ unsigned sB[32][17];  // 32 columns n x 16 words (32 k of f16), padded against bank conflicts
    const int tid = threadIdx.x;
    const int lane = tid & 31, warp = tid >> 5;
    constexpr int LOADS = 512 / (32 * W);  // B words a thread stages a step
    long long *Tw = T + ((blockIdx.y * gridDim.x + blockIdx.x) * W + warp) * STAMPS;
    if (lane == 0) Tw[0] = clock64();
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

    unsigned nb[LOADS];
    if (PREFETCH) {
#pragma unroll
        for (int q = 0; q < LOADS; ++q) {
            const int idx = tid + 32 * W * q;
            nb[q] = Btw[((ncta + (idx >> 4)) * K) / 2 + (idx & 15)];
        }
    }
#pragma unroll 1
    for (int kb = 0; kb < K; kb += 32) {
#pragma unroll
        for (int q = 0; q < LOADS; ++q) {
            const int idx = tid + 32 * W * q;
            const int nn = idx >> 4, w = idx & 15;
            sB[nn][w] = PREFETCH ? nb[q] : Btw[((ncta + nn) * K + kb) / 2 + w];
        }
        __syncthreads();
        if (PREFETCH && kb + 32 < K) {
#pragma unroll
            for (int q = 0; q < LOADS; ++q) {
                const int idx = tid + 32 * W * q;
                nb[q] = Btw[((ncta + (idx >> 4)) * K + kb + 32) / 2 + (idx & 15)];
            }
        }
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
        }
        __syncthreads();
        if (lane == 0) Tw[1 + kb / 32] = clock64();
    }

#pragma unroll
    for (int j = 0; j < 2; ++j)
#pragma unroll
        for (int i = 0; i < 4; ++i)
            D[(m0 + g + 8 * (i >> 1)) * N + ncta + nw + 8 * j + 2 * t + (i & 1)] = acc[j][i];
    if (lane == 0) Tw[STEPS + 1] = clock64();
}

#define SPGEMM_CLOCK(NAME, K, W, PREFETCH)                                                                       \
    extern "C" __global__ void __launch_bounds__(32 * W) NAME(                                                   \
        const unsigned short *Ac, const unsigned short *Em, const unsigned short *Bt, const float *C, float *D, \
        long long *T)                                                                                            \
    {                                                                                                            \
        spgemm_clock<K, W, PREFETCH>(Ac, Em, Bt, C, D, T);                                                       \
    }

SPGEMM_CLOCK(spgemm_clock_k256, 256, 4, false)
SPGEMM_CLOCK(spgemm_clock_k1024, 1024, 4, false)
SPGEMM_CLOCK(spgemm_clock_w8_k1024, 1024, 8, false)
SPGEMM_CLOCK(spgemm_clock_pf_k1024, 1024, 4, true)
