"""Which instructions a warp issues in the stall counts of a warp that keeps the sub-partition
(``traces/h100/fill_probe.json``, ``traces/capture/fill_probe.py``).

Warp 0 issues 384 independent LOP3 at stall count 2 (as built) or 3, none yielding, so it never gives the turn
up; warp 4 (the same sub-partition) sleeps ~200 ns, then issues m (0 or 64) independent FFMA, IMAD, LOP3 or FADD
between two clock reads. What the H100 does (medians of 3 launches):

* **a warp that has not yielded issues in the turn's warp's stall-2 gaps**: its two clock reads go in 2 cycles
  apart while warp 0 runs; 64 FFMA or FADD take 68 cycles and 64 IMAD 215, all before warp 0 ends; 64 LOP3
  (warp 0's pipe, busy every other cycle) only after it at stall 2 (758 cycles), in its gaps at stall 3 (152).
  Unlike ``yield_pair``, where a warp that lost the turn at a yield does not issue in the other's stall-2 gaps,
  not even a clock read;
* each instruction so issued costs warp 0 about a cycle (64 FFMA, FADD or IMAD: +62 to +79 cycles at stall 2,
  +33 to +65 at stall 3);
* warp 0 with only the two clock reads beside it takes 855 cycles for its 384 LOP3 at stall 2 (the ALU's rate
  768) and 1,265 at stall 3 (1,152): 10-11 % that the replay, which gives the rate, does not have. Why is not
  measured here (the code is straight-line, 6 KB: the instruction fetch is one candidate, ``ifetch.json``'s
  ~18 cycles a line from the SM's cache would cost about this at stall 2 but not at 3).

The replay follows which instructions go in (:func:`table`: FFMA and FADD 68 cycles, LOP3 only after warp 0 at
stall 2), but not warp 0's extra 10 %, nor IMAD's 215 (128).

    python -m warpsim.timing.fill_probe      # the H100's cycles beside the replay's
"""
from __future__ import annotations

import os
import sys

import numpy as np

from warpsim.timing import measurement, sass_sim

PATH = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "h100", "fill_probe.json")


def load(path: str = PATH) -> dict:
    doc = measurement.load(path, "fill_probe", ("rows", "loops"))
    if not doc["rows"] or any(len(r.get("w0", ())) != 2 or len(r.get("w4", ())) != 2 for r in doc["rows"]):
        raise ValueError(f"{path}: no runs, or a run without warp 0's and warp 4's two clocks")
    return doc


def measured(doc: dict) -> dict:
    """``{(kind, m, stall): (warp 0's cycles, warp 4's span, warp 4's end less warp 0's)}``, medians over
    repeats."""
    got: dict = {}
    for r in doc["rows"]:
        (a0, a1), (b0, b1) = r["w0"], r["w4"]
        got.setdefault((r["kind"], r["m"], r["stall"]), []).append((a1 - a0, b1 - b0, b1 - a1))
    return {k: tuple(float(np.median([x[i] for x in v])) for i in range(3)) for k, v in got.items()}


def replayed(doc: dict, kind: str, m: int, stall: int, start: int, **options) -> tuple[float, float, float]:
    """:func:`measured`'s three numbers from the replay (the table with ``options``): warp 0's LOP3 from cycle 0,
    warp 4's code from ``start``."""
    from warpsim.timing.params_sm90 import TABLE
    w0 = [f"LOP3 {stall} 1 7 7 0"] * doc["loops"]["lops"] + ["CS2R 1 1 7 7 0"]
    w4 = doc["loops"]["loops"][f"fill_{kind}_{m}"]
    a, b = sass_sim.issue([w0, w4], [0, start], [1, 1], sass_sim.probe_cfg(**options), TABLE["tensor"])
    return float(a[-1] - a[0]), float(b[-1] - b[0]), float(b[-1] - a[-1])


def table(doc: dict | None = None, **options) -> list[dict]:
    """Per kind, m and warp 0's stall count: the H100's numbers and the replay's, warp 4 starting where it did on
    the H100 (the median over repeats)."""
    doc = doc or load()
    rows = []
    for (kind, m, stall), h in measured(doc).items():
        start = int(np.median([r["w4"][0] - r["w0"][0] for r in doc["rows"]
                               if (r["kind"], r["m"], r["stall"]) == (kind, m, stall)]))
        rows.append({"kind": kind, "m": m, "stall": stall, "h100": h,
                     "model": replayed(doc, kind, m, stall, start, **options)})
    return rows


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    print("warp 0 (LOP3, never yielding) / warp 4 after a sleep: warp 0's cycles, warp 4's span, warp 4's end less "
          "warp 0's; the H100 | the replay")
    for r in table(**measurement.options_in(argv)):
        h, s = r["h100"], r["model"]
        print(f"  {r['kind']:5s} m {r['m']:2d}  stall {r['stall']}:  {h[0]:5.0f} {h[1]:5.0f} {h[2]:+6.0f}  |  "
              f"{s[0]:5.0f} {s[1]:5.0f} {s[2]:+6.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
