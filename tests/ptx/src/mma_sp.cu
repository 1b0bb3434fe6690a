// Sparse warp-level MMA through inline asm: mma.sp::ordered_metadata (f16, bf16, e4m3, s8),
// the older mma.sp form, ldmatrix, a predicate set inside an asm scope, a loop over K.
#include <cstdint>

__device__ __forceinline__ void mma_sp_f16(float (&d)[4], const uint32_t (&a)[2],
                                           const uint32_t (&b)[2], uint32_t meta) {
    asm volatile(
        "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%0,%1,%2,%3}, %8, 0x0;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(meta));
}

__global__ void __launch_bounds__(128, 2)
mma_sp_kernel(const uint32_t* A, const uint32_t* B, const uint32_t* E, float* D, int ktiles) {
    __shared__ __align__(16) uint32_t sB[256];
    int lane = threadIdx.x & 31;
    float acc[4] = {0.f, 0.f, 0.f, 0.f};
    for (int kt = 0; kt < ktiles; ++kt) {
        sB[threadIdx.x] = B[kt * 128 + threadIdx.x];
        __syncthreads();
        uint32_t a[2] = {A[(kt * 32 + lane) * 2], A[(kt * 32 + lane) * 2 + 1]};
        uint32_t b[2];
        uint32_t saddr = (uint32_t)__cvta_generic_to_shared(&sB[(lane % 16) * 4]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
                     : "=r"(b[0]), "=r"(b[1]) : "r"(saddr));
        mma_sp_f16(acc, a, b, E[kt * 32 + lane]);
        __syncthreads();
    }
    uint32_t c[4] = {0, 0, 0, 0};
    uint32_t x = A[lane], y = B[lane], z = E[lane];
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %5, 0;\n"
        "\t@p mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 "
        "{%0,%1,%2,%3}, {%4,%4}, {%4,%4}, {%0,%1,%2,%3}, %5, 0x1;\n}\n"
        : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3]) : "r"(x), "r"(z));
    asm volatile(
        "mma.sp.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 "
        "{%0,%1,%2,%3}, {%4,%4,%4,%4}, {%5,%5,%5,%5}, {%0,%1,%2,%3}, %6, 0;\n"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]) : "r"(x), "r"(y), "r"(z));
    asm volatile(
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32 "
        "{%0,%1,%2,%3}, {%4,%4,%4,%4}, {%5,%5,%5,%5}, {%0,%1,%2,%3}, %6, 0x0;\n"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]) : "r"(x), "r"(y), "r"(z));
    float* o = D + (blockIdx.x * 32 + lane) * 8;
    for (int j = 0; j < 4; ++j) { o[j] = acc[j]; o[4 + j] = (float)c[j]; }
}
