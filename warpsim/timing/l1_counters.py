"""The H100's L1 counters for the sparse fp8 timing kernels (``traces/h100/l1_counters.json``,
``traces/capture/l1_counters.py``) beside :mod:`warpsim.timing.sass_sim`'s L1.

Nsight Compute counted, for the recorded kernels at ILP 1, 2, 4, 8 with 1-16 warps (reps 32), the local-memory
sectors the L1 looked up and how many missed, and what the L1 read from and wrote to the L2. What they say:

* every local store goes on to the L2 (``l2_write`` = ``st``: write-through) and a store that misses reads
  nothing (``l2_read`` = the load misses): a missing store allocates without a fetch (``store_miss``
  ``"validate"``);
* the loads miss far less than the stores (ILP 4: 5 / 21 / 33 / 49 % of the loads with 4 / 6 / 8 / 16 warps,
  42 / 74 / 85 / 93 % of the stores): a spill slot's line stays from its store to its fill and is gone by its
  next store. That is what an L1 of the measured 1,792 lines (224 KB) does when the last-use fill (``LDL.LU``,
  85-93 % of the fills) puts its line first in line for eviction (``last_use`` ``"evict_first"``), the table's
  L1 (``params_sm90``): its load misses follow the H100's within 5 points at ILP 4 and 8 with 2-16 warps, where
  the L1 the table had before (:data:`FITTED`: 2,048 LRU lines, stores fetch) missed up to 3x as often
  (:func:`compare`);
* the time a warp loses is about 100 cycles a load miss (85-112 at ILP 4 and 8 with 4-16 warps), whatever the
  number of warps, against the replay's miss-free trip before its measured MIO and store port
  (``l1_rate``); with them that trip already holds part of the time, and what is left per miss falls from
  ~100 cycles (3-7 warps) to 48 (16 warps) at ILP 8 (:func:`excess`). The replay's own warps lose 104-111
  cycles a load miss with 5-16 warps at ILP 4 since its scoreboards count every result (``sass_sim``).

    python -m warpsim.timing.l1_counters            # the load-miss table, H100 / the table's L1 / FITTED
"""
from __future__ import annotations

import os
import sys
from collections import defaultdict

import numpy as np

from warpsim.timing import measurement, sass_sim

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "traces", "h100", "l1_counters.json")
FORM = "sp_e4m3_k64_f32"
REPS = 32
#: sass_sim's L1 options that reproduce the counters (the size measured by traces/h100/l1_probe.json)
MEASURED = {"lines": 1792, "last_use": "evict_first", "store_miss": "validate"}
#: the table's L1 before the scoreboards counted every result (params_sm90): a fitted 2,048-line LRU whose
#: stores fetch on a miss, full of foreign lines at the loop (``stale``), misses of 250 filled one every 4 cycles
FITTED = {"lines": 2048, "hit": 40, "miss": 250, "fill_ii": 4, "stale": 400, "store_queue": 0, "store_miss": "fetch",
          "last_use": "keep", "wide": None}


def load(path: str = DATA) -> dict:
    return measurement.load(path, "l1_counters", ("rows",))


def measured(form: str = FORM, doc: dict | None = None) -> dict:
    """``{(ilp, warps): {"load_miss", "store_miss", "l2_read", "l2_write", "cycles"}}`` of the launches with
    reps 32 after the first of a configuration (ratios of sectors; cycles a warp and trip), averaged over
    the parts that ran them."""
    doc = doc or load()
    got = defaultdict(list)
    for r in doc["rows"]:
        if r["form"] != form or r["reps"] != REPS or r["repeat"] == 0:
            continue
        got[(r["ilp"], r["warps"])].append({
            "load_miss": r["ld_miss"] / r["ld"], "store_miss": r["st_miss"] / r["st"],
            "l2_read": r["l2_read"] / r["ld_miss"] if r["ld_miss"] else 1.0, "l2_write": r["l2_write"] / r["st"],
            "loads": r["ld"] / 4 / r["warps"] / REPS, "cycles": float(np.mean(r["cycles"])) / REPS})
    return {k: {m: float(np.mean([v[m] for v in vs])) for m in vs[0]} for k, vs in got.items()}


def _loop(ilp: int, l1: dict | None, form: str = FORM):
    return sass_sim.table_loop(f"{form}_ilp{ilp}", l1)


def model(ilp: int, warps: int, l1: dict | None = None, loop=None) -> dict:
    """The replay's load and store miss ratios over a launch of ``REPS`` trips (the first trip and
    ``REPS - 1`` later ones), and its local lines loaded a warp and trip, under ``l1`` overrides."""
    loop = loop or _loop(ilp, l1)
    first, later = loop.l1_counts(sass_sim.population(warps))
    tot = first + (REPS - 1) * later
    return {"load_miss": tot[1] / tot[0], "store_miss": tot[3] / tot[2], "loads": later[0]}


def compare(l1: dict | None = None, ilps=(2, 4, 8), warps=range(1, 17), doc: dict | None = None) -> list[dict]:
    """One row per (ilp, warps): the H100's load-miss ratio and the replay's under ``l1`` overrides."""
    hw = measured(doc=doc)
    rows = []
    for ilp in ilps:
        loop = _loop(ilp, l1)
        for w in warps:
            m = model(ilp, w, loop=loop)
            rows.append({"ilp": ilp, "warps": w, "h100": hw[(ilp, w)]["load_miss"], "model": m["load_miss"],
                         "h100_store": hw[(ilp, w)]["store_miss"], "model_store": m["store_miss"]})
    return rows


def excess(ilp: int, doc: dict | None = None, warps=range(2, 17)) -> dict:
    """``{warps: H100 cycles a warp and trip over the replay's with no L1 misses, per load miss}``: what a
    load miss costs a warp on the H100 (the replay's miss-free trip scaled to the H100's one-warp trip), for
    each of ``warps`` with enough misses."""
    hw = measured(doc=doc)
    loop, warps = _loop(ilp, {"lines": 1 << 17, "stale": 0, "wide": None}), tuple(warps)
    sass_sim.prefetch([(loop, sass_sim.population(w)) for w in (1, *warps)])
    one = loop.later(sass_sim.population(1))
    out = {}
    for w in warps:
        base = loop.later(sass_sim.population(w))
        h = hw[(ilp, w)]
        misses = h["load_miss"] * h["loads"]
        if misses >= 20:
            out[w] = (h["cycles"] / hw[(ilp, 1)]["cycles"] * one - base) / misses
    return out


def table(rows_by: dict) -> str:
    names = list(rows_by)
    first = rows_by[names[0]]
    lines = [f"{'ilp':>3} {'warps':>5} {'H100':>6} " + " ".join(f"{n:>9}" for n in names)]
    for i, r in enumerate(first):
        lines.append(f"{r['ilp']:3d} {r['warps']:5d} {100 * r['h100']:5.1f}% " +
                     " ".join(f"{100 * rows_by[n][i]['model']:8.1f}%" for n in names))
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    rows = {"table": compare(None), "FITTED": compare(FITTED)}
    print("load-miss ratio of the local loads, a launch of 32 trips (sp_e4m3_k64_f32)")
    print(table(rows))
    for ilp in (4, 8):
        print(f"ILP {ilp}: H100 cycles a load miss costs a warp:",
              " ".join(f"{w}:{c:.0f}" for w, c in excess(ilp).items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
