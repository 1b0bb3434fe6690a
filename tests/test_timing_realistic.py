"""The timed engine on kernels it was not fitted to, and the chip that measured them.

``traces/h200/spgemm_clock.json``: the tiled sparse GEMM with clock stamps (``prog_spgemm_clock.ptx``) on an H200;
``traces/h200/gmem_rate.json``: the SM's global-memory path under load (``gmem_rate.ptx``);
``traces/h200/timing_again.json``: the H100's timing kernels recorded again on that H200 (see
``warpsim.timing.spgemm_clock``, ``warpsim.timing.gmem_rate`` and ``warpsim.timing.h200``)."""
import numpy as np
import pytest

import warpsim
from warpsim.timing import analysis, gmem_rate, h200, spgemm_clock
from warpsim.timing.params import params_for


@pytest.fixture(scope="module")
def spgemm():
    return spgemm_clock.table()


def test_spgemm_d_is_the_gpus_bit_for_bit(spgemm):
    """The same PTX file on the H200 and in warpsim: D equal bit for bit, in all four kernels and both launch
    conditions."""
    assert len(spgemm) == 8 and all(r["d_bits"] for r in spgemm)


#: warpsim's kernel cycles against the H200's (entry to the last stamp), as measured: ``(low, high)`` of
#: warpsim / H200 - 1 in both launch conditions. A change of the model that moves one out fails here.
KERNEL_ERROR = {
    "spgemm_clock_k1024": (0.03, 0.06),      # +4.4 %
    "spgemm_clock_k256": (0.06, 0.09),       # +7.6 / +7.7 %
    "spgemm_clock_pf_k1024": (0.075, 0.105),  # +9.1 / +9.3 %: B prefetched into registers
    "spgemm_clock_w8_k1024": (-0.18, -0.15),  # -16.2 / -16.3 %: 8 warps; its K step 16 % short
}


def test_spgemm_kernel_cycles_beside_the_h200(spgemm):
    """Out of sample: the 4-warp kernels within 4.4-9.3 % of the H200 (K steps within 11 %), the 8-warp one
    16 % short: its K step takes 1,150 cycles on the H200 against 910 with 4 warps (warpsim 964 and 950), and
    its D stores 540 against 180 (warpsim 277 and 127, the store port taking part of it)."""
    for r in spgemm:
        err = {p: r["warpsim"][p] / r["gpu"][p] - 1 for p in ("kernel", "first", "step", "tail")}
        lo, hi = KERNEL_ERROR[r["kernel"]]
        assert lo < err["kernel"] < hi, (r, err)
        if r["kernel"] != "spgemm_clock_w8_k1024":
            assert abs(err["step"]) < 0.11 and abs(err["first"]) < 0.05 and -0.35 < err["tail"] < -0.2, (r, err)
        else:
            assert err["step"] < -0.15 and -0.55 < err["tail"] < -0.45, (r, err)


@pytest.fixture(scope="module")
def gmem():
    return {(r["kernel"], r["warps"]): r["warpsim"][0] / r["gpu"][0] - 1 for r in gmem_rate.table()}


def test_gmem_rate_the_sms_load_path(gmem):
    """(Every figure of these tests is the CTA's span, its first warp's first clock to its last warp's last; the
    engine ends early warps early, where on the H200 every warp spans nearly the whole run.) The SM's L1 takes
    a line a cycle from the L2 and a wavefront a cycle from its sub-partitions (one every 2 from each): 32 loads
    a warp over 32 lines within 4 % of the H200 from 2 to 16 warps, over 8 lines within 6 % from 8 warps, L1
    hits over 32 lines within 7 % and over 8 within 16 %. Without those two rates the 16-warp runs had been
    94 % short (L2) and 78-81 % long (hits: a wavefront every 2 cycles for the whole SM)."""
    assert all(abs(gmem[("gmem_load_p32", w)]) < 0.04 for w in (2, 4, 8, 16))
    assert all(abs(gmem[("gmem_load_p8", w)]) < 0.06 for w in (8, 16))
    assert all(abs(gmem[("gmem_hit_p32", w)]) < 0.07 for w in (1, 2, 4, 8, 16))
    assert all(abs(gmem[("gmem_hit_p8", w)]) < 0.16 for w in (1, 2, 4, 8, 16))


def test_gmem_rate_the_sms_store_port(gmem):
    """Global stores queue at the SM's store port (2 cycles a line or 1 a sector, whichever is more; no warp
    issues another while 40 wait): 4-16 warps storing over 8 or 32 lines within 5 % of the H200, over one line
    (4 sectors) within 17 %. Without the port the 16-warp runs had been 70-98 % short."""
    assert all(abs(gmem[(f"gmem_store_p{p}", w)]) < 0.05 for p in (8, 32) for w in (4, 8, 16))
    assert all(abs(gmem[("gmem_store_p1", w)]) < 0.17 for w in (4, 8, 16))


