"""What the launches before leave in the L1, and how it moves the sparse fp8 kernels' times
(``traces/h100/l1_state.json``, ``traces/capture/l1_state.py``).

The recorded sp_e4m3_k64_f32 / sp_e5m2_k64_f32 timing kernels (their spill frames live in the L1) re-run on
the H100, each launch right after one of four kinds of launch on every SM (``BEFORE``): the same launch
(``self``), a kernel asking for 200 KB of shared memory (``smem``: the driver's carveout for it shrinks the L1
to 28 KB, and the next launch gets its L1 back without the older lines), one filling the L1 with global lines
(``ca``), one reading through the L2 only (``cg``). What the runs show:

* after ``smem`` one warp repeats its time to within 0.6 % (ILP 8, 4 trips: 166,700-168,300 cycles); after
  the others its first trip is longer and varies (ILP 8, 4 trips: 219,000-236,400 after ``self``, ``ca`` or
  ``cg``; ILP 2: 25,000-25,300 after ``smem``, 32,300-34,200 after the others), the later trips barely (32
  trips at ILP 4: 552,200 against 566,300-571,200);
* several warps vary from launch to launch whatever came before (ILP 4 with 5-9 warps: 1-8 % between
  launches), and the launch before moves their median by up to 16 % (6 warps: 1.05 M cycles after ``smem``,
  1.21 M after ``self``);
* the first ``smem`` launch of a configuration is not always reset (of the 12 one-warp ones, those at ILP 4
  and 8 with 4 trips ran as after ``self``, e5m2 at ILP 2 half way): a timing trace drops every
  configuration's first launch, and :func:`launches` does too.

So the two sparse fp8 timing traces are recorded with the L1 reset before every launch (``capture.py
--timing-before l1-reset``): recorded the plain way (as before 2026-11-23) their one-warp ILP 7-8 runs were
5-13 % longer and depended on which launch came before, which the trace does not say.

    python -m warpsim.timing.l1_state          # medians and spreads by the launch before
"""
from __future__ import annotations

import os
import sys
from collections import defaultdict

import numpy as np

from warpsim.timing import measurement

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "traces", "h100", "l1_state.json")
BEFORE = ("self", "smem", "ca", "cg")


def load(path: str = DATA) -> dict:
    return measurement.load(path, "l1_state", ("how", "runs"))


def launches(doc: dict | None = None, skip_first: bool = True) -> dict:
    """``{(form, ilp, warps, reps, before): [mean cycles of the CTA's warps, one a launch]}`` (without each
    configuration's first launch, ``repeat`` 0, unless ``skip_first`` is False)."""
    doc = doc or load()
    got = defaultdict(list)
    for r in doc["runs"]:
        if r["repeat"] > 0 or not skip_first:
            got[(r["form"], r["ilp"], r["warps"], r["reps"], r["before"])].append(float(np.mean(r["cycles"])))
    return dict(got)


def summary(doc: dict | None = None) -> dict:
    """The same keys as :func:`launches`: ``(median, spread)``, spread = (max - min) / median."""
    return {k: (float(np.median(v)), (max(v) - min(v)) / float(np.median(v))) for k, v in launches(doc).items()}


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    got = summary()
    print("mean cycles of the CTA's warps, median of the launches after the first (spread), by the launch before")
    print(f"{'form':16} {'ilp':>3} {'warps':>5} {'reps':>4} " + " ".join(f"{b:>19}" for b in BEFORE))
    for key in sorted({k[:4] for k in got}):
        cells = [f"{got[key + (b,)][0]:>11,.0f} ({100 * got[key + (b,)][1]:4.1f} %)" for b in BEFORE]
        print(f"{key[0]:16} {key[1]:>3} {key[2]:>5} {key[3]:>4} " + " ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
