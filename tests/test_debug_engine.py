"""The debugger's stepping engine (warpsim.debug.engine.Session) on the nvcc-emitted spmma kernel
(tests/ptx/debug/spmma.cu): breakpoints, stepping through divergence and barriers, reverse execution
restoring the exact earlier state, mma.sp fragments against isa.layouts, memory, values, hooks."""
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import warpsim
from isa import layouts, sparsity
from warpsim.debug import DebugError, Session
from warpsim.debug import values as V
from warpsim.debug.state import Fragments, LaneRegisters, TmemView, lanes_table, warps_table

PTX_DIR = Path(__file__).parent / "ptx" / "debug"
sys.path.insert(0, str(PTX_DIR))
import make_inputs  # noqa: E402

FULL, EVEN, ODD = 0xFFFFFFFF, 0x55555555, 0xAAAAAAAA


def mask(m) -> int:
    return sum(1 << i for i, b in enumerate(m) if b)


@pytest.fixture
def s():
    return make_inputs.session()


def reference_run(iters=2, grid=1):
    a, b, e = make_inputs.registers()
    d, out = np.zeros(256, np.float32), np.zeros(64, np.int32)
    stats = warpsim.RawModule(path=str(PTX_DIR / "spmma.ptx")).get_function("spmma_loop")(
        grid, 64, (a, b, e, d, np.int32(iters), out))
    return d, out, stats


# ----------------------------------------------------------------------------- breakpoints


def test_locations_resolve_to_instructions(s):
    assert s.resolve("111") == ("line", [47], "spmma.ptx:111 (pc 47)")
    assert s.resolve("spmma.ptx:111")[1] == [47]
    assert s.resolve("110")[1] == [47]  # a comment line: the next instruction, as gdb does
    assert s.resolve("spmma.cu:29") == ("source", [60], "spmma.cu:29 (spmma.ptx:133)")
    assert s.resolve("$L__BB0_11")[:2] == ("label", [59]) and s.resolve("L__BB0_11")[1] == [59]
    assert s.resolve("*47")[:2] == ("pc", [47])
    assert s.resolve("spmma_loop")[:2] == ("function", [0])
    assert s.resolve("mma.sp")[:2] == ("opcode", [38, 39, 40, 41, 47])
    assert s.resolve("bar")[1] == [89] and s.resolve("st.shared")[1] == [85, 86, 87, 88]
    stores = [pc for pc, op in enumerate(s.program.ops) if op[1].opcode == "st"]
    assert len(stores) == 9 and s.resolve("st")[1] == stores  # st.global and st.shared, not setp
    for bad, msg in (("frobnicate", "no line, label"), ("*999", "no instruction 999"), ("other.cu:3", "no source file"),
                     ("spmma.cu:1", "no instruction comes from"), ("9999", "no instruction at or after")):
        with pytest.raises(DebugError, match=msg):
            s.resolve(bad)


def test_continue_stops_at_each_mma_sp_of_each_warp_then_runs_to_the_end(s):
    bp = s.break_at("mma.sp")
    stops = []
    while True:
        stop = s.continue_()
        if stop.reason == "exited":
            break
        assert stop.reason == "breakpoint" and stop.breakpoint is bp
        stops.append((stop.warp, stop.pc, stop.focus_changed))
        assert s.instruction(stop.pc).opcode == "mma"
    # iters = 2 runs the remainder loop (pc 47) twice per warp; warp 0 runs until its barrier first
    assert stops == [(0, 47, False), (0, 47, False), (1, 47, True), (1, 47, False)]
    assert bp.hits == 4
    d, out, stats = reference_run()
    assert np.array_equal(s.args[3], d) and np.array_equal(s.args[5], out)  # written back, as RawModule does
    assert stop.message == f"kernel spmma_loop exited: {stats.warp_instructions} warp instructions in 1 CTA"
    assert s.continue_().reason == "exited" and s.stepi().reason == "exited"


