// Block-scaled tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X:
// D[128 x 64] (f32) = (A[128 x 32 e4m3] x SFA[128 x 1]) * (B[32 x 64 e4m3] x SFB[64 x 1]), ue8m0 scales.
// Scales arrive as 32 rows x 16 B (row l, column c, byte j = scale of row/column 32c + l, K block j)
// and are broadcast to the four lane quarters by tcgen05.cp.32x128b.warpx4 (A: columns 64..67, B: 68..71).
// Launch: 1 block of 128 threads. out: 128 x 64 f32.
#include "tcgen05_common.cuh"

__global__ void mma_mxf8f6f4(const uint8_t* a, const uint8_t* b, const uint8_t* sfa, const uint8_t* sfb, float* out) {
  __shared__ alignas(1024) uint8_t sa[128 * 32];
  __shared__ alignas(1024) uint8_t sb[64 * 32];
  __shared__ alignas(128) uint8_t ssa[32 * 16];
  __shared__ alignas(128) uint8_t ssb[32 * 16];
  __shared__ uint32_t tmem_base;
  __shared__ uint64_t bar;
  const uint32_t w = threadIdx.x / 32;
  copy_to_smem(sa, a, sizeof(sa));
  copy_to_smem(sb, b, sizeof(sb));
  copy_to_smem(ssa, sfa, sizeof(ssa));
  copy_to_smem(ssb, sfb, sizeof(ssb));
  fence_proxy_async();
  if (w == 0) { tmem_alloc(&tmem_base, 128); tmem_relinquish(); }
  if (threadIdx.x == 32) mbar_init(&bar, 1);
  fence_before();
  __syncthreads();
  fence_after();
  if (threadIdx.x == 0) {
    // A, B e4m3 (0), scale type ue8m0 (bit 23), N 64, M 128 (M >> 7 at bits 28:27), scale-factor ids 0
    const uint32_t idesc = ((64u >> 3) << 17) | (1u << 23) | ((128u >> 7) << 27);
    const uint64_t ad = smem_desc(smem_u32(sa), 128 * 16, 128, 0), bd = smem_desc(smem_u32(sb), 128 * 8, 128, 0);
    asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;" :: "r"(tmem_base + 64), "l"(smem_desc(smem_u32(ssa), 0, 128, 0)));
    asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;" :: "r"(tmem_base + 68), "l"(smem_desc(smem_u32(ssb), 0, 128, 0)));
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %6, 0;\n"
                 " tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%0], %1, %2, %3, [%4], [%5], p;\n}"
                 :: "r"(tmem_base), "l"(ad), "l"(bd), "r"(idesc), "r"(tmem_base + 64), "r"(tmem_base + 68), "r"(0u));
    commit(&bar);
  }
  mbar_wait(&bar, 0);
  fence_after();
  tmem_to_global(tmem_base, reinterpret_cast<uint32_t*>(out), 64);
  fence_before();
  __syncthreads();
  if (w == 0) tmem_dealloc(tmem_base, 128);
}
