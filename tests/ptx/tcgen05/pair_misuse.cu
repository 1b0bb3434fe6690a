// tcgen05 allocation by a CTA pair (cta_group::2, a cluster of 2): one warp in each CTA allocates, relinquishes
// and deallocates together (PTX ISA 9.7.16.5, Tables 46-48). ``mode`` (tests/test_tcgen05_misuse.py):
//   0 correct: both CTAs get the same TMEM address, a cluster barrier, then both deallocate
//   1 Table 48: CTA 1 deallocates before the cluster barrier while CTA 0 waits at the barrier (a hang)
//   2 the two warps of the pair ask for different nCols
// Launch: 2 blocks (one cluster) of 32 threads. out[64]: the address each thread read back.
#include <cstdint>

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

__global__ void __cluster_dims__(2, 1, 1) pair_misuse(uint32_t* out, uint32_t mode) {
  __shared__ uint32_t base;
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  const uint32_t ncols = (mode == 2 && rank == 1) ? 64 : 32;
  asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;" :: "r"(smem_u32(&base)), "r"(ncols));
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;");
  const uint32_t taddr = base;  // alloc's shared-memory store is ordered with this load (same address, same warp)
  out[32 * rank + threadIdx.x] = taddr;
  if (mode == 1 && rank == 1) {
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, 32;" :: "r"(taddr));
    cluster_sync();
  } else {
    cluster_sync();
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, 32;" :: "r"(taddr));
  }
}
