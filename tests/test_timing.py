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
  the LRU misses named in ``test_l1_carveout_replay``.
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
    long). 13 and 16 warps within 3 %; the other twelve warps' mean within 3 % of the H100's."""
    for name in ("dense_f16_k16_f32", "dense_tf32_k8_f32"):
        res = replay_timing(_trace(name), name, "sm_90a", configs=FOUR_PER_SP)
        print("\n" + error_table(res))
        assert max(_errors(res)) <= 0.03
    sim, hw = _per_warp("dense_f16_k16_f32", 4, 16)
    for d in (sim, hw):
        _assert_slot0_starved(d, 1.2)
    assert abs(np.mean(sim[4:]) / np.mean(hw[4:]) - 1) <= 0.03


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
    short and 9-13 long, and these runs move by several points with any change of a few cycles
    (traces/h100/TIMING_FINDINGS.md)."""
    subsets = _outside_subsets()
    assert sum(map(len, subsets.values())) == 2
    for name, configs in subsets.items():
        res = replay_timing(_trace(name), name, "sm_90a", configs=configs)
        print("\n" + error_table(res))
        assert len(res) == len(configs)
        for g in res:
            miss = known.find_group(g.name)
            assert not g.exact and _errors([g])[0] <= miss.bound and g.known == known.note(miss), error_table(res)


def test_known_misses_table():
    """Every known miss names a cause with a section of TIMING_FINDINGS.md, no configuration twice, 3 in all;
    a configuration not in it (or another GPU's trace, another target, the fixed-latency model) gets no note."""
    findings = open(os.path.join(os.path.dirname(__file__), "..", known.FINDINGS)).read()
    heads = re.findall(r"^## (.+)$", findings, re.M)
    anchors = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-") for h in heads}
    assert all(c.section in anchors for c in known.CAUSES.values())
    assert {m.cause for m in known.MISSES} == set(known.CAUSES)
    assert len(known.configurations()) == sum(len(m.warps) for m in known.MISSES) == 3
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


def test_barrier_waits_for_the_slowest_warp():
    mod = RawModule(code=BARRIER_PTX)
    out = np.zeros(4, np.uint64)
    mod.get_function("bar_k")(1, 128, (out,))
    tl = mod.last_timeline
    bar_pc = [i for i, ins in enumerate(mod.get_function("bar_k").program.instructions) if ins.opcode == "bar"][0]
    arrive = {r[1]: r[4] for r in tl.records if r[2] == bar_pc}
    # warp 0 loops 50 times before the barrier; every warp reads the clock after warp 0 arrived + 20
    assert arrive[0] > max(arrive[1], arrive[2], arrive[3]) + 100
    assert all(int(c) >= int(arrive[0] + 20) for c in out)
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


def test_l1_carveout_replay():
    """The L1-carveout runs (traces/h100/l1_carveout.json: the recorded sp_e4m3_k64_f32 kernels with the L1
    shrunk to 124/92/60/28 KB by a dynamic shared-memory request) replayed with the L1 of that size
    (warpsim.timing.l1_carveout). With no shared memory (224 KB, the size traces/h100/l1_probe.json measured
    for these launches) the one-warp loops are within 11 % (ILP 8 10.3 % short; these launches were not
    preceded by the L1 reset). The slowdown at the smaller L1s is not the H100's (the honest bound here): the
    replay's L1 (LDL.LU lines evicted first) does not slow ILP 2 at 28 KB (frame 195 lines in 224; H100
    1.38 x) and slows ILP 4 at 60 KB and ILP 8 at 92 / 124 KB (1,427 lines) 1.07 x and 1.26 / 1.08 x where the
    H100 takes 1.74 x and 1.61 / 1.36 x (the LRU L1 fitted before slowed ILP 8 2.46 / 1.99 x)."""
    from warpsim.timing import l1_carveout
    rows = {(r["ilp"], r["warps"], r["l1_kb"]): r for r in l1_carveout.replay()}
    print("\n" + l1_carveout.table(list(rows.values())))
    assert len(rows) == 45
    assert all(abs(rows[(i, 1, 224)]["error_pct"]) <= 11 for i in (2, 4, 8))
    one = [r for k, r in rows.items() if k[1] == 1 and k[2] != 224]
    off = [abs(np.log(r["sim_ratio"] / r["h100_ratio"])) for r in one]
    assert max(off) <= np.log(1.7)
    assert rows[(2, 1, 28)]["sim_ratio"] < 1.05 < 1.3 < rows[(2, 1, 28)]["h100_ratio"]
    assert rows[(8, 1, 124)]["sim_ratio"] < 1.2 < 1.3 < rows[(8, 1, 124)]["h100_ratio"]


def test_l1_probe_geometry():
    """The H100's L1 measured directly (traces/h100/l1_probe.json, warpsim.timing.l1_probe): a hit 35/37
    cycles, 32-byte sectors, stores allocate; a sequential pass keeps L1 - 64 lines, the L1 being 224 KB for
    a CTA of 32-256 threads without shared memory (the recorded fp8 kernels: 32 registers, 1-8 warps), 240 KB
    for 512 threads (4 CTAs an SM), 249 KB for one CTA of 512 or 1024, and the carveout sizes that
    warpsim.timing.l1_carveout assumes for a dynamic shared-memory request."""
    from warpsim.timing import l1_carveout, l1_probe
    doc = l1_probe.load()
    g = l1_probe.geometry(doc)
    assert g["hit_cycles"] == {"global": 37, "local": 35} and g["l2_cycles"] > 250
    assert g["sector_bytes"] == 32 and g["store_allocates"]
    cap = g["usable_lines_launch"]
    assert all(cap[(v, t)] == 1728 for v in ("plain", "pad") for t in (32, 64, 128, 256))
    assert cap[("plain", 512)] == 1856 and cap[("plain", 1024)] == cap[("pad", 512)] == 1920
    # 2026-11-26 (--stage 6): every CTA of 256-480 threads keeps what 256 did, 512 more: the step to the larger L1
    # is at 16 warps, where the table's ``wide`` puts it
    assert all(cap[("plain6", t)] == 1728 for t in range(256, 481, 32)) and cap[("plain6", 512)] == 1856
    from warpsim.timing.params_sm90 import TABLE
    assert TABLE["emulated"]["sass"]["l1"]["wide"] == {"warps": 15, "lines": 1920}
    assert g["usable_lines_smem"] == {s: 8 * l1_carveout.L1_KB[s] - 64 for s in (0, 16, 48, 80, 128)}
    fp8 = {(k["form"], k["ilp"]): k for k in doc["fp8_kernels"]}
    assert all(fp8[("sp_e4m3_k64_f32", i)]["regs"] == 32 for i in range(3, 9))
    assert fp8[("sp_e4m3_k64_f32", 4)]["local_bytes"] * 32 // 128 == 622  # the ILP 4 frame: 622 lines a warp


def test_l1_probe_replay():
    """The sequential scans replayed through sass_sim's cache (warpsim.timing.l1_probe.replay): 4-way LRU sets
    of the measured 224 KB keep every line up to 1,792 where the H100 keeps 1,728, and past the L1 the model's
    third pass misses as much as its second, while the H100's misses less (124 KB, 1,152 lines: 895 then 514;
    the model 800 and 800): the H100's replacement adapts, which no policy of sass_sim reproduces. Honest
    bound: past the L1 the model's second pass misses fewer lines than the H100's at every N, down to 16 %
    of them just past 224 KB (1,808 lines: 80 where the H100 misses 492)."""
    from warpsim.timing import l1_probe
    rows = {(r["l1_kb"], r["lines"]): r for r in l1_probe.replay()}
    assert rows[(224, 1728)]["h100"] == [0, 0] and rows[(224, 1744)]["h100"][0] > 0
    assert rows[(224, 1792)]["model"] == [0, 0]
    assert rows[(124, 1152)]["h100"] == [895, 514] and rows[(124, 1152)]["model"] == [800, 800]
    past = [r for r in rows.values() if r["lines"] > 8 * r["l1_kb"] and r["h100"][0] > 100]
    assert all(r["model"][0] == r["model"][1] for r in past)
    assert sum(r["h100"][1] < 0.8 * r["h100"][0] for r in past) >= 3
    assert all(0.15 < r["model"][0] / r["h100"][0] < 1 for r in past)


def test_sass_sim_dip_policy():
    """sass_sim's DIP option on a small trace: five lines cycling through one 4-way follower set miss every
    time while the selector says LRU and mostly hit once it says BIP; misses in an LRU leader set move it."""
    from warpsim.timing import sass_sim as S
    def run(psel, lines, passes=10):
        tags, fill = -np.ones((64, 4), np.int64), np.zeros((64, 4), np.int64)
        stamp = np.zeros((65, 4), np.int64)
        stamp[64, 0] = psel
        use, miss = 0, 0
        for _ in range(passes):
            for ln in lines:
                use += 1
                miss += S._touch(tags, stamp, fill, ln, use, S.POLICIES["dip"], S.HASHES["mod"]) < 0
        return miss, stamp[64, 0]
    follower = [k * 64 + 2 for k in range(5)]
    assert run(0, follower) == (50, 0)
    bip, _ = run(S.DIP_MAX - 1, follower)
    assert bip <= 25
    _, psel = run(0, [k * 64 for k in range(5)])  # set 0: an LRU leader
    assert psel == 50


def test_sass_sim_l1_options_default():
    """The L1 options added with the measurements leave the default replay as it was: last_use_share 1.0 is
    the old last-use handling, and "wide" (a larger L1 past a number of warps) changes nothing below it."""
    from warpsim.timing import sass_sim
    def trip(l1=None):
        return sass_sim.table_loop("sp_e4m3_k64_f32_ilp2", l1).cycles((1, 1, 0, 0))
    base = trip()
    for extra in ({"last_use_share": 1.0}, {"wide": {"warps": 8, "lines": 1920}},
                  {"last_use": "evict_first", "last_use_share": 0.0}):
        assert trip(extra) == base


def test_l1_probe_frames():
    """The frame runs of traces/h100/l1_probe.json (every warp of a CTA streams its own local frame of the fp8
    kernels' spill size, four passes): the L1 keeps local lines and its replacement state across launches
    (the same launch twice in a row: a 196-line frame hits in its first pass the second time; a 1,428-line
    frame of one warp fits once and thrashes next); two 622-line local frames already miss where two global
    ones do not; past the L1 a BIP-like 4-way cache of 1,344 lines matches the runs (within 10 % of a frame
    on average over 2-8 warps) where LRU at the measured 1,792 lines does not (20 %). The recorded kernels
    are not these passes: that cache makes them 10-100 % long (README), so it is not the default."""
    from warpsim.timing import l1_probe
    doc = l1_probe.load()
    fr = {(r["op"], r["frame"], r["warps"], r["rep"]): r["miss"] for r in doc["frames"]}
    assert fr[(2, 196, 2, 0)][0][0] == 196 and fr[(2, 196, 2, 1)][0][0] == 0
    assert fr[(2, 1428, 1, 0)][0][3] == 0 and fr[(2, 1428, 1, 1)][0][3] > 1400
    assert all(m[3] > 0 for m in fr[(2, 622, 2, 0)]) and all(m[3] == 0 for m in fr[(0, 622, 2, 0)])

    def off(l1):
        rows = l1_probe.frames(l1, doc, sizes=(622,), warps=(2, 3, 4, 5, 8))
        return np.mean([abs(r["model"] - r["h100"]) / 622 for r in rows])
    assert off({"policy": "bip", "lines": 1344}) < 0.1 < 0.15 < off({"policy": "lru", "lines": 1792})


