"""Two warps on one sub-partition, both wanting the ALU pipe: the H100 against sass_sim's issue policies
(``traces/h100/sched_probe.json``, ``traces/capture/sched_probe.py``).

Warp 0 (the hog) issues independent LOP3 at ptxas's stall count 2, which alone keeps the 16-lane ALU pipe
busy; ptxas sets the yield flag on every sixth. Warp 4 (the probe) times 16 steps of 9 instructions (8 LOP3,
4 of them predicated off, an IMAD.MOV and the clock read; one yields). What the H100 does:

* alone, a probe step takes 16 cycles (the sum of its stall counts), the hog's 4,096 LOP3 8,646 cycles;
* beside the hog, a probe step takes 16, 28, 40 or 52 cycles (16 + 12k: the hog runs on for k stretches of
  6 instructions, from one yield to the next), about 33 on average, and the hog takes ~254 cycles longer;
* so a warp that never waits does not keep the sub-partition: the other warp's instructions get in at the
  yield flags.

sass_sim's issue policy (greedy: the warp that issued last goes on while it can) lets the probe in only at
the hog's loop branch, after which the probe keeps the pipe as the new greedy warp (17 cycles a step). With
``yield_switch`` (a yielding instruction passes the turn to the next warp) the probe runs at about the
H100's 33. The option is off in the table: it puts warps that run the same code in lockstep, so that both
reach their CALL/RET and tensor waits together, and the recorded emulated loops fit worse with it (README,
Timing).

    python -m warpsim.timing.sched_probe        # the H100's probe steps beside the replay's
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

PATH = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "h100", "sched_probe.json")


def load(path: str = PATH) -> dict:
    with open(path) as fh:
        doc = json.load(fh)
    if not doc.get("runs") or not doc.get("sass", {}).get("hog_trip"):
        raise ValueError(f"{path}: no runs or no SASS (expected traces/capture/sched_probe.py --json output)")
    return doc


def measured(doc: dict) -> dict:
    """The H100's cycles: the hog alone and beside the probe; the probe's steps alone and beside the hog (steps
    2-16 of every run: the first includes the sleep's wake-up)."""
    def steps(runs):
        return [b - a for r in runs for a, b in zip(r["probe"][1:-1], r["probe"][2:])]
    runs = doc["runs"]
    both = [r for r in runs if r["hog_n"] and r["chain"]]
    return {"hog_alone": [r["hog"][1] - r["hog"][0] for r in runs if r["hog_n"] and not r["chain"]],
            "hog_shared": [r["hog"][1] - r["hog"][0] for r in both],
            "probe_alone": steps([r for r in runs if not r["hog_n"]]), "probe_shared": steps(both),
            "probe_start": [r["probe"][0] - r["hog"][0] for r in both]}


def replay(doc: dict, **options) -> dict:
    """The same runs through sass_sim (the table's ``emulated["sass"]`` with ``options``): the hog's trips
    and 16 probe steps from the start the H100 recorded; per run the hog's cycles and the probe's steps."""
    from warpsim.timing import sass_sim
    from warpsim.timing.params_sm90 import TABLE
    cfg = dict(TABLE["emulated"]["sass"], **options)
    s = doc["sass"]
    hog = sass_sim.issue([s["hog_trip"]], [0], [s["hog_trips"]], cfg, TABLE["tensor"])[0]
    out = {"hog_alone": int(hog[-1]), "hog_shared": [], "probe_shared": []}
    for start in sorted(set(measured(doc)["probe_start"])):
        ends = sass_sim.issue([s["hog_trip"], s["probe_step"]], [0, start], [s["hog_trips"], 17], cfg,
                              TABLE["tensor"])
        out["hog_shared"].append(int(ends[0][-1]))
        out["probe_shared"] += [int(v) for v in np.diff(ends[1][:16])]
    alone = sass_sim.issue([s["probe_step"]], [0], [17], cfg, TABLE["tensor"])[0]
    out["probe_alone"] = [int(v) for v in np.diff(alone)]
    return out


def main(argv=None) -> int:
    doc = load()
    m = measured(doc)
    print(f"H100: hog alone {np.mean(m['hog_alone']):.0f} cycles, beside the probe {np.mean(m['hog_shared']):.0f};"
          f" probe step alone {np.mean(m['probe_alone']):.1f}, beside the hog {np.mean(m['probe_shared']):.1f}"
          f" ({sorted(set(m['probe_shared']))})")
    for name, opts in (("greedy (the table)", {}), ("yield_switch", {"yield_switch": True})):
        r = replay(doc, **opts)
        print(f"{name:20s} hog alone {r['hog_alone']}, beside {np.mean(r['hog_shared']):.0f}; probe step alone "
              f"{np.mean(r['probe_alone']):.1f}, beside the hog {np.mean(r['probe_shared']):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
