"""What the warps of the emulated timing loops wait on, the H100's account beside ``sass_sim``'s.

``traces/h100/stall_reasons.json`` (``traces/capture/stall_reasons.py``) holds Nsight Compute's warp-state
counters of the recorded timing kernels (sparse e4m3/e5m2 at ILP 1 and 4, sp_s4_k64 and dense_s4_k64 at ILP 1
and 4; one CTA of 1-16 warps, 32 trips, launched as their traces were): the cycles the warps spent in each
state, ``selected`` (issuing), ``wait`` (a stall count), ``long_scoreboard`` (a local load's result),
``short_scoreboard`` (an SHFL's), ``math_pipe_throttle``, ``not_selected``, ``branch_resolving`` ... .
``sass_sim.Loop.stalls`` keeps the same account of its replay (:data:`sass_sim.STALLS`), so the two can be set
side by side state by state: where the replay's time differs from the H100's, this says in which state.

    python -m warpsim.timing.stall_reasons                       # every loop, 1-16 warps
    python -m warpsim.timing.stall_reasons sp_e4m3_k64_f32_ilp4  # one loop
    python -m warpsim.timing.stall_reasons sp_e4m3_k64_f32_ilp4 '{"l1": {"miss": 300}}'  # other parameters
    python -m warpsim.timing.stall_reasons --one                 # sparse fp8 ILP 1-8, one warp

``traces/h100/stall_reasons_one.json`` (``--one``) holds the same counters of the sparse fp8 kernels at every
ILP with one warp: with the latencies measured by ``traces/h100/chain_latency.json`` the H100's warp waits as long
on its shuffles as the replay's (``short_scoreboard`` within 7 % at ILP 2-8) and 1.0-1.3x as long on its local
loads (:func:`one_warp_split`); with the fitted ones before them (a hit of 36, SHFL 28) 0.7-0.8x and 1.1-1.5x.
"""
from __future__ import annotations

import os
import sys
from collections import defaultdict

import numpy as np

from warpsim.timing import measurement, sass_sim

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "traces", "h100", "stall_reasons.json")
#: the sparse fp8 kernels at ILP 1-8 with one warp (``traces/capture/stall_reasons.py --parts one``)
ONE = os.path.join(HERE, "..", "..", "traces", "h100", "stall_reasons_one.json")
#: the same counters of ``l1_rate``'s probes (``traces/capture/stall_reasons.py --json-rate``)
RATE = os.path.join(HERE, "..", "..", "traces", "h100", "l1_rate_stalls.json")
PREFIX = "smsp__warps_issue_stalled_"
COUNTER = PREFIX + "{}.sum"
#: the H100's states that ``sass_sim`` has no counterpart of (shown together as ``other`` beside ``dispatch``)
OTHER = ("drain", "misc", "imc_miss", "barrier", "membar", "sleeping", "tex_throttle", "gmma")
#: the columns shown: the replay's states, then the rest of the H100's
COLUMNS = sass_sim.STALLS + ("other",)
SHORT = {"selected": "sel", "not_selected": "notsel", "wait": "wait", "branch_resolving": "branch",
         "long_scoreboard": "long", "short_scoreboard": "short", "lg_throttle": "lg", "mio_throttle": "mio",
         "math_pipe_throttle": "math", "no_instruction": "noinst", "dispatch_stall": "disp", "other": "other"}


def load(path: str = DATA) -> dict:
    return measurement.load(path, "stall_reasons", ("rows", "keys"))


def kernels(doc: dict | None = None) -> list:
    """The measured loops (``<form>_ilp<n>``), in the file's order."""
    doc = doc or load()
    return list(dict.fromkeys(f"{r['form']}_ilp{r['ilp']}" for r in doc["rows"]))


def measured(doc: dict | None = None) -> dict:
    """``{(kernel, warps): {column: cycles}}``: the H100's warp-cycles in each state (:data:`COLUMNS`) a warp
    and a trip (the mean of the launches of that configuration), and ``cycles``, their sum (a warp's cycles a
    trip)."""
    doc = doc or load()
    got = defaultdict(list)
    for r in doc["rows"]:
        c, per = r["counters"], r["warps"] * r["reps"]
        row = {s: c[COUNTER.format(s)] / per for s in sass_sim.STALLS}
        row["other"] = sum(c[COUNTER.format(s)] for s in OTHER) / per
        row["cycles"] = sum(row.values())
        got[(f"{r['form']}_ilp{r['ilp']}", r["warps"])].append(row)
    return {k: {col: float(np.mean([x[col] for x in v])) for col in v[0]} for k, v in got.items()}


