// Shared device code of the generated tcgen05.mma coverage kernels (tests/ptx/tcgen05_gen/gen.py).
// Everything a case needs (descriptors, idesc, TMEM columns, offsets) comes from its plan row, computed in
// Python from isa/tcgen05; the kernels differ only in the opcode's qualifiers (kind, .sp, cta_group, scale_vec).
#pragma once
#include <cstdint>

#define PLAN_WORDS 96
// plan row (one per CTA; both CTAs of a pair carry the same case)
#define P_IMG_OFF 0      // offset of this CTA's shared-memory image in img, 16-byte units
#define P_IMG_BYTES 1    // bytes to copy (multiple of 16)
#define P_KSTEPS 2       // number of tcgen05.mma instructions (K steps)
#define P_D_LANE 3       // lane field of [d-tmem] (0, or 16 for the half-datapath layouts)
#define P_DUMP_COLS 4    // TMEM columns each lane dumps to out (multiple of 32)
#define P_OUT_OFF 5      // offset of this CTA's dump in out, words
#define P_TINIT_OFF 6    // offset of this CTA's TMEM initial image in tinit, words (lane-major)
#define P_TINIT_COLS 7   // columns 0 .. TINIT_COLS-1 (multiple of 32) written with tcgen05.st first (0: none)
#define P_META_CP 8      // number of tcgen05.cp.128x128b of sparse metadata
#define P_META_OFF 9     // shared-memory offset (in the image) of the first metadata staging tile (2 KiB each)
#define P_META_COL 10    // TMEM column of the first metadata cp (4 columns each)
#define P_SF_CP 11       // number of tcgen05.cp.32x128b.warpx4 of scale factors
#define P_SF_OFF 12      // shared-memory offset of the first scale-factor staging tile (512 B each)
#define P_SF_COL 13      // TMEM column of the first scale-factor cp (4 columns each)
#define P_STEP 16        // then per K step j at P_STEP + 10 * j:
#define S_IDESC 0
#define S_ALO 1          // A descriptor, start address relative to the image (the kernel adds its base)
#define S_AHI 2
#define S_BLO 3
#define S_BHI 4
#define S_META 5         // TMEM column of [sp-meta-tmem]
#define S_SFA 6          // TMEM column of [scale-A-tmem]
#define S_SFB 7          // TMEM column of [scale-B-tmem]
#define S_ENABLE 8       // enable-input-d
#define S_WORDS 10

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem_u32(bar)), "r"(count));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n .reg .pred done;\n"
      "WAIT_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      " @!done bra WAIT_%=;\n}" :: "r"(smem_u32(bar)), "r"(parity) : "memory");
}
__device__ __forceinline__ void fence_before() { asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory"); }
__device__ __forceinline__ void fence_after() { asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory"); }
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
__device__ __forceinline__ void wait_ld() { asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wait_st() { asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory"); }
// a descriptor whose start address is relative to ``base`` (a shared address): add base >> 4 to bits 13:0
__device__ __forceinline__ uint64_t rebase(uint32_t lo, uint32_t hi, uint32_t base) {
  return (uint64_t(hi) << 32) | uint64_t(lo + (base >> 4));
}
__device__ __forceinline__ uint64_t plain_desc(uint32_t addr) {  // no swizzle, LBO 0, SBO 128 B, version 1
  return uint64_t(addr >> 4) | (uint64_t(128 >> 4) << 32) | (1ull << 46);
}

// Copy n bytes (multiple of 16) from global to shared memory, the whole block cooperating.
__device__ __forceinline__ void copy_to_smem(uint8_t* dst, const uint8_t* src, uint32_t n) {
  for (uint32_t i = threadIdx.x * 16; i < n; i += blockDim.x * 16)
    *reinterpret_cast<uint4*>(dst + i) = *reinterpret_cast<const uint4*>(src + i);
}
// Warp w writes TMEM lanes 32w..32w+31, columns 0..ncols-1, from img[lane][ncols] (ncols multiple of 32).
__device__ __forceinline__ void tmem_init(uint32_t taddr, const uint32_t* img, uint32_t ncols) {
  const uint32_t w = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint4* row = reinterpret_cast<const uint4*>(img + (32 * w + lane) * ncols);
  for (uint32_t c = 0; c < ncols; c += 32) {
    uint4 v[8];
    for (int i = 0; i < 8; ++i) v[i] = row[c / 4 + i];
    asm volatile("tcgen05.st.sync.aligned.32x32b.x32.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, "
                 "%13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32};"
                 :: "r"(taddr + ((32 * w) << 16) + c), "r"(v[0].x), "r"(v[0].y), "r"(v[0].z), "r"(v[0].w),
                    "r"(v[1].x), "r"(v[1].y), "r"(v[1].z), "r"(v[1].w), "r"(v[2].x), "r"(v[2].y), "r"(v[2].z),
                    "r"(v[2].w), "r"(v[3].x), "r"(v[3].y), "r"(v[3].z), "r"(v[3].w), "r"(v[4].x), "r"(v[4].y),
                    "r"(v[4].z), "r"(v[4].w), "r"(v[5].x), "r"(v[5].y), "r"(v[5].z), "r"(v[5].w), "r"(v[6].x),
                    "r"(v[6].y), "r"(v[6].z), "r"(v[6].w), "r"(v[7].x), "r"(v[7].y), "r"(v[7].z), "r"(v[7].w));
  }
  wait_st();
}
// Warp w reads TMEM lanes 32w..32w+31, columns 0..ncols-1 (multiple of 32) into out[lane][ncols].
__device__ __forceinline__ void tmem_dump(uint32_t taddr, uint32_t* out, uint32_t ncols) {
  const uint32_t w = threadIdx.x / 32, lane = threadIdx.x % 32;
  uint4* row = reinterpret_cast<uint4*>(out + (32 * w + lane) * ncols);
  for (uint32_t c = 0; c < ncols; c += 32) {
    uint32_t r[32];
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, "
                 "%13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
                   "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]),
                   "=r"(r[15]), "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]),
                   "=r"(r[22]), "=r"(r[23]), "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]),
                   "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
                 : "r"(taddr + ((32 * w) << 16) + c));
    wait_ld();
    for (int i = 0; i < 8; ++i) row[c / 4 + i] = make_uint4(r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
  }
}
