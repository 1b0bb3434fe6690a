"""The timed engine (warpsim.timing): replay of the H100 clock64 traces, golden timeline, determinism,
barriers, the timeline command, and the fixed-latency baseline.

The full table (1,143 configurations of 27 traces, about 5 M warp instructions, the functional mma body
dominating) runs under ``warpsim replay traces/h100/timing --timing all``; these tests replay a subset that
covers every trace file and every kind of configuration (one warp at ILP 1/2/4/8 with reps 4 and 32; 4 to 16
warps at ILP 1 and 4), assert the 5 % bound (and a median of at most 2 %) on those the model gets within it,
and for the configurations it does not yet get there assert the honest bound it reaches, separately:

* the emulated forms run ptxas's SASS of the loop (warpsim.timing.sass_sim) over the kernels' 32 trips; the
  known misses (warpsim.timing.known): two warps per sub-partition of sp_s4_k64 at ILP 1 (the H100 runs them
  at 1.375 or 1.53 x one warp, set by the code the launch before left in the instruction caches, the replay
  at 1.49 x: 5-6 % long) and of dense_s4_k64 at ILP 4 (5-8 % long), the spill frames of several sparse fp8
  warps competing for the L1 (ILP 4 with 3, 7 and 11 warps: 5.3-6.8 %), one warp of e5m2 at ILP 2 (5.6 %);
  the sparse fp8 traces were recorded with the L1 reset before every launch (traces/h100/l1_state.json: the
  launch before otherwise moves one warp's time by up to 35 %);
* the L1-carveout runs (``traces/h100/l1_carveout.json``: the L1 shrunk to 124..28 KB) replayed by
  ``warpsim.timing.l1_carveout``: the replay's slowdown at each L1 size within 1.6 x of the H100's, with
  the LRU misses named in ``test_l1_carveout_replay`` (tests/test_timing_memory.py).

The issue rule's tests are in tests/test_timing_issue.py, the L1's, the fetch's and the register banks' in
tests/test_timing_memory.py.
"""
from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest

from warpsim.module import RawModule
from warpsim.replay_timing import error_table, replay_timing
from warpsim.timing import known
from warpsim.tracefile import read_trace

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMING = os.path.join(ROOT, "traces", "h100", "timing")
GOLDEN = os.path.join(ROOT, "tests", "golden", "timeline")
NATIVE = ["dense_bf16_k16_f32", "dense_f16_k16_f16", "dense_f16_k16_f32", "dense_s8_k32", "dense_tf32_k8_f32",
          "sp_bf16_k16_f32", "sp_bf16_k32_f32", "sp_f16_k16_f16", "sp_f16_k16_f32", "sp_f16_k32_f16",
          "sp_f16_k32_f32", "sp_legacy_f16_k16_f32", "sp_legacy_s8_k32", "sp_s8_k32", "sp_s8_k32_sat",
          "sp_s8_k64", "sp_tf32_k16_f32", "sp_tf32_k8_f32"]
EMULATED = ["sp_s4_k64", "sp_s4_k128", "dense_s4_k64", "sp_e4m3_k64_f32", "sp_e5m2_k64_f32", "dense_e4m3_k32_f32"]
TRIPS = ["trips_dense_f16_k16_f32", "trips_sp_f16_k16_f32", "trips_sp_f16_k32_f32"]
ONE_WARP = [(i, 1, r) for i in (1, 2, 4, 8) for r in (4, 32)]
MULTI = [(1, w, 32) for w in (4, 8, 12, 16)] + [(4, w, 32) for w in (4, 8, 12)]
FOUR_PER_SP = [(4, 13, 32), (4, 16, 32)]  # 4 warps on sub-partition 0 (13) or on all four (16)
MULTI_FORMS = ["sp_f16_k16_f32", "dense_f16_k16_f32", "sp_f16_k32_f32"]
SHARED_FAIRLY_OR_AGED = ["sp_f16_k16_f32", "sp_f16_k32_f32"]  # FOUR_PER_SP within 5 %
F16_ACC_ILP1 = [(1, 12, 32), (1, 16, 32)]  # the warp switch in proportion to the accumulator registers


def _trace(name):
    return read_trace(os.path.join(TIMING, name + ".npz"))


def _errors(results):
    return [abs(g.simulated_cycles - g.measured_cycles) / g.measured_cycles for g in results]


@pytest.fixture(scope="module")
def native_results():
    out = []
    for name in NATIVE:
        cfg = list(ONE_WARP)
        if name in MULTI_FORMS:
            cfg += MULTI
        if name in SHARED_FAIRLY_OR_AGED:
            cfg += FOUR_PER_SP
        if name == "sp_f16_k16_f16":
            cfg += F16_ACC_ILP1
        out += replay_timing(_trace(name), name, "sm_90a", configs=cfg)
    return out


def test_every_timing_trace_is_covered():
    files = sorted(f[:-4] for f in os.listdir(TIMING) if f.endswith(".npz"))
    assert files == sorted(NATIVE + EMULATED + TRIPS)


def test_native_forms_within_bounds(native_results):
    print("\n" + error_table(native_results))
    assert not [g.error for g in native_results if g.error]
    errs = _errors(native_results)
    bad = [g.name for g, e in zip(native_results, errs) if e > 0.05]
    assert not bad, f"over 5 %: {bad}"
    assert np.median(errs) <= 0.02, f"median |error| {np.median(errs):.4f}"