def test_gmem_rate_what_the_engine_lacks(gmem):
    """Measured, not modelled:

    * a warp's first loads from the L2 take 210-410 cycles longer on the H200 than the engine's L2 hit (one
      warp 13-43 % short), and so do 4-16 warps' loads of one line a request (24-43 % short);
    * one or two warps issue their stores slower than the engine (270-2,083 cycles for 32 or 64 stores, the
      engine 174-1,693: 19-48 % short);
    * two warps loading the same lines (``gmem_pair``: warps 2k and 2k + 1, as the GEMM's A rows) take as long
      on the H200 as two loading their own: a line being filled for one warp's request takes a turn of the
      miss path again for the other's. The engine gives the second warp the first one's fill (43-49 % short
      with 2-16 warps). Given the turn (tried, not kept) it follows the pairs within 1 % and the 8-warp GEMM
      within 1.1 %, but puts the 4-warp GEMMs 14-24 % long, where they are now 4-9 % long (a turn only where
      another warp's or sub-partition's request fills the line: pairs within 11 %, the 8-warp GEMM -5 %, the
      4-warp ones +10-18 %): a second thing the GEMMs' loads do differently from the probe's is not found, so
      the rule waits for it."""
    assert all(-0.45 < gmem[(f"gmem_load_p{p}", 1)] < -0.10 for p in (1, 8, 32))
    assert all(-0.45 < gmem[("gmem_load_p1", w)] < -0.2 for w in (4, 8, 16))
    assert all(-0.5 < gmem[(f"gmem_store_p{p}", w)] < -0.15 for p in (1, 8, 32) for w in (1, 2))
    assert all(-0.5 < gmem[(f"gmem_pair_p{p}", w)] < -0.4 for p in (8, 32) for w in (2, 4, 8, 16))


def _order(code: str):
    program = warpsim.RawModule(code=code).get_function("k").program
    order = analysis.issue_order(program, params_for("sm_90a"))
    return [program.instructions[pc] for pc in order.entry[0]]


STAGE = """.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p)
{{
    .reg .b32 %r<9>;
    .reg .b64 %rd<9>;
    .shared .align 4 .b8 s[256];
    ld.param.u64 %rd1, [p];
    ld.global.u32 %r1, [%rd1];
    {store} [%r5], %r1;
    add.s64 %rd2, %rd1, 4;
    {load} %r2, [%rd2];
    st.global.u32 [%rd1+8], %r2;
    ret;
}}
"""


@pytest.mark.parametrize("store, load, hoisted", [
    ("st.shared.u32", "ld.global.u32", True),    # another state space: the load and its address move up
    ("st.shared.u32", "ld.shared.u32", False),   # the same space may alias
    ("st.global.u32", "ld.global.u32", False),
    ("st.u32", "ld.global.u32", False),          # a generic address may be any space
    ("st.volatile.shared.u32", "ld.global.u32", False),
])
def test_a_load_moves_up_past_a_store_to_another_space(store, load, hoisted):
    """sched rule 3, as ptxas orders the GEMM's B staging: an ``ld.global`` after an ``st.shared`` issues before
    it, with the ``add`` that computes its address; a store that may alias it keeps it below."""
    got = [f"{i.opcode}.{'.'.join(i.mods)}" for i in _order(STAGE.format(store=store, load=load))]
    first_store = got.index(store)
    assert (got.index(load, 2) < first_store) is hoisted, got
    assert (got.index("add.s64") < first_store) is hoisted, got


def test_the_gemms_b_loads_issue_back_to_back_as_ptxas_puts_them():
    """In the GEMM's K step ptxas issues the four B loads (``LDG``) before the four ``STS`` (0x5a0-0x7b0 of
    spgemm_clock_k256's SASS); so does the engine's order."""
    program = warpsim.RawModule(path=spgemm_clock.PTX).get_function("spgemm_clock_k256").program
    order = analysis.issue_order(program, params_for("sm_90a"))
    ins = program.instructions
    step = next(seq for seq in order.entry.values() if sum(ins[pc].opcode == "bar" for pc in seq) == 2)
    kinds = [f"{ins[pc].opcode}.{ins[pc].mods[0]}" for pc in step if ins[pc].opcode in ("ld", "st", "bar")]
    assert kinds[:9] == ["ld.global"] * 4 + ["st.shared"] * 4 + ["bar.sync"], kinds


def test_the_h200_runs_the_h100s_timing_kernels_in_its_cycles():
    """1,104 configurations of the 24 timing traces recorded again on an H200: median |H200 / H100 - 1| 0.13 %,
    985 within 1 %, all but one within 5 % (sp_f16_k16_f16 one warp at 4 trips, -5.7 %: the one-warp 4-trip
    runs, mostly the prologue's global loads, are where the chips differ, up to 6 %)."""
    d = h200.compare()
    assert len(d) == 24 and sum(len(v) for v in d.values()) == 1104
    e = np.abs([x for v in d.values() for x in v.values()])
    assert np.median(e) < 0.002 and np.sum(e <= 0.01) >= 980 and e.max() < 0.06
    off = [(n, k) for n, v in d.items() for k, x in v.items() if abs(x) > 0.03]
    assert all(k.endswith(",1,4") for _, k in off), off


