// Hand-written program kernel (not generated): a small tiled sparse GEMM on the tensor cores.
//
//   D[M][N] = A[M][K] * B[K][N] + C[M][N],   M = N = 64, K = 256, A 2:4-sparse f16, B f16, C/D f32.
//
// A is stored compressed: Ac[M][K/2] f16 (the two kept values of every 4-column chunk, in column
// order) and Em[M][K/16] u16 (four 4-bit ordered codes per 16 dense columns, chunk c at bits 4c).
// B is stored transposed, Bt[N][K] f16 (B column n = row n of Bt), so a B fragment register holds
// two consecutive k. Grid (N/32, M/32) CTAs of 4 warps; each CTA computes a 32x32 tile of D, each
// warp a 16x16 tile (two m16n8 tiles). K loop of 8 steps of 32: the CTA stages the 32x32 B tile in
// shared memory (bar.sync before and after), every lane loads its A fragment and metadata straight
// from global memory, then two mma.sp::ordered_metadata.m16n8k32 (selector 0).
// Only ld/st global and shared, integer arithmetic, setp/bra, bar.sync and mma.sp: no ldmatrix,
// cp.async or shfl.
#define M 64
#define N 64
#define K 256

extern "C" __global__ void __launch_bounds__(128) spgemm_f16_f32_m64n64k256(
    const unsigned short *Ac, const unsigned short *Em, const unsigned short *Bt, const float *C, float *D)
{
    __shared__ unsigned sB[32][17];  // 32 columns n x 16 words (32 k of f16), padded against bank conflicts
    const int tid = threadIdx.x;
    const int lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int m0 = blockIdx.y * 32 + (warp >> 1) * 16;  // first row of this warp's tile
    const int ncta = blockIdx.x * 32;                   // first column of this CTA's tile
    const int nw = (warp & 1) * 16;                     // warp's column offset inside the CTA tile
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
        // stage B: 32 columns x 32 k = 512 words, 4 per thread
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const int idx = tid + 128 * q;
            const int nn = idx >> 4, w = idx & 15;
            sB[nn][w] = Btw[((ncta + nn) * K + kb) / 2 + w];
        }
        __syncthreads();

        // A fragment: register r = row m0+g+8*(r&1), compressed columns kb/2 + 2t + 8*(r>>1) .. +1
        unsigned a[4];
#pragma unroll
        for (int r = 0; r < 4; ++r)
            a[r] = Acw[((m0 + g + 8 * (r & 1)) * (K / 2) + kb / 2 + 2 * t + 8 * (r >> 1)) / 2];
        // metadata, selector 0: lane 4g+j (j = 0, 1) holds dense columns kb+16j..kb+16j+15 of
        // row g (bits 15:0) and row g+8 (bits 31:16); lanes 4g+2, 4g+3 are ignored by the hardware
        const int j = t & 1;
        const unsigned e = (unsigned)Em[(m0 + g) * (K / 16) + kb / 16 + j]
                         | ((unsigned)Em[(m0 + g + 8) * (K / 16) + kb / 16 + j] << 16);

#pragma unroll
        for (int jn = 0; jn < 2; ++jn) {
            const int nn = nw + 8 * jn + g;
            // B fragment register i: k = kb + 2t + 8i, +1 (word t + 4i of the staged column)
            const unsigned b0 = sB[nn][t], b1 = sB[nn][t + 4], b2 = sB[nn][t + 8], b3 = sB[nn][t + 12];
            asm volatile(
                "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 "
                "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, 0;"
                : "+f"(acc[jn][0]), "+f"(acc[jn][1]), "+f"(acc[jn][2]), "+f"(acc[jn][3])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "r"(b2), "r"(b3), "r"(e));
        }
        __syncthreads();
    }

#pragma unroll
    for (int j = 0; j < 2; ++j)
#pragma unroll
        for (int i = 0; i < 4; ++i)
            D[(m0 + g + 8 * (i >> 1)) * N + ncta + nw + 8 * j + 2 * t + (i & 1)] = acc[j][i];
}
