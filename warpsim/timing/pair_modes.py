"""Two warps of an s4 loop on one sub-partition: the H100's pair runs against sass_sim's phase modes.

The s4 mma loops are ALU-bound stretches (LOP3/SHF at stall count 2) between waits the warp cannot fill
(CALL/RET redirects, the IMMA's stall 15). Two warps on a sub-partition overlap those waits with each
other's ALU work only if they are out of phase. In the recorded timing traces (``traces/h100/timing``,
runs with 5-10 warps: some sub-partitions hold two warps of the same loop) the H100's pairs take one of two
times, not a spread between them: T/sp_s4_k64 ILP 1 1.51-1.53 x one warp in the 5- and 6-warp runs and
1.39-1.40 x in the 8- and 9-warp runs (7 and 10 warps: some pairs one, some the other); T/sp_s4_k128 ILP 1
1.42 x or 1.375 x, sometimes both in one launch, from the same start-clock offsets.

sass_sim with the issue policy the scheduler microbenchmark shows (``yield_switch``, ``hold`` 1 on the greedy
table's other options: ``sass_sim.YIELD``; ``warpsim.timing.sched_probe``) has two such modes per loop, picked by
how far apart the two warps start the loop (``stagger``): in phase (started together) and out of phase
(started ~120-170 cycles apart). Each of the 150 pair times the H100 recorded for the five s4 loops lies within 2.7 % of one of them (141
within 1.6 %, median 0.6 %): sp_s4_k64 ILP 1 1.533 / 1.375, sp_s4_k128 ILP 1 1.432 / 1.367, dense_s4_k64
ILP 1 in phase (1.328), ILP 4 out of phase (1.543-1.553), sp_s4_k64 ILP 4 in phase (1.544). The greedy
policy of the table until 2026-11-27 (``sass_sim.GREEDY``, ``hold`` 2) has one mode, between them: within 5 % of
the in-phase pairs, not of the out-of-phase ones. The table's rule since (the yield rule with the turn taken in
a stall by another pipe's instruction, ``gap_turn``) parts dense_s4_k64 ILP 4's pairs from any start, as the
H100's are parted (1.535 x), and keeps sp_s4_k64 ILP 1's between its modes below ~150 cycles apart (1.50 x).

Which mode a pair lands in is set before the loop: ptxas puts the start clock read (CS2R) before the loads
of the loop's operands (S/timing_dense_s4_k64_ilp1.sass: the LDGs at 0x100-0x160, the first CALL waits on
them), so each warp starts its loop when its loads return, which the traces do not record. With one
``stagger`` for all launches the yield policy fits the recorded table worse than greedy does (of the 138
s4 runs, 132 within 5 % at 100 cycles, 128-130 at 150-250, 122 at 0; greedy 133): the H100's loop-start
offsets differ by loop and by warp count.

Measured (``traces/h100/loop_start.json``, ``traces/capture/loop_start.py``: the same kernels with a clock
read added once the operands are back, which moves ptxas's loads before the start clock and changes the
loops' SASS in places, so the pair times are those of other kernels): the loads spread the loop starts of
a pair by 5-99 cycles, and the offset picks the mode. sp_s4_k64 ILP 1: every pair started 60 or more
cycles apart runs out of phase (1.36-1.40 x one warp), all but 3 of the 27 started at most 42 apart in
phase (1.495 x), 51-55 either way. Their loops are not the recorded ones; the recorded kernels are measured
below.

Recorded again in another session (``traces/h100/s4_again.json``, :func:`write_again`: the three s4 timing
traces, 10 launches of each several-warp run), the pairs take the same modes, as often (:func:`out_of_phase`):
sp_s4_k64 ILP 1 with 5 warps in phase (2 of 2, 9 of 10), with 8-10 out of phase (17 of 18, 86 of 90), with
6-7 mixed; sp_s4_k128 ILP 1 mostly in phase.

The recorded kernels themselves, measured (``traces/h100/loop_start_sass.json``,
``traces/capture/loop_start_sass.py``: the cubin of the recorded PTX with the start clock's CS2R moved in
the SASS to after the operand loads, waiting on them; the loop unchanged): launched as capture.py launches
them (each configuration's launches one after another), the unpatched kernel runs as in the timing trace
(8 and 9 warps within 0.02 %), and the patched one shows the pairs of sp_s4_k64 ILP 1 with 7-10 warps
starting their loops 63 cycles apart (5 warps: 18), and every pair 63 apart out of phase (85 of 85).
Launched in turn with other kernels (``loop_start_sass_alternate.json``) the same kernels start the warps
differently: pairs 26-39 cycles apart, nearly all in phase (8 warps: 0 of 40 out of phase), 8 warps 9.5 %
slower, and there the replay's one mode is within 3 % (:func:`launch_order`). What of the launch before
matters is its code (``loop_start_sass_before.json``, :func:`after`): after nothing, a tiny kernel, the L1
reset or itself with one warp the pairs run out of phase, loops 63 apart, as recorded; after another s4
kernel's code mostly in phase, 33-39 apart, 5-7 % slower. So the mode, and the recorded 8- and 9-warp times,
depend on what the SM's instruction caches hold at the launch: a state that the trace does not hold, as the
L1's is for the sparse fp8 loops. sass_sim's yield policy has a window of loop-start offsets that put a pair out
of phase too, but elsewhere (sp_s4_k64 ILP 1: 156-180 cycles, the H100 57-63), and no one shift of the
offsets fits the five loops. Replayed pair by pair from their measured offsets (:func:`fit`), the yield
policy with ``hold`` 2 puts 520 of the 750 pairs within 2 % (greedy: 216), every pair of sp_s4_k64 ILP 4 and
dense_s4_k64 ILP 1, but not sp_s4_k64 ILP 1's out-of-phase pairs nor most of dense_s4_k64 ILP 4's, whose H100
pair time hardly moves with the offset where the replay's falls in steps. The table's rule puts 648 within 5 %
(the yield policy 612, greedy 539), 147 of dense_s4_k64 ILP 4's 150, none of sp_s4_k64 ILP 1's out of phase.

    python -m warpsim.timing.pair_modes       # the H100's pair times beside the replay's modes
    python -m warpsim.timing.pair_modes --launch-order       # the pairs' modes by launch order (loop_start_sass)
    python -m warpsim.timing.pair_modes --fit                # the recorded kernels' pairs replayed from their offsets
    python -m warpsim.timing.pair_modes --write-again DIR    # s4_again.json from re-recorded s4 traces
    python -m warpsim.timing.pair_modes --fp8                # the sparse fp8 ILP 1 pairs' two modes

The sparse fp8 ILP 1 loops (92 SHFL, 16 HMMA.SP in 411 instructions a trip) pair the same way: in the timing
traces every pair runs 1.30 x or 1.40 x one warp (60 pairs of each form, nothing between; :func:`fp8_modes`),
and the replay's pair runs between them, 1.34 x started up to 60 cycles apart under the table (1.37 x at any
``stagger`` under greedy), in the fast mode from 120 (with the dispatch hold of one cycle after an SHFL 1.30 x;
1.28 x before the chain probe measured the latencies).
Launched again (``traces/h100/fp8_pairs.json``, ``traces/capture/fp8_pairs.py``, :func:`fp8_launches`), the mode
follows the warp count more than the launch before: with 6 warps (two pairs, two lone warps) the pairs run slow
in 16-24 of 24 under each of four launch histories, with 8 warps (four pairs) in 3-16 of 48. What sets it is not
known.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

from .. import tracefile
from . import measurement, sass_sim

TIMING = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "h100", "timing")
LOOP_START = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "h100", "loop_start.json")
#: the start and end clocks of the three s4 timing traces recorded again in another session (2026-11-23; 10
#: launches of each several-warp run), written by :func:`write_again` (not timing traces: the replay skips them)
AGAIN = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "h100", "s4_again.json")
#: the recorded s4 kernels run again with the start clock moved to the loop start in their SASS
#: (traces/capture/loop_start_sass.py): launches in capture.py's order, and alternating between kernels
SASS = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "h100", "loop_start_sass.json")
SASS_ALTERNATE = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "h100", "loop_start_sass_alternate.json")
#: sp_s4_k64 ILP 1 with 8 and 9 warps, each launch right after one of another kind (loop_start_sass.py --before)
SASS_BEFORE = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "h100", "loop_start_sass_before.json")
#: sp_e4m3_k64_f32 ILP 1 with 6 and 8 warps launched after four kinds of launch (traces/capture/fp8_pairs.py)
FP8_PAIRS = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "h100", "fp8_pairs.json")
#: the sparse fp8 ILP 1 loops, and the pair time (x one warp) between their fast and slow modes
FP8 = (("sp_e4m3_k64_f32", 1), ("sp_e5m2_k64_f32", 1))
FP8_SLOW = 1.35
RUN_KEYS = ("run_ilp", "run_warps", "run_reps", "run_repeat", "start", "end")
#: (form, ILP) of the s4 loops compared
LOOPS = (("sp_s4_k64", 1), ("sp_s4_k128", 1), ("dense_s4_k64", 1), ("sp_s4_k64", 4), ("dense_s4_k64", 4))
#: the issue policy of the H100's scheduler microbenchmark (warpsim.timing.sched_probe)
YIELD = sass_sim.YIELD
#: loop-start offsets (cycles) of the pair's second warp: in phase, and two out of phase
OFFSETS = (0, 120, 170)
REPS = 32


def measured(form: str, ilp: int, folder: str = TIMING, kernel: str = "ptx") -> list:
    """The recorded pairs of ``form`` at ``ilp`` (reps 32, 5-10 warps) in ``folder`` (of timing traces, a
    file of :func:`write_again`, or one of loop_start_sass.py with its ``kernel``: ``ptx``, ``original`` or
    ``patched``): per sub-partition that holds exactly two warps ``{"warps", "repeat", "sp", "offset",
    "ratio"}``, offset = the second warp's start clock less the first's, ratio = the pair's mean time (end -
    start) over the median one-warp time (repeats >= 1)."""
    a = _json_runs(form, folder, kernel) if folder.endswith(".json") else \
        tracefile.read_trace(os.path.join(folder, f"{form}.npz")).arrays
    dur = a["end"].astype(np.int64) - a["start"].astype(np.int64)
    start = a["start"].astype(np.int64)
    runs = (a["run_ilp"] == ilp) & (a["run_reps"] == REPS)
    one = _one_warp(a, form, ilp)
    out = []
    for r in np.flatnonzero(runs & (a["run_warps"] >= 5) & (a["run_warps"] <= 10)):
        n = int(a["run_warps"][r])
        for sp, ws in _pairs(n):
            out.append({"warps": n, "repeat": int(a["run_repeat"][r]), "sp": sp,
                        "offset": int(start[r, ws[1]] - start[r, ws[0]]), "ratio": float(dur[r, ws].mean()) / one})
    return out


def _one_warp(a: dict, form: str, ilp: int) -> float:
    """The median one-warp time (end - start, repeats >= 1, reps 32) at ``ilp`` in the run arrays ``a``."""
    alone = (a["run_ilp"] == ilp) & (a["run_reps"] == REPS) & (a["run_warps"] == 1) & (a["run_repeat"] >= 1)
    if not alone.any():
        raise ValueError(f"{form}: no one-warp run at ILP {ilp}, reps {REPS}")
    return float(np.median(a["end"][alone, 0].astype(np.int64) - a["start"][alone, 0].astype(np.int64)))


def _json_runs(form: str, path: str, kernel: str = "ptx") -> dict:
    """The arrays of ``form`` (those of a timing trace that :func:`measured` reads) in a file of
    :func:`write_again` or of loop_start_sass.py (the launches of its ``kernel``)."""
    with open(path) as fh:
        try:
            doc = json.load(fh)
            if "forms" in doc:
                runs = doc["forms"][form]
                return {k: np.array(runs[k], np.int64) for k in RUN_KEYS}
            rows = [r for r in doc["rows"] if (r["form"], r["kernel"]) == (form, kernel)]
            if not rows:
                raise KeyError(f"no runs of {form} ({kernel})")
            pad = [[*r[k], *[0] * (16 - len(r[k]))] for r in rows for k in ("start", "end")]
            return {"run_ilp": np.array([r["ilp"] for r in rows]), "run_warps": np.array([r["warps"] for r in rows]),
                    "run_reps": np.full(len(rows), REPS), "run_repeat": np.array([r["repeat"] for r in rows]),
                    "start": np.array(pad[0::2], np.int64), "end": np.array(pad[1::2], np.int64)}
        except (json.JSONDecodeError, KeyError, TypeError) as err:
            raise ValueError(f"{path}: not a file of write_again or loop_start_sass.py ({err!r})") from None


def write_again(folder: str, path: str = AGAIN) -> None:
    """:data:`AGAIN` from the s4 timing traces in ``folder`` (``capture.py --only '^(sp_s4_k64|sp_s4_k128|
    dense_s4_k64)$' --timing-input-from traces/h100/timing --timing-repeats 3,10 --out DIR`` on the H100, then
    ``python -m warpsim.timing.pair_modes --write-again DIR/timing``): each run's start and end clocks, the
    clocks relative to the launch's first start (written atomically)."""
    forms = {}
    for form in dict.fromkeys(f for f, _ in LOOPS):
        tr = tracefile.read_trace(os.path.join(folder, f"{form}.npz"))
        a = tr.arrays
        forms[form] = {k: a[k].tolist() for k in RUN_KEYS[:4]}
        forms[form].update(start=[], end=[])
        for r, n in enumerate(a["run_warps"].tolist()):
            start, end = (a[k][r].astype(np.int64) for k in ("start", "end"))
            base, pad = int(start[:n].min()), [0] * (len(start) - n)
            forms[form]["start"].append([int(x) - base for x in start[:n]] + pad)
            forms[form]["end"].append([int(x) - base for x in end[:n]] + pad)
    doc = {"how": "The three s4 timing traces recorded again on an H100 80GB HBM3 on 2026-11-23 (another session "
                  "than traces/h100/timing): the same kernels and inputs (capture.py --timing-input-from), 3 "
                  "launches of each one-warp run and 10 of each several-warp run; per run the warps' start and end "
                  "clocks less the launch's first start (0 past run_warps).", "device": tr.device.get("name"),
           "forms": forms}
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(doc, fh, separators=(",", ":"))
        fh.write("\n")
    os.replace(tmp, path)


