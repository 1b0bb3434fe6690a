"""How the H100's L1 takes the lines it misses (``traces/h100/l1_fill.json``, ``traces/capture/l1_fill.py``)
beside :mod:`warpsim.timing.sass_sim`'s ``l1["miss"]``, ``l1["fill_ii"]``, ``l1["fill_port"]`` and
``l1["in_order"]``.

Every warp of one CTA streams through a 1 MB local frame of its own (past the L1, in the L2), a trip ``n``
independent loads of a line each, the next trip once the last one's values are in. What the runs show:

* a miss, alone, takes 259-324 cycles (median 300: ``chase``, one timed dependent load a line);
* a load that hits, issued after one that misses, is back 45 cycles after the first was issued, the miss
  after 302 (``order``): **a warp's loads do not return in order** (``in_order`` stays off);
* one warp: a trip of n = 8, 12, 14, 16 loads takes 347-411 cycles, n = 18 537, 20 642, 24 674, 32 762 (n = 4
  and 8 touch 1,024 and 2,048 lines a pass, which the L1 partly keeps: n = 4 runs 189 cycles a trip). The
  steps are ptxas's code (where the xors that take the values sit between the loads, loops unrolled twice):
  the replay of the same SASS with a miss of 300 and no other limit follows every one within 2.2 %;
* warps on their own frames scale nearly linearly: 32 loads a trip run 762 cycles with one warp, 814 with
  16 (0.63 lines a cycle for the SM): **the SM's fill rate is at least that** (``fill_ii`` 1, where the
  table's fitted 4 would allow 0.25);
* 16 loads and 16 stores a trip reach 0.38 lines a cycle from 8 warps on, not the 0.5 of a store port (one
  line every 4 cycles) beside a fill port of its own: **load misses take the store port too**, about one
  cycle each (``fill_port``: 8-16 warps within 3.3 %, without it 20-23 % short);
* vector loads of 2 or 4 lines (``LDL.64`` / ``LDL.128``, 32 lines a trip) take about 1,000 cycles a trip,
  where the replay takes 680-700: a missing vector load costs about a second miss (not modelled; of the fp8
  loops' spill loads 8 % are ``LDL.64``).

:func:`replay` runs the probe's own SASS through ``sass_sim`` with an L1 that keeps nothing (every access
misses), under the table's parameters or ``options``; :data:`PROBED` is the miss path as measured.

    python -m warpsim.timing.l1_fill            # the H100's cycles a trip beside the replay's
    python -m warpsim.timing.l1_fill probed     # ... with the L1's miss path as measured (PROBED)
    python -m warpsim.timing.l1_fill '{"l1": {"miss": 300}}'   # ... under other parameters
"""
from __future__ import annotations

import os
import sys
from collections import defaultdict

import numpy as np

from warpsim.timing import measurement, sass_sim

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "traces", "h100", "l1_fill.json")
#: the stream kernels in the order they are shown; lines a trip and words a load are in their names
KERNELS = ("ldl_n4", "ldl_n8", "ldl_n12", "ldl_n14", "ldl_n16", "ldl_n18", "ldl_n20", "ldl_n24", "ldl",
           "ldl_v2", "ldl_v4", "ldst")
WARPS = (1, 2, 3, 4, 6, 8, 12, 16)
#: the L1's miss path as the probe measured it (a miss 300 cycles, a load miss taking the store port one cycle,
#: stores fetching nothing: ``l1_counters``)
PROBED = {"miss": 300, "fill_ii": 1, "fill_port": True, "store_miss": "validate"}
#: an L1 that keeps nothing: one set of 4 ways that a trip's 8+ lines stream through (every access misses)
MISS_ALL = {"lines": 4, "ways": 4, "stale": 0}


def load(path: str = DATA) -> dict:
    return measurement.load(path, "l1_fill", ("rows", "loops"))