def test_dense_f32_four_warps_per_subpartition_starve_slot0():
    """The recorded dense f32-accumulator ILP4 kernels leave the non-yielding UISETP + PLOP3 among the HMMAs
    of their loop (the variants of traces/h100/arbitration.json that share fairly have a yielding ISETP
    there): the H100 and the model (``tensor_sharing.aging_nonyield``) pass over the lowest warp of each
    sub-partition until the other three finish, and give it no turn at their loop ends either
    (``aging_cap``: without it the model's slot 0 took ~6 tensor ops a trip there and 16 warps ran 5-6 %
    long). 13 and 16 warps within 3.5 % (3.1 % since the 2026-11-29 refit of the tensor pipe's sharing costs,
    within 3 % before); the other twelve warps' mean within 3.5 % of the H100's (3.3 %; 3 % before)."""
    for name in ("dense_f16_k16_f32", "dense_tf32_k8_f32"):
        res = replay_timing(_trace(name), name, "sm_90a", configs=FOUR_PER_SP)
        print("\n" + error_table(res))
        assert max(_errors(res)) <= 0.035
    sim, hw = _per_warp("dense_f16_k16_f32", 4, 16)
    for d in (sim, hw):
        _assert_slot0_starved(d, 1.2)
    assert abs(np.mean(sim[4:]) / np.mean(hw[4:]) - 1) <= 0.035


def _assert_slot0_starved(d, factor):
    """16 warps: the lowest warp of each sub-partition (warps 0-3) at least ``factor`` x the others' median,
    the other twelve within 10 % of it."""
    others = np.median(d[4:])
    assert min(d[:4]) >= factor * others and max(d[4:]) <= 1.1 * others


def _per_warp(name, ilp, warps):
    """(simulated, measured) per-warp end - start cycles of one configuration (measured: its first later
    launch)."""
    from warpsim.replay_timing import TimingRunner
    tr = _trace(name)
    a = tr.arrays
    row = [r for r in range(len(a["run_ilp"])) if (a["run_ilp"][r], a["run_warps"][r], a["run_reps"][r],
                                                   a["run_repeat"][r]) == (ilp, warps, 32, 1)][0]
    hw = a["end"][row, :warps].astype(np.int64) - a["start"][row, :warps].astype(np.int64)
    return TimingRunner(tr).run(ilp, warps, 32), hw


def test_tensor_pipe_aging_starves_slot0_only_on_the_k32_pipe():
    """With 4 warps per sub-partition at ILP 4 the H100 passes over the lowest warp of each sub-partition on
    the ii-8 k32 pipe until the other three finish, and shares the ii-6 k16 pipe fairly (whose loop yields at
    every non-tensor instruction); so does the model (``tensor_sharing.aging``)."""
    for d in _per_warp("sp_f16_k32_f32", 4, 16):
        _assert_slot0_starved(d, 1.25)
    for d in _per_warp("sp_f16_k16_f32", 4, 16):
        assert max(d) <= 1.05 * min(d)


def test_trips_kernels_within_bounds():
    """The per-trip clock-store kernels within 5 %: one warp and one per sub-partition (the store's register
    read, ``store_read``, and the branch that waits for it), 2 to 4 warps per sub-partition at ILP 1 (the
    global store's read waits for the other warps' tensor ops, ``store_read_other``: 6-13 % short without
    it), and 4 warps per sub-partition at ILP 4 (the H100 starves slot 0 on every pipe: the loop end does not
    yield, ``aging_nonyield``)."""
    cfg = [(1, 1, 32), (2, 1, 32), (4, 1, 32), (1, 4, 32), (4, 4, 32), (1, 8, 32), (1, 12, 32), (1, 16, 32),
           (4, 16, 32)]
    res = [g for name in TRIPS for g in replay_timing(_trace(name), name, "sm_90a", configs=cfg)]
    print("\n" + error_table(res))
    assert max(_errors(res)) <= 0.05, error_table(res)


def _first_trip_ends(name, warps, old_l1=False):
    """(H100, engine) cycles from the CTA's first start clock to each warp's first per-trip clock, ILP 1 (the
    H100: its first later launch; the engine with the table, or ``old_l1``: a fill's data and a miss's lines
    passing neither the data path nor the tag stage, as before 2026-11-29)."""
    from warpsim.replay_timing import TimingRunner, kernel_name
    from warpsim.timing.params import params_for
    tr = _trace(name)
    a = tr.arrays
    row = [r for r in range(len(a["run_ilp"])) if (a["run_ilp"][r], a["run_warps"][r], a["run_reps"][r],
                                                   a["run_repeat"][r]) == (1, warps, 32, 1)][0]
    start = a["start"][row, :warps].astype(np.int64)
    hw = a["trip"][row, :warps, 0].astype(np.int64) - start.min()
    params = params_for("sm_90a")
    if old_l1:
        params.memory = dict(params.memory, miss_wavefronts=False, tag_all=False)
    fn = TimingRunner(tr, params=params).mod.get_function(kernel_name(tr, 1))
    ts, te = np.zeros(16, np.uint64), np.zeros(16, np.uint64)
    sink = np.zeros(32 * warps * 4 + 2 * warps * 32, np.uint32)  # ntid.x * 16 bytes of results, then the trips'
    fn(1, 32 * warps, (a["input"].copy(), ts, te, np.zeros(16, np.uint32), sink, np.int32(32)))
    trips = sink.view(np.uint64)[64 * warps:].reshape(warps, 32).astype(np.int64)
    return hw, trips[:, 0] - ts[:warps].astype(np.int64).min()


@pytest.mark.parametrize("name", TRIPS)
def test_the_h100s_warps_leave_their_first_trip_apart(name):
    """With 8 and 16 warps the H100's warps end their first trip (the operand loads, then a trip) 80-212 cycles
    apart. The table's L1, whose data path takes a fill's wavefronts and whose tag stage takes every request
    (``memory["miss_wavefronts"]``, ``tag_all``: ``l1_dup``), ends them 12-244 apart and the median warp within
    13 % (the dense and sparse k16 kernels within 7 %); without those two (the table before 2026-11-29) they end
    within 45 cycles, nearly in step, and 17-36 % early, which the loop costs fitted then had hidden."""
    for warps in (8, 16):
        hw, sim = _first_trip_ends(name, warps)
        _, old = _first_trip_ends(name, warps, old_l1=True)
        assert 70 < np.ptp(hw) < 250 and np.ptp(old) <= 45, (warps, hw, old)
        assert np.median(old) < 0.9 * np.median(hw), (warps, hw, old)
        assert abs(np.median(sim) / np.median(hw) - 1) < (0.13 if "k32" in name else 0.07), (warps, hw, sim)
        assert np.ptp(sim) > (10 if warps == 8 and "k32" in name else 25), (warps, hw, sim)