def _pairs(warps: int) -> list:
    """``[(sub-partition, [its two warps])]`` for the sub-partitions holding exactly two of ``warps`` warps
    (warp w on sub-partition w mod 4)."""
    return [(sp, ws) for sp in range(4) if len(ws := list(range(sp, warps, 4))) == 2]


def split(form: str, ilp: int) -> float:
    """Half way between the yield policy's in-phase and out-of-phase modes of the loop (:func:`modes`)."""
    m = modes(form, ilp)
    return (m[OFFSETS[0]] + m[OFFSETS[-1]]) / 2


def out_of_phase(form: str, ilp: int, folder: str = TIMING, kernel: str = "ptx") -> dict:
    """``{warps: (pairs out of phase, pairs)}`` of the recorded runs in ``folder`` (:func:`measured`): a pair
    is out of phase when its ratio is below :func:`split`."""
    cut = split(form, ilp)
    return _tally((p["warps"], p["ratio"] < cut) for p in measured(form, ilp, folder, kernel))


def _tally(items) -> dict:
    """``{key: (hits, count)}`` of ``(key, hit)`` items, by key."""
    got: dict = {}
    for key, hit in items:
        n, k = got.get(key, (0, 0))
        got[key] = (n + int(hit), k + 1)
    return dict(sorted(got.items()))