def test_condition_moves_focus_to_the_lane_that_satisfies_it(s):
    bp = s.break_at("spmma.cu:29", "%tid.x == 6 || %tid.x == 40")
    stop = s.continue_()
    assert (stop.reason, stop.warp, stop.lane, stop.pc, stop.focus_changed) == ("breakpoint", 0, 6, 60, True)
    assert s.focus_line() == ("[Switching focus to CUDA kernel 0, grid 1, block (0,0,0), thread (6,0,0), "
                              "device 0, sm 0, warp 0, lane 6]")
    stop = s.continue_()
    assert (stop.warp, stop.lane, stop.pc) == (1, 8, 60) and bp.hits == 2
    with pytest.raises(V.ExprError, match="no register %nope"):
        s.break_at("133", "%nope == 1")
    s.break_at("133", "%r55.s32 > 100 && !%p6")
    assert s.continue_().reason == "exited"  # no lane has %r55 > 100


def test_temporary_breakpoint_and_delete(s):
    t = s.break_at("bar", temporary=True)
    b = s.break_at("bar")
    stop = s.continue_()
    assert stop.breakpoint is t and t.number not in s.breakpoints
    assert s.delete([b.number]) == [b.number] and not s.breakpoints
    with pytest.raises(DebugError, match="no breakpoint number 7"):
        s.delete([7])
    assert s.continue_().reason == "exited"


# ----------------------------------------------------------------------------- stepping


def test_divergent_branch_masks_and_step_over_the_other_side(s):
    s.break_at("126")  # @%p9 bra $L__BB0_11: even lanes take it, odd lanes fall through
    s.continue_()
    w = s.warp()
    assert mask(s.group(w)) == FULL
    s.stepi()
    st_ = s.warp_state()
    # min-PC: the odd lanes (fall-through, pc 58) run first; the even ones wait at $L__BB0_11 (pc 59)
    assert (mask(st_.active), mask(st_.divergent), st_.pc, st_.state) == (ODD, EVEN, 58, "divergent")
    assert [s.lane_pc(w, ln) for ln in (0, 1)] == [59, 58]
    text = lanes_table(s, w).splitlines()
    assert text[1].split() == ["*", "0", "divergent", "59", "spmma.ptx:131", "(0,0,0)"]
    assert text[2].split() == ["1", "active", "58", "spmma.ptx:127", "(1,0,0)"]
    row = warps_table(s.warp_states()).splitlines()[1].split()
    assert row[:5] == ["*", "0", "0xaaaaaaaa", "0x55555555", "58"]
    # lane 0 (even) in focus: `step` steps over the odd lanes' bra.uni until lane 0 has run one instruction
    stop = s.step()
    assert stop.steps == 2 and s.source_text(58) == "bra.uni $L__BB0_7;"
    assert mask(s.group(w)) == EVEN and s.next_pc(w) == 60
    # `stepi` runs whatever is at the lowest PC: the even lanes still
    s.focus(lane=1)
    stop = s.step()  # lane 1 waits at pc 62 while the even lanes run 60, 61 (bra.uni $L__BB0_12)
    assert stop.steps == 3 and s.lane_pc(w, 1) > 62
    # they meet again at $L__BB0_12 after the odd lanes' loop
    s.break_at("$L__BB0_12")
    s.continue_()
    assert mask(s.group(w)) == FULL and w.lpc is None


def test_barrier_lets_the_other_warp_run_until_released(s):
    s.break_at("bar")
    s.continue_()
    s.delete()
    w0, w1 = s.warps
    stop = s.stepi()  # bar.sync: warp 0 now waits
    assert w0.blocked == (0, None) and stop.steps == 1 and s.warp_state().state == "waiting at barrier 0"
    before = w1.steps
    stop = s.stepi()  # warp 1 runs to the barrier, releases warp 0, then warp 0 runs ld.shared
    assert w0.blocked is None and w1.blocked is None
    assert stop.steps == 1 + (w1.steps - before) and w1.steps == w0.steps - 1 and s.next_pc(w1) == 90


def test_exited_warp_hands_focus_to_the_next(s):
    s.break_at("ret")
    first = s.continue_().warp  # warp 1 gets there first: released from the barrier, it keeps running
    assert first == 1
    stop = s.stepi()  # warp 1 executes ret
    assert stop.focus_changed and (stop.warp, stop.lane) == (0, 0) and s.warps[1].done
    back = s.reverse_stepi()  # undoes warp 1's ret and gives it the focus back
    assert (back.warp, s.next_pc(s.warps[1])) == (1, s.resolve("ret")[1][0]) and not s.warps[1].done