def test_sched_probe_yield_sharing():
    """Two warps on one sub-partition, both wanting the ALU (traces/h100/sched_probe.json,
    warpsim.timing.sched_probe). On the H100 the hog, which alone keeps the pipe busy, lets the probe in at
    its yield flags (a probe step 16 cycles alone, ~33 beside the hog, in steps of 12 = the hog's 6
    instructions from one yield to the next); with the hog's flags set to no-yield the probe gets in only at
    the hog's loop branch (274 / 532 cycles: one or two hog trips), with the probe's set it keeps the pipe once
    in (16.9). The greedy policy of the table until 2026-11-27 lets the probe keep the pipe whatever the flags
    (17); ``yield_switch`` with ``hold`` 1 follows every clean run, and so does the table, which adds
    ``gap_turn`` (here both warps issue ALU ops, which do not take the turn)."""
    from warpsim.timing import sass_sim, sched_probe
    doc = sched_probe.load()
    cubins = sched_probe.cubins(doc)
    plain = sched_probe.measured(cubins["plain"][1])
    assert 16 <= np.mean(plain["probe_alone"]) < 17 and 30 < np.mean(plain["probe_shared"]) < 36
    assert {16, 28, 40, 52} <= set(plain["probe_shared"])
    assert 200 < np.mean(plain["hog_shared"]) - np.mean(plain["hog_alone"]) < 300
    assert {274, 532} <= set(sched_probe.measured(cubins["hog_noyield"][1])["probe_shared"])
    assert np.mean(sched_probe.measured(cubins["probe_noyield"][1])["probe_shared"]) < 17.5
    greedy = {r["cubin"]: r for r in sched_probe.table(doc, **sass_sim.GREEDY)}
    assert all(abs(r["model_alone"] - r["h100_alone"]) < 0.5 for r in greedy.values())
    assert greedy["plain"]["model_step"] < 18 and greedy["hog_noyield"]["model_step"] < 18
    for rows in (sched_probe.table(doc, **sass_sim.YIELD), sched_probe.table(doc)):
        assert [r["cubin"] for r in rows] == list(sched_probe.CLEAN)
        assert all(abs(r["model_step"] / r["h100_step"] - 1) < 0.15 for r in rows)
        assert all(abs(r["model_step"] / r["h100_step"] - 1) < 0.06 for r in rows if r["cubin"] != "hog_noyield")


def test_sched_gap_a_hog_on_the_fma_pipes_takes_the_turn_in_the_probes_stalls():
    """traces/h100/sched_gap.json: sched_probe's probe (LOP3, ALU) beside a hog issuing FFMA (the FMA pipes). A hog
    that never yields keeps the probe out to its loop branch (steps of one to three of its 140-cycle trips), as
    the yield rule says and greedy does not (21 cycles). With the hog yielding every 4th / 8th / 16th FFMA the
    probe's steps on the H100 lie between the yield rule without gap_turn (the probe losing its turn only at its
    own yields) and the table (gap_turn: the hog taking the turn after every probe instruction), and grow with N:
    the hog does take the turn in the probe's stall counts, less often than gap_turn says."""
    from warpsim.timing import sass_sim, sched_probe
    doc = sched_probe.load(sched_probe.GAP)
    assert {v["every"] for v in doc["variants"].values()} == {4, 8, 16}
    assert all(x.split()[2] == "1" for x in doc["sass"]["hog_trip"])  # ptxas: no FFMA of the hog yields
    plain = sched_probe.measured(doc["runs"])
    assert 16 <= np.mean(plain["probe_alone"]) < 20 and {142, 264, 409} <= set(plain["probe_shared"])
    rows = {r["cubin"]: r for r in sched_probe.gap_table(doc, dict(sched_probe.GAP_RULES, greedy=sass_sim.GREEDY))}
    assert abs(rows["plain"]["table"] / rows["plain"]["h100_step"] - 1) < 0.2 and rows["plain"]["greedy"] < 25
    steps = [rows[k]["h100_step"] for k in ("yield4", "yield8", "yield16")]
    assert steps == sorted(steps) and steps[0] > 30
    for k in ("yield4", "yield8", "yield16"):
        r = rows[k]
        assert r["table without gap_turn"] + 10 < r["h100_step"] < r["table"], r


def test_sched_gap_imad_hog_does_not_tell_the_rules_apart():
    """traces/h100/sched_gap_imad.json: the same probe beside a hog issuing IMAD (the FMA-heavy pipe alone, the s4
    routines' fillers; ptxas's stall count 2, yield flags on 21 of 128). The hog leaves gaps of its own, so the
    table's rule with or without gap_turn gives the same probe steps (19-20 cycles); the H100's are 22.5 whatever
    the hog's yields (alone 18.4): ~3 cycles a step the yield rule does not have (greedy 23-26)."""
    from warpsim.timing import sass_sim, sched_probe
    doc = sched_probe.load(sched_probe.GAP_IMAD)
    assert doc["hog_op"] == "IMAD" and sum(x.split()[2] == "0" for x in doc["sass"]["hog_trip"]) == 21
    rows = sched_probe.gap_table(doc, dict(sched_probe.GAP_RULES, greedy=sass_sim.GREEDY))
    for r in rows:
        assert 21.5 < r["h100_step"] < 23.5 and abs(r["table"] - r["table without gap_turn"]) < 1, r
        assert 0.8 < r["table"] / r["h100_step"] < 0.9 and r["greedy"] > r["table"] + 2, r


def test_gap_stall_a_yield_costs_a_cycle_and_the_branch_window():
    """traces/h100/gap_stall.json: an FFMA hog (64 at stall count 1 and a branch a trip) beside a LOP3 chain on one
    sub-partition. Alone the hog takes 76.0 cycles a trip and one more a yield flag (80.1 / 84.2 / 92.3 with 4 / 8 /
    16): the table's yield_bubble follows within 2.5 %, without it the trip does not move. A hog that never yields
    lets the chain in after its branch only, 3-4 / 2 / 2 / 1 steps a trip at stall 4 / 6 / 8 / 10: the branch as
    this probe shows it (keeps the sub-partition a cycle, the next instruction 10 after it) gives all but the
    non-yielding stall-4 chain within 2 %; the table's (kept 5 cycles, fitted to dense e4m3) lets one step in at
    stall 8 where the H100 lets two (2x). At stall 6-10 the chain runs about one step a hog yield whether it
    yields or not (the hog's FFMA in its stall count takes the turn to the hog's next yield: gap_turn); at stall 2
    a chain that keeps the turn runs at its own rate beside any hog (2.3 cycles), as the table's replay has it.
    The copies at stall 2, 3, 5 and 7 came from a second device call, whose copies at 4, 6, 8, 10 repeated the
    first call's to the cycle."""
    from warpsim.timing import gap_stall
    doc = gap_stall.load()
    steps, hog = gap_stall.measured(doc)
    assert len(doc["loops"]["variants"]) == 64 and len(steps) == 80
    for v, n in (("s4y_h4", 16), ("s4y_h8", 8), ("s4y_h16", 4)):
        assert abs(hog[v] - hog["s4y_h0"] - n) < 0.1 * n
        assert abs(gap_stall.replay_hog(v) / hog[v] - 1) < 0.025
        assert gap_stall.replay_hog(v, yield_bubble=False) == gap_stall.replay_hog("s4y_h0")
    assert abs(hog["s4y_h0"] - 76) < 0.5
    for s in (2, 3, 4, 5, 6, 7, 8, 10):
        assert abs(steps[(f"s{s}y_h0", False)] - s - 0.08) < 0.05  # alone: the stall count
    measured_branch = gap_stall.RULES["branch as measured here"]
    for v in ("s4y_h0", "s6y_h0", "s6n_h0", "s8y_h0", "s8n_h0", "s10y_h0", "s10n_h0"):
        assert abs(gap_stall.replay(v, **measured_branch) / steps[(v, True)] - 1) < 0.02, v
    assert gap_stall.replay("s8y_h0") / steps[("s8y_h0", True)] > 1.9
    for s in (6, 7, 8, 10):
        assert all(16.4 < steps[(f"s{s}{y}_h16", True)] < 16.7 for y in "yn")
    assert steps[("s4n_h16", True)] < steps[("s4y_h16", True)] - 2
    # at stall 2 the FFMA never takes the turn from a chain that keeps it; the table's replay agrees there and at 3
    assert all(abs(steps[(f"s2n_h{h}", True)] - 2.3) < 0.05 for h in (4, 8, 16))
    for v in ("s2n_h4", "s2n_h16", "s3n_h16", "s3y_h16"):
        assert abs(gap_stall.replay(v) / steps[(v, True)] - 1) < 0.025, v


def test_gap_stall_names_a_file_it_cannot_use(tmp_path):
    """A corrupt or foreign gap_stall file is refused with its path and what is wrong, not read half-way."""
    from warpsim.timing import gap_stall
    bad = tmp_path / "gap_stall.json"
    bad.write_text("{")
    with pytest.raises(ValueError, match=r"gap_stall\.json: not JSON"):
        gap_stall.load(str(bad))
    bad.write_text('{"rows": [{}]}')
    with pytest.raises(ValueError, match=r"not the gap_stall measurement \(no 'rows' and 'loops'\)"):
        gap_stall.load(str(bad))
    bad.write_text('{"rows": [{}], "loops": {"variants": {"s4y_h0": [4, true, 0]}, "loops": {}}}')
    with pytest.raises(ValueError, match=r"variants without loops, no runs, or not 8 trips of 264 steps"):
        gap_stall.load(str(bad))


def test_gap_bank_the_register_banks_move_the_turn():
    """traces/h100/gap_bank.json: gap_stall's kernel with the hog's FFMA and the chain's LOP3 patched in their
    operands too (reuse / conflict / free; lop / lopfree). Alone the hog's yielding FFMA that read R4 beside Rd
    (their reuse bits cleared) cost nothing more than the yields, and an FFMA reading two registers of a bank
    costs a cycle. Beside the chain the banks, not the stall count alone, decide how often the hog takes the turn:
    without conflicts a chain that keeps the turn at stall 4 runs 3x faster beside a hog that never yields (7.2
    against 20.1 cycles a step) and nearly 2x beside one yielding every 16th FFMA; at stall 3 the step moves
    with the hog's yield period, not monotonically (13.5 at every 24th, 6.2 at every 32nd). The replay (with
    the banks, the measured branch) follows the chains at stall 5 and the short periods within 5 %; the two it
    lacks are pinned: the stall-4 chain beside a hog that never yields (3x long) and the chain yielding at stall 2
    (the H100 gives it the turn back within 2-3 cycles; 1.9x long). A second device call repeated the first's 96
    runs to the cycle."""
    from warpsim.timing import gap_stall
    doc = gap_stall.load_banks()
    steps, hog = gap_stall.measured_banks(doc)
    assert len(doc["loops"]["variants"]) == 154 == len(steps)
    for h in (4, 16):
        assert hog[f"s2y_h{h}_free_lop"] == pytest.approx(hog[f"s2y_h{h}_reuse_lop"], abs=0.1)
        assert hog[f"s2y_h{h}_conflict_lop"] > 1.5 * hog[f"s2y_h{h}_free_lop"]
    assert steps["s4n_h0_free_lopfree"] < 0.4 * steps["s4n_h0_reuse_lop"]
    for form in ("reuse_lop", "reuse_lopfree", "free_lop", "conflict_lopfree"):
        assert steps["s4n_h16_free_lopfree"] < 0.6 * steps[f"s4n_h16_{form}"], form
    assert steps["s3n_h24_free_lopfree"] > 2 * steps["s3n_h32_free_lopfree"]
    measured_branch = gap_stall.RULES["branch as measured here"]
    for v in ("s5n_h8_free_lopfree", "s5n_h24_reuse_lop", "s3n_h4_free_lopfree", "s4n_h3_free_lopfree"):
        assert abs(gap_stall.replay(v, True, doc, **measured_branch) / steps[v] - 1) < 0.05, v
    assert gap_stall.replay("s4n_h0_free_lopfree", True, doc, **measured_branch) > 3 * steps["s4n_h0_free_lopfree"]
    assert gap_stall.replay("s2y_h16_free_lopfree", True, doc, **measured_branch) > 1.8 * steps["s2y_h16_free_lopfree"]


def test_gap_bank_names_a_file_without_operands(tmp_path):
    """gap_bank.json's loops must carry their register operands (the replay's banks): a file without them is
    refused, not replayed without banks."""
    from warpsim.timing import gap_stall
    bad = tmp_path / "gap_bank.json"
    bad.write_text('{"rows": [{}], "loops": {"steps": 264, "probe_trips": 8, "variants": {"s4n_h0_free_lopfree": []}, '
                   '"loops": {"s4n_h0_free_lopfree": {"hog": [], "probe": []}}}}')
    with pytest.raises(ValueError, match=r"gap_bank\.json: loops without their operands"):
        gap_stall.load_banks(str(bad))
    with pytest.raises(ValueError, match=r"not the gap_bank measurement"):
        bad.write_text('{"rows": []}')
        gap_stall.load_banks(str(bad))


