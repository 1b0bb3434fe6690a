"""Speed of the functional engine: warp instructions per second on one core, loop-heavy kernel."""
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


def _bench(timing: bool, iterations: int, threads: int, repeat: int) -> float:
    """Best-of-``repeat`` warp instructions per second running :data:`LOOP_PTX` (one CTA)."""
    from warpsim.module import RawModule

    kernel = RawModule(code=LOOP_PTX, timing=timing).get_function("bench")
    out = np.zeros(threads, np.uint32)
    best = 0.0
    for _ in range(repeat):
        t = time.perf_counter()
        stats = kernel(1, threads, (out, np.uint32(iterations)))
        best = max(best, stats.warp_instructions / (time.perf_counter() - t))
    return best


def bench_rawmodule(iterations: int = 2000, threads: int = 128, repeat: int = 3) -> float:
    """Functional engine (``RawModule(timing=False)``)."""
    return _bench(False, iterations, threads, repeat)


def bench_timed(iterations: int = 2000, threads: int = 128, repeat: int = 3) -> float:
    """Timed engine (``RawModule(timing=True)``, warpsim.timing; per-instruction records kept)."""
    return _bench(True, iterations, threads, repeat)


if __name__ == "__main__":
    print(f"{bench_rawmodule():,.0f} warp-instr/s functional, {bench_timed():,.0f} timed")