def test_grid_of_two_ctas_switches_block(s):
    s2 = make_inputs.session(grid=2)
    s2.break_at("spmma.cu:29", "%tid.x == 2")
    first = s2.continue_()
    assert first.reason == "breakpoint" and s2.cta.ctaid == (0, 0, 0)
    stop = s2.continue_()
    assert stop.reason == "breakpoint" and stop.focus_changed and s2.cta.ctaid == (1, 0, 0)
    assert "block (1,0,0), thread (2,0,0)" in s2.focus_line()
    d, out, stats = reference_run(grid=2)
    assert s2.run().reason == "exited" and s2.retired() == stats.warp_instructions


# ----------------------------------------------------------------------------- reverse execution


def test_reverse_stepi_restores_the_exact_state_at_every_instruction():
    """Every warp instruction of the launch, in the scheduler's order: step, step back, compare everything
    (registers, PCs and masks of both warps, shared/global/param/local memory, barriers, scheduler)."""
    s = make_inputs.session()
    states = [s.full_state(focus=False)]
    while not s.finished:
        s.stepi(scheduler=True)
        after = s.full_state(focus=False)
        s.reverse_stepi()
        assert s.full_state(focus=False) == states[-1], f"instruction {len(states)}"
        s.stepi(scheduler=True)
        assert s.full_state(focus=False) == after
        states.append(after)
    d, out, stats = reference_run()
    assert len(states) - 1 == stats.warp_instructions
    assert np.array_equal(s.args[3], d)
    seen = 0
    while s.history:  # all the way back, in the focused warp's steps
        s.reverse_stepi()
        assert s.full_state(focus=False) == states[len(s.history)]
        seen += 1
    assert s.full_state(focus=False) == states[0] and seen > 100
    assert s.reverse_stepi().reason == "no-history"


def test_reverse_step_undoes_memory_writes_and_the_mma(s):
    s.break_at("st.global")
    s.continue_()
    base, base_machine = s.full_state(), s.full_state(focus=False)
    space, addr = s.resolve_address("%rd18")
    assert space == "global" and s.read_memory(space, addr, 4) == b"\0\0\0\0"
    s.stepi()
    assert int.from_bytes(s.read_memory(space, addr, 4), "little", signed=True) == 0  # lane 0's v = -0
    s.focus(lane=5)
    space5, addr5 = s.resolve_address("%rd18")
    assert s.read_memory(space5, addr5, 4) == np.int32(99).tobytes()
    s.reverse_step()
    assert s.full_state(focus=False) == base_machine
    assert s.read_memory(space5, addr5, 4) == b"\0\0\0\0"
    s.focus(lane=0)
    assert s.full_state() == base
    # over an mma.sp: the accumulators come back
    s2 = make_inputs.session()
    s2.break_at("mma.sp")
    s2.continue_()
    s2.delete()
    before = s2.full_state()
    s2.step()
    assert s2.register("%f103").any()
    s2.reverse_step()
    assert s2.full_state() == before


def test_reverse_continue_goes_back_to_the_previous_breakpoint(s):
    s.break_at("mma.sp")
    s.continue_()
    at_first = s.full_state()
    s.continue_()
    s.stepi()
    s.stepi()
    stop = s.reverse_continue()
    assert stop.reason == "breakpoint" and stop.pc == 47
    assert s.reverse_continue().reason == "breakpoint" and s.full_state() == at_first
    assert s.reverse_continue().reason == "history-start" and s.full_state() == make_inputs.session().full_state()


def test_machine_error_stops_before_the_instruction_with_state_intact():
    a, b, e = make_inputs.registers()
    bad = e.copy()
    bad[4] = (int(bad[4]) & ~0xF) | 0b0000  # row 1 chunk 0: an equal-index code, undefined for ordered metadata
    s = make_inputs.session(e=bad)
    s.break_at("mma.sp")
    stop = s.continue_()
    before = s.full_state()
    stop = s.continue_()
    assert stop.reason == "exception" and stop.pc == 47 and "0b0000" in stop.message
    assert s.full_state() == before  # nothing of the failed instruction remains
    f = s.frag()
    assert f.pending and f.invalid.sum() == 1 and f.invalid[1, 0] and f.codes[1, 0] == 0
    assert "m1c0 0000!" in f.operand_text("E") and "(1 invalid for ::ordered_metadata, marked !)" in f.operand_text("E")