def test_s4_pairs_take_one_of_the_yield_policys_two_phase_modes():
    """Two warps of an s4 loop on one sub-partition (warpsim.timing.pair_modes): the H100's pair times are
    bimodal (T/sp_s4_k64 ILP 1: ~1.53 x one warp at 5-6 warps, ~1.39 x at 8-9), and every one of the 150
    recorded lies within 2.7 % of a phase mode of sass_sim under the microbenchmark's issue policy
    (yield_switch, hold 1: in phase = started together, out of phase = started 120-170 cycles apart). The
    greedy policy of the table until 2026-11-27 has one mode, between the two: more than 5 % from the
    out-of-phase pairs."""
    from warpsim.timing import pair_modes
    worst = 0.0
    for form, ilp in pair_modes.LOOPS:
        modes = pair_modes.modes(form, ilp)
        pairs = [p["ratio"] for p in pair_modes.measured(form, ilp)]
        assert len(pairs) == 30
        worst = max(worst, max(min(abs(x / m - 1) for m in modes.values()) for x in pairs))
    assert worst < 0.03
    k64 = [p["ratio"] for p in pair_modes.measured("sp_s4_k64", 1)]
    assert min(k64) < 1.40 < 1.50 < max(k64)  # both modes on the H100
    modes = pair_modes.modes("sp_s4_k64", 1)
    assert abs(modes[0] / 1.528 - 1) < 0.01 and abs(modes[170] / 1.39 - 1) < 0.015
    greedy = pair_modes.modelled("sp_s4_k64", 1, **pair_modes.sass_sim.GREEDY)
    assert min(k64) * 1.05 < greedy < max(k64)


def test_s4_pair_mode_follows_the_measured_loop_start_offset():
    """traces/h100/loop_start.json: a clock read once each warp's operands are back. The loads spread a
    pair's loop starts by at most ~100 cycles, and in sp_s4_k64 ILP 1 the offset picks the mode: 60 cycles
    or more apart every pair runs out of phase, close together almost all in phase."""
    from warpsim.timing import pair_modes
    pairs = pair_modes.loop_start_pairs()
    assert set(pairs) == {(f, i) for f in ("sp_s4_k64", "sp_s4_k128", "dense_s4_k64") for i in (1, 4)}
    assert all(len(v) == 45 and max(off for off, _ in v) < 130 for v in pairs.values())
    k64 = pairs[("sp_s4_k64", 1)]
    far = [r for off, r in k64 if off >= 60]
    near = [r for off, r in k64 if off <= 45]
    assert len(far) >= 4 and all(1.35 < r < 1.40 for r in far)
    assert len(near) >= 20 and sum(r > 1.45 for r in near) >= 0.85 * len(near)


def test_s4_pair_mode_shares_follow_the_warp_count_in_two_sessions():
    """The s4 timing traces recorded again in another session (traces/h100/s4_again.json: 10 launches of
    each several-warp run, not 2): which mode a pair of sp_s4_k64 ILP 1 warps takes is not the same in every
    launch, but how often is, for launches in capture.py's order, a property of the CTA's warps, the same in
    both sessions: with 5 warps in phase (2 of 2, 9 of 10), with 8-10 out of phase (17 of 18, 86 of 90), 6-7
    warps mixed. (Launched between other kernels they run otherwise: the next test.)"""
    from warpsim.timing import pair_modes
    per_launch = {5: 1, 6: 2, 7: 3, 8: 4, 9: 3, 10: 2}  # sub-partitions holding exactly two of the warps
    for folder, launches in ((pair_modes.TIMING, 2), (pair_modes.AGAIN, 10), (pair_modes.SASS, 10)):
        got = pair_modes.out_of_phase("sp_s4_k64", 1, folder)
        assert {w: k for w, (_, k) in got.items()} == {w: launches * n for w, n in per_launch.items()}
        assert got[5][0] <= 0.1 * got[5][1]
        out, pairs = (sum(got[w][i] for w in (8, 9, 10)) for i in (0, 1))
        assert out >= 0.85 * pairs
        assert 0 < got[7][0] < got[7][1]


def test_s4_pair_mode_is_set_by_the_loop_start_offset_and_the_launch_order():
    """traces/h100/loop_start_sass.json (traces/capture/loop_start_sass.py): the recorded sp_s4_k64 kernels,
    their start clock moved in the SASS to where the loop's operands are back, the loop unchanged. In
    capture.py's order (each configuration's launches one after another) the recorded kernel runs as in the
    timing trace (8 and 9 warps within 0.1 %), the pairs of 7-10 warps start their loops 63 cycles apart and
    every pair 63 apart runs out of phase. Launched in turn with other kernels (loop_start_sass_alternate.json)
    the same kernel starts its pairs 26-39 cycles apart and they run in phase: 8 warps 10 % slower. The
    replay, its pairs between the two modes, is 6.8 % long of the first with 8 warps (3.4 % with 9) and within
    3 % of the second."""
    from warpsim.timing import pair_modes
    from warpsim.replay_timing import TimingRunner, measured
    tr = read_trace(os.path.join(pair_modes.TIMING, "sp_s4_k64.npz"))
    for w in (8, 9):
        assert abs(pair_modes.run_cycles("sp_s4_k64", 1, w) / measured(tr, 1, w, 32) - 1) < 0.001
    cut = pair_modes.split("sp_s4_k64", 1)
    patched = pair_modes.measured("sp_s4_k64", 1, pair_modes.SASS, "patched")
    at63 = [p["ratio"] for p in patched if abs(p["offset"]) == 63]
    assert len(at63) >= 80 and all(r < cut for r in at63)
    starts = pair_modes.loop_starts("sp_s4_k64", 1)
    assert all(np.median(starts[w]) == 63 for w in (7, 8, 9, 10)) and np.median(starts[5]) < 25
    alt = pair_modes.out_of_phase("sp_s4_k64", 1, pair_modes.SASS_ALTERNATE)
    assert alt[8] == (0, 40) and sum(alt[w][0] for w in (8, 9, 10)) <= 0.15 * sum(alt[w][1] for w in (8, 9, 10))
    assert all(25 <= np.median(v) <= 40 for w, v in pair_modes.loop_starts(
        "sp_s4_k64", 1, pair_modes.SASS_ALTERNATE).items() if w >= 7)
    run = TimingRunner(tr)
    for w in (8, 9):
        sim = float(np.mean(run.run(1, w, 32)))
        here, between = (pair_modes.run_cycles("sp_s4_k64", 1, w, p)
                         for p in (pair_modes.SASS, pair_modes.SASS_ALTERNATE))
        assert sim > (1.05 if w == 8 else 1.02) * here and abs(sim / between - 1) < 0.03
    assert pair_modes.run_cycles("sp_s4_k64", 1, 8, pair_modes.SASS_ALTERNATE) > 1.09 * pair_modes.run_cycles(
        "sp_s4_k64", 1, 8)


def test_s4_pairs_replayed_from_their_measured_loop_start_offsets():
    """Each pair of the recorded s4 kernels (loop_start_sass.json, patched: the clock at the loop start, 750
    pairs of 5-10 warp runs) replayed by sass_sim from its own loop-start offset. Under the yield policy with
    hold 2 (on the greedy table's other options) three loops come within 2 % (sp_s4_k64 ILP 4 and dense_s4_k64
    ILP 1 every pair), where the greedy policy of the table until 2026-11-27 has none of sp_s4_k64 ILP 4 within
    2 %; neither puts sp_s4_k64 ILP 1's out-of-phase pairs (loops ~63 cycles apart) or most of dense_s4_k64
    ILP 4's within 5 %. The yield rule with the turn taken in a stall (gap_turn), without the register banks,
    parted dense_s4_k64 ILP 4's pairs as the H100 does (147 of its 150 within 5 %, 648 of the 750). Under the
    table's banks (since 2026-11-27) two of its warps started less than ~60 cycles apart stay in phase, where the
    H100's part: 109 of its 150 within 5 %, 597 of the 750 (the table starts the warps of a sub-partition 60 cycles
    apart; TIMING_FINDINGS.md, the register file's two banks)."""
    from warpsim.timing import pair_modes, sass_sim

    def within(rows, bound):
        return sum(abs(model / hw - 1) <= bound for _, hw, model in rows)

    greedy, yield2 = pair_modes.fit(sass_sim.GREEDY), pair_modes.fit(pair_modes.FIT_POLICIES[2][1])
    assert all(len(v) == 150 for v in yield2.values())
    assert within(yield2[("sp_s4_k64", 4)], 0.02) == within(yield2[("dense_s4_k64", 1)], 0.02) == 150
    assert within(yield2[("sp_s4_k128", 1)], 0.02) >= 135 and within(greedy[("sp_s4_k64", 4)], 0.02) == 0
    assert sum(within(v, 0.02) for v in yield2.values()) > 2 * sum(within(v, 0.02) for v in greedy.values())
    out_of_phase = [(hw, model) for off, hw, model in yield2[("sp_s4_k64", 1)] if 57 <= off <= 66 and hw < 1.40]
    assert len(out_of_phase) >= 80 and all(model > 1.05 * hw for hw, model in out_of_phase)
    for rows in (greedy, yield2):
        assert within(rows[("dense_s4_k64", 4)], 0.05) < 120
    table = pair_modes.fit()
    assert within(table[("dense_s4_k64", 4)], 0.05) == 109
    assert sum(within(v, 0.05) for v in table.values()) == 597
    unbanked = pair_modes.fit({"banks": False, "mio_hold": 2})
    assert within(unbanked[("dense_s4_k64", 4)], 0.05) >= 145


def test_s4_pair_mode_follows_whether_the_kernels_code_is_cached():
    """traces/h100/loop_start_sass_before.json: sp_s4_k64 ILP 1 with 8 and 9 warps, each launch right after one
    of another kind. After nothing, a tiny kernel, the L1 reset (200 KB of shared memory on every SM) or itself
    with one warp, the recorded kernel runs as in the timing trace (within 0.1 %, pairs out of phase, loops
    starting 63 cycles apart); after the code of another s4 kernel (another function of its module, another
    module, the patched copy) its pairs run mostly in phase, loops 33-39 apart, 4-7 % slower. What the launch
    before leaves in the SM's instruction caches, not in its L1, picks the mode."""
    from warpsim.timing import pair_modes
    from warpsim.replay_timing import measured
    got = pair_modes.after()
    tr = read_trace(os.path.join(pair_modes.TIMING, "sp_s4_k64.npz"))
    for w in (8, 9):
        trace = measured(tr, 1, w, 32)
        for before in ("none", "tiny", "l1_reset", "one_warp"):
            out, pairs, _, cycles = got[(w, "ptx", before)]
            assert out >= 0.9 * pairs and abs(cycles / trace - 1) < 0.001
            assert got[(w, "patched", before)][2] == 63
        for before in ("patched", "other_function", "other_module"):
            out, pairs, _, cycles = got[(w, "ptx", before)]
            assert out <= 0.4 * pairs and cycles > 1.04 * trace
            assert 30 <= got[(w, "patched", before)][2] <= 40