def test_emulated_forms_within_bounds():
    """One warp: ptxas's SASS of each kernel's loop (sass_sim) within 5 % at ILP 1, 2, 4 and 8 (the sparse fp8
    traces recorded after a warm-up pass and with the L1 reset before every launch, ``capture.py
    --timing-warmup runs --timing-before l1-reset``: recorded without the reset their ILP 8 runs at 4 trips
    were 11 % longer, and by how much depended on the launch before, traces/h100/l1_state.json). With the
    latencies fitted before the chains measured them (a hit of 36, SHFL 28, a store's register read after 2
    cycles) e5m2 at ILP 2 and 4 trips was 5.6 % long."""
    res = []
    for name in EMULATED:
        res += replay_timing(_trace(name), name, "sm_90a", configs=ONE_WARP)
    print("\n" + error_table(res))
    assert not [g for g in res if known.find_group(g.name)]
    assert max(_errors(res)) <= 0.05, error_table(res)
    assert np.median(_errors(res)) <= 0.02


def test_fp8_traces_recorded_after_an_l1_reset(capsys):
    """The H100 (traces/h100/l1_state.json, ``warpsim.timing.l1_state``): after a launch that moves the L1
    carveout (a kernel asking for 200 KB of shared memory) one spilling warp repeats its time to within 0.7 %;
    after the same launch, or one that fills the L1 with global lines or reads through the L2, its first trip
    is longer (4 trips at ILP 8: 31-41 % over the whole run, ILP 2: 31-34 %) and the later ones a little (32
    trips at ILP 4: 2.6-3.4 %). The bundled sparse fp8 traces were recorded after that reset (another launch
    sequence of the H100) and agree with these runs within 2 % at one warp."""
    from warpsim.replay_timing import measured
    from warpsim.timing import l1_state
    got = l1_state.summary()
    one = [k for k in got if k[2] == 1 and k[4] == "smem"]
    assert len(one) == 12 and all(got[k][1] <= 0.007 for k in one)
    for form, ilp, _w, reps, _b in one:
        reset = got[(form, ilp, 1, reps, "smem")][0]
        after = [got[(form, ilp, 1, reps, b)][0] / reset - 1 for b in ("self", "ca", "cg")]
        lo, hi = {(8, 4): (0.31, 0.41), (2, 4): (0.31, 0.34), (4, 4): (0.21, 0.23), (4, 32): (0.026, 0.034),
                  (2, 32): (0.039, 0.047), (8, 32): (0.049, 0.094)}[(ilp, reps)]
        assert all(lo <= x <= hi for x in after), (form, ilp, reps, after)
        tr = _trace(form)
        assert tr.meta["before"] == "l1-reset"
        assert abs(measured(tr, ilp, 1, reps) / reset - 1) <= 0.02
    assert l1_state.main() == 0
    assert "sp_e5m2_k64_f32    8     1   32   1,241,378 ( 2.0 %)   1,135,858 ( 0.0 %)" in capsys.readouterr().out


def test_fp8_first_trip_from_an_empty_l1():
    """The loop starts with an empty L1 (``l1["stale"]`` 0; the traces were recorded after an L1 reset). The
    per-trip clocks (traces/h100/trips/sp_fp8_trips.json) put the sparse fp8 first trip 2125 / 8800 / 30900
    cycles over the later ones at ILP 2 / 4 / 8; the replay's first trip, whose fills of slots not yet stored
    miss, is over them by 1.2-1.35x that (2,652 / 11,735 / 39,318). Before the scoreboards counted every result
    the replay needed the L1 full of foreign lines (``stale`` 400, a fit) to reach them; now the recorded runs
    at 4 trips stay within 5 % at ILP 3-8 without it."""
    from warpsim.timing import sass_sim
    from warpsim.timing.params_sm90 import TABLE
    assert TABLE["emulated"]["sass"]["l1"]["stale"] == 0
    for ilp, h100 in ((2, 2125), (4, 8800), (8, 30900)):
        first, later = sass_sim.table_loop(f"sp_e4m3_k64_f32_ilp{ilp}").cycles((1, 0, 0, 0))[0]
        assert 1.15 * h100 < first - later < 1.4 * h100, (ilp, first - later)
    res = [g for name in ("sp_e4m3_k64_f32", "sp_e5m2_k64_f32")
           for g in replay_timing(_trace(name), name, "sm_90a", configs=[(i, 1, r) for i in (3, 5, 6, 7)
                                                                         for r in (4, 32)])]
    print("\n" + error_table(res))
    assert max(_errors(res)) <= 0.05, error_table(res)


def test_emulated_multiwarp_within_bounds():
    """1..4 warps per sub-partition: the SASS replay of every warp of the SM (shared ALU/FMA/MIO pipes, the
    L1 for the spill frames, the yield rule with the turn taken in a stall by another pipe's instruction, a
    non-yielding BRA keeping its sub-partition, an MIO instruction holding the dispatch two cycles; the kernels'
    32 trips) within 5 %, except sp_s4_k64 with 2 warps per sub-partition at ILP 1 (two settle at 1.375 or 1.53 x
    one warp on the H100, 1.50 x in the replay: 6.8 % long). dense_s4_k64 with 2 warps per sub-partition at ILP 4,
    7.9 % long under the greedy table, is within 1 %."""
    res = []
    for name in EMULATED:
        res += replay_timing(_trace(name), name, "sm_90a", configs=MULTI)
    print("\n" + error_table(res))
    missed = [g for g in res if known.find_group(g.name)]
    exact = [g for g in res if g not in missed]
    assert len(missed) == 1
    assert max(_errors(exact)) <= 0.05, error_table(exact)
    for g in missed:
        assert _errors([g])[0] <= known.find_group(g.name).bound and g.known.startswith("known: "), g.name