# ----------------------------------------------------------------------------- fragments


def test_frag_matrices_match_the_inputs_and_the_layouts(s):
    form = make_inputs.form()
    s.break_at("mma.sp")
    s.continue_()
    f = s.frag()
    assert f.pending and f.rec.d is None and f.operand_text("D").startswith("D {%f104, %f103, %f102, %f101}: not")
    dense_a, dense_b = make_inputs.dense_a(0), make_inputs.dense_b(0)
    values, codes = sparsity.compress(form, dense_a)
    assert np.array_equal(f.matrix("A"), dense_a) and np.array_equal(f.matrix("A'"), values)
    assert np.array_equal(f.codes, codes) and not f.invalid.any()
    assert np.array_equal(f.matrix("B"), dense_b) and not f.matrix("C").any()
    assert f.meta_lanes == (0, 4, 8, 12, 16, 20, 24, 28)
    for op in ("A", "B", "C"):
        assert np.array_equal(f.owner(op), layouts.layout(form, op).inverse()[..., 0])
    s.stepi()
    g = s.frag()
    assert not g.pending and np.array_equal(g.matrix("D"), dense_a @ dense_b)
    # in warp 1 (other data), the 2nd iteration (%r62 counts down 2, 1): C of the 2nd mma is D of the 1st
    s.delete()
    s.break_at("mma.sp", "%r62 == 1 && %tid.x >= 32")
    assert s.continue_().warp == 1
    s.stepi()
    h = s.frag()
    a1, b1 = make_inputs.dense_a(1), make_inputs.dense_b(1)
    assert h.warp == 1 and np.array_equal(h.matrix("C"), a1 @ b1) and np.array_equal(h.matrix("D"), 2 * a1 @ b1)


def test_frag_needs_an_mma(s):
    with pytest.raises(DebugError, match="has not executed one yet"):
        s.frag()


# ----------------------------------------------------------------------------- memory, values, state


def test_addresses_and_memory(s):
    s.break_at("bar")
    s.continue_()
    smem = s.program.shared["_ZZ10spmma_loopE4smem"]
    assert s.resolve_address("&_ZZ10spmma_loopE4smem") == ("shared", smem.offset)
    assert s.resolve_address("shared:16") == ("shared", 16)
    assert s.resolve_address(hex((1 << 40) + 8)) == ("shared", 8)  # the generic shared window
    # d[4t + j] through shared: lane 0 stored D[0][0], D[0][1], D[8][0], D[8][1] (x2 iterations)
    form = make_inputs.form()
    D = 2 * make_inputs.dense_a(0) @ make_inputs.dense_b(0)
    got = np.frombuffer(s.read_memory("shared", 0, 16), np.float32)
    assert list(got) == [D[0, 0], D[0, 1], D[8, 0], D[8, 1]] and form.shape.m == 16
    space, p0 = s.resolve_address("&spmma_loop_param_0")
    assert space == "params"
    a_ptr = int.from_bytes(s.read_memory("params", p0, 8), "little")
    a, _, _ = make_inputs.registers()
    assert s.read_memory("global", a_ptr, 16) == a.tobytes()[:16]
    with pytest.raises(DebugError, match="Cannot access memory at address 0x10"):
        s.read_memory("global", 0x10, 4)
    with pytest.raises(DebugError, match="shared address 0x400"):
        s.read_memory("shared", 1024, 4)
    with pytest.raises(DebugError, match="no variable or parameter named 'nope'"):
        s.resolve_address("&nope")