def test_fp8_ilp1_pairs_run_in_one_of_two_modes():
    """The warps' own clocks in the sparse fp8 timing traces: two warps of the ILP 1 loop on a sub-partition run
    1.30x or 1.40x one warp's time, nothing between (60 pairs of each form). The table's pair (the register
    banks with bank_freeze, a hold of one cycle after an SHFL) runs between the modes started up to 120 cycles
    apart (1.34x) and in the fast mode started 300 apart (without bank_freeze from 120); the greedy table until 2026-11-27 (a hold of two cycles, no banks)
    1.37x at any start; without banks a hold of one cycle puts the pair at the fast mode. The runs with 5 and 6
    warps, whose pairs run slow, were known misses until a branch to a line not run lately cost its 11 cycles
    (with the latencies fitted before the chains measured them, 1.28x).
    Launched again after four kinds of launch (traces/h100/fp8_pairs.json) the 6-warp pairs run mostly slow and
    the 8-warp ones mostly fast whatever came before."""
    from warpsim.timing import known, pair_modes, sass_sim
    for form, (fast, slow) in pair_modes.fp8_modes().items():
        assert len(fast) + len(slow) == 60 and min(len(fast), len(slow)) >= 25
        assert 1.29 < min(fast) and max(fast) < 1.32 and 1.37 < min(slow) and max(slow) < 1.43
        for stagger in (0, 60, 120):
            assert np.median(fast) + 0.03 < pair_modes.modelled(form, 1, stagger=stagger) < np.median(slow) - 0.05
        assert pair_modes.modelled(form, 1, stagger=300) < np.median(fast)
        assert pair_modes.modelled(form, 1, bank_freeze=False, stagger=120) < np.median(fast)
        for stagger in (0, 120, 300):
            greedy = pair_modes.modelled(form, 1, **dict(sass_sim.GREEDY, stagger=stagger))
            assert np.median(fast) + 0.05 < greedy < np.median(slow) - 0.02
        assert abs(pair_modes.modelled(form, 1, banks=False, stagger=0) / np.median(fast) - 1) < 0.02
    assert known.find("sp_e4m3_k64_f32", 1, 8, 32) is None
    assert pair_modes.fp8_by_warps("sp_e4m3_k64_f32")[6] == (8, 8)
    assert known.find("sp_e4m3_k64_f32", 1, 6, 32) is None  # within 5 % since branches to far lines cost more
    got = pair_modes.fp8_launches()
    assert {b for b, _ in got} == {"reset", "again", "ilp4", "s4"}
    for before in ("reset", "again", "ilp4", "s4"):
        slow6, pairs6 = got[(before, 6)]
        slow8, pairs8 = got[(before, 8)]
        assert pairs6 == 24 and slow6 >= 16 and pairs8 == 48 and slow8 <= 16


def test_loop_start_sass_patch_plan_and_check():
    """traces/capture/loop_start_sass.py on the recorded SASS (traces/h100/sass): the start clock's CS2R goes
    after the last operand LDG and waits on their scoreboard; a patched kernel that is not the original with
    only that moved is refused."""
    import importlib.util
    path = os.path.join(os.path.dirname(__file__), "..", "traces", "capture", "loop_start_sass.py")
    spec = importlib.util.spec_from_file_location("loop_start_sass", path)
    lss = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lss)
    from warpsim.timing import sass_profile
    sass = os.path.join(os.path.dirname(__file__), "..", "traces", "h100", "sass")
    code = sass_profile.parse_sass(open(os.path.join(sass, "timing_sp_s4_k64_ilp1.sass")).read())["sp_s4_k64_ilp1"]
    assert lss.plan(code) == (0xC0, 0x150, 5)
    moved = {"clock_from": 0xC0, "clock_to": 0x150, "waits_on": 5}
    after = [((a - 16 if 0xC0 < a <= 0x150 else 0x150 if a == 0xC0 else a), t,
              c | (1 << 16) if a == 0xC0 else c) for a, t, c in code]
    lss.check("sp_s4_k64_ilp1", code, after, moved)
    with pytest.raises(RuntimeError, match="not the original with the clock moved"):
        lss.check("sp_s4_k64_ilp1", code, code, moved)
    dense = sass_profile.parse_sass(open(os.path.join(sass, "timing_dense_s4_k64_ilp1.sass")).read())
    assert lss.plan(dense["dense_s4_k64_ilp1"]) == (0xC0, 0x160, 5)


def test_s4_again_file_keeps_what_pair_modes_reads(tmp_path):
    """write_again's JSON (start and end clocks relative to the launch) gives the pairs the timing traces give,
    and a file that is not one is named."""
    from warpsim.timing import pair_modes
    path = str(tmp_path / "again.json")
    pair_modes.write_again(pair_modes.TIMING, path)
    for form, ilp in pair_modes.LOOPS:
        assert pair_modes.measured(form, ilp, path) == pair_modes.measured(form, ilp)
    (tmp_path / "bad.json").write_text('{"forms": {}}')
    with pytest.raises(ValueError, match=r"bad\.json: not a file of write_again or loop_start_sass\.py"):
        pair_modes.measured("sp_s4_k64", 1, str(tmp_path / "bad.json"))
    with pytest.raises(ValueError, match=r"bad\.json: not a loop_start_sass\.py --before file \(KeyError\('rows'\)\)"):
        pair_modes.after(str(tmp_path / "bad.json"))
    with pytest.raises(ValueError, match=r"loop_start_sass\.json: not a file .*no runs of sp_s4_k64 \(nope\)"):
        pair_modes.measured("sp_s4_k64", 1, pair_modes.SASS, "nope")


def test_kernel_loop_names_a_kernel_without_sass():
    from warpsim.timing import sass_profile
    assert sass_profile.kernel_loop("sp_s4_k64_ilp1", "sm_90")["body"]
    with pytest.raises(KeyError, match=r"sp_s4_k64_ilp9: no SASS on file for sm_90 \(warpsim/timing/sass_sm90\.json\)"):
        sass_profile.kernel_loop("sp_s4_k64_ilp9", "sm_90")


def test_l1_counters_local_stores_write_through_and_fetch_nothing():
    """traces/h100/l1_counters.json (ncu on the recorded sparse fp8 kernels): every local store goes on to the
    L2 (sectors written = sectors stored, within 0.2 %), and the L2 reads stay near the load misses (0.7-1.6x:
    the counters come from different replays of the launch) where a store that fetched its line would add
    1.6-16x as many again."""
    from warpsim.timing import l1_counters
    rows = l1_counters.load()["rows"]
    stores = [r for r in rows if r["st"] > 10000]
    assert len(stores) > 200 and all(1.0 <= r["l2_write"] / r["st"] < 1.002 for r in stores)
    missed = [r for r in rows if r["ld_miss"] > 10000]
    assert len(missed) > 150
    assert all(r["l2_read"] < 1.7 * r["ld_miss"] and r["st_miss"] > 1.6 * r["ld_miss"] for r in missed)


def test_l1_counters_load_misses_follow_the_measured_policy():
    """The replay's load-miss ratios beside the H100's: the table's L1, as measured (1,792 lines, 1,920 with 16
    warps; LDL.LU lines evicted first, write-validate stores: l1_counters.MEASURED), within 5.5 points at ILP 4
    and 8 with 2-16 warps over the kernels' 32 trips (5 with the hit and SHFL latencies fitted before the chains
    measured them; now ILP 8 with 4 warps 5.1 points under), where the L1 fitted before (l1_counters.FITTED: 2,048 LRU
    lines, stores fetch) misses 7-25 points more at ILP 4 with 4-8 warps and ILP 8 with 2-3."""
    from warpsim.timing import l1_counters
    from warpsim.timing.params_sm90 import TABLE
    assert l1_counters.MEASURED.items() <= TABLE["emulated"]["sass"]["l1"].items()
    table = {(r["ilp"], r["warps"]): r["model"] - r["h100"]
             for r in l1_counters.compare(None, ilps=(4, 8), warps=(2, 3, 4, 6, 8, 16))}
    fitted = {(r["ilp"], r["warps"]): r["model"] - r["h100"]  # only the configurations it is held to
              for ilp, warps in ((4, (4, 6, 8)), (8, (2, 3)))
              for r in l1_counters.compare(l1_counters.FITTED, ilps=(ilp,), warps=warps)}
    assert max(abs(v) for v in table.values()) < 0.055
    assert min(fitted[k] for k in ((4, 6), (4, 8), (8, 2), (8, 3))) > 0.12 and fitted[(4, 4)] > 0.07


def test_l1_counters_a_load_miss_costs_a_warp_about_100_cycles():
    """The H100's trip time over the replay's miss-free trip, per load miss of the warp, at ILP 8 with 2-16
    warps: 92-112 cycles, whatever the number of warps, against the replay before its measured MIO and store
    port; with them the miss-free trip already holds part of that time, and what is left per miss falls
    from ~100 cycles (3-7 warps) to 48-56 (16 warps). The replay's own warps, whose scoreboards count every
    result, lose 100-115 cycles of long_scoreboard a load miss at ILP 4 with 5-16 warps, as Nsight's warp
    states show the H100's doing (100-121)."""
    from warpsim.timing import l1_counters, sass_sim
    cost = l1_counters.excess(8, warps=(2, 3, 4, 5, 6, 7, 10, 16))
    assert sorted(cost) == [2, 3, 4, 5, 6, 7, 10, 16] and all(40 < c < 115 for c in cost.values())
    assert all(90 < cost[w] for w in (3, 4, 5, 6, 7)) and cost[16] < 60
    loop = sass_sim.table_loop("sp_e4m3_k64_f32_ilp4")
    long = sass_sim.STALLS.index("long_scoreboard")
    one = loop.stalls((1, 0, 0, 0))[1][long]
    for w in (5, 16):  # the ends of the range (8 warps: 102.9 cycles a miss, as 5)
        pop = sass_sim.population(w)
        per = (loop.stalls(pop)[1][long] / w - one) / loop.l1_counts(pop)[1][1]
        assert 100 < per < 115, (w, per)


def test_sass_sim_in_order_loads():
    """sass_sim's in_order option (a warp's loads return in order, each no earlier than the one before it):
    no change to the later trips without L1 misses (ILP 2, one warp a sub-partition), a longer trip with them
    (ILP 4, 6 warps)."""
    from warpsim.timing import l1_counters, sass_sim
    def trip(ilp, pop, **l1):  # under the MIO fitted before l1_rate.json (one per 4 cycles a sub-partition)
        return sass_sim.table_loop(f"sp_e4m3_k64_f32_ilp{ilp}", dict(l1_counters.MEASURED, store_ii=0, **l1),
                                   mio_ii=4, mio_warp_ii=0, mio_sm_ii=0).cycles(pop)
    assert trip(2, (1, 1, 0, 0))[0][1] == trip(2, (1, 1, 0, 0), in_order=True)[0][1]
    assert trip(4, (2, 2, 1, 1))[0][1] < trip(4, (2, 2, 1, 1), in_order=True)[0][1]


def test_chain_latency_measured_and_replayed():
    """traces/h100/chain_latency.json (dependent steps, 1-16 warps): a local hit 29.1 cycles load to load, a
    shuffle 24.1; a chase whose loads fill the register their step's store reads (patched in the cubin, ptxas's
    spill-and-fill) 42.1 a step against 34.1, so a store's read scoreboard clears 12-13 cycles after it issues;
    LDL.LU as fast as LDL; a constant load (LDC chase) 28, an S2R 22. The table (hit 29, SHFL 24, l1
    store_read 13) replays every local and shuffle kernel's own SASS within 1.2 cycles a step for one warp; with
    the fitted values before (36, 28, 2) the chase was 7 cycles long and the spill-and-fill chase 1 cycle short.
    The table keeps LDC and S2R at 30: with the measured values the fp8 and s4 loops lose cycles they pay on the
    H100 for something not found."""
    from warpsim.timing import chain_latency
    hw, model = chain_latency.measured(), chain_latency.replay(warps=(1,))
    assert 28.8 < hw[("ldl", 1)] < 29.4 and 23.8 < hw[("shfl", 1)] < 24.4
    assert 7 < hw[("war_same", 1)] - hw[("war", 1)] < 9 and abs(hw[("lu_ldl", 1)] - hw[("ldl", 1)]) < 0.3
    local = [k for k in chain_latency.kernels() if k not in ("ldc", "s2r")]
    assert all(abs(model[(k, 1)] - hw[(k, 1)]) <= 1.2 for k in local), {k: (hw[(k, 1)], model[(k, 1)]) for k in local}
    old = chain_latency.replay(warps=(1,), l1={"hit": 36, "store_read": 2}, latency={"SHFL": 28})
    assert old[("ldl", 1)] - hw[("ldl", 1)] > 6 and old[("war_same", 1)] < hw[("war_same", 1)] - 1
    # LDC and S2R: measured 28 and 22, the table keeps the literature's 30 (params_sm90 says why)
    measured = chain_latency.replay(warps=(1,), latency={"SHFL": 24, "LDC": 28, "S2R": 22})
    assert all(abs(measured[(k, 1)] - hw[(k, 1)]) <= 1.0 for k in ("ldc", "s2r", "s2r_alu"))
    assert model[("ldc", 1)] - hw[("ldc", 1)] > 1.5 and model[("s2r", 1)] - hw[("s2r", 1)] > 7


