"""Six s4 kernels the table was not fitted to, trip by trip (``traces/h100/trip_phase.json``,
``traces/capture/trip_phase.py``) beside :mod:`warpsim.timing.sass_sim` running their SASS.

The recorded s4 timing kernels with a clock read stored at the end of every loop trip: ptxas schedules these
kernels anew (their trips share about 40 % of the recorded kernels' instruction sequence; a warp alone runs
them 20 % faster to 22 % slower), so they test the table out of sample, and the clocks show where the two
warps of a sub-partition are relative to each other at every trip's end. The file holds the runs (1, 4, 5,
6, 8, 9 warps, 32 trips, 3 launches each) and the loop profiles of the kernels' SASS (``sass``: the same
ptxas makes the recorded kernels' SASS on file from their PTX).

What they show: the replay's trip times follow the H100's within 1 % with one warp, 2.3 % with 5 and 5.3 %
with 8 (sp_s4_k128 ILP 1; the others 3.7 %); the two warps of a sub-partition run phase-locked on both: at
every trip's end of every launch the H100's are within 100 cycles of each other (of trips of 3,000-28,000),
the younger mostly ahead, the replay's within 140, the older mostly ahead.

The recorded kernels themselves, unchanged (``traces/h100/trip_phase_reps.json``, ``trip_phase.py --reps``:
5 and 8 warps, every loop count 1-32, two launches each), give the same offset from their end clocks: each
warp's end after n trips. There too a pair is phase-locked from the first trip on, at an offset that changes
between launches only by a few discrete values. Five of the six loops lock within 50 cycles (sp_s4_k64 ILP 1
also, in a fifth of its launches, at -102: its fast mode); dense_s4_k64 ILP 4 never: -118, -346, -1137 cycles
and more. :func:`locks` groups the launches by their offset, and :func:`lock_replay` starts a pair that far
apart under the yield rule ``sched_probe`` measured (``yield_switch``, ``hold`` 1): at the H100's offsets it
gives the H100's pair times within 1 % for six of the ten groups, the other dense_s4_k64 ILP 4 groups 1.7-3.8 %
long, and not sp_s4_k64 ILP 1's fast mode, which it does not hold (9.8 %). The greedy rule of the table until
2026-11-27 locked every pair at its own offset: dense_s4_k64 ILP 4 at 1.67x against the H100's 1.55-1.58 (1.69
in 4 launches). The table's rule since (``gap_turn``) parts that pair from a start in phase: 1.535x.

    python -m warpsim.timing.trip_phase        # the H100's cycles a trip and pair offsets beside the replay's
    python -m warpsim.timing.trip_phase --reps # the recorded kernels' lock offsets and pair times, and the replay's
"""
from __future__ import annotations

import os
import sys

import numpy as np

from warpsim.timing import measurement, sass_sim

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "traces", "h100", "trip_phase.json")
REPS = os.path.join(HERE, "..", "..", "traces", "h100", "trip_phase_reps.json")
WARPS = (1, 4, 5, 6, 8, 9)
#: the issue rule ``sched_probe`` measured: a warp keeps its sub-partition's turn until a yield-flagged instruction
YIELD = sass_sim.YIELD


def load(path: str = DATA) -> dict:
    return measurement.load(path, "trip_phase", ("rows", "sass"))


def kernels(doc: dict | None = None) -> list:
    """The patched kernels (``<form>_ilp<n>``), in the file's order."""
    return list((doc or load())["sass"])


def _rows(doc: dict, kernel: str, warps: int) -> list:
    return [r for r in doc["rows"] if f"{r['form']}_ilp{r['ilp']}" == kernel and r["warps"] == warps]


def measured(doc: dict | None = None) -> dict:
    """``{(kernel, warps): {"trip": cycles a later trip (the warps' mean, median over the launches), "pair": the
    trip of warps 0 and 4 over one warp's, "offsets": [warp 4's trip ends less warp 0's, every trip] of each
    launch}}`` (``pair`` and ``offsets`` from 5 warps on)."""
    doc = doc or load()
    out = {}
    for k in kernels(doc):
        one = None
        for w in WARPS:
            trips = [np.array(r["trips"], np.int64) for r in _rows(doc, k, w)]
            got = {"trip": float(np.median([np.diff(t, axis=1)[:, 1:].mean() for t in trips]))}
            one = got["trip"] if w == 1 else one
            if w >= 5:
                got["pair"] = float(np.median([np.diff(t[[0, 4]], axis=1)[:, 1:].mean() for t in trips])) / one
                got["offsets"] = [(t[4] - t[0]).tolist() for t in trips]
            out[(k, w)] = got
    return out


def loop(kernel: str, doc: dict | None = None, **options) -> sass_sim.Loop:
    """``kernel``'s loop trip under the table (``options`` as :func:`sass_sim.table_cfg`'s overrides)."""
    from warpsim.timing.params_sm90 import TABLE
    prof = (doc or load())["sass"][kernel]
    return sass_sim.profile_loop(prof, sass_sim.table_cfg(**options), TABLE["tensor"])