def _outside_subsets():
    """``{trace: [(ilp, warps, reps)]}`` of the known misses (warpsim.timing.known) that the subsets above do not
    replay."""
    out: dict = {}
    for trace, ilp, warps, reps in known.configurations():
        if trace not in EMULATED or (ilp, warps, reps) not in MULTI + ONE_WARP:
            out.setdefault(trace, []).append((ilp, warps, reps))
    return out


def test_emulated_outside_5_percent_honest_bounds():
    """The rest of the configurations outside 5 % in the full table (warpsim.timing.known, each with the
    bound it reaches): sparse e4m3 ILP 4 with 6 and 10 warps (-5.2 / +5.5 %): the replay's L1 leaves 4-8 warps
    short and 9-13 long, and these runs move by several points with any change of a few cycles; sparse e4m3
    ILP 1 with 7 warps (+5.2 %): the H100's pairs run in one of two modes, mostly the fast one in the launch
    recorded, and the replay's sit between (traces/h100/TIMING_FINDINGS.md)."""
    subsets = _outside_subsets()
    assert sum(map(len, subsets.values())) == 3
    for name, configs in subsets.items():
        res = replay_timing(_trace(name), name, "sm_90a", configs=configs)
        print("\n" + error_table(res))
        assert len(res) == len(configs)
        for g in res:
            miss = known.find_group(g.name)
            assert not g.exact and _errors([g])[0] <= miss.bound and g.known == known.note(miss), error_table(res)


def test_known_misses_table():
    """Every known miss names a cause with a section of TIMING_FINDINGS.md, no configuration twice, 4 in all;
    a configuration not in it (or another GPU's trace, another target, the fixed-latency model) gets no note."""
    findings = open(os.path.join(os.path.dirname(__file__), "..", known.FINDINGS)).read()
    heads = re.findall(r"^## (.+)$", findings, re.M)
    anchors = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-") for h in heads}
    assert all(c.section in anchors for c in known.CAUSES.values())
    assert {m.cause for m in known.MISSES} == set(known.CAUSES)
    assert len(known.configurations()) == sum(len(m.warps) for m in known.MISSES) == 4
    assert known.find("timing/sp_s4_k64", 1, 8, 32).cause == "icache" and known.find("sp_s4_k64", 1, 7, 32) is None
    assert known.find_group("timing/sp_e4m3_k64_f32 ilp4 warps6 reps32").cause == "l1shape"
    assert known.find_group("timing/sp_e4m3_k64_f32 ilp4 warps5 reps32") is None
    assert known.find_group("timing/sp_e4m3_k64_f32 ilp1 warps6 reps32") is None
    assert known.find_group("timing/dense_s4_k64 ilp4 warps8 reps32") is None
    assert known.find_group("program/x") is None
    tr = _trace("sp_s4_k64")
    for arch in ("sm_90a", "sm_80"):
        (g,) = replay_timing(tr, "sp_s4_k64", arch, configs=[(1, 8, 32)])
        assert bool(g.known) == (arch == "sm_90a")
    (g,) = replay_timing(tr, "sp_s4_k64", "sm_90a", configs=[(1, 8, 32)], fixed_latency=32)
    assert not g.known


def test_nonyield_fadd_bra_keep_the_subpartition():
    """The profiles keep the yield bit of the control bits: ptxas clears it on the 32 FADDs and the BRA of
    dense_e4m3_k32_f32_ilp1's loop (not on its UIADD3/ISETP/NOP, nor on the HMMA with stall 15). Held
    through their stall count, each extra warp on a sub-partition costs the replayed trip 31-40 cycles, as on
    the H100 (35 each: 102, 137, 172, 207 cycles a trip with 1..4 warps a sub-partition); without it the
    third warp cost 25."""
    from warpsim.timing import sass_profile, sass_sim
    from warpsim.timing.params_sm90 import TABLE
    prof = sass_profile.kernel_loop("dense_e4m3_k32_f32_ilp1", "sm_90")
    lines = sass_profile.trip(prof)
    noyield = [ln.split()[0] for ln in lines if ln.split()[2] == "1"]
    assert noyield.count("FADD") == 32 and noyield.count("BRA") == 1 and len(noyield) == 34  # + first HMMA
    cfg = TABLE["emulated"]["sass"]
    assert set(cfg["keep_ops"]) == {"FADD", "BRA"}
    kept, free_loop = (sass_sim.table_loop("dense_e4m3_k32_f32_ilp1", **o) for o in ({}, {"keep_ops": []}))
    trip = [kept.cycles((n,) * 4)[0][1] for n in (1, 2, 3, 4)]
    assert all(31 <= b - a <= 40 for a, b in zip(trip, trip[1:])), trip
    free = [free_loop.cycles((n,) * 4)[0][1] for n in (2, 3)]
    assert free[1] - free[0] < 30, free


def test_fixed_latency_baseline_is_worse(native_results):
    picked = ["sp_f16_k16_f32", "sp_f16_k32_f32", "dense_f16_k16_f32", "sp_s8_k32"]
    cfg = [(1, 1, 32), (4, 1, 32)]
    base = []
    for name in picked:
        base += replay_timing(_trace(name), name, "sm_90a", configs=cfg, fixed_latency=32.0)
    cal = [g for g in native_results if g.name.split()[0].split("/")[-1] in picked
           and any(g.name.endswith(f"ilp{i} warps{w} reps{r}") for i, w, r in cfg)]
    assert len(cal) == len(base)
    print("\nfixed latency 32 / ii 32 (Accel-Sim default):\n" + error_table(base))
    print("calibrated:\n" + error_table(cal))
    eb, ec = _errors(base), _errors(cal)
    assert np.median(eb) > 5 * np.median(ec)
    assert max(eb) > 0.25 and sum(e <= 0.05 for e in eb) < sum(e <= 0.05 for e in ec)


# ----------------------------------------------------------------------------- golden timeline


