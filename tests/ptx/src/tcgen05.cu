// Blackwell tensor-memory MMA through inline asm: tcgen05.alloc / mma.sp / commit / ld / dealloc,
// tcgen05.ld/st with one-element vectors, an mbarrier wait loop with a sink operand,
// elect.sync with a predicate pair.
#include <cstdint>

__global__ void __cluster_dims__(1, 1, 1) tc_sp(const uint64_t* descs, float* out, uint32_t idesc) {
    __shared__ __align__(16) uint32_t tmem_base;
    __shared__ __align__(8) uint64_t bar;
    uint32_t warp = threadIdx.x / 32;
    uint32_t bar_addr = (uint32_t)__cvta_generic_to_shared(&bar);
    uint32_t base_addr = (uint32_t)__cvta_generic_to_shared(&tmem_base);
    if (warp == 0) {
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 64;" :: "r"(base_addr));
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
    }
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar_addr));
    }
    asm volatile("tcgen05.fence::before_thread_sync;");
    __syncthreads();
    asm volatile("tcgen05.fence::after_thread_sync;");
    uint32_t tmem = tmem_base;
    uint32_t leader = 0;
    asm volatile("{\n\t.reg .pred p;\n\telect.sync %0|p, 0xffffffff;\n\tselp.u32 %0, 1, 0, p;\n}"
                 : "=r"(leader));
    if (warp == 0 && leader) {
        uint64_t adesc = descs[0], bdesc = descs[1];
        asm volatile(
            "{\n\t.reg .pred en;\n\tsetp.ne.b32 en, %5, 0;\n"
            "\ttcgen05.mma.sp.cta_group::1.kind::f16 [%0], %1, %2, [%3], %4, en;\n}"
            :: "r"(tmem), "l"(adesc), "l"(bdesc), "r"(tmem + 32), "r"(idesc), "r"(0));
        asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                     :: "r"(bar_addr));
    }
    asm volatile(
        "{\n\t.reg .pred done;\n"
        "WAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
        "\t@!done bra WAIT;\n}" :: "r"(bar_addr));
    asm volatile("tcgen05.fence::after_thread_sync;");
    float v[4];
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x4.b32 {%0,%1,%2,%3}, [%4];"
                 : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3]) : "r"(tmem + ((warp * 32) << 16)));
    float one;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=f"(one) : "r"(tmem + 8));
    asm volatile("tcgen05.wait::ld.sync.aligned;");
    asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" :: "r"(tmem + 16), "f"(one));
    asm volatile("tcgen05.wait::st.sync.aligned;");
    for (int j = 0; j < 4; ++j) out[threadIdx.x * 4 + j] = v[j];
    __syncthreads();
    if (warp == 0) {
        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 64;" :: "r"(tmem));
    }
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar_addr));
    }
}