def replay(doc: dict | None = None, warps=WARPS, **options) -> dict:
    """The keys of :func:`measured` from ``sass_sim`` for ``warps`` (``offsets``: one list, the replay being
    deterministic)."""
    doc = doc or load()
    out = {}
    for k in kernels(doc):
        lp = loop(k, doc, **options)
        reps = len(doc["rows"][0]["trips"][0])
        one = lp.later((1, 0, 0, 0))
        for w in warps:
            got = {"trip": lp.later(sass_sim.population(w))}
            if w >= 5:
                ends = lp.trip_ends(sass_sim.population(w), reps)
                got["pair"] = float(np.diff(ends[[0, 4]], axis=1)[:, 1:].mean()) / one
                got["offsets"] = [(ends[4] - ends[0]).tolist()]
            out[(k, w)] = got
    return out


def load_reps(path: str = REPS) -> dict:
    return measurement.load(path, "trip_phase_reps", ("rows",))


def locks(doc: dict | None = None, warps: int = 5, least: int = 4) -> dict:
    """``{kernel: [(offset, launches, pair), ...]}`` of the recorded kernels with ``warps`` warps, the launches of
    ``least`` or more trips grouped by the offset of warp 4's end clock from warp 0's (most launches first; groups
    of four or more loop counts); ``pair``: the slope of warp 0's cycles over the group's loop counts, over the
    one-warp trip of the replay under the greedy table's options (``sass_sim.GREEDY``; within 0.5 % of the H100's
    for these loops)."""
    from collections import Counter
    doc = doc or load_reps()
    out = {}
    for k in dict.fromkeys(f"{r['form']}_ilp{r['ilp']}" for r in doc["rows"]):
        rows = [r for r in doc["rows"] if f"{r['form']}_ilp{r['ilp']}" == k and r["warps"] == warps
                and r["reps"] >= least]
        one = sass_sim.table_loop(k, **sass_sim.GREEDY).later((1, 0, 0, 0))
        out[k] = []
        for off, n in Counter(r["end"][4] - r["end"][0] for r in rows).most_common():
            group = [r for r in rows if r["end"][4] - r["end"][0] == off]
            if len({r["reps"] for r in group}) >= 4:
                slope = np.polyfit([r["reps"] for r in group], [r["end"][0] - r["start"][0] for r in group], 1)[0]
                out[k].append((int(off), n, float(slope) / one))
    return out


def lock_replay(kernel: str, offset: int, **options) -> float:
    """A pair of the recorded ``kernel``'s warps on one sub-partition over one warp, the second starting
    ``|offset|`` cycles after the first, under the table with ``options`` (:data:`YIELD` unless given)."""
    lp = sass_sim.table_loop(kernel, **dict(options or YIELD, stagger=abs(int(offset))))
    return lp.cycles((2, 0, 0, 0))[0][1] / lp.later((1, 0, 0, 0))


def table(hw: dict, model: dict) -> str:
    rows = ["cycles a later trip H100/replay (error %); pair: warps 0 and 4 over one warp; offset: warp 4's trip "
            "ends less warp 0's, first..last trip",
            f"{'kernel':18} " + " ".join(f"{w:>22}" for w in WARPS)]
    for k in sorted({k for k, _ in hw}):
        cells = [f"{hw[(k, w)]['trip']:>7.0f}/{model[(k, w)]['trip']:<7.0f}"
                 f"({100 * (model[(k, w)]['trip'] / hw[(k, w)]['trip'] - 1):+4.1f})" for w in WARPS]
        rows.append(f"{k:18} " + " ".join(f"{c:>22}" for c in cells))
        h, m = hw[(k, 5)], model[(k, 5)]
        rows.append(f"{'':18} 5 warps: pair {h['pair']:.3f}/{m['pair']:.3f}, offset H100 "
                    + ", ".join(f"{o[0]:+d}..{o[-1]:+d}" for o in h["offsets"])
                    + f" replay {m['offsets'][0][0]:+d}..{m['offsets'][0][-1]:+d}")
    return "\n".join(rows)


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    if "--reps" in argv:
        print("the recorded kernels, 5 warps: launches by the offset of warp 4's trip ends from warp 0's; pair over "
              "one warp, H100 / the yield rule started that far apart / the greedy rule (the table until 2026-11-27)")
        for k, groups in locks().items():
            greedy = lock_replay(k, 0, **sass_sim.GREEDY)
            for off, n, pair in groups:
                print(f"{k:18} {off:+6d} cycles, {n:2d} launches: {pair:.3f} / {lock_replay(k, off):.3f} / {greedy:.3f}")
        return 0
    doc = load()
    print(table(measured(doc), replay(doc)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