def test_l1_rate_mio_and_store_port():
    """traces/h100/l1_rate.json (independent LDL / STL / SHFL hits, 1-16 warps): a warp issues one every ~4
    cycles, a sub-partition one every 2, the SM one a cycle; local stores pass one every 4 cycles, whatever the
    warps. The table's MIO (mio_warp_ii 4, mio_ii 2, mio_sm_ii 1) and store port (l1 store_ii 4) replay the
    probe's own SASS within 0.12 accesses a cycle of every run but mixed loads and stores on one sub-partition
    (H100 0.33, replay 0.42-0.47). Stores from 12 and 16 warps spread share the port's 0.25 a cycle as the H100's
    do; under the greedy table (until 2026-11-27) they passed at 0.37 / 0.40 summed over the warps (since a
    store's read scoreboard clears 13 cycles after it, l1 store_read, a warp that waits on it handed its
    sub-partition's turn to another, which kept it and the store port's slots for whole trips). Without the
    measured MIO and port the stores go at up to 0.96 a cycle."""
    from warpsim.timing import l1_rate, sass_sim
    hw, model = l1_rate.measured(), l1_rate.replay()
    assert all(0.23 <= hw[("stl", p, w)] <= 0.30 for p, w in l1_rate.RUNS)
    assert hw[("ldl", "spread", 16)] > 0.95 and 0.45 < hw[("ldl", "sp0", 8)] < 0.55 < hw[("ldl", "spread", 4)]
    shared = [("stl", "spread", 12), ("stl", "spread", 16)]
    off = {k: abs(model[k] - hw[k]) for k in hw if not (k[0] == "ldst" and k[1] == "sp0" and k[2] >= 3)}
    assert max(off.values()) <= 0.12, max(off.items(), key=lambda kv: kv[1])
    assert all(abs(model[k] - 0.25) < 0.01 for k in shared), [model[k] for k in shared]
    greedy = l1_rate.replay(ops=("stl",), **sass_sim.GREEDY)
    assert all(0.3 < greedy[k] < 0.45 for k in shared), [greedy[k] for k in shared]
    old = l1_rate.replay(mio_ii=4, mio_warp_ii=0, mio_sm_ii=0, l1={"store_ii": 0})
    assert old[("stl", "spread", 16)] > 0.8 and old[("ldl", "sp0", 8)] < 0.3


def test_l1_rate_a_store_holds_its_sub_partition():
    """Mixed local loads and stores from warps on one sub-partition pass at 0.31-0.34 a cycle on the H100, as if
    each store held the sub-partition's MIO for the store port's 4 cycles a line (16 x 4 + 16 x 2 cycles for a
    trip's 32); spread over the sub-partitions they pass at the port's rate. The L1 option ``store_sp_ii`` (off in
    the table) holds it 3 cycles a line: those runs then within 0.05 of the H100 (0.36-0.46 without), the spread
    ones unchanged but for 6 warps (0.55 / 0.59 a cycle)."""
    from warpsim.timing import l1_rate
    hw = l1_rate.measured()
    off = {w: l1_rate.replay(ops=("ldst",), l1={"store_sp_ii": q}) for w, q in (("off", 0), ("on", 3))}
    sp0 = [k for k in hw if k[0] == "ldst" and k[1] == "sp0" and k[2] >= 2]
    assert max(abs(off["on"][k] - hw[k]) for k in sp0) <= 0.05
    assert max(off["off"][k] - hw[k] for k in sp0) > 0.1
    spread = [k for k in hw if k[0] == "ldst" and k[1] == "spread"]
    assert max(abs(off["on"][k] - off["off"][k]) for k in spread if k[2] != 6) <= 0.02


def test_ifetch_l0_and_sm_cache():
    """traces/h100/ifetch.json (straight-line FFMA loops of 4-262 KB, one instruction a cycle or one every 4):
    up to 25 KB a trip runs at the issue rate, 49-98 KB at ~2.2 cycles an instruction (an L0 of ~32 KB a
    sub-partition, a line every ~18 cycles from the SM's cache), 197 KB and more at ~5.65 (from the L2); the
    slow loop keeps its rate to 98 KB; four warps, one a sub-partition, as fast as one. The table's fetch
    replays the probe's SASS within 5 % of the one-warp runs away from the caches' edges (33 and 131 KB);
    without it the 49 KB loop would run at the issue rate."""
    from warpsim.timing import ifetch
    doc = ifetch.load()
    hw = ifetch.measured(doc)
    per = {(n, c): hw[(n, c, "one")][1] / n for n, c, _p in hw}
    assert all(per[(n, 8)] < 1.1 for n in (256, 512, 1024, 1536)) and 1.1 < per[(2048, 8)] < 1.2
    assert all(2.15 < per[(n, 8)] < 2.3 for n in (3072, 4096, 6144))
    assert all(5.5 < per[(n, c)] < 5.8 for n in (12288, 16384) for c in (1, 8))
    assert all(per[(n, 1)] < 4.05 for n in (256, 1024, 3072, 6144))
    assert all(abs(hw[(n, c, "spread4")][1] / hw[(n, c, "one")][1] - 1) < 0.03 for n, c, _p in hw)
    sizes = (1536, 3072, 6144, 12288)
    model = ifetch.replay(doc, sizes=sizes)
    off = {k: model[k][1] / hw[k][1] - 1 for k in model if k[2] == "one"}
    assert len(off) == 8 and max(abs(v) for v in off.values()) < 0.05, off
    assert ifetch.replay(doc, sizes=(3072,), l0_lines=0)[(3072, 8, "one")][1] < 3200


def test_ifetch_no_shared_port():
    """Warps on one sub-partition running copies of the loop that share no code (ifetch.json's second
    experiment): two fast warps with 49 KB each finish within 5 % of two on the same code, four slow ones with
    25 KB each within 2 % (a port shared by the sub-partition's warps would double the first). The replay
    (a warp waits only for its own next line) follows every run within 6 % (two fast warps on the same 49 KB
    +5.7 %, the rest within 3.3 %) but four warps on two or four copies of 49 KB (9-10 % short: the H100
    loses more when their streams share an L0; four copies are past the SM's cache too) and the one-warp 49 KB
    runs, which the H100 launched right after four copies (their first trip fetched from the L2); with a port
    of the sub-partition's own at the one-warp rate the two fast warps would take 1.8 x as long."""
    from warpsim.timing import ifetch
    doc = ifetch.load()
    hw, model = ifetch.measured_distinct(doc), ifetch.replay_distinct(doc)
    assert hw[(3072, 8, 2, 2)] / hw[(3072, 8, 2, 1)] < 1.05 and hw[(1536, 1, 4, 4)] / hw[(1536, 1, 4, 1)] < 1.02
    off = {k: model[k] / hw[k] - 1 for k in hw if not (k[0] == 3072 and (k[3] > 1 and k[2] == 4 or k[2] == 1))}
    assert len(off) == 18 and max(abs(v) for v in off.values()) < 0.06, off
    port = ifetch.replay_distinct(doc, ii=18)
    assert port[(3072, 8, 2, 2)] > 1.8 * hw[(3072, 8, 2, 2)]


def test_fetch_does_not_limit_the_fp8_loops():
    """sass_sim's instruction fetch starts with the loop's code cached: the sparse e4m3 loop at ILP 2 (130
    lines, inside the L0's 264) runs to the cycle the same with and without it, and the ILP 4 and 8 loops (326
    and 743 lines) within 0.5 % for one warp: at ~6 cycles an instruction the warp never waits for a line that
    comes every 18 (the cost of the closing branch to a line not run lately, ``near_lines``, set aside)."""
    from warpsim.timing import sass_sim
    def trip(ilp, pop, **fetch):
        return sass_sim.table_loop(f"sp_e4m3_k64_f32_ilp{ilp}", fetch=fetch).cycles(pop)[0]
    assert trip(2, (2, 1, 1, 1), near_lines=0) == trip(2, (2, 1, 1, 1), l0_lines=0)
    for ilp in (4, 8):
        on, off = trip(ilp, (1, 0, 0, 0), near_lines=0), trip(ilp, (1, 0, 0, 0), l0_lines=0)
        assert on != off and all(abs(a / b - 1) < 0.005 for a, b in zip(on, off))


def test_branch_to_a_line_not_run_lately():
    """traces/h100/branch_fetch.json: one warp's loop of straight-line FFMA (one a cycle) pays its closing branch
    20 cycles a trip up to 45 code lines and 31 from 49; loops that branch over 128-1,024 instructions of their
    own code every trip but run 12 lines pay 13 more for that branch whatever its distance. The table's fetch
    ("near_lines" 48, "near_miss" 11) replays every one-warp loop within 1 cycle a trip at one FFMA a cycle and
    3 at one every 4; without the near lines the loops of 49 lines and more run 11 cycles short."""
    from warpsim.timing import ifetch
    doc = ifetch.load_branch()
    hw = ifetch.measured_branch(doc)
    lines = {k: len(set(ifetch.executed(doc["loops"][k[0]])[1])) for k in hw}
    fast = {k: hw[k] - (int(k[0].split("_")[1]) + 20) for k in hw if k[0].startswith("bfetch_")}
    assert all(v == 0 for k, v in fast.items() if lines[k] <= 45) and all(v == 11 for k, v in fast.items()
                                                                        if lines[k] >= 49), fast
    skips = {k: hw[k] for k in hw if k[0].startswith("bskip_64_")}
    assert skips[("bskip_64_0", "one")] == 85 and {v for k, v in skips.items() if k[0] != "bskip_64_0"} == {98}
    model = ifetch.replay_branch(doc)
    one = [k for k in hw if k[1] == "one"]
    assert len(one) == 24 and all(abs(model[k] - hw[k]) <= (1 if "bfetch1" not in k[0] else 3) for k in one)
    far = ifetch.replay_branch(doc, near_lines=0)
    assert all(hw[k] - far[k] == 11 for k in one if k[0].startswith("bfetch_") and lines[k] >= 49)


def test_register_banks():
    """traces/h100/regbank.json: chains of dependent FFMA Rx, Rx, Rb, Rc (one chain: an FFMA every 4 cycles a
    warp; two: every 2), b and c patched to other registers. One warp of one chain runs 4 cycles an FFMA whatever
    the registers; one to four warps on a sub-partition run at one register a cycle from each of two banks
    (register number mod 2) with a register read twice by one instruction read once: three of one bank 1.50x /
    2.25x / 3.0x one warp with 2 / 3 / 4 warps, two of one bank 1.52x / 2.0x with 3 / 4 warps, one 1.01-1.04x.
    Two warps of one chain with two registers of one bank, exactly the banks' rate, run 1.256x. The replay with
    ``banks`` (the reuse flag keeps an operand for the sub-partition's next two instructions of that warp) and
    ``bank_freeze`` (the table's) follows every run within 2 %; without bank_freeze every run within 3 % but those
    (1.02x, 19 % short); without banks two warps run 1.01x whatever the registers."""
    from warpsim.timing import ifetch
    doc = ifetch.load_regbank()
    hw = ifetch.measured_regbank(doc)
    ratio = {k: hw[k] / hw[(k[0], k[1], "one")] for k in hw}
    assert all(4.0 <= hw[(k, v, "one")] / 264 < 4.1 for k, v, _p in hw if k == "bfetch1_264")
    for v, regs in doc["loops"]["variants"].items():
        b, c = regs or (2, 3)
        same = len({12, b, c}) == 1
        all_even = not same and 12 % 2 == b % 2 == c % 2
        want = (1.01, 1.03, 1.04) if same else (1.50, 2.25, 2.99) if all_even else (1.256, 1.516, 2.01)
        got = [ratio[("bfetch1_264", v, p)] for p in ("sp0x2", "sp0x3", "sp0x4")]
        assert all(abs(g - x) < 0.03 for g, x in zip(got, want)), (v, got)
    model = ifetch.replay_regbank(doc)
    assert len(model) == 60 and max(abs(model[k] / hw[k] - 1) for k in hw) < 0.02
    model = ifetch.replay_regbank(doc, bank_freeze=False)
    off = {k: model[k] / hw[k] - 1 for k in hw}
    saturated = {k for k in hw if k[0] == "bfetch1_264" and k[2] == "sp0x2" and ratio[k] < 1.4 and ratio[k] > 1.2}
    assert len(saturated) == 8 and all(-0.2 < off[k] < -0.18 for k in saturated)
    assert len(off) == 60 and max(abs(v) for k, v in off.items() if k not in saturated) < 0.03
    plain = ifetch.replay_branch()
    assert plain[("bfetch1_264", "sp0x2")] / plain[("bfetch1_264", "one")] < 1.02
    table = ifetch.regbank_table(doc).splitlines()
    assert len(table) == 16 and table[1].split()[:2] == ["bfetch1_264", "ptxas"]


