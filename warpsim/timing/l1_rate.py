"""How fast the H100's SM takes local-memory hits and shuffles (``traces/h100/l1_rate.json``,
``traces/capture/l1_rate.py``) beside :mod:`warpsim.timing.sass_sim`'s MIO and store port.

Every active warp of one CTA runs a loop of 32 independent ``LDL``, ``STL``, ``SHFL`` or 16 ``LDL`` + 16 ``STL``
to lines of its own frame that stay in the L1. What the runs show (accesses a cycle, the warps' rates summed):

* a warp alone issues one of them about every 4 cycles (``LDL`` 0.18, ``SHFL`` 0.20, ``STL`` 0.24 a cycle);
* one sub-partition, 2-8 warps: ``LDL`` and ``SHFL`` rise to 0.49-0.51, one every 2 cycles;
* the SM, warps spread over the four sub-partitions: ``LDL`` and ``SHFL`` reach 1.0 a cycle at 8 warps;
* ``STL``: 0.25 a cycle whatever the warps and their placement (one warp nearly fills it): the SM passes one
  local store line every 4 cycles (stores write through to the L2, ``l1_counters``); loads and stores mixed
  half and half: 0.50 spread, 0.33 on one sub-partition.

So ``sass_sim`` holds a warp's MIO instructions one every ``mio_warp_ii`` (4) cycles, a sub-partition's one every
``mio_ii`` (2), the SM's one every ``mio_sm_ii`` (1), and local stores to the SM's store port, one line every
``l1["store_ii"]`` (4) cycles, a store issuing only when the port has no more than ``l1["store_queue"]`` cycles
of stores before it; the sub-partitions take turns at those SM-wide ports. :func:`replay` runs the probe's own
SASS through it.

    python -m warpsim.timing.l1_rate            # the H100's rates beside the replay's
    python -m warpsim.timing.l1_rate '{"l1": {"store_sp_ii": 4}}'   # ... under other table values
"""
from __future__ import annotations

import os
import sys
from collections import defaultdict

import numpy as np

from warpsim.timing import measurement, sass_sim

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "traces", "h100", "l1_rate.json")
OPS = ("ldl", "stl", "shfl", "ldst")
#: (placement, warps) of the runs: spread over the sub-partitions, or all on sub-partition 0
RUNS = tuple(("spread", w) for w in (1, 2, 3, 4, 6, 8, 12, 16)) + tuple(("sp0", w) for w in (1, 2, 3, 4, 6, 8))


def load(path: str = DATA) -> dict:
    return measurement.load(path, "l1_rate", ("rows", "loops"))


def measured(doc: dict | None = None) -> dict:
    """``{(op, placement, warps): accesses a cycle}``: the active warps' rates summed, median over repeats."""
    doc = doc or load()
    got = defaultdict(list)
    for r in doc["rows"]:
        n = r["iters"] * r["accesses"]
        got[(r["op"], r["placement"], r["warps"])].append(sum(n / (e - s) for s, e in zip(r["start"], r["end"])))
    return {k: float(np.median(v)) for k, v in got.items()}


def _population(placement: str, warps: int) -> tuple:
    return (warps, 0, 0, 0) if placement == "sp0" else sass_sim.population(warps)


def replay(doc: dict | None = None, ops=OPS, **options) -> dict:
    """The same keys as :func:`measured` (of ``ops``), from ``sass_sim`` running each kernel's loop under the
    table's ``emulated["sass"]`` entry with ``options`` (an ``l1`` dict updates the L1's)."""
    from warpsim.timing.params_sm90 import TABLE
    doc = doc or load()
    cfg = sass_sim.probe_cfg(**options)
    loops = {op: sass_sim.Loop(doc["loops"][f"rate_{op}"]["body"], cfg, TABLE["tensor"]) for op in ops}
    sass_sim.prefetch([(loop, _population(p, w)) for loop in loops.values() for p, w in RUNS])
    out = {}
    for op, loop in loops.items():
        accesses = sum(1 for x in doc["loops"][f"rate_{op}"]["body"] if x.split()[0] in ("LDL", "STL", "SHFL"))
        for placement, w in RUNS:
            pop = _population(placement, w)
            trip = loop.cycles(pop)
            out[(op, placement, w)] = sum(accesses / trip[s][1] * pop[s] for s in range(4) if pop[s])
    return out


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    hw, model = measured(), replay(**measurement.options_in(argv))
    print("accesses a cycle, the warps' rates summed: H100 / sass_sim")
    print(f"{'op':5} {'placement':9} " + " ".join(f"{w:>11}" for w in (1, 2, 3, 4, 6, 8, 12, 16)))
    for op in OPS:
        for placement in ("spread", "sp0"):
            cells = [f"{hw[(op, placement, w)]:.2f}/{model[(op, placement, w)]:.2f}"
                     for p, w in RUNS if p == placement]
            print(f"{op:5} {placement:9} " + " ".join(f"{c:>11}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