@pytest.mark.parametrize("module, text, message", [
    ("spgemm_clock", '{"how": "x", "rows": []}', r"other\.json: not the spgemm_clock measurement \(no 'how' and "
                                                 r"'inputs' and 'd_sha256' and 'rows'\)"),
    ("spgemm_clock", '{"how": "x", "inputs": {}, "d_sha256": {}, "rows": []}', r"other\.json: no launches"),
    ("spgemm_clock", '{"how": "x", "inputs": {}, "d_sha256": {}, "rows": [{"kernel": "spgemm_k8", "t": []}]}',
     r"other\.json: a row of kernel 'spgemm_k8' is not one of"),
    ("spgemm_clock", '{"how": "x", "inputs": {"spgemm_clock_k256": "00"}, "d_sha256": {}, "rows": [{"kernel": '
                     '"spgemm_clock_k256", "repeat": 0, "before": "none", "t": ' + str([[[0] * 10] * 4] * 4) + '}]}',
     r"other\.json: kernel spgemm_clock_k256's inputs are not those inputs\(\) makes here"),
    ("gmem_rate", '{"how": "x", "rows": [{"kernel": "gmem_load_p1", "warps": 2, "t": [[0, 1], [2]]}]}',
     r"other\.json: a row of kernel 'gmem_load_p1' is not one of"),
    ("gmem_rate", '{"how": "x", "rows": [{"kernel": "gmem_load_p1", "warps": 2, "t": [[0, 1]]}]}',
     r"other\.json: a row of kernel 'gmem_load_p1' is not one of .* with two clocks a warp"),
    ("h200", '{"how": "x", "traces": {}}', r"other\.json: no traces, or a trace without runs"),
    ("h200", '[1]', r"other\.json: not the timing_again measurement"),
])
def test_measurement_files_are_checked_when_read(tmp_path, module, text, message):
    """A file that is not what the analysis reads is named, with what it lacks."""
    import importlib
    path = tmp_path / "other.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        importlib.import_module(f"warpsim.timing.{module}").load(str(path))


def test_the_h200_analysis_prints_its_table(capsys):
    assert h200.main([]) == 0
    out = capsys.readouterr().out
    assert "NVIDIA H200" in out and "all: 1104 configurations, 985 within 1 %" in out


PORT = """.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 t)
{{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<12>;
    .shared .align 4 .b8 s[128];
    ld.param.u64 %rd1, [p];
    ld.param.u64 %rd9, [t];
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, {lane};
    mul.wide.u32 %rd2, %r1, {spread};
    add.s64 %rd3, %rd1, %rd2;
    mov.u32 %r2, s;
    mul.wide.u32 %rd8, %r1, {move};
    mov.u64 %rd5, %clock64;
{body}
    mov.u64 %rd6, %clock64;
    sub.s64 %rd7, %rd6, %rd5;
    st.global.u64 [%rd9], %rd7;
    ret;
}}
"""


def _port_cycles(lane: int, spread: int, moves: bool, move: int = 256) -> int:
    """Cycles of 60 global stores by one warp: each predicated on ``lane`` (32: every lane), its lanes
    ``spread`` bytes apart; with ``moves`` the address moves on by ``move`` bytes a lane after each store and
    a shared load after it is hoisted above the store, then comes back."""
    one = "    @%p1 st.global.u32 [%rd3], %r1;\n" if lane < 32 else "    st.global.u32 [%rd3], %r1;\n"
    if moves:
        one += "    add.s64 %rd3, %rd3, %rd8;\n    ld.shared.u32 %r3, [%r2];\n    sub.s64 %rd3, %rd3, %rd8;\n"
    code = PORT.format(lane=lane, spread=spread, move=move, body=one * 60)
    t = np.zeros(1, np.int64)
    warpsim.RawModule(code=code).get_function("k")(1, 32, (np.zeros(32 * 1024 * 64, np.uint32), t))
    return int(t[0])


def test_the_store_port_charges_the_lanes_that_stored():
    """A store whose guard leaves one lane costs the port that lane's line, not the warp's 32: 60 such
    stores with lanes 256 bytes apart queue nothing; the same stores from every lane (32 lines each, 64
    cycles) fill the 40-store queue and hold the warp."""
    one, every = _port_cycles(0, 256, False), _port_cycles(32, 256, False)
    assert one < 400 < 1000 < every, (one, every)


def test_the_store_port_takes_the_address_the_store_used():
    """A store's lines are those of the address it stored to, even when an instruction after it moves the
    address register before the store is timed (a shared load hoisted above the store runs it and the
    instructions up to itself, the address moved 256 bytes a lane until the instruction after the load
    moves it back): 60 one-line stores cost as 60 one-line stores, not as 60 over 32 lines."""
    moved, still = _port_cycles(32, 4, True), _port_cycles(32, 4, True, move=0)
    assert moved < 1.1 * still, (moved, still)  # taken after the move: 1,352 against 603
