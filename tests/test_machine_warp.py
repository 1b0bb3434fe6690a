"""Warp stepping, divergence masks, barriers and the errors a user can trigger (messages checked)."""
import numpy as np
import pytest

import warpsim
from isa.errors import MemoryFault, UnsupportedInstruction
from warpsim.cta import CTA, BarrierDeadlock
from warpsim.module import ArgumentError

HEAD = ".version 8.5\n.target sm_90a\n.address_size 64\n"


def kernel(body, params=".param .u64 pout"):
    return (HEAD + f".visible .entry k({params})\n{{\n.reg .b32 %r<10>; .reg .b64 %rd<10>; .reg .pred %p<4>;\n"
            + body + "\n}\n")


IF_ELSE = kernel("""
    mov.u32 %r1, %laneid;
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra EVEN;
    mov.u32 %r3, 100;
    bra JOIN;
EVEN:
    mov.u32 %r3, 200;
JOIN:
    add.u32 %r3, %r3, %r1;
    ret;""")


def _warp(text, block=32):
    fn = warpsim.RawModule(code=text).get_function("k")
    from warpsim.engine import Launch
    from warpsim.memory import Flat, Global
    launch = Launch("sm_90a", "error", Global(), Flat(8, "param"), Flat(1, "const"), {})
    return CTA(fn.program, (0, 0, 0), (1, 1, 1), (block, 1, 1), launch)


def test_if_else_masks_and_reconvergence():
    cta = _warp(IF_ELSE)
    w = cta.warps[0]
    records = []
    while not w.done:
        records.append(w.step())
    by_pc = {}
    for r in records:
        by_pc.setdefault(r.ins.name if r.ins else None, []).append(r.active.copy())
    odd = np.arange(32) % 2 == 1
    (m100,) = [m for name, ms in by_pc.items() if name == "mov.u32" for m in ms if m.sum() == 16 and m[1]]
    assert np.array_equal(m100, odd)
    add = by_pc["add.u32"]
    assert len(add) == 1 and add[0].all()  # both sides met again at JOIN: one full-warp add
    assert np.array_equal(w.rf.dump("%r3"), np.where(odd, 100, 200) + np.arange(32))


LOOP = kernel("""
    mov.u32 %r1, %laneid;
    mov.u32 %r2, 0;
    mov.u32 %r4, 0;
TOP:
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra DONE;
    add.u32 %r4, %r4, %r2;
    add.u32 %r2, %r2, 1;
    bra TOP;
DONE:
    ld.param.u64 %rd1, [pout];
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd1, %rd1, %rd2;
    st.global.u32 [%rd1], %r4;
    ret;""")