def loop(form: str, ilp: int, **overrides) -> sass_sim.Loop:
    """sass_sim's loop of ``<form>_ilp<ilp>`` (its SASS on file) under the table with ``overrides``."""
    return sass_sim.table_loop(f"{form}_ilp{ilp}", **overrides)


def modelled(form: str, ilp: int, **overrides) -> float:
    """The replay's pair time over one warp's (``REPS`` trips: the first, then later ones)."""
    lp = loop(form, ilp, **overrides)
    total = [first + (REPS - 1) * later for first, later in (lp.cycles(p)[0] for p in ((1, 0, 0, 0), (2, 0, 0, 0)))]
    return total[1] / total[0]


def modes(form: str, ilp: int) -> dict:
    """``{offset: pair ratio}`` of the yield policy, the loop's modes."""
    return {off: modelled(form, ilp, **dict(YIELD, stagger=off)) for off in OFFSETS}


def loop_start_pairs(path: str = LOOP_START) -> dict:
    """``traces/h100/loop_start.json`` (traces/capture/loop_start.py): per (form, ILP) the pairs of the 5-10
    warp runs as ``(|loop-start offset|, pair time / one warp's)``, times from the loop-start clock."""
    with open(path) as fh:
        try:
            rows = json.load(fh)["rows"]
        except (json.JSONDecodeError, KeyError) as err:
            raise ValueError(f"{path}: not a loop_start.py --device file ({err})") from None
    alone: dict = {}
    for r in rows:
        if r["warps"] == 1 and r["repeat"] >= 1:
            alone.setdefault((r["form"], r["ilp"]), []).append(r["end"][0] - r["loop"][0])
    one = {k: float(np.median(v)) for k, v in alone.items()}
    out: dict = {}
    for r in rows:
        n, key = r["warps"], (r["form"], r["ilp"])
        if not 5 <= n <= 10:
            continue
        loop, end = np.array(r["loop"], np.int64), np.array(r["end"], np.int64)
        for _, ws in _pairs(n):
            out.setdefault(key, []).append((abs(int(loop[ws[1]] - loop[ws[0]])),
                                            float(np.mean(end[ws] - loop[ws])) / one[key]))
    return {k: sorted(v) for k, v in out.items()}