def test_register_bank_freeze():
    """traces/h100/regbank_slack.json: the one-chain loop of regbank.json (b, c two registers of the chain's bank, or
    three, or the chain's own) with the chain's stall count raised from 4 to 5, 6, 8. Where the banks' rate leaves
    room, several warps still lose a cycle a round for each other warp's second read from the bank (two registers
    of one bank: two warps 1.20x / 1.17x one warp at 5 / 6, three 1.41x at 5 and 1.26x at 8, four 1.38x at 8,
    where the rate allows 1.0-1.2x); two warps at 8 lose nothing. sass_sim's bank_freeze (an FMA-pipe instruction's
    second read from a bank stops the other warps' stall counts that cycle) follows 15 of the 18 ratios within 1.5 %,
    not the three with the most room (two warps at 8, three at 6, three reading three of one bank at 6: the replay
    10-14 % long); without it 9 of the 18 are 10-26 % short."""
    from warpsim.timing import ifetch
    doc = ifetch.load_slack()
    hw = ifetch.ratios(ifetch.measured_slack(doc))
    assert abs(hw[("bfetch1_264", "b2c3s4", "sp0x2")] - 1.256) < 0.01 and hw[("bfetch1_264", "b2c3s8", "sp0x2")] < 1.01
    assert hw[("bfetch1_264", "b2c3s8", "sp0x3")] > 1.24 and hw[("bfetch1_264", "b2c3s5", "sp0x2")] > 1.18
    multi = [k for k in hw if k[2] != "one"]
    freeze, plain = (ifetch.ratios(ifetch.replay_slack(doc, bank_freeze=f)) for f in (True, False))
    off = {k: freeze[k] / hw[k] - 1 for k in multi}
    loose = {("bfetch1_264", "b2c3s8", "sp0x2"), ("bfetch1_264", "b2c3s6", "sp0x3"), ("bfetch1_264", "b2c6s6", "sp0x3")}
    assert len(multi) == 18 and max(abs(v) for k, v in off.items() if k not in loose) < 0.015
    assert all(0.1 < off[k] < 0.15 for k in loose)
    short = sorted(plain[k] / hw[k] - 1 for k in multi)
    assert sum(v < -0.08 for v in short) == 9 and short[0] > -0.28
    table = ifetch.slack_table(doc).splitlines()
    assert len(table) == 7 and table[1].split()[:2] == ["bfetch1_264", "b2c3s4"]


def test_register_bank_freeze_is_the_fma_pipes():
    """traces/h100/regbank_alu.json: a chain of dependent LOP3.LUT R12, R12, Rb, Rc (the ALU: a warp's instruction
    every 2 cycles) with b, c two registers of the chain's bank or the chain's own, stall counts 4, 6, 8. Unlike
    FFMA, no warp loses a cycle to the others' second reads: three warps at 8 cycles run 1.01x one warp (FFMA
    1.26x), four 1.02x (FFMA 1.38x), two at 4 1.02x (FFMA 1.256x); the same with one read. So sass_sim's
    bank_freeze is for the FMA pipes' instructions only, and the replay follows every ratio within 2.5 %."""
    from warpsim.timing import ifetch
    doc = ifetch.load_alu()
    hw = ifetch.ratios(ifetch.measured_alu(doc))
    multi = [k for k in hw if k[2] != "one"]
    assert len(multi) == 15
    for two, one in (("b2c3s4", "b12c12s4"), ("b2c3s8", "b12c12s8")):
        assert all(abs(hw[("balu1_264", two, p)] - hw[("balu1_264", one, p)]) < 0.01 for p in ("sp0x2", "sp0x3", "sp0x4"))
    assert hw[("balu1_264", "b2c3s8", "sp0x3")] < 1.02 and hw[("balu1_264", "b2c3s4", "sp0x2")] < 1.02
    model = ifetch.ratios(ifetch.replay_alu(doc))
    assert max(abs(model[k] / hw[k] - 1) for k in multi) < 0.025
    assert ifetch.replay_alu(doc) == ifetch.replay_alu(doc, bank_freeze=False)
    assert len(ifetch.alu_table(doc).splitlines()) == 6


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
            "pair_modes", "pc_samples", "sass_profile", "sched_probe", "stall_reasons", "trip_phase")


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


def test_l1_fill_miss_path():
    """traces/h100/l1_fill.json (warps streaming loads through 1 MB local frames past the L1): a miss alone takes
    ~300 cycles; a hit issued after a miss is back in ~45 (loads return out of order); one warp's trip of
    8-16 independent missing loads takes about a miss, of 18-32 up to twice that (ptxas's code: the replay of
    its SASS follows); 16 warps fill 0.6 lines a cycle; loads and stores mixed, 0.38. The probed miss path
    (``l1_fill.PROBED``: miss 300, a fill taking the store port one cycle) replays the one-warp trips of 8-32
    loads within 2.5 % and the loads-and-stores runs of 4-16 warps within 4 % (with the L1 of 1,792 lines: the
    larger L1 that l1_probe.json measured for 512 threads, the table's ``wide``, keeps lines of this probe's
    16-warp runs that the H100 missed, which then run 20-40 % short: a contradiction, TIMING_FINDINGS.md); with
    fills a port of their own (``fill_port`` off) those are 20 % short, and under the fill rate fitted before
    (one every 4 cycles, ``l1_counters.FITTED``) 16 warps' loads take twice the H100's time."""
    from warpsim.timing import l1_fill
    doc = l1_fill.load()
    hw, lat = l1_fill.measured(doc), l1_fill.latencies(doc)
    assert 290 <= lat["chase"] <= 310 and lat["order_hit"] < 60 and lat["order_miss"] > 280
    assert all(hw[(f"ldl_n{n}", 1)] < 420 for n in (8, 12, 14, 16)) and hw[("ldl", 1)] > 700
    assert 16 * 32 / hw[("ldl", 16)] > 0.6 and 0.36 < 16 * 32 / hw[("ldst", 16)] < 0.4
    kernels = ("ldl_n8", "ldl_n16", "ldl_n18", "ldl_n20", "ldl_n24", "ldl", "ldst")
    model = l1_fill.replay(doc, kernels=kernels, warps=(1, 4, 8, 16), l1=dict(l1_fill.PROBED, wide=None))
    one = {k: model[(k, 1)] / hw[(k, 1)] - 1 for k in kernels[:-1]}
    assert max(abs(v) for v in one.values()) < 0.025, one
    mixed = {w: model[("ldst", w)] / hw[("ldst", w)] - 1 for w in (4, 8, 16)}
    assert max(abs(v) for v in mixed.values()) < 0.04, mixed
    wide = l1_fill.replay(doc, kernels=("ldst", "ldl"), warps=(16,), l1=l1_fill.PROBED)
    assert all(wide[(k, 16)] < 0.8 * hw[(k, 16)] for k in ("ldst", "ldl")), wide
    own = l1_fill.replay(doc, kernels=("ldst",), warps=(16,), l1=dict(l1_fill.PROBED, fill_port=False, wide=None))
    assert own[("ldst", 16)] < 0.85 * hw[("ldst", 16)]
    from warpsim.timing import l1_counters
    fitted = l1_fill.replay(doc, kernels=("ldl",), warps=(16,), l1=l1_counters.FITTED)
    assert fitted[("ldl", 16)] > 2 * hw[("ldl", 16)]


def test_trip_phase_kernels_out_of_sample():
    """traces/h100/trip_phase.json: the s4 timing kernels with a clock stored every trip, which ptxas schedules
    anew (a warp alone 20 % faster to 22 % slower than the recorded kernels): six kernels the table was not
    fitted to. The replay of their SASS follows the H100 within 1.5 % with one warp, 2 % with 5 warps and
    3 % with 8 (1.3 / 1.2 / 2.8 %; before the register banks 1.5 / 2 / 2.5 %; under the greedy table until
    2026-11-27: 1 %, 2.5 %, 5.5 %); the two warps of a sub-partition
    stay phase-locked on both (the H100's trip ends within 100 cycles of each other at every trip of every launch,
    the replay's within 140), the pair's time within 6 %."""
    from warpsim.timing import sass_sim, trip_phase
    doc = trip_phase.load()
    assert len(trip_phase.kernels(doc)) == 6
    hw, model = trip_phase.measured(doc), trip_phase.replay(doc, warps=(1, 5, 8))
    err = {(k, w): model[(k, w)]["trip"] / hw[(k, w)]["trip"] - 1 for k, w in model}
    for w, bound in ((1, 0.015), (5, 0.02), (8, 0.03)):
        assert max(abs(e) for (k, ww), e in err.items() if ww == w) < bound, (w, err)
    for k in trip_phase.kernels(doc):
        for w in (5, 6, 8):
            assert max(abs(x) for o in hw[(k, w)]["offsets"] for x in o) <= 100, (k, w)
        assert max(abs(x) for o in model[(k, 5)]["offsets"] for x in o) <= 140, k
        assert abs(model[(k, 5)]["pair"] / hw[(k, 5)]["pair"] - 1) < 0.06, k
    recorded = {k: sass_sim.table_loop(k).later((1, 0, 0, 0)) for k in trip_phase.kernels(doc)}
    assert min(hw[(k, 1)]["trip"] / recorded[k] for k in recorded) < 0.85
    assert max(hw[(k, 1)]["trip"] / recorded[k] for k in recorded) > 1.15

def test_recorded_s4_pairs_lock_at_offsets_the_yield_rule_follows():
    """traces/h100/trip_phase_reps.json: the recorded s4 kernels, unchanged, with every loop count 1-32. The two
    warps of a sub-partition lock at an offset from the first trip on; five loops lock within 50 cycles in most
    launches, dense_s4_k64 ILP 4 never within 100. Started that far apart, the yield rule sched_probe measured
    gives the H100's pair time within 1 % for the five and for dense_s4_k64 ILP 4's -118 group, and within 4 %
    for its -346 and -1137 groups; the greedy rule of the table until 2026-11-27 ran dense_s4_k64 ILP 4's pairs
    6-8 % long at any start, the cause of three known misses then. The table (gap_turn, the register banks, the
    warps of a sub-partition starting 60 cycles apart) runs the pair within 3 % of all three groups."""
    from warpsim.timing import sass_sim, trip_phase
    locks = trip_phase.locks()
    assert len(locks) == 6
    dense4 = locks.pop("dense_s4_k64_ilp4")
    assert all(abs(off) >= 100 for off, _n, _p in dense4)
    for k, groups in locks.items():
        off, n, pair = groups[0]
        assert abs(off) <= 50 and n >= 40, (k, groups)
        assert abs(trip_phase.lock_replay(k, off) / pair - 1) < 0.01, k
    got = {off: trip_phase.lock_replay("dense_s4_k64_ilp4", off) / pair - 1 for off, _n, pair in dense4 if off in
           (-118, -346, -1137)}
    assert abs(got[-118]) < 0.01 and max(got.values()) < 0.04, got
    greedy = trip_phase.lock_replay("dense_s4_k64_ilp4", 0, **sass_sim.GREEDY)
    assert all(greedy / pair - 1 > 0.05 for off, _n, pair in dense4 if off in (-118, -346, -1137))
    lp = sass_sim.table_loop("dense_s4_k64_ilp4")
    table = lp.cycles((2, 0, 0, 0))[0][1] / lp.later((1, 0, 0, 0))
    assert all(abs(table / pair - 1) < 0.03 for off, _n, pair in dense4 if off in (-118, -346, -1137)), table
    # the same sweep storing %warpid: launches in turn alternate between two slot assignments, pairs on one
    # sub-partition either way (slot mod 4), and dense_s4_k64 ILP 4 with 5 warps is never in phase under either
    slots = trip_phase.load_reps(trip_phase.REPS.replace("_reps", "_warpid"))["rows"]
    five = [tuple(r["warpid"]) for r in slots if r["warps"] == 5]
    assert set(five) == {(1, 2, 3, 0, 5), (3, 0, 1, 2, 7)} and all(a != b for a, b in zip(five, five[1:]))
    dense = [r["end"][4] - r["end"][0] for r in slots if r["form"] == "dense_s4_k64" and r["ilp"] == 4
             and r["warps"] == 5]
    assert min(abs(x) for x in dense) >= 100