def _small_run(reps=1, warps=1, ilp=2, name="sp_f16_k16_f32", timing=True):
    tr = _trace(name)
    mod = RawModule(code=tr.ptx, arch="sm_90a", timing=timing)
    k = mod.get_function(f"{name}_ilp{ilp}")
    ts, te = np.zeros(16, np.uint64), np.zeros(16, np.uint64)
    sink = np.zeros(32 * warps * 64, np.uint32)
    k(1, 32 * warps, (tr.arrays["input"].copy(), ts, te, np.zeros(16, np.uint32), sink, np.int32(reps)))
    return k, ts[:warps], te[:warps], sink


def test_golden_timeline():
    k, ts, te, _ = _small_run()
    got = [list(r) for r in k.last_timeline.issue_complete()]
    path = os.path.join(GOLDEN, "sp_f16_k16_f32_ilp2_reps1.json")
    if os.environ.get("WARPSIM_REGEN_GOLDEN"):
        os.makedirs(GOLDEN, exist_ok=True)
        with open(path, "w") as fh:
            json.dump({"kernel": "sp_f16_k16_f32_ilp2", "grid": 1, "block": 32, "reps": 1, "table": "sm_90",
                       "columns": ["cta", "warp", "pc", "issue", "complete"], "records": got}, fh, indent=0)
    with open(path) as fh:
        want = json.load(fh)["records"]
    assert got == want
    # what the table says, checked on the golden records: the 8 steps of each chain are 16.75 apart,
    # the second chain 6 (the tensor ii) behind the first, and the clock64 values are the issue cycles
    mma = [r for r in got if "mma" in k.program.instructions[r[2]].opcode]
    assert len(mma) == 16
    a, b = mma[0::2], mma[1::2]
    assert all(y[3] - x[3] == 16.75 for x, y in zip(a, a[1:]))
    assert all(y[3] - x[3] == 6.0 for x, y in zip(a, b))
    assert all(x[4] - x[3] == 16.75 for x in mma)
    clocks = [r[3] for r in got if "%clock64" in k.program.instructions[r[2]].loc.text]
    assert [int(c) for c in clocks] == [int(ts[0]), int(te[0])]


def test_event_kernel_is_simpy_with_one_process_per_subpartition(monkeypatch):
    """The timed engine's processes are simpy processes, one per sub-partition scheduler with warps on it
    (six warps: four sub-partitions), not one per warp or lane."""
    import simpy

    from warpsim.timing import model
    made = []
    scheduler = model.TimedEngine._scheduler

    def spy(self, sp, start):
        made.append((type(self.env), sp.smo.index, sp.index))
        return scheduler(self, sp, start)

    monkeypatch.setattr(model.TimedEngine, "_scheduler", spy)
    _small_run(reps=3, warps=6, ilp=4)
    assert {m[0] for m in made} == {simpy.Environment}
    assert sorted(m[1:] for m in made) == [(0, 0), (0, 1), (0, 2), (0, 3)]


def test_deterministic_and_same_results_as_functional():
    k1, ts1, te1, s1 = _small_run(reps=3, warps=6, ilp=4)
    k2, ts2, te2, s2 = _small_run(reps=3, warps=6, ilp=4)
    assert k1.last_timeline.records == k2.last_timeline.records
    assert list(ts1) == list(ts2) and list(te1) == list(te2)
    k3, _, _, s3 = _small_run(reps=3, warps=6, ilp=4, timing=False)
    assert k3.last_timeline is None
    assert np.array_equal(s1, s3)  # same D values: the same Warp.step bodies ran
    # warps 0/4 and 1/5 share sub-partitions 0 and 1 and their tensor pipes: slower than warps 2 and 3
    d = (te1.astype(np.int64) - ts1.astype(np.int64))
    assert min(d[0], d[1], d[4], d[5]) > 1.5 * max(d[2], d[3]) and abs(int(d[2]) - int(d[3])) <= 0.03 * d[2]


BARRIER_PTX = r"""
.version 8.5
.target sm_90a
.address_size 64
.visible .entry bar_k(.param .u64 out)
{
    .reg .pred %p<3>; .reg .b32 %r<8>; .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    shr.u32 %r2, %r1, 5;
    mov.u32 %r3, 0;
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra $L_bar;
$L_loop:
    add.s32 %r3, %r3, 1;
    setp.lt.u32 %p2, %r3, 50;
    @%p2 bra $L_loop;
$L_bar:
    bar.sync 0;
    mov.u64 %rd2, %clock64;
    mul.wide.u32 %rd3, %r2, 8;
    add.s64 %rd4, %rd1, %rd3;
    and.b32 %r4, %r1, 31;
    setp.ne.u32 %p1, %r4, 0;
    @%p1 bra $L_end;
    st.global.u64 [%rd4], %rd2;
$L_end:
    ret;
}
"""


def _barrier_run(params=None):
    mod = RawModule(code=BARRIER_PTX, timing_params=params)
    out = np.zeros(4, np.uint64)
    mod.get_function("bar_k")(1, 128, (out,))
    ins = mod.get_function("bar_k").program.instructions
    bar_pc = [i for i, x in enumerate(ins) if x.opcode == "bar"][0]
    st_pc = [i for i, x in enumerate(ins) if x.opcode == "st"][0]
    recs = mod.last_timeline.records
    return out, {r[1]: r[4] for r in recs if r[2] == bar_pc}, {r[1]: r[4] for r in recs if r[2] == st_pc}


def test_barrier_waits_for_the_slowest_warp():
    """Warp 0 loops 50 times before the barrier. As on the H200 (traces/h200/bar_defer.json), a warp that has
    arrived goes on with its clock read (``issue.barrier_defer``: ALU, FMA and tensor work) and waits for the
    release at its store, which issues once the barrier unit has taken warp 0's arrival (``per_warp`` 2) and
    released the warps (``release`` 12). Without ``barrier_defer`` the clock read waits too."""
    out, arrive, store = _barrier_run()
    last = arrive[0]
    assert last > max(arrive[1], arrive[2], arrive[3]) + 100
    assert all(int(out[w]) < last for w in (1, 2, 3)) and int(out[0]) <= last + 2
    assert all(store[w] >= last + 14 for w in range(4)), (last, store)
    from warpsim.timing.params import params_for
    params = params_for("sm_90a")
    params.issue = {k: v for k, v in params.issue.items() if k != "barrier_defer"}
    out, arrive, store = _barrier_run(params)
    assert all(int(c) >= int(arrive[0] + 14) for c in out)
    assert len(set(int(c) for c in out)) <= 4


