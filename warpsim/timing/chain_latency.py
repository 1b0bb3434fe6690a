"""What a dependent local load and shuffle cost on the H100 (``traces/h100/chain_latency.json``,
``traces/capture/chain_latency.py``) beside :mod:`warpsim.timing.sass_sim` running the same SASS.

Every active warp of one CTA runs a loop of dependent steps: a pointer chase through local lines in the L1
(``ldl``), a ``shfl.sync`` chain (``shfl``), a store and load of one word (``stl_ldl``), the chase with ``k``
stores to other lines (``ldl_stl<k>``) or ``k`` independent shuffles (``ldl_shfl<k>``) a step, the shuffle chain
with ``k`` independent loads (``shfl_ldl<k>``), the chase storing the slot it loads ``d`` steps later
(``ldl_stnext<d>``), a chase through a constant table (``ldc``), a predicated ``S2R`` chain (``s2r``; ``s2r_alu`` the
same with an add). What the runs show (cycles a step, one warp):

* a dependent local hit takes 29 cycles, a dependent shuffle 24;
* a load of a word just stored: 34 a step (a store's and a load's turn);
* stores to other lines beside the chase cost it nothing until the SM's store port fills (4 warps with 4
  stores a step: 64, one line every 4 cycles);
* shuffles beside the chase slow it by ~4 cycles each (1, 2, 4 a step: 33, 37, 46), loads beside the
  shuffle chain by less;
* a load of a line stored 1, 4 or 15 steps before takes as long (55 a step with the address arithmetic);
* a constant load with a register offset (``LDC``) 28 cycles, an ``S2R`` 22 (the table keeps both at the
  literature's 30: ``params_sm90``).

    python -m warpsim.timing.chain_latency            # the H100 beside the replay, cycles a step
"""
from __future__ import annotations

import os
import sys
from collections import defaultdict

import numpy as np

from warpsim.timing import measurement, sass_sim

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "traces", "h100", "chain_latency.json")
WARPS = (1, 2, 4, 8, 16)


def load(path: str = DATA) -> dict:
    return measurement.load(path, "chain_latency", ("rows", "loops"))


def kernels(doc: dict | None = None) -> list:
    """The measured kernels' names (``ldl``, ``ldl_stl1``, ...), in the file's order."""
    doc = doc or load()
    return list(dict.fromkeys(r["kernel"] for r in doc["rows"]))


def measured(doc: dict | None = None) -> dict:
    """``{(kernel, warps): cycles a step}``: the warps' mean, median over the repeats."""
    doc = doc or load()
    got = defaultdict(list)
    for r in doc["rows"]:
        n = r["iters"] * r["steps"]
        got[(r["kernel"], r["warps"])].append(np.mean([(e - s) / n for s, e in zip(r["start"], r["end"])]))
    return {k: float(np.median(v)) for k, v in got.items()}


def replay(doc: dict | None = None, names=None, warps=WARPS, **options) -> dict:
    """The keys of :func:`measured` (of the kernels ``names``, all unless given, and the warp counts ``warps``)
    from ``sass_sim`` running each kernel's loop (its SASS as the H100 ran it) under the table's
    ``emulated["sass"]`` entry with ``options`` (an ``l1`` dict updates the L1's)."""
    from warpsim.timing.params_sm90 import TABLE
    doc = doc or load()
    cfg = sass_sim.probe_cfg(**options)
    out = {}
    for k in names or kernels(doc):
        body = doc["loops"][f"chain_{k}"]["body"]
        steps = steps_in(k, body)
        loop = sass_sim.Loop(body, cfg, TABLE["tensor"])
        for w in warps:
            out[(k, w)] = loop.later(sass_sim.population(w)) / steps
    return out


def steps_in(kernel: str, body: list) -> int:
    """The dependent steps in a loop body (ptxas may unroll the source loop's trip): its chain's links, the
    loads of a chase, the shuffles of the shuffle chain, the stores of the ``war`` chase (one a step), the
    constant loads of the ``ldc`` chase, the compares of the ``s2r`` chains."""
    link = {"shfl": "SHFL", "war": "STL", "ldc": "LDC", "s2r": "ISETP"}.get(kernel.split("_")[0].rstrip("0123456789"),
                                                                           "LDL")
    n = sum(1 for x in body if x.split()[0].split(".")[0] == link)
    return n - 1 if link == "ISETP" else n  # the loop's own compare is an ISETP too


def table(hw: dict, model: dict) -> str:
    lines = ["cycles a dependent step: H100 / sass_sim",
             f"{'kernel':14}" + "".join(f"{w:>15}" for w in WARPS)]
    for k in dict.fromkeys(k for k, _ in hw):
        lines.append(f"{k:14}" + "".join(f"{hw[(k, w)]:8.1f}/{model[(k, w)]:<6.1f}" for w in WARPS))
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    print(table(measured(), replay()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