def rate_probes(path: str = RATE) -> dict:
    """``{(op, placement, warps): {state: share of the warps' cycles}}`` of the ``l1_rate`` probes on the H100
    (the mean over the launches), from ``traces/h100/l1_rate_stalls.json``."""
    doc = measurement.load(path, "l1_rate_stalls", ("rows", "how"))
    got = defaultdict(list)
    for r in doc["rows"]:
        c = r["counters"]
        got[(r["op"], r["placement"], r["warps"])].append(
            {k.removeprefix(PREFIX).removesuffix(".sum"): v / c["smsp__warps_active.sum"]
             for k, v in c.items() if k.startswith(PREFIX)})
    return {k: {s: float(np.mean([x[s] for x in v])) for s in v[0]} for k, v in got.items()}


def replay(kernel: str, warps, reps: int = 32, l1: dict | None = None, **options) -> dict:
    """The keys of :func:`measured` for ``kernel`` from ``sass_sim``'s account (``Loop.stalls``) under the
    table with ``l1`` and ``options``: a warp's cycles in each state a trip, over ``reps`` trips (the first
    and ``reps - 1`` later ones)."""
    loop, warps = sass_sim.table_loop(kernel, l1, **options), tuple(warps)
    sass_sim.prefetch([(loop, sass_sim.population(w), True) for w in warps])
    out = {}
    for w in warps:
        first, later = loop.stalls(sass_sim.population(w))
        per = (first + (reps - 1) * later) / (w * reps)
        row = dict(zip(sass_sim.STALLS, per.tolist()), other=0.0)
        row["cycles"] = float(per.sum())
        out[(kernel, w)] = row
    return out


def one_warp(form: str = "sp_e4m3_k64_f32", **options) -> dict:
    """``{ilp: (H100 row, replay row)}`` (the rows of :func:`measured` and :func:`replay`) of one warp of
    ``form``'s kernels at ILP 1-8 (:data:`ONE`; the replay under the table with ``options``)."""
    hw = measured(load(ONE))
    return {ilp: (hw[(k, 1)], replay(k, [1], **options)[(k, 1)])
            for ilp, k in ((i, f"{form}_ilp{i}") for i in range(1, 9))}


def one_warp_split(rows: dict) -> dict:
    """``{ilp: (H100 / replay long_scoreboard, H100 / replay short_scoreboard)}`` of :func:`one_warp`'s rows."""
    return {ilp: tuple(h[s] / m[s] for s in ("long_scoreboard", "short_scoreboard")) for ilp, (h, m) in rows.items()}


def table(kernel: str, hw: dict, model: dict) -> str:
    """One loop's rows: per warp count the H100's cycles a warp and a trip in each state over the replay's."""
    warps = sorted(w for k, w in hw if k == kernel)
    head = f"{'warps':>5} {'cycles':>13} " + " ".join(f"{SHORT[c]:>11}" for c in COLUMNS)
    rows = [f"{kernel}: cycles a warp and a trip in each state, H100/replay", head]
    for w in warps:
        h, m = hw[(kernel, w)], model[(kernel, w)]
        rows.append(f"{w:>5} {h['cycles']:>6.0f}/{m['cycles']:<6.0f} "
                    + " ".join(f"{h[c]:>5.0f}/{m[c]:<5.0f}" for c in COLUMNS))
    return "\n".join(rows)


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    path = ONE if "--one" in argv else DATA
    doc = load(path)
    argv = [a for a in argv if a != "--one"]
    hw = measured(doc)
    names = [a for a in argv if not a.startswith("{")] or kernels(doc)
    unknown = [k for k in names if k not in kernels(doc)]
    if unknown:
        raise SystemExit(f"error: {', '.join(unknown)}: not a kernel of {os.path.relpath(path)}; "
                         f"expected one of {', '.join(kernels(doc))} (or --one, -h)")
    options = measurement.options_in(argv)
    for k in names:
        model = replay(k, sorted(w for kk, w in hw if kk == k), **options)
        print(table(k, hw, model) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