SPIN_PTX = r"""
.version 8.5
.target sm_90a
.address_size 64
.shared .align 4 .u32 flag;
.visible .entry spin(.param .u64 out)
{
    .reg .pred %p<3>; .reg .b32 %r<8>; .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra $L_wait;
    mov.u32 %r2, 0;
$L_work:
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p2, %r2, 200;
    @%p2 bra $L_work;
    st.volatile.shared.u32 [flag], 1;
    bra $L_end;
$L_wait:
    setp.ne.u32 %p1, %r1, 32;
    @%p1 bra $L_end;
$L_spin:
    ld.volatile.shared.u32 %r3, [flag];
    setp.eq.u32 %p2, %r3, 0;
    @%p2 bra $L_spin;
    mov.u64 %rd1, %clock64;
    ld.param.u64 %rd2, [out];
    st.global.u64 [%rd2], %rd1;
$L_end:
    ret;
}
"""


def test_spin_wait_on_shared_memory_sees_the_other_warps_store():
    """Warp 1 (sub-partition 1) polls a shared flag that warp 0 (sub-partition 0) sets after a 200-trip
    loop. A load from shared memory is not ``local``: the poller's sub-partition does not run ahead of the
    event order, so it reads the flag in cycle order and leaves after warp 0's store."""
    mod = RawModule(code=SPIN_PTX)
    out = np.zeros(1, np.uint64)
    mod.get_function("spin")(1, 64, (out,), max_steps=20000)
    tl = mod.last_timeline
    store = [r[4] for r in tl.records if r[1] == 0 and r[3].startswith("st.volatile.shared")][0]
    assert store < int(out[0]) < store + 200


def test_barrier_deadlock_in_timed_mode():
    from warpsim.cta import BarrierDeadlock
    ptx = BARRIER_PTX.replace("@%p1 bra $L_bar;", "@%p1 bra $L_end;")  # warps 1-3 skip the barrier and exit
    ptx = ptx.replace("bar.sync 0;", "bar.sync 0, 128;")
    mod = RawModule(code=ptx)
    with pytest.raises(BarrierDeadlock, match="deadlock"):
        mod.get_function("bar_k")(1, 128, (np.zeros(4, np.uint64),))


def test_timeline_command(tmp_path):
    from warpsim.cli import main
    tr = _trace("sp_f16_k16_f32")
    ptx, inp = tmp_path / "k.ptx", tmp_path / "in.npy"
    ptx.write_text(tr.ptx)
    np.save(inp, tr.arrays["input"])
    js, png = tmp_path / "t.json", tmp_path / "t.png"
    rc = main(["timeline", str(ptx), "--kernel", "sp_f16_k16_f32_ilp2", "--block", "160", "--arg", str(inp),
               "--arg", "zeros:16:u64", "--arg", "zeros:16:u64", "--arg", "zeros:16:u32", "--arg", "zeros:8192:u32",
               "--arg", "i32:1", "--json", str(js), "--png", str(png)])
    assert rc == 0
    ev = json.loads(js.read_text())["traceEvents"]
    warp_tracks = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "X" and e["pid"] < 100000}
    pipe_tracks = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "X" and e["pid"] >= 100000}
    assert len(warp_tracks) == 5 and len(pipe_tracks) == 4
    assert sum(1 for e in ev if e["ph"] == "X" and e["pid"] >= 100000) == 5 * 16
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_kernel_loop_names_a_kernel_without_sass():
    from warpsim.timing import sass_profile
    assert sass_profile.kernel_loop("sp_s4_k64_ilp1", "sm_90")["body"]
    with pytest.raises(KeyError, match=r"sp_s4_k64_ilp9: no SASS on file for sm_90 \(warpsim/timing/sass_sm90\.json\)"):
        sass_profile.kernel_loop("sp_s4_k64_ilp9", "sm_90")


@pytest.mark.parametrize("module, load, name, text, message", [
    ("pair_modes", "loop_start_pairs", "loop_start.json", '{"how": "x"}',
     r"loop_start\.json: not a loop_start\.py --device file"),
    ("sched_probe", "load", "sched_probe.json", '{"runs": [', r"sched_probe\.json: not JSON"),
    ("sched_probe", "load", "sched_probe.json", '{"runs": [], "sass": {}}',
     r"sched_probe\.json: runs, SASS or variants missing"),
    ("l1_counters", "load", "other.json", '{"runs": []}', r"other\.json: not the l1_counters measurement \(no 'rows'\)"),
    ("l1_rate", "load", "other.json", '{"rows": []}', r"other\.json: not the l1_rate measurement"),
    ("ifetch", "load", "other.json", '{"loops": {}}', r"other\.json: not the ifetch measurement"),
    ("ifetch", "load_branch", "other.json", '{"loops": {}}', r"other\.json: not the branch_fetch measurement"),
    ("ifetch", "load_regbank", "other.json", '{"rows": []}', r"other\.json: not the regbank measurement"),
    ("l1_state", "load", "other.json", '{"rows": []}', r"other\.json: not the l1_state measurement"),
    ("l1_fill", "load", "other.json", '{"rows": []}', r"other\.json: not the l1_fill measurement"),
    ("stall_reasons", "load", "other.json", '{"rows": []}', r"other\.json: not the stall_reasons measurement"),
    ("stall_reasons", "rate_probes", "other.json", '{"rows": []}', r"other\.json: not the l1_rate_stalls measurement"),
    ("pair_modes", "fp8_launches", "other.json", '{"rows": []}', r"other\.json: not the fp8_pairs measurement"),
    ("trip_phase", "load", "other.json", '{"rows": []}', r"other\.json: not the trip_phase measurement \(no 'rows' and 'sass'\)"),
    ("trip_phase", "load_reps", "other.json", '{"runs": []}', r"other\.json: not the trip_phase_reps measurement"),
    ("pc_samples", "load", "other.json", '{"rows": []}', r"other\.json: not the stall_reasons_source measurement"),
])
def test_measurement_file_errors_name_the_file(tmp_path, module, load, name, text, message):
    """A damaged or wrong H100 measurement file is named with what is wrong, not a KeyError or a bare JSON
    error."""
    import importlib
    bad = tmp_path / name
    bad.write_text(text)
    with pytest.raises(ValueError, match=message):
        getattr(importlib.import_module(f"warpsim.timing.{module}"), load)(str(bad))


