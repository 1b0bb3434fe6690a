// Test kernel for `warpsim debug` (tests/test_debug*.py): a sparse tensor-core loop, a divergent
// branch with a lane-dependent inner loop, shared memory and a barrier.
//   nvcc -ptx -lineinfo -gencode=arch=compute_90a,code=sm_90a spmma.cu -o spmma.ptx
// Per warp w (block of 64 threads = 2 warps), lane l:
//   A regs a[w*64 + 2l .. +1], B regs b[w*64 + 2l .. +1], metadata e[w*32 + l]
//   D = iters x (A . B) (f32, m16n8k16, selector 0), written through shared memory to d[w*128 + 4l ..]
//   out[t] = divergent value of lane t (odd lanes: a short loop; even lanes: -t)
extern "C" __global__ void spmma_loop(const unsigned *a, const unsigned *b, const unsigned *e, float *d,
                           int iters, int *out)
{
    __shared__ float smem[64 * 4];
    unsigned t = threadIdx.x;
    unsigned a0 = a[2 * t], a1 = a[2 * t + 1];
    unsigned b0 = b[2 * t], b1 = b[2 * t + 1];
    unsigned meta = e[t];
    float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
    for (int i = 0; i < iters; ++i) {
        asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%0,%1,%2,%3}, %8, 0x0;"
                     : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                     : "r"(a0), "r"(a1), "r"(b0), "r"(b1), "r"(meta));
    }
    int v;
    if (t & 1) {
        v = 1;
        for (unsigned k = 0; k < (t & 6); ++k)
            v = v * 3 + (int)k;
    } else {
        v = -(int)t;
    }
    out[t] = v;
    smem[4 * t + 0] = d0;
    smem[4 * t + 1] = d1;
    smem[4 * t + 2] = d2;
    smem[4 * t + 3] = d3;
    __syncthreads();
    for (int j = 0; j < 4; ++j)
        d[4 * t + j] = smem[4 * t + j];
}
