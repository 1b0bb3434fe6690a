"""Speed of the engines: warp instructions per second on one core.

Two kernels: :data:`LOOP_PTX` (ALU loop, one warp per sub-partition) and :data:`MMA_PTX` (four independent
``mma.sp`` chains per loop trip, 16 warps: four per sub-partition share a tensor pipe, so the timed engine's
scheduler processes arbitrate every cycle)."""
from __future__ import annotations

import time

import numpy as np

LOOP_PTX = r"""
.version 8.5
.target sm_90a
.address_size 64
.visible .entry bench(.param .u64 out, .param .u32 n)
{
    .reg .pred %p<2>; .reg .b32 %r<8>; .reg .f32 %f<3>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, 0;
    mov.u32 %r4, %r2;
    mov.f32 %f1, 0f3F800000;
    cvt.rn.f32.u32 %f2, %r2;
$L_loop:
    mad.lo.s32 %r4, %r4, 1664525, 1013904223;
    shr.u32 %r5, %r4, 16;
    and.b32 %r6, %r5, 255;
    xor.b32 %r4, %r4, %r6;
    fma.rn.f32 %f1, %f1, 0f3F7FFFEF, %f2;
    add.s32 %r3, %r3, 1;
    setp.lt.u32 %p1, %r3, %r1;
    @%p1 bra $L_loop;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r4;
    ret;
}
"""


MMA_PTX = r"""
.version 8.5
.target sm_90a
.address_size 64
.visible .entry bench(.param .u64 out, .param .u32 n)
{
    .reg .pred %p<2>; .reg .b32 %r<12>; .reg .f32 %f<17>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, 0;
    mov.b32 %r4, 0x3C003C00;
    mov.b32 %r5, 0x40004000;
    mov.b32 %r6, 0x44444444;
    mov.f32 %f1, 0f00000000; mov.f32 %f2, 0f00000000; mov.f32 %f3, 0f00000000; mov.f32 %f4, 0f00000000;
    mov.f32 %f5, 0f00000000; mov.f32 %f6, 0f00000000; mov.f32 %f7, 0f00000000; mov.f32 %f8, 0f00000000;
    mov.f32 %f9, 0f00000000; mov.f32 %f10, 0f00000000; mov.f32 %f11, 0f00000000; mov.f32 %f12, 0f00000000;
    mov.f32 %f13, 0f00000000; mov.f32 %f14, 0f00000000; mov.f32 %f15, 0f00000000; mov.f32 %f16, 0f00000000;
$L_loop:
    mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r4,%r5}, {%r5,%r4}, {%f1,%f2,%f3,%f4}, %r6, 0x0;
    mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f5,%f6,%f7,%f8}, {%r4,%r5}, {%r5,%r4}, {%f5,%f6,%f7,%f8}, %r6, 0x0;
    mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f9,%f10,%f11,%f12}, {%r4,%r5}, {%r5,%r4}, {%f9,%f10,%f11,%f12}, %r6, 0x0;
    mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f13,%f14,%f15,%f16}, {%r4,%r5}, {%r5,%r4}, {%f13,%f14,%f15,%f16}, %r6, 0x0;
    add.s32 %r3, %r3, 1;
    setp.lt.u32 %p1, %r3, %r1;
    @%p1 bra $L_loop;
    add.f32 %f1, %f1, %f5;
    add.f32 %f1, %f1, %f9;
    add.f32 %f1, %f1, %f13;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.f32 [%rd2], %f1;
    ret;
}
"""


def _bench(timing: bool, iterations: int, threads: int, repeat: int, ptx: str = LOOP_PTX) -> float:
    """Best-of-``repeat`` warp instructions per second running ``ptx`` (one CTA)."""
    from warpsim.module import RawModule

    kernel = RawModule(code=ptx, timing=timing).get_function("bench")
    out = np.zeros(threads, np.uint32)
    best = 0.0
    for _ in range(repeat):
        t = time.process_time()
        stats = kernel(1, threads, (out, np.uint32(iterations)))
        best = max(best, stats.warp_instructions / (time.process_time() - t))
    return best


def bench_rawmodule(iterations: int = 2000, threads: int = 128, repeat: int = 3) -> float:
    """Functional engine (``RawModule(timing=False)``)."""
    return _bench(False, iterations, threads, repeat)


def bench_timed(iterations: int = 2000, threads: int = 128, repeat: int = 3) -> float:
    """Timed engine (``RawModule(timing=True)``, warpsim.timing; per-instruction records kept)."""
    return _bench(True, iterations, threads, repeat)


def bench_timed_mma(iterations: int = 200, threads: int = 512, repeat: int = 3) -> float:
    """Timed engine on :data:`MMA_PTX`: 16 warps, four per sub-partition, sharing the tensor pipes."""
    return _bench(True, iterations, threads, repeat, MMA_PTX)


#: (name, callable) of each engine figure ``warpsim bench`` reports
ENGINE_BENCHES = (("RawModule functional", bench_rawmodule), ("RawModule timed", bench_timed),
                  ("RawModule timed, mma.sp x 16 warps", bench_timed_mma))


if __name__ == "__main__":
    for name, fn in ENGINE_BENCHES:
        print(f"{name}: {fn():,.0f} warp-instr/s")