ANALYSES = ("chain_latency", "ifetch", "l1_carveout", "l1_counters", "l1_fill", "l1_probe", "l1_rate", "l1_state",
            "loop_delay", "pair_modes", "pc_samples", "sass_profile", "sched_probe", "stall_reasons", "trip_phase",
            "gmem_rate", "spgemm_clock", "spgemm_phase", "l2_latency", "l1_merge", "record_merge", "l1_hit", "l1_order", "h200")


@pytest.mark.parametrize("module", ANALYSES)
def test_analysis_help_prints_its_doc(module, capsys):
    """``python -m warpsim.timing.<analysis> --help`` prints what the analysis shows and how to run it (the
    module's docstring) and runs nothing."""
    import importlib
    mod = importlib.import_module(f"warpsim.timing.{module}")
    assert mod.main(["--help"]) == 0 and mod.main(["-h"]) == 0
    out = capsys.readouterr().out
    assert out == 2 * (mod.__doc__.strip() + "\n")


@pytest.mark.parametrize("module, argv, message", [
    ("l1_fill", ["{bad"], r"'\{bad' is not JSON .*expected an object of table overrides"),
    ("l1_probe", ["[300]"], r"'\[300\]' is not a JSON object of table overrides"),
    ("stall_reasons", ["sp_e4m3_ilp4"], r"sp_e4m3_ilp4: not a kernel of .*stall_reasons\.json; expected one of "
                                        r"sp_e4m3_k64_f32_ilp4, "),
    ("pc_samples", ["dense_s4_k64_ilp4", "eight"], r"'eight': expected a warp count after the kernel"),
    ("pc_samples", ["sp_s4_k64_ilp1", "16"], r"sp_s4_k64_ilp1 with 16 warps is not in the samples on file; "
                                             r"expected one of sp_e4m3_k64_f32_ilp1 1, .*, dense_s4_k64_ilp4 5$"),
])
def test_analysis_arguments_errors_say_what_was_expected(module, argv, message):
    import importlib
    with pytest.raises(SystemExit, match=message):
        importlib.import_module(f"warpsim.timing.{module}").main(argv)


def test_sass_sim_scoreboard_waits_for_every_result():
    """A SASS scoreboard counts the results outstanding on it: a wait on it lasts until the last of them is back,
    not only the one issued last. A fill that misses (305 cycles) followed by one that hits (29) on the same
    scoreboard holds the FADD waiting on it until the miss is back; the hit alone, 29 cycles."""
    from warpsim.timing import sass_sim
    from warpsim.timing.params_sm90 import TABLE
    cfg = sass_sim.table_cfg()
    store = "STL 1 1 7 7 0 4 4"  # line 1 stored: allocated (write-validate), the later fill of it hits
    both = [store, "LDL 1 1 0 7 0 0 4", "LDL 1 1 0 7 0 4 4", "FADD 1 1 7 7 1"]
    (got,) = sass_sim.issue([both], [0], [1], cfg, TABLE["tensor"])
    assert got[3] >= got[1] + cfg["l1"]["miss"]
    (hit,) = sass_sim.issue([[store, "LDL 1 1 0 7 0 4 4", "FADD 1 1 7 7 1"]], [0], [1], cfg, TABLE["tensor"])
    assert hit[2] == hit[1] + cfg["l1"]["hit"]


def test_sass_sim_issues_once_a_cycle_on_each_sub_partition():
    """Every sub-partition issues at most one instruction a cycle, also when an MIO instruction moves the SM-wide
    ports' round robin (it used to let a sub-partition issue twice in a cycle and skip another), and the account
    of the warps' states (``Loop.stalls``) is the run's cycles: each warp in one state a cycle."""
    from warpsim.timing import sass_profile, sass_sim
    from warpsim.timing.params_sm90 import TABLE
    cfg = sass_sim.table_cfg()
    prof = sass_profile.kernel_loop("sp_e4m3_k64_f32_ilp1", "sm_90")
    a = sass_sim._arrays(sass_profile.trip(prof), cfg, TABLE["tensor"], sass_profile.trip_lines(prof))
    n = len(a["pipe"])
    pop = sass_sim.population(16)
    sp_of = np.array([s for k in range(max(pop)) for s in range(4) if pop[s] > k], np.int64)
    log = np.zeros((16, 3 * n), np.int64)
    sass_sim._issue(a, cfg, sp_of, np.zeros(16, np.int64), np.full(16, n, np.int64), np.zeros(16, np.int64),
                    np.full(16, 3, np.int64), sass_sim._frame_lines(a), 2048, log)
    for s in range(4):
        cycles = log[sp_of == s].ravel()
        assert len(cycles) == len(set(cycles.tolist())), f"sub-partition {s} issued twice in a cycle"
    loop = sass_sim.table_loop("sp_e4m3_k64_f32_ilp4")
    for warps in (1, 6):
        pop = sass_sim.population(warps)
        trips = loop.cycles(pop)
        first, later = loop.stalls(pop)
        assert first.sum() == pytest.approx(sum(f * p for (f, _l), p in zip(trips, pop)))
        assert later.sum() == pytest.approx(sum(lt * p for (_f, lt), p in zip(trips, pop)))
        assert later[sass_sim.SELECTED] == warps * len(loop.arrays["pipe"])