def fit(overrides: dict | None = None, loops=LOOPS, path: str = SASS) -> dict:
    """Each pair of the patched recorded kernels in ``path`` (loop_start_sass.py: the loop-start clocks) replayed
    from its own loop-start offset under the table with ``overrides``: per (form, ILP) ``[(|offset|, H100
    ratio, replay ratio)]`` (ratios over one warp's time; offsets rounded to 3 cycles for the replay)."""
    out = {}
    for form, ilp in loops:
        got: dict = {}
        rows = []
        for p in measured(form, ilp, path, "patched"):
            off = 3 * round(abs(p["offset"]) / 3)
            if off not in got:
                got[off] = modelled(form, ilp, **dict(overrides or {}, stagger=off))
            rows.append((abs(p["offset"]), p["ratio"], got[off]))
        out[(form, ilp)] = rows
    return out


#: the issue policies :func:`main` ``--fit`` compares: the table's, the microbenchmark's, and that with hold 2
FIT_POLICIES = (("greedy (table < 11-27)", sass_sim.GREEDY), ("yield_switch, hold 1", YIELD),
                ("yield_switch, hold 2", dict(YIELD, hold=2)), ("the table", None))


def fp8_modes(folder: str = TIMING) -> dict:
    """``{form: (fast, slow)}``: the recorded pair times (x one warp, :func:`measured`) of the sparse fp8 ILP 1
    loops below and above :data:`FP8_SLOW`."""
    out = {}
    for form, ilp in FP8:
        ratios = sorted(p["ratio"] for p in measured(form, ilp, folder))
        out[form] = ([r for r in ratios if r < FP8_SLOW], [r for r in ratios if r >= FP8_SLOW])
    return out