def test_per_lane_trip_counts():
    out = np.zeros(32, np.uint32)
    fn = warpsim.RawModule(code=LOOP).get_function("k")
    stats = fn(1, 32, (out,))
    n = np.arange(32)
    assert np.array_equal(out, n * (n - 1) // 2)
    assert stats.warp_instructions == 3 + 31 * 5 + 2 + 6  # the loop runs as long as the longest lane


def test_barrier_across_warps_and_partial_warp():
    text = HEAD + """.visible .entry k(.param .u64 pout)
{
    .reg .b32 %r<10>; .reg .b64 %rd<6>;
    .shared .align 4 .b32 buf[96];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, buf;
    add.u32 %r4, %r3, %r2;
    mul.lo.u32 %r5, %r1, 3;
    st.shared.u32 [%r4], %r5;
    bar.sync 0;
    sub.u32 %r6, 95, %r1;
    shl.b32 %r6, %r6, 2;
    add.u32 %r6, %r3, %r6;
    ld.shared.u32 %r7, [%r6];
    ld.param.u64 %rd1, [pout];
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd1, %rd1, %rd2;
    st.global.u32 [%rd1], %r7;
    ret;
}
"""
    out = np.zeros(96, np.uint32)
    warpsim.RawModule(code=text).get_function("k")(2, 96, (out,))
    assert np.array_equal(out, (95 - np.arange(96)) * 3)


def test_deadlock_is_reported():
    text = kernel("""
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra SKIP;
    bar.sync 1, 64;
SKIP:
    bar.sync 2, 64;
    ret;""")
    with pytest.raises(BarrierDeadlock) as e:
        warpsim.RawModule(code=text).get_function("k")(1, 64, (np.zeros(1, np.uint32),))
    msg = str(e.value)
    assert "deadlock in CTA (0, 0, 0)" in msg and "barrier 1" in msg and "barrier 2" in msg and "bar.sync" in msg


def test_unsupported_opcode_is_located():
    text = kernel("    mov.u32 %r1, 1;\n    sad.u32 %r1, %r2, %r3, %r4;\n    ret;")
    with pytest.raises(UnsupportedInstruction) as e:
        warpsim.RawModule(code=text).get_function("k")
    assert str(e.value).startswith("<code>:8:5: error: unsupported instruction 'sad.u32'")


def test_unsupported_qualifier_is_located():
    text = kernel("    add.cc.u32 %r1, %r2, %r3;\n    ret;")
    with pytest.raises(UnsupportedInstruction, match=r"<code>:7:5: error: unsupported instruction 'add.cc.u32'"):
        warpsim.RawModule(code=text).get_function("k")


def test_out_of_bounds_store_names_lane_address_and_instruction():
    out = np.zeros(16, np.uint32)
    fn = warpsim.RawModule(code=LOOP).get_function("k")
    with pytest.raises(MemoryFault) as e:
        fn(1, 32, (out,))
    msg = str(e.value)
    assert "st.global.u32 [%rd1], %r4;" in msg and "lane 16" in msg and "outside every allocation" in msg
    assert "thread (16, 0, 0)" in msg and "<code>:" in msg


def test_argument_errors():
    fn = warpsim.RawModule(code=LOOP).get_function("k")
    with pytest.raises(ArgumentError, match=r"kernel 'k' takes 1 arguments \(pout .u64\); got 2"):
        fn(1, 32, (np.zeros(32, np.uint32), np.int32(1)))
    with pytest.raises(ArgumentError, match="not int"):
        fn(1, 32, (5,))
    fn2 = warpsim.RawModule(code=kernel("ret;", ".param .u64 p, .param .f32 x")).get_function("k")
    with pytest.raises(ArgumentError, match=r"argument 1 \(x .f32\).*got int32, expected a 4-byte float"):
        fn2(1, 32, (np.zeros(1), np.int32(1)))


def test_clock_is_pluggable():
    text = kernel("""
    mov.u64 %rd2, %clock64;
    ld.param.u64 %rd1, [pout];
    st.global.u64 [%rd1], %rd2;
    ret;""")
    out = np.zeros(1, np.uint64)
    fn = warpsim.RawModule(code=text).get_function("k")
    fn(1, 1, (out,))
    assert out[0] == 0  # functional clock: the warp's retired instructions so far
    fn(1, 1, (out,), clock=lambda warp: 1000 + warp.steps)
    assert out[0] == 1000


def test_generic_addressing_of_shared_and_local():
    text = HEAD + """.visible .entry k(.param .u64 pout)
{
    .reg .b32 %r<10>; .reg .b64 %rd<10>;
    .shared .align 8 .b32 sh[32];
    .local .align 8 .b8 depot[64];
    mov.u32 %r1, %laneid;
    mov.u64 %rd1, sh;
    cvta.shared.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd2, %rd3;
    add.u32 %r2, %r1, 7;
    st.u32 [%rd4], %r2;
    mov.u64 %rd5, depot;
    cvta.local.u64 %rd6, %rd5;
    mul.lo.u32 %r3, %r1, 11;
    st.v2.u32 [%rd6+8], {%r3, %r1};
    ld.shared.u32 %r4, [%rd1+12];
    ld.local.v2.u32 {%r5, %r6}, [%rd5+8];
    add.u32 %r7, %r4, %r5;
    ld.u32 %r8, [%rd6+12];
    add.u32 %r7, %r7, %r8;
    ld.param.u64 %rd7, [pout];
    add.u64 %rd7, %rd7, %rd3;
    st.global.u32 [%rd7], %r7;
    ret;
}
"""
    out = np.zeros(32, np.uint32)
    warpsim.RawModule(code=text).get_function("k")(1, 32, (out,))
    lane = np.arange(32)
    assert np.array_equal(out, (3 + 7) + lane * 11 + lane)


def test_misaligned_vector_access_faults():
    text = kernel("""
    ld.param.u64 %rd1, [pout];
    ld.global.v2.u32 {%r1, %r2}, [%rd1+4];
    ret;""")
    with pytest.raises(MemoryFault, match="misaligned 8-byte access"):
        warpsim.RawModule(code=text).get_function("k")(1, 1, (np.zeros(4, np.uint32),))