@pytest.mark.parametrize("bits, view, text", [
    (0x40003C00, "f16x2", "{1.0, 2.0} (0x40003c00)"),
    (0x3F80BF80, "bf16x2", "{-1.0, 1.0} (0x3f80bf80)"),
    (0x38B8407F, "e4m3x4", "{nan, 2.0, -1.0, 1.0} (0x38b8407f)"),
    (0x80FF7F01, "s8x4", "{1, 127, -1, -128} (0x80ff7f01)"),
    (0xFFFFFFFE, "s32", "-2 (0xfffffffe)"),
    (0xFFFFFFFE, "u32", "4294967294 (0xfffffffe)"),
    (0x3DCCCCCD, "f32", "0.10000000149011612 (0x3dcccccd)"),
    (0x7F800000, "f32", "inf (0x7f800000)"),
    (0xC000BC00, "f16", "-1.0 (0xbc00)"),
])
def test_views(bits, view, text):
    assert V.fmt_lane(bits, V.VIEWS[view], 32) == text


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_f32_text_reads_back_to_the_same_bits(bits):
    text = V.fmt_lane(bits, V.VIEWS["f32"], 32, with_hex=False)
    value = np.float32(float(text))
    if np.isnan(value):
        assert (bits >> 23) & 0xFF == 0xFF and bits & 0x7FFFFF
    else:
        assert int(np.array(value).view(np.uint32)) == bits


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**16 - 1), st.integers(0, 2**16 - 1))
def test_f16x2_text_reads_back(lo, hi):
    text = V.fmt_lane(lo | hi << 16, V.VIEWS["f16x2"], 32, with_hex=False)
    for part, bits in zip(text.strip("{}").split(", "), (lo, hi)):
        v = np.float16(float(part))
        if not np.isnan(v):
            assert int(np.array(v).view(np.uint16)) == bits


def test_expressions_evaluate_per_lane(s):
    s.break_at("spmma.cu:29")
    s.continue_()
    tid = s.evaluate("%tid.x")
    assert list(tid) == list(range(32))
    assert list(s.evaluate("%tid.x * 2 + 1 == 7"))[:4] == [False, False, False, True]
    assert list(s.evaluate("!%p6 && %tid.x < 4")) == [True, False, True, False] + [False] * 28
    assert list(s.evaluate("$r55 | 0x100"))[:3] == [256, 256, 258]  # odd lanes have not set %r55
    with pytest.raises(V.ExprError, match="cannot parse"):
        s.evaluate("%r4 ==")
    with pytest.raises(V.ExprError, match="unknown view"):
        s.evaluate("%r4.f99")
    with pytest.raises(V.ExprError, match="holds 2 elements"):
        s.evaluate("%r1.f16x2 == 1")
    regs = LaneRegisters.of(s, s.warp(), 2)
    row = dict((n, v) for n, _, v in regs.rows)
    assert row["%r55"] == "2 (0x00000002)" and row["%p6"] == "false" and row["%rd1"] == "2 (0x0000000000000002)"
    assert "<table" in regs._repr_html_() and "<table" in s.warp_state()._repr_html_()


def test_cycle_is_retired_instructions_without_timing_and_the_clock_with_it():
    s = make_inputs.session()
    s.stepi()
    s.stepi()
    assert s.cycle() == (2, "instructions retired") and not s.timing
    t = make_inputs.session(clock=lambda w: 1000 + 4 * w.steps)
    t.stepi()
    assert t.cycle() == (1004, "cycle") and t.timing


def test_cycle_with_the_timed_engine_follows_its_timeline():
    s = make_inputs.session(timing=True)
    tl = s.timeline
    assert s.timing and tl is not None and len(tl.records) == reference_run()[2].warp_instructions
    issue = {}  # each warp's instructions in program order (the timed engine may issue them in ptxas's order)
    for cta, warp, pc, _, t_issue, _, done in tl.records:
        issue.setdefault(warp, []).append((t_issue, pc, done))
    s.break_at("mma.sp")
    s.continue_()
    k = s.warp().steps
    value, what = s.cycle()
    assert what == "cycle" and (value, s.next_pc(s.warp())) == issue[0][k][:2]
    assert value > 0 and s.cycle(1) == (issue[1][0][0], "cycle")
    stop = s.run()
    assert stop.message.endswith(f", {tl.cycles:g} cycles (timed engine, {tl.params})")
    assert s.cycle() == (max(d for _, _, d in issue[s.focus_warp]), "cycle (finished)")


