// What clock_read.cu and branch_tail.cu share: the 64-bit clock read and the sparse m16n8k16 f32 mma.
#pragma once

__device__ __forceinline__ long long clock_read()
{
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

// sparse m16n8k16 f32 (mma.sp latency 16.75 on the H100)
__device__ __forceinline__ void mma_sp_k16(float *d, const unsigned *a, const unsigned *b, unsigned e)
{
    asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, "
                 "{%6,%7}, {%0,%1,%2,%3}, %8, 0;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(e));
}
