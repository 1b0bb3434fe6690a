"""A warp filling another's stall count, by the stall count: the H100 against sass_sim
(``traces/h100/gap_stall.json``, ``traces/capture/gap_stall.py``).

Warp 0 (the hog) issues independent FFMA, one a cycle to the FMA pipes, 64 and a loop branch a trip; warp 4 (the
probe, the same sub-partition) runs a chain of dependent LOP3 on the ALU at stall count 2-8 or 10, yielding
on every step or on none; the hog yields on every 4th, 8th or 16th FFMA or never. What the H100 does (cycles a
probe step, the probe alone its stall count + 0.08):

* a hog that never yields lets the probe in only after its loop branch: 3-4 / 2 / 2 / 1 probe steps a hog trip
  of 76 cycles at stall 4 / 6 / 8 / 10, so the probe issues from the cycle after the branch to 8-9 cycles after
  it, and the hog's next instruction 10 cycles after its branch. The table's non-yielding BRA that keeps the
  sub-partition 5 cycles (``keep_cycles``, fitted to dense e4m3 with several warps) and its redirect of 6 leave
  the probe 2 / 2 / 1 / 1 steps there;
* with yields the probe runs about one step a hog yield at stall 6-10 whether it yields or not (16.5 cycles a
  step with the hog yielding every 16th FFMA): the hog's FFMA issued in the probe's stall count takes the turn and
  keeps it to its next yield, as the table's rule has it; at stall 3-5 part of the time (a probe that does not
  yield, stall 4: 11.1 against 13.8), at stall 2 never (2.3 cycles beside any hog), though a probe yielding at
  stall 2 gets the turn back 2-3 cycles after its yield (4.2-4.9);
* the hog alone takes 76.0 cycles a trip, 92.3 / 84.2 / 80.1 with 16 / 8 / 4 yields: **a yield costs its warp a
  cycle even alone** (``yield_bubble``, in the table since).

    python -m warpsim.timing.gap_stall    # the H100's probe steps and hog trips beside the replay's
"""
from __future__ import annotations

import os
import sys
from functools import lru_cache

import numpy as np

from warpsim.timing import measurement, sass_sim

PATH = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "h100", "gap_stall.json")
STEPS = 264      # the probe's chain steps a trip (the file's loops["steps"])
PROBE_TRIPS = 8  # the probe's trips, the first not counted (loops["probe_trips"])
#: the rules :func:`table` sets beside the H100: the table's, and the loop branch as this probe shows it (keeps
#: the sub-partition one cycle, the hog's next instruction 10 cycles after it)
RULES = {"table": {}, "branch as measured here": {"keep_cycles": 1, "redirect": {"BRA": 4}}}


@lru_cache(maxsize=2)
def load(path: str = PATH) -> dict:
    doc = measurement.load(path, "gap_stall", ("rows", "loops"))
    loops = doc["loops"]
    if set(loops.get("loops", ())) != set(loops.get("variants", ())) or not doc["rows"] or \
            (loops.get("steps"), loops.get("probe_trips")) != (STEPS, PROBE_TRIPS):
        raise ValueError(f"{path}: variants without loops, no runs, or not {PROBE_TRIPS} trips of {STEPS} steps")
    return doc


def measured(doc: dict | None = None) -> tuple[dict, dict]:
    """``({(variant, hog beside): cycles a probe step}`` (the median over repeats of the median of trips 2-8) and
    ``{variant: the hog's cycles a trip})`` (its 6,000 trips, the probe beside it for the first few hundred)."""
    doc = doc or load()
    steps: dict = {}
    hog: dict = {}
    for r in doc["rows"]:
        p = np.asarray(r["probe"], np.int64)
        steps.setdefault((r["variant"], r["hog"]), []).append(float(np.median(np.diff(p)[1:] / STEPS)))
        if r["hog"]:
            hog.setdefault(r["variant"], []).append((r["hog_clocks"][1] - r["hog_clocks"][0])
                                                    / doc["loops"]["hog_trips"])
    return ({k: float(np.median(v)) for k, v in steps.items()}, {k: float(np.median(v)) for k, v in hog.items()})


def replay(variant: str, hog: bool = True, doc: dict | None = None, **options) -> float:
    """sass_sim's cycles a probe step of ``variant`` (the table with ``options``), with the hog or alone."""
    from warpsim.timing.params_sm90 import TABLE
    loops = (doc or load())["loops"]["loops"][variant]
    probe = measurement.expanded(loops["probe"])
    cfg = sass_sim.probe_cfg(**options)
    if hog:
        issued = sass_sim.issue([measurement.expanded(loops["hog"]), probe], [0, 0], [3000, PROBE_TRIPS], cfg, TABLE["tensor"])[1]
    else:
        issued = sass_sim.issue([probe], [0], [PROBE_TRIPS], cfg, TABLE["tensor"])[0]
    return float(np.median(np.diff(issued[::len(probe)])[1:] / STEPS))


def replay_hog(variant: str, doc: dict | None = None, trips: int = 40, **options) -> float:
    """sass_sim's cycles a trip of the hog of ``variant`` alone (the trips after the first)."""
    from warpsim.timing.params_sm90 import TABLE
    hog = measurement.expanded((doc or load())["loops"]["loops"][variant]["hog"])
    issued = sass_sim.issue([hog], [0], [trips], sass_sim.probe_cfg(**options), TABLE["tensor"])[0]
    return float((issued[-1] - issued[len(hog) - 1]) / (trips - 1))


def table(rules: dict | None = None, doc: dict | None = None) -> list[dict]:
    """Per variant: the H100's cycles a probe step beside the hog and each rule's (``rules``, :data:`RULES`)."""
    doc = doc or load()
    hw, _ = measured(doc)
    rows = []
    for v in doc["loops"]["variants"]:
        row = {"variant": v, "h100": hw[(v, True)]}
        row.update({name: replay(v, True, doc, **opts) for name, opts in (rules or RULES).items()})
        rows.append(row)
    return rows


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    doc = load()
    _, hog = measured(doc)
    print("the hog alone, cycles a trip: H100 / the table / the table without yield_bubble")
    for v in ("s4y_h0", "s4y_h4", "s4y_h8", "s4y_h16"):
        every = v.split("_h")[1]
        label = "never yielding" if every == "0" else f"yielding every {every}th FFMA"
        print(f"  {label:27s} {hog[v]:6.1f} / {replay_hog(v):6.1f} / {replay_hog(v, yield_bubble=False):6.1f}")
    print("the probe, cycles a chain step beside the hog: H100 / " + " / ".join(RULES))
    for r in table(doc=doc):
        print(f"  {r['variant']:9s} {r['h100']:6.2f} / " + " / ".join(f"{r[k]:6.2f}" for k in RULES))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