def test_clock_register_reads_the_timed_issue_cycle():
    code = """
.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b64 %rd<4>;
    .reg .b32 %r<3>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u64 %rd2, %clock64;
    mul.wide.u32 %rd3, %r1, 8;
    add.s64 %rd3, %rd1, %rd3;
    st.global.u64 [%rd3], %rd2;
    ret;
}
"""
    out = np.zeros(32, np.uint64)
    s = Session(code, "k", 1, 32, (out,), timing=True)
    s.run()
    rec = [r for r in s.timeline.records if r[3].startswith("mov.u64")]
    assert len(rec) == 1 and int(out[0]) == int(rec[0][4]) > 0
    assert make_inputs.session(timing=False).timeline is None


def test_tmem_absent_then_shown(s):
    t, note = s.tmem()
    assert t is None and "no Tensor Memory in CTA (0, 0, 0)" in note and "sm_90a" in note
    from warpsim import tmem as tm

    if not hasattr(tm, "cta_tmem"):
        pytest.skip("warpsim.tmem is not wired into the machine in this tree")
    mem = tm.cta_tmem(s.cta)
    col = mem.alloc(32)
    mem.write_cells("test", np.arange(4)[:, None], np.arange(col, col + 2)[None, :],
                    np.full((4, 2), 0x3F800000, np.uint32))
    t, note = s.tmem()
    text = str(TmemView(t, lanes=[0, 3, 4]))
    assert t is mem and "allocations (first column: columns): 0: 32" in text
    lines = text.splitlines()
    assert lines[3].split()[:5] == ["lane", "0", "3f800000", "3f800000", "--------"]
    assert lines[5].split()[2] == "--------"


def test_hooks_are_called():
    calls = []

    class Recording(Session):
        def user_line(self, stop):
            calls.append(("line", stop.pc))

        def user_break(self, stop):
            calls.append(("break", stop.breakpoint.number))

        def user_exit(self, stop):
            calls.append(("exit", stop.reason))

    a, b, e = make_inputs.registers()
    s = Recording(str(PTX_DIR / "spmma.ptx"), "spmma_loop", 1, 64,
                  (a, b, e, np.zeros(256, np.float32), np.int32(1), np.zeros(64, np.int32)))
    s.break_at("bar")
    s.stepi()
    s.continue_()
    s.run()
    assert calls == [("line", 1), ("break", 1), ("exit", "exited")]


def test_session_from_code_and_bad_arguments():
    code = (PTX_DIR / "spmma.ptx").read_text()
    a, b, e = make_inputs.registers()
    args = (a, b, e, np.zeros(256, np.float32), np.int32(1), np.zeros(64, np.int32))
    s = Session(code, "spmma_loop", 1, 32, args)
    assert len(s.warps) == 1 and s.run().reason == "exited"
    with pytest.raises(Exception, match="takes 6 arguments"):
        Session(code, "spmma_loop", 1, 32, args[:2])
    with pytest.raises(DebugError, match="no warp 3"):
        s.focus(3)
    with pytest.raises(DebugError, match="lane 40"):
        s.focus(0, 40)


TCGEN05 = Path(__file__).parent / "ptx" / "tcgen05" / "alloc_ld_st.ptx"


@pytest.mark.skipif(not TCGEN05.exists(), reason="no tcgen05 kernel in this tree")
def test_tmem_of_a_tcgen05_kernel_and_reverse_over_tcgen05_st():
    mod = warpsim.RawModule(path=str(TCGEN05))
    entry = next(f.name for f in mod.module.functions if f.kind == "entry")
    src = np.arange(128 * 16, dtype=np.uint32).reshape(128, 16)
    s = Session(mod, entry, 1, 128, (src, np.zeros(128 * 20, np.uint32)), timing=False)
    s.break_at("tcgen05.st")
    stop = s.continue_()
    assert stop.reason == "breakpoint"
    t, _ = s.tmem()
    before, machine = t.defined.copy(), s.full_state()
    s.stepi()  # this warp writes its lane quarter
    w = s.focus_warp
    t, _ = s.tmem()
    quarter = slice(32 * w, 32 * w + 32)
    assert t.defined[quarter].any() and not before[quarter].any()
    text = str(TmemView(t, lanes=[32 * w]))
    row = [ln for ln in text.splitlines() if ln.split()[:2] == ["lane", str(32 * w)]][0]
    assert "--------" not in row.split()[2]
    s.reverse_stepi()
    assert s.full_state() == machine and not s.tmem()[0].defined[quarter].any()