@pytest.mark.parametrize("kernel,options", [("sp_e4m3_k64_f32_ilp4", {"trips": 8}), ("sp_s4_k64_ilp1", {"trips": 8}),
                                            ("dense_s4_k64_ilp4", {"yield_switch": True, "hold": 2, "stagger": 60,
                                                                   "trips": 8}),
                                            ("dense_e4m3_k32_f32_ilp1", {"trips": 6})])
def test_sass_sim_skips_idle_cycles_exactly(kernel, options):
    """sass_sim jumps over the cycles in which no warp can issue (to the first at which one of the times that
    keep the warps waiting has passed) and asks a waiting warp again only then; with the warps' states accounted
    it steps every cycle and asks every warp. Both give the same trips and L1 counts, cycle for cycle (every
    trip run: ``settle`` off)."""
    from warpsim.timing import sass_sim
    options = dict(options, settle=False)
    for warps in (1, 3, 8, 13):
        pop = sass_sim.population(warps)
        jump, step = sass_sim.table_loop(kernel, **options), sass_sim.table_loop(kernel, **options)
        step.stalls(pop)
        assert jump.cycles(pop) == step.cycles(pop)
        assert all(np.array_equal(x, y) for x, y in zip(jump.l1_counts(pop), step.l1_counts(pop)))


def test_sass_sim_remembers_a_run_by_its_inputs():
    """sass_sim keeps its runs by the content of every input (``_remembered``): a loop built again under the
    same table gets the run kept (trips, L1 counts and warp states alike, without running), a fresh run of the
    same inputs gives the same numbers (determinism), and any changed input is a run of its own: a number the
    table passes as it is (``hold``) or one built into the program arrays (the CALL's redirect)."""
    from warpsim.timing import sass_sim
    pop = sass_sim.population(6)
    sass_sim._RUNS.clear()
    first = sass_sim.table_loop("sp_s4_k64_ilp4")
    got, counts, states = first.cycles(pop), first.l1_counts(pop), first.stalls(pop)
    assert len(sass_sim._RUNS) == 2  # cycles and stalls: two runs (the warp states' account is an input)
    again = sass_sim.table_loop("sp_s4_k64_ilp4")
    assert again.cycles(pop) == got and again.stalls(pop)[1].tolist() == states[1].tolist()
    assert all(np.array_equal(x, y) for x, y in zip(again.l1_counts(pop), counts)) and len(sass_sim._RUNS) == 2
    sass_sim._RUNS.clear()
    fresh = sass_sim.table_loop("sp_s4_k64_ilp4")
    assert fresh.cycles(pop) == got and fresh.stalls(pop)[1].tolist() == states[1].tolist()
    assert sass_sim.table_loop("sp_s4_k64_ilp4", hold=3).cycles(pop) != got
    assert sass_sim.table_loop("sp_s4_k64_ilp4", redirect={"CALL": 30}).cycles(pop) != got
    assert len(sass_sim._RUNS) == 4


def test_sass_sim_prefetch_runs_in_workers_what_a_run_here_gives():
    """``sass_sim.prefetch`` runs a loop's populations in forked workers and leaves the loop's caches and the
    kept runs as running them here would: the same trips, L1 counts and warp states, and a loop built again
    finds them kept."""
    from warpsim.timing import sass_sim
    pops = [sass_sim.population(w) for w in (3, 5, 8)]
    sass_sim._RUNS.clear()
    here = sass_sim.table_loop("sp_s4_k64_ilp4")
    want = []
    for p in pops:  # the accounted run first, as prefetch runs it: cycles and counts come from it
        states = here.stalls(p)
        want.append((here.cycles(p), here.l1_counts(p), states))
    sass_sim._RUNS.clear()
    there = sass_sim.table_loop("sp_s4_k64_ilp4")
    sass_sim.prefetch([(there, p, True) for p in pops], processes=2)
    assert set(there._got) == set(there._stalls) == set(pops) and len(sass_sim._RUNS) == len(pops)
    for p, (cycles, counts, states) in zip(pops, want):
        assert there.cycles(p) == cycles
        assert all(np.array_equal(x, y) for x, y in zip(there.l1_counts(p), counts))
        assert all(np.array_equal(x, y) for x, y in zip(there.stalls(p), states))
    again = sass_sim.table_loop("sp_s4_k64_ilp4")
    assert [again.stalls(p)[1].tolist() for p in pops] == [w[2][1].tolist() for w in want]
    assert len(sass_sim._RUNS) == len(pops)


def test_sass_sim_settled_run_stops():
    """A run whose every warp has repeated one trip (cycles, L1 counts, the store and fill queues)
    sass_sim.SETTLED times, and has ended one lately, is taken as periodic and its later trips as that one: one
    warp of the s4 loop gives the full run's trip exactly, and with several warps (where the warps that end first
    leave the others the pipes) within 0.1 %; the L1 counts of a settled fp8 run are the full run's; the chaotic
    several-warp fp8 runs never settle."""
    from warpsim.timing import sass_sim
    for kernel, warps, close in (("sp_s4_k64_ilp1", 1, 0.0), ("sp_s4_k64_ilp4", 13, 1e-3),
                                 ("sp_e4m3_k64_f32_ilp4", 1, 0.0), ("sp_e4m3_k64_f32_ilp4", 8, 0.0)):
        pop = sass_sim.population(warps)
        full, short = sass_sim.table_loop(kernel, settle=False), sass_sim.table_loop(kernel)
        for (f0, f1), (s0, s1) in zip(full.cycles(pop), short.cycles(pop)):
            assert f0 == s0 and abs(s1 - f1) <= close * f1, (kernel, warps, f1, s1)
        assert all(np.allclose(x, y) for x, y in zip(full.l1_counts(pop), short.l1_counts(pop)))