def fp8_by_warps(form: str, folder: str = TIMING) -> dict:
    """``{warps: (slow pairs, pairs)}`` of the recorded runs of ``form`` at ILP 1 (5-10 warps)."""
    return _tally((p["warps"], p["ratio"] >= FP8_SLOW) for p in measured(form, 1, folder))


def fp8_launches(path: str = FP8_PAIRS) -> dict:
    """``{(launch before, warps): (slow pairs, pairs)}`` of ``traces/h100/fp8_pairs.json``: a pair is slow when
    its mean time is at least :data:`FP8_SLOW` x the one-warp launch under the same launch history."""
    rows = measurement.load(path, "fp8_pairs", ("rows", "how"))["rows"]
    one = {r["before"]: r["end"][0] - r["start"][0] for r in rows if r["warps"] == 1}

    def slow(r, ws):
        dur = np.array(r["end"], np.int64)[ws] - np.array(r["start"], np.int64)[ws]
        return dur.mean() >= FP8_SLOW * one[r["before"]]
    return _tally(((r["before"], r["warps"]), slow(r, ws)) for r in rows if r["warps"] > 1
                  for _, ws in _pairs(r["warps"]))


def _within(rows) -> str:
    err = np.abs([model / hw - 1 for _, hw, model in rows])
    return f"{(err <= 0.02).sum()}/{(err <= 0.05).sum()}/{len(err)}"