def test_the_yield_rule_shares_the_store_port_as_the_h100_does():
    """The yield rule (sass_sim.YIELD, as sched_probe measured) beside the greedy issue of the table until
    2026-11-27 (sass_sim.GREEDY) on two probes:
    warps streaming local stores share the SM's store port evenly on the H100 (l1_rate.json: their rates sum to
    the port's 0.25 lines a cycle with 8-16 warps), and so they do under the yield rule, where greedy lets a warp
    keep its turn for whole trips (0.32-0.40); the chase with four stores a step takes the H100's 128 and 241
    cycles a step with 8 and 16 warps, the yield rule 128 and 256, greedy 109 and 180."""
    from warpsim.timing import chain_latency, l1_rate, sass_sim
    hw, greedy = l1_rate.measured(), l1_rate.replay(ops=("stl",), **sass_sim.GREEDY)
    yld = l1_rate.replay(ops=("stl",), **sass_sim.YIELD)
    for w in (8, 12, 16):
        assert abs(yld[("stl", "spread", w)] - hw[("stl", "spread", w)]) < 0.02
        assert greedy[("stl", "spread", w)] > hw[("stl", "spread", w)] + 0.05
    doc = chain_latency.load()
    hw = chain_latency.measured(doc)
    greedy = chain_latency.replay(doc, ["ldl_stl4"], **sass_sim.GREEDY)
    yld = chain_latency.replay(doc, ["ldl_stl4"], **sass_sim.YIELD)
    for w in (8, 16):
        k = ("ldl_stl4", w)
        assert abs(yld[k] / hw[k] - 1) < 0.07 and greedy[k] / hw[k] - 1 < -0.14, (w, hw[k], yld[k], greedy[k])

def test_yield_order_lru_with_three_warps_a_sub_partition():
    """Under the yield rule (sass_sim.YIELD), who goes after a yield matters once three warps share a
    sub-partition: the one that issued least recently (``yield_order`` "lru", the table's) runs four s4 loops
    with 3 warps a sub-partition within 3.5 % of the H100's ratio to one warp each (12 warps over 4, from the
    timing traces), the next in turn 3-6 % long in three of them; with two warps the two orders are the same."""
    from warpsim import replay_timing, tracefile
    from warpsim.timing import sass_sim
    for kernel in ("dense_s4_k64_ilp1", "sp_s4_k64_ilp4", "sp_s4_k128_ilp1", "sp_s4_k128_ilp4"):
        tr = tracefile.read_trace(f"traces/h100/timing/{kernel.rsplit('_', 1)[0]}.npz")
        ilp = int(kernel[-1])
        hw = replay_timing.measured(tr, ilp, 12, 32) / replay_timing.measured(tr, ilp, 4, 32)
        got = {}
        for order in ("lru", "turn"):
            lp = sass_sim.table_loop(kernel, **sass_sim.YIELD, yield_order=order)
            got[order] = lp.later((3, 3, 3, 3)) / lp.later((1, 1, 1, 1)) / hw - 1
            got[order + "2"] = lp.later((2, 0, 0, 0))
        assert abs(got["lru"]) < 0.035 and got["lru2"] == got["turn2"], (kernel, got)
        if kernel != "sp_s4_k128_ilp1":
            assert got["turn"] > 0.03, (kernel, got)

def test_miss_spread_draws_each_lines_latency_from_the_h100s():
    """``l1["miss_spread"]`` (a seed; off in the table): each line's misses take the table's miss latency plus
    its own draw from the spread of the H100's lone misses (l1_fill.json's chase: 259-324 cycles, median 300).
    Which lines are slow moves sparse fp8 ILP 4 with 5 warps by about as much as the H100's launches spread (six
    seeds 2.1 %, the four launches 2.3 %; TIMING_FINDINGS.md, the latencies of dependent chains); the same seed gives the
    same cycles, and without a seed the loop runs as the table's constant latency."""
    import numpy as np
    from warpsim import tracefile
    from warpsim.timing import l1_fill, sass_sim
    spread = l1_fill.chase_spread()
    assert np.median(spread) == 0 and -45 <= spread.min() and spread.max() <= 30 and len(set(spread)) > 20
    pop = sass_sim.population(5)
    const = sass_sim.table_loop("sp_e4m3_k64_f32_ilp4").later(pop)
    assert sass_sim.table_loop("sp_e4m3_k64_f32_ilp4", l1={"miss_spread": 0}).later(pop) == const
    runs = [sass_sim.table_loop("sp_e4m3_k64_f32_ilp4", l1={"miss_spread": s}).later(pop) for s in range(1, 7)]
    assert sass_sim.table_loop("sp_e4m3_k64_f32_ilp4", l1={"miss_spread": 1}).later(pop) == runs[0]
    assert len(set(runs)) == len(runs) and const not in runs
    a = tracefile.read_trace("traces/h100/timing/sp_e4m3_k64_f32.npz").arrays
    launches = [float((a["end"][r, :5].astype(np.int64) - a["start"][r, :5].astype(np.int64)).mean())
                for r in range(len(a["run_ilp"])) if (a["run_ilp"][r], a["run_warps"][r], a["run_reps"][r]) == (4, 5, 32)]
    width = lambda xs: (max(xs) - min(xs)) / np.median(xs)  # noqa: E731
    assert 0.01 < width(launches) < 0.05 and width(runs) >= 0.8 * width(launches), (width(launches), width(runs))


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