def measured(doc: dict | None = None) -> dict:
    """``{(kernel, warps): cycles a trip}`` of the stream kernels (``kernel`` without ``stream_``; the mean over
    the warps, the median over the repeats)."""
    doc = doc or load()
    got = defaultdict(list)
    for r in doc["rows"]:
        if r["kernel"].startswith("stream_"):
            trips = [(e - s) / r["iters"] for s, e in zip(r["start"], r["end"])]
            got[(r["kernel"][len("stream_"):], r["warps"])].append(float(np.mean(trips)))
    return {k: float(np.median(v)) for k, v in got.items()}


def latencies(doc: dict | None = None) -> dict:
    """Medians over the steps of all repeats: ``chase`` (a miss alone), ``order_hit`` (a hit issued after a
    miss, to its use), ``order_miss`` (that miss, to its use); and ``chase_min`` / ``chase_max``."""
    doc = doc or load()
    chase = [c for r in doc["rows"] if r["kernel"] == "chase" for c in r["cycles"]]
    order = [r["cycles"] for r in doc["rows"] if r["kernel"] == "order"]
    return {"chase": float(np.median(chase)), "chase_min": int(min(chase)), "chase_max": int(max(chase)),
            "order_hit": float(np.median([c for o in order for c in o[1::3]])),
            "order_miss": float(np.median([c for o in order for c in o[2::3]]))}


def chase_spread(doc: dict | None = None) -> np.ndarray:
    """The measured latencies of a miss alone (``chase``, every step of every repeat) less their median: the
    spread ``sass_sim``'s ``l1["miss_spread"]`` draws each line's miss latency from, about ``l1["miss"]``."""
    doc = doc or load()
    chase = np.array([c for r in doc["rows"] if r["kernel"] == "chase" for c in r["cycles"]], np.int64)
    return chase - int(np.median(chase))


def load_lines(kernel: str) -> int:
    """Lines a trip of the stream kernel loads (its name says: ``ldl_n12`` 12, ``ldst`` 16, the others 32)."""
    return int(kernel.split("_n")[1]) if "_n" in kernel else 16 if kernel == "ldst" else 32


def _trips(body: list, kernel: str) -> int:
    """Trips in the loop body ``body`` (ptxas unrolls some of the loops twice)."""
    lines = sum(int(x.split()[7]) // 4 for x in body if x.split()[0].startswith("LDL"))
    return max(lines // load_lines(kernel), 1)


def replay(doc: dict | None = None, kernels=KERNELS, warps=WARPS, l1: dict | None = None, **options) -> dict:
    """The keys of :func:`measured` from ``sass_sim`` running each kernel's loop under the table's
    ``emulated["sass"]`` entry with ``options``, its L1 (updated by ``l1``) keeping nothing."""
    from warpsim.timing.params_sm90 import TABLE
    doc = doc or load()
    cfg = sass_sim.probe_cfg(l1=dict(l1 or {}, **MISS_ALL), **options)
    loops = {k: sass_sim.Loop(doc["loops"][f"stream_{k}"]["body"], cfg, TABLE["tensor"]) for k in kernels}
    warps = tuple(warps)
    sass_sim.prefetch([(loop, sass_sim.population(w)) for loop in loops.values() for w in warps])
    return {(k, w): loop.later(sass_sim.population(w)) / _trips(doc["loops"][f"stream_{k}"]["body"], k)
            for k, loop in loops.items() for w in warps}


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    import json
    options = {"l1": PROBED} if argv == ["probed"] else measurement.options(argv[0]) if argv else {}
    hw, model = measured(), replay(**options)
    lat = latencies()
    print(f"a miss alone: median {lat['chase']:.0f} cycles ({lat['chase_min']}-{lat['chase_max']}); a hit issued "
          f"after a miss: {lat['order_hit']:.0f}, the miss {lat['order_miss']:.0f}")
    print(f"cycles a trip, H100 / sass_sim (the table's L1 parameters{', ' if options else ''}"
          f"{json.dumps(options) if options else ''}, nothing kept)")
    print(f"{'kernel':8} " + " ".join(f"{w:>10}" for w in WARPS))
    for k in KERNELS:
        print(f"{k:8} " + " ".join(f"{hw[(k, w)]:>5.0f}/{model[(k, w)]:<4.0f}" for w in WARPS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