def table(folder: str = TIMING) -> list:
    rows = []
    for form, ilp in LOOPS:
        hw = [p["ratio"] for p in measured(form, ilp, folder)]
        m = modes(form, ilp)
        rows.append({"loop": f"{form} ILP {ilp}", "hw": hw, "greedy": modelled(form, ilp, **sass_sim.GREEDY),
                     "modes": m, "nearest": max(min(abs(x / y - 1) for y in m.values()) for x in hw)})
    return rows


#: the launches compared by :func:`launch_order`: (label, file or folder, kernel)
LAUNCHES = (("timing trace", TIMING, "ptx"), ("s4_again", AGAIN, "ptx"), ("capture's order", SASS, "ptx"),
            ("alternating", SASS_ALTERNATE, "ptx"))


def run_cycles(form: str, ilp: int, warps: int, path: str = SASS, kernel: str = "ptx") -> float:
    """A run's cycles as ``warpsim replay`` measures them (the median over launches after the first of the
    warps' mean end - start) in a file of :func:`write_again` or loop_start_sass.py."""
    a = _json_runs(form, path, kernel)
    rows = np.flatnonzero((a["run_ilp"] == ilp) & (a["run_warps"] == warps) & (a["run_reps"] == REPS)
                          & (a["run_repeat"] > 0))
    return float(np.median([np.mean(a["end"][r, :warps] - a["start"][r, :warps]) for r in rows]))


def loop_starts(form: str, ilp: int, path: str = SASS) -> dict:
    """``{warps: [|loop-start offset| of each pair]}`` of the patched kernel in a loop_start_sass.py file."""
    got: dict = {}
    for p in measured(form, ilp, path, "patched"):
        got.setdefault(p["warps"], []).append(abs(p["offset"]))
    return got


def after(path: str = SASS_BEFORE) -> dict:
    """``{(warps, kernel, before): (pairs out of phase, pairs, median |loop or start offset|, median cycles)}``
    of a loop_start_sass.py ``--before`` file (sp_s4_k64 ILP 1; cycles: the median over launches of the warps'
    mean end - start)."""
    with open(path) as fh:
        try:
            rows = json.load(fh)["rows"]
            groups: dict = {}
            for r in rows:
                groups.setdefault((r["warps"], r["kernel"], r["before"]), []).append(r)
        except (json.JSONDecodeError, KeyError, TypeError) as err:
            raise ValueError(f"{path}: not a loop_start_sass.py --before file ({err!r})") from None
    cut = split("sp_s4_k64", 1)
    one = {k: _one_warp(_json_runs("sp_s4_k64", SASS, k), "sp_s4_k64", 1) for k in ("ptx", "patched")}
    out = {}
    for (w, kernel, before), rs in groups.items():
        offs, ratios = [], []
        for r in rs:
            start, end = np.array(r["start"], np.int64), np.array(r["end"], np.int64)
            for _, ws in _pairs(w):
                offs.append(abs(int(start[ws[1]] - start[ws[0]])))
                ratios.append(float(np.mean(end[ws] - start[ws])) / one[kernel])
        cycles = float(np.median([np.mean(np.array(r["end"]) - np.array(r["start"])) for r in rs]))
        out[(w, kernel, before)] = (sum(x < cut for x in ratios), len(ratios), int(np.median(offs)), cycles)
    return out