@pytest.mark.parametrize("kernel,options", [("sp_e4m3_k64_f32_ilp4", {"trips": 8}), ("sp_s4_k64_ilp1", {}),
                                            ("dense_s4_k64_ilp4", {"yield_switch": True, "hold": 2, "stagger": 60}),
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


def test_stall_reasons_one_warp_every_ilp():
    """traces/h100/stall_reasons_one.json (Nsight's warp states of one warp of the sparse fp8 kernels at ILP 1-8):
    the H100's warp issues the replay's instructions (within 1.5 %: the kernel's own few outside the loop) and, at
    ILP 2-8, waits the same stall counts (within 2 %; ILP 1 8 % more). With the latencies measured by
    traces/h100/chain_latency.json (a hit 29, a shuffle 24, a store's register read 13) it waits as long on its
    shuffles as the replay's (short_scoreboard within 7 %) and on its local loads 1.0-1.3x as long (the H100's
    count includes the kernel's loads outside the loop). The fitted latencies before them (a hit of 36, SHFL 28,
    stores reading their registers after 2 cycles) had the H100 waiting 0.7-0.8x as long on its shuffles and
    1.1-1.5x on its loads."""
    from warpsim.timing import stall_reasons
    hw = stall_reasons.measured(stall_reasons.load(stall_reasons.ONE))
    assert sorted(hw) == sorted((f"{f}_ilp{i}", 1) for f in ("sp_e4m3_k64_f32", "sp_e5m2_k64_f32")
                                for i in range(1, 9))
    rows = stall_reasons.one_warp()
    for ilp, (long, short) in stall_reasons.one_warp_split(rows).items():
        h100, model = rows[ilp]
        assert abs(h100["selected"] / model["selected"] - 1) < 0.015
        if ilp >= 2:
            assert abs(h100["wait"] / model["wait"] - 1) < 0.02
            assert 0.99 < long < 1.32 and 0.93 < short < 1.07, (ilp, long, short)
    old = stall_reasons.one_warp_split(stall_reasons.one_warp(l1={"hit": 36, "store_read": 2}, latency={"SHFL": 28}))
    assert all(1.1 < old[i][0] < 1.55 and 0.7 < old[i][1] < 0.85 for i in range(2, 9)), old


def test_stall_reasons_beside_the_h100():
    """traces/h100/stall_reasons.json (Nsight Compute's warp states of the recorded emulated kernels): the
    H100's warps issue the replay's instructions (selected within 1 %: the kernel's own few outside the loop);
    an LDL/STL never waits long for the MIO there (lg_throttle under 1 % of a warp's cycles at sparse fp8 ILP
    4, 1-16 warps); with warps sharing a sub-partition at sparse fp8 ILP 1 they lose cycles to dispatch stalls
    (one a sub-partition: ~15 a trip) and to waits past the stall counts (426 a trip for one warp, 502 with 16),
    which the replay's register banks and its hold of one cycle after an SHFL (``mio_hold``) give as dispatch
    stalls: waits and dispatch stalls together within 5 % of the H100's from 1 to 16 warps (the replay's waits are
    the stall counts, 395 a trip; with a hold of two cycles, as before the banks, the 16-warp runs 25 % over); a
    load miss costs the H100's warps
    a flat ~100-120 cycles from 4 to 16 warps (long_scoreboard over one warp's, per missed line)."""
    from warpsim.timing import stall_reasons
    doc = stall_reasons.load()
    hw = stall_reasons.measured(doc)
    assert set(stall_reasons.kernels(doc)) == {f"{f}_ilp{i}" for f in ("sp_e4m3_k64_f32", "sp_e5m2_k64_f32",
                                                                        "sp_s4_k64", "dense_s4_k64") for i in (1, 4)}
    for kernel in ("sp_e4m3_k64_f32_ilp1", "dense_s4_k64_ilp4"):
        model = stall_reasons.replay(kernel, (1, 5, 8, 16))
        for w in (1, 5, 8, 16):
            assert model[(kernel, w)]["selected"] == pytest.approx(hw[(kernel, w)]["selected"], rel=0.01)
    assert all(hw[("sp_e4m3_k64_f32_ilp4", w)]["lg_throttle"] < 0.01 * hw[("sp_e4m3_k64_f32_ilp4", w)]["cycles"]
               for w in range(1, 17))
    warps = (1, 4, 5, 8, 12, 16)
    model = stall_reasons.replay("sp_e4m3_k64_f32_ilp1", warps)
    two = stall_reasons.replay("sp_e4m3_k64_f32_ilp1", (16,), mio_hold=2)
    def held(row):
        return row["wait"] + row["dispatch_stall"]
    for w in warps:
        h, m = hw[("sp_e4m3_k64_f32_ilp1", w)], model[("sp_e4m3_k64_f32_ilp1", w)]
        assert m["wait"] < h["wait"] and abs(held(m) / held(h) - 1) < 0.05, (w, held(m), held(h))
    assert held(two[("sp_e4m3_k64_f32_ilp1", 16)]) > 1.2 * held(hw[("sp_e4m3_k64_f32_ilp1", 16)])
    one = hw[("sp_e4m3_k64_f32_ilp4", 1)]["long_scoreboard"]
    misses = {}
    for r in doc["rows"]:
        if r["form"] == "sp_e4m3_k64_f32" and r["ilp"] == 4:
            c = r["counters"]["l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum"]
            misses.setdefault(r["warps"], []).append(c / 4 / (r["warps"] * r["reps"]))
    per_miss = [(hw[("sp_e4m3_k64_f32_ilp4", w)]["long_scoreboard"] - one) / np.mean(misses[w]) for w in range(4, 17)]
    assert 95 < min(per_miss) and max(per_miss) < 125, per_miss


def test_stall_reasons_of_the_l1_rate_probes():
    """traces/h100/l1_rate_stalls.json (the same counters of l1_rate's probes): where the probes saturate the MIO
    the H100's LDL/STL and SHFL do wait to issue (16 warps streaming stores: lg_throttle 86 % of their cycles,
    loads 42 %, shuffles mio_throttle 37 %), unlike the sparse fp8 loops' (under 1 %); and 8 warps shuffling on
    one sub-partition lose under 1 % of their cycles to dispatch stalls: the replay's hold after an SHFL
    (``mio_hold``), which matches the fp8 ILP 1 dispatch stalls in size, is not the H100's mechanism there."""
    from warpsim.timing import stall_reasons
    rate = stall_reasons.rate_probes()
    assert rate[("stl", "spread", 16)]["lg_throttle"] > 0.8 and rate[("ldl", "spread", 16)]["lg_throttle"] > 0.4
    assert rate[("shfl", "spread", 16)]["mio_throttle"] > 0.3
    assert all(rate[(op, "spread", 1)]["lg_throttle"] + rate[(op, "spread", 1)]["mio_throttle"] == 0
               for op in ("ldl", "stl", "shfl", "ldst"))
    assert all(rate[("shfl", "sp0", w)]["dispatch_stall"] < 0.01 for w in (2, 3, 4, 6, 8))
    assert all(abs(sum(v.values()) - 1) < 0.02 for v in rate.values())


def test_stall_reasons_table_prints(capsys):
    """``python -m warpsim.timing.stall_reasons KERNEL``: per warp count the H100's cycles a warp and a trip in
    each state over the replay's."""
    from warpsim.timing import stall_reasons
    assert stall_reasons.main(["dense_s4_k64_ilp1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("dense_s4_k64_ilp1: cycles a warp and a trip in each state, H100/replay")
    assert len([x for x in out.splitlines() if re.match(r"\s+\d+ ", x)]) == 16 and "disp" in out


def test_dispatch_probe_only_the_sparse_tensor_op_stalls_dispatch():
    """traces/h100/dispatch_probe.json (1-4 warps on one sub-partition, 8 chains of one kind of instruction beside
    ALU filler, under Nsight Compute): of SHFL, F2FP, SEL, FADD, IMAD and HMMA.SP only the HMMA.SP loses cycles to
    dispatch stalls, even alone on its sub-partition (~0.3 a HMMA.SP), more with more warps; but ~1 a HMMA.SP per
    other warp at most, far from the ~63 cycles a trip (16 HMMA.SP) that the sparse fp8 ILP 1 warps lose per other
    warp (traces/h100/stall_reasons.json): what holds the dispatch there is still not found."""
    doc = json.load(open(os.path.join(ROOT, "traces", "h100", "dispatch_probe.json")))
    disp = {}
    for r in doc["rows"]:
        c = r["counters"]
        disp.setdefault((r["kind"], r["warps"]), []).append(
            c["smsp__warps_issue_stalled_dispatch_stall.sum"] / (r["warps"] * r["iters"]))
    disp = {k: float(np.mean(v)) for k, v in disp.items()}
    assert all(disp[(k, w)] < 0.1 for k in ("alu", "shfl", "f2fp", "sel", "fadd", "imad") for w in (1, 2, 3, 4))
    assert 1.5 < disp[("hmma_sp", 1)] < disp[("hmma_sp", 2)] < disp[("hmma_sp", 4)] < 16


def test_pc_samples_account_for_the_whole_trip():
    """traces/h100/stall_reasons_source.json (ncu's per-instruction samples of the recorded kernels, many trips):
    a warp's cycles at the loop's instructions, the branches' waits sampled at the address after them given to
    where they go, add up to the trip the kernels' own clocks measured (ncu samples the SM while its slowest warp
    runs): within 0.5 % with one warp; with several, within 1 % of the range their application passes ran in
    (which pair mode a pass runs in moves them; the instrumented pass that counts executions, 3-60x slower, left
    out)."""
    from warpsim.timing import pc_samples
    doc = pc_samples.load()
    for e in doc:
        _, cycles, reasons = pc_samples.loop(e)
        trips = [np.max(c) / e["reps"] for launch in e["cycles"] for c in launch]
        trips = [x for x in trips if x < 2 * np.median(trips)]
        if e["warps"] == 1:
            assert cycles.sum() == pytest.approx(np.median(trips), rel=0.005), (e["form"], e["ilp"])
        else:
            assert 0.99 * min(trips) <= cycles.sum() <= 1.01 * max(trips), (e["form"], e["ilp"], e["warps"])
        assert sum(reasons.values()) == pytest.approx(cycles.sum(), rel=1e-9)


def test_pc_samples_one_warp_instruction_by_instruction():
    """One warp alone: the replay issues nearly every instruction of the recorded loops as many cycles after the
    one before as the H100 does (within a cycle: 385 of sparse e4m3 ILP 1's 407, 6,369 of dense_s4_k64 ILP 4's
    6,404); its trips are the H100's within 4 % (sparse e4m3 ILP 1 within 1 %, dense_s4_k64 ILP 4 to the cycle,
    since the register banks)."""
    from warpsim.timing import pc_samples
    doc = pc_samples.load()
    for kernel, least in (("sp_e4m3_k64_f32_ilp1", 380), ("dense_s4_k64_ilp4", 6360),
                          ("dense_e4m3_k32_f32_ilp1", 38), ("sp_e4m3_k64_f32_ilp4", 2000)):
        a = pc_samples.agreement(kernel, 1, doc)
        assert a["ops_match"] and a["within_1"] >= least, (kernel, a)
        assert a["replay"] == pytest.approx(a["h100"], rel=0.04), (kernel, a)


def test_pc_samples_call_and_ret():
    """The H100's s4 routine call: a CALL costs its warp under a cycle past its stall count, a RET ~37 (its
    redirect, sampled at the address after it). The table's fitted redirects (20 each) give the same sum, split
    otherwise; with the measured split the replay issues 6,368 of dense_s4_k64 ILP 4's 6,404 instructions within
    a cycle of the H100 (6,304 with the table's)."""
    from warpsim.timing import pc_samples
    from warpsim.timing.params_sm90 import TABLE
    cr = pc_samples.call_ret("dense_s4_k64_ilp4", 1)
    assert cr["CALL"] < 1.5 and 35 < cr["RET"] < 40
    redirect = TABLE["emulated"]["sass"]["redirect"]
    assert abs(redirect["CALL"] + redirect["RET"] - (cr["CALL"] + cr["RET"])) < 3
    measured = {"redirect": {"CALL": 1, "RET": 37, "BRA": redirect["BRA"]}}
    assert pc_samples.agreement("dense_s4_k64_ilp4", 1, **measured)["within_1"] >= 6360


def test_pc_samples_pairs_switch_at_the_yield_flags():
    """Two dense_s4_k64 ILP 4 warps a sub-partition (8 warps): the H100's warps lose their extra cycles in the
    s4 routine right after its yield-flagged instructions (the other warp's turn), as the measured yield rule
    says and the table has it, not at the routine's entry as the greedy issue of the table until 2026-11-27 had
    it."""
    from warpsim.timing import pc_samples, sass_profile, sass_sim
    text, hw, _ = pc_samples.loop(pc_samples.entry("dense_s4_k64_ilp4", 8))
    _, one, _ = pc_samples.loop(pc_samples.entry("dense_s4_k64_ilp4", 1))
    prof = sass_profile.trip(sass_profile.kernel_loop("dense_s4_k64_ilp4", "sm_90"))
    after_yield = np.array([i > 0 and prof[i - 1].split()[2] == "0" for i in range(len(prof))])
    extra = hw - one
    assert extra[after_yield].mean() > 5 and abs(extra[~after_yield].mean()) < 1
    def extra_of(**options):
        return pc_samples.replay_gaps("dense_s4_k64_ilp4", 2, **options) - \
            pc_samples.replay_gaps("dense_s4_k64_ilp4", 1, **options)
    greedy, yielding, table = extra_of(**sass_sim.GREEDY), extra_of(**sass_sim.YIELD), extra_of()
    assert extra[after_yield].sum() / extra.sum() > 0.7
    for rule in (yielding, table):
        assert rule[after_yield].sum() / rule.sum() > 0.7 > greedy[after_yield].sum() / greedy.sum()


def test_pc_samples_prints(capsys):
    from warpsim.timing import pc_samples
    assert pc_samples.main([]) == 0
    out = capsys.readouterr().out
    assert "385 of 407 instructions within a cycle" in out and "a RET 37.5" in out
    assert pc_samples.main(["dense_e4m3_k32_f32_ilp1", "1"]) == 0
    assert "dense_e4m3_k32_f32_ilp1, 1 warps: cycles a trip H100 90" in capsys.readouterr().out


def test_pc_samples_pairs_instruction_by_instruction():
    """Two dense_s4_k64 ILP 4 warps a sub-partition, instruction by instruction against the H100's 8-warp
    samples (the sum over a trip of |H100 - replay|): the yield rule with the measured CALL/RET split is 4x closer
    than the greedy issue of the table until 2026-11-27 (3,875 against 16,507 cycles), started apart closer still
    (60 cycles: 3,401, its trip within 1 % of the H100's) though its pair time from a start together is the greedy
    one's (1.67x). The table (the same with gap_turn and the register banks, its warps starting 60 cycles apart)
    is 5x closer than greedy (3,267 cycles), its trip 2.2 % short of the H100's; started together its pair stays
    in phase under the banks (3,917 cycles, the trip 4.9 % long)."""
    from warpsim.timing import pc_samples, sass_sim
    _, hw, _ = pc_samples.loop(pc_samples.entry("dense_s4_k64_ilp4", 8))
    rule = dict(sass_sim.YIELD, redirect={"CALL": 1, "RET": 37, "BRA": 6}, yield_order="lru")
    def pair(stagger=0, **options):
        return pc_samples.replay_gaps("dense_s4_k64_ilp4", 2, trips=10, **dict(options, stagger=stagger))
    greedy = np.abs(pair(**sass_sim.GREEDY) - hw).sum()
    table, at_once = pair(60), pair()
    assert np.abs(table - hw).sum() * 5 < greedy and table.sum() == pytest.approx(hw.sum(), rel=0.03)
    assert np.abs(at_once - hw).sum() > np.abs(table - hw).sum() and at_once.sum() > 1.04 * hw.sum()
    together, apart = pair(**rule), pair(60, **{k: v for k, v in rule.items() if k != "stagger"})
    assert np.abs(together - hw).sum() * 4 < greedy and np.abs(apart - hw).sum() < np.abs(together - hw).sum()
    assert apart.sum() == pytest.approx(hw.sum(), rel=0.01)


def test_pc_samples_several_warps_under_both_issue_rules():
    """traces/h100/stall_reasons_source_more.json (per-instruction samples of several-warp runs): instruction by
    instruction the measured yield rule with the measured CALL/RET split is closer to the H100 than the table's
    greedy issue in every s4 run and in sparse e4m3 ILP 1 with 6 warps; as close in dense e4m3 ILP 1 with 8 warps
    and further in dense e4m3 ILP 1 with 16 and sparse e4m3 ILP 4 with 10 (where the several-warp fp8 parameters
    were fitted under greedy). The samples add up to the slowest warp's clocks (within 1 % of the range of the
    application passes, which may run a pair in either mode)."""
    from warpsim.timing import pc_samples
    doc = pc_samples.load(pc_samples.MORE)
    for e in doc:
        _, hw, _ = pc_samples.loop(e)
        trips = [np.max(c) / e["reps"] for launch in e["cycles"] for c in launch]
        trips = [x for x in trips if x < 2 * np.median(trips)]  # not the instrumented passes
        assert 0.99 * min(trips) <= hw.sum() <= 1.01 * max(trips), (e["form"], e["ilp"], e["warps"])
    rows = {(r["kernel"], r["warps"]): r for r in pc_samples.several(doc)}
    closer = {k: r["yield"][1] < 0.9 * r["greedy"][1] for k, r in rows.items()}
    assert closer == {("dense_e4m3_k32_f32_ilp1", 8): False, ("dense_e4m3_k32_f32_ilp1", 16): False,
                      ("sp_e4m3_k64_f32_ilp1", 6): True, ("sp_e4m3_k64_f32_ilp4", 10): False,
                      ("sp_s4_k64_ilp1", 1): True, ("sp_s4_k64_ilp1", 8): True, ("dense_s4_k64_ilp4", 5): True}
    assert rows[("dense_s4_k64_ilp4", 5)]["yield"][1] * 2 < rows[("dense_s4_k64_ilp4", 5)]["greedy"][1]