def launch_order(form: str = "sp_s4_k64", ilp: int = 1) -> list:
    """Per :data:`LAUNCHES` ``(label, {warps: (pairs out of phase, pairs)})``, then the patched kernel's
    median loop-start offsets in capture's order and alternating."""
    rows = [(label, out_of_phase(form, ilp, path, kernel)) for label, path, kernel in LAUNCHES]
    for label, path in (("loop starts, capture's order", SASS), ("loop starts, alternating", SASS_ALTERNATE)):
        rows.append((label, {w: int(np.median(v)) for w, v in sorted(loop_starts(form, ilp, path).items())}))
    return rows


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    if argv and argv[0] == "--write-again":
        write_again(argv[1])
        return 0
    if argv and argv[0] == "--launch-order":
        for form, ilp in LOOPS[:2]:
            print(f"{form} ILP {ilp}: pairs out of phase by warps (5-10), and the median loop-start offset")
            for label, got in launch_order(form, ilp):
                cells = [f"{v[0]}/{v[1]}" if isinstance(v, tuple) else str(v) for v in got.values()]
                print(f"  {label:<30} " + "  ".join(f"{c:>6}" for c in cells))
        print("sp_s4_k64 ILP 1, each launch right after one of another: pairs out of phase, median offset of a "
              "pair's start clocks (patched: loop starts), cycles")
        for (w, kernel, before), (n, k, off, cyc) in sorted(after().items()):
            print(f"  {w} warps {kernel:<8} after {before:<15} {n:>3}/{k:<3} {off:>4} {cyc:>10,.0f}")
        return 0
    if argv and argv[0] == "--fp8":
        for form, (fast, slow) in fp8_modes().items():
            print(f"{form} ILP 1: {len(fast)} pairs at {min(fast):.3f}-{max(fast):.3f} x one warp, {len(slow)} at "
                  f"{min(slow):.3f}-{max(slow):.3f}; the replay's pair {modelled(form, 1):.3f}")
            print("  slow pairs / pairs by warps: " + "  ".join(f"{w}: {n}/{k}" for w, (n, k) in
                                                               fp8_by_warps(form).items()))
        print("launched again (fp8_pairs.json): slow pairs / pairs, by the launch before")
        for (before, warps), (n, k) in sorted(fp8_launches().items(), key=lambda x: (x[0][1], x[0][0])):
            print(f"  {warps} warps after {before:<6} {n:>3}/{k}")
        return 0
    if argv and argv[0] == "--fit":
        print("the recorded kernels' pairs (loop_start_sass.json, patched, 5-10 warps) replayed from their own "
              "loop-start offsets: pairs within 2 % / within 5 % / all")
        got = [fit(overrides) for _, overrides in FIT_POLICIES]
        print(f"  {'loop':<20}" + "".join(f"{label:>24}" for label, _ in FIT_POLICIES))
        for form, ilp in LOOPS:
            print(f"  {f'{form} ILP {ilp}':<20}" + "".join(f"{_within(g[(form, ilp)]):>24}" for g in got))
        print(f"  {'all':<20}" + "".join(f"{_within([r for v in g.values() for r in v]):>24}" for g in got))
        return 0
    print(f"{'loop':<20} {'H100 pairs (x one warp)':<34} {'greedy':>7}  yield modes (loop-start offset: x)")
    for r in table():
        hw = sorted({round(x, 3) for x in r["hw"]})
        shown = " ".join(f"{x:.3f}" for x in hw[:4]) + (f" .. {hw[-1]:.3f}" if len(hw) > 4 else "")
        modes_s = "  ".join(f"{off}: {v:.3f}" for off, v in r["modes"].items())
        print(f"{r['loop']:<20} {shown:<34} {r['greedy']:>7.3f}  {modes_s}   (every pair within "
              f"{100 * r['nearest']:.1f} % of a mode)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
