"""Two warps on one sub-partition, both wanting the ALU pipe: the H100 against sass_sim's issue policies
(``traces/h100/sched_probe.json``, ``traces/capture/sched_probe.py``).

Warp 0 (the hog) issues independent LOP3 at ptxas's stall count 2, which alone keeps the 16-lane ALU pipe
busy; ptxas sets the yield flag on every sixth. Warp 4 (the probe) reads the clock after each of 16 steps of
9 instructions (8 LOP3, 4 of them predicated off, an IMAD.MOV, the clock read; one of them yields). The same
cubin ran with the yield flags changed (``variants``). What the H100 does:

* alone, a probe step takes 16 cycles (the sum of its stall counts), the hog's 4,096 LOP3 ~8,650 cycles;
* beside the hog, a probe step takes 16, 28, 40 or 52 cycles (16 + 12k: the hog runs on for k stretches of
  6 instructions, from one yield to the next), 33 on average, and the hog takes ~250 cycles longer;
* a hog that never yields lets the probe in only at its loop branch (a probe step 274 or 532 cycles: one or
  two hog trips), and the probe then runs one step, to its own yield; a probe that never yields, once in,
  keeps the pipe (16 cycles a step) while the yielding hog waits. So a warp keeps its turn until an
  instruction with the yield flag (or a wait longer than its stall count allows), then the other warp goes.
  (Clearing the flags needs the operand-reuse bits cleared too; those variants also slow each warp alone,
  18 cycles a probe step, and are not compared here.)

The greedy issue policy of the table until 2026-11-27 (``sass_sim.GREEDY``: the warp that issued last goes on
while it can, through waits of at most ``hold``) ignores the yield flag, so once the probe is in it keeps the
pipe (17 cycles a step). With ``yield_switch`` (a yielding instruction passes the turn to the next warp) and
``hold`` 1 (a warp that waits 2 cycles or more past its issue loses its turn to a warp that issues meanwhile: the
probe's one LOP3 at stall count 4 lets the non-yielding hog in, which then keeps the pipe to its branch, a
276-cycle step) the replay follows all four clean runs within 13 % (the plain one: 31.9 against 33.0 cycles a
step). The table issues so since, with ``gap_turn`` (a warp issuing another pipe's instruction in the turn's
warp's stall count takes the turn), which these runs, ALU ops on both sides, do not see (31.1 / 385 / 17.2 /
33.1; README, Timing; ``warpsim.timing.pair_modes``).

    python -m warpsim.timing.sched_probe        # the H100's probe steps beside the replay's
    python -m warpsim.timing.sched_probe --gap  # the same beside an FFMA or IMAD hog (sched_gap*.json)
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

from warpsim.timing import measurement, sass_sim

PATH = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "h100", "sched_probe.json")
#: the runs compared with the replay: the plain cubin, and those whose yield flags were only set
CLEAN = ("plain", "hog_noyield", "probe_noyield", "both_noyield")
#: traces/h100/sched_gap.json (traces/capture/sched_gap.py): the hog on the FMA pipes, the probe on the ALU
GAP = os.path.join(os.path.dirname(PATH), "sched_gap.json")
#: traces/h100/sched_gap_imad.json (sched_gap.py --imad): the same with the hog issuing IMAD (the FMA-heavy pipe)
GAP_IMAD = os.path.join(os.path.dirname(PATH), "sched_gap_imad.json")
#: the issue rules :func:`gap_table` sets beside the H100
GAP_RULES = {"table": {}, "table without gap_turn": {"gap_turn": False}}


def load(path: str = PATH) -> dict:
    with open(path) as fh:
        try:
            doc = json.load(fh)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}: not JSON ({err})") from None
    complete = isinstance(doc, dict) and doc.get("runs") and doc.get("sass", {}).get("hog_trip") and doc.get("variants")
    if not complete:
        raise ValueError(f"{path}: runs, SASS or variants missing (expected traces/capture/sched_probe.py --json "
                         "output)")
    return doc


def cubins(doc: dict) -> dict:
    """``{name: (sass, runs)}``: the plain cubin and each variant."""
    out = {"plain": (doc["sass"], doc["runs"])}
    out.update({k: (v["sass"], v["runs"]) for k, v in doc["variants"].items()})
    return out


def measured(runs: list) -> dict:
    """The H100's cycles of one cubin's runs: the hog alone and beside the probe; the probe's steps (2-16 of
    every run: the first includes the sleep's wake-up) alone and beside the hog; the probe's start."""
    def steps(rs):
        return [b - a for r in rs for a, b in zip(r["probe"][1:-1], r["probe"][2:])]
    both = [r for r in runs if r["hog_n"] and r["chain"]]
    return {"hog_alone": [r["hog"][1] - r["hog"][0] for r in runs if r["hog_n"] and not r["chain"]],
            "hog_shared": [r["hog"][1] - r["hog"][0] for r in both],
            "probe_alone": steps([r for r in runs if not r["hog_n"]]), "probe_shared": steps(both),
            "probe_start": [r["probe"][0] - r["hog"][0] for r in both]}


def replay(sass: dict, runs: list, trips: int = 32, probe_older: bool = False, **options) -> dict:
    """One cubin's runs through sass_sim (the table's ``emulated["sass"]`` with ``options``): the hog's
    ``trips`` loop trips and the probe's sequence from each start the H100 recorded; the hog's cycles and the
    probe's steps (between its clock reads, as measured). The hog is the sub-partition's first warp (the older),
    or with ``probe_older`` the probe is (``age_swap``)."""
    from warpsim.timing import sass_sim
    from warpsim.timing.params_sm90 import TABLE
    cfg = dict(TABLE["emulated"]["sass"], **options)
    clocks = [i for i, x in enumerate(sass["probe"]) if x.startswith("CS2R")]

    def steps(issued):
        return [int(v) for v in np.diff(issued[clocks])[1:]]
    hog = sass_sim.issue([sass["hog_trip"]], [0], [trips], cfg, TABLE["tensor"])[0]
    out = {"hog_alone": int(hog[-1]) + 1, "hog_shared": [], "probe_shared": []}
    for start in sorted(set(measured(runs)["probe_start"])):
        order = slice(None, None, -1 if probe_older else 1)
        h, p = sass_sim.issue([sass["hog_trip"], sass["probe"]][order], [0, start][order], [trips, 1][order], cfg,
                              TABLE["tensor"])[order]
        out["hog_shared"].append(int(h[-1]) + 1)
        out["probe_shared"] += steps(p)
    out["probe_alone"] = steps(sass_sim.issue([sass["probe"]], [0], [1], cfg, TABLE["tensor"])[0])
    return out


def table(doc: dict, **options) -> list[dict]:
    """Per clean cubin: the H100's mean probe step beside the hog and the replay's, and the hog's extra cycles."""
    rows = []
    every = cubins(doc)
    for name in CLEAN:
        sass, runs = every[name]
        m, r = measured(runs), replay(sass, runs, doc["hog_trips"], **options)
        rows.append({"cubin": name, "h100_step": float(np.mean(m["probe_shared"])),
                     "model_step": float(np.mean(r["probe_shared"])),
                     "h100_alone": float(np.mean(m["probe_alone"])), "model_alone": float(np.mean(r["probe_alone"])),
                     "h100_hog_extra": float(np.mean(m["hog_shared"]) - np.mean(m["hog_alone"])),
                     "model_hog_extra": float(np.mean(r["hog_shared"]) - r["hog_alone"])})
    return rows


def gap_table(doc: dict | None = None, rules: dict | None = None) -> list[dict]:
    """The cubins of ``doc`` (:data:`GAP` unless given, or :data:`GAP_IMAD`: the hog's FFMA or IMAD as ptxas set
    their yield flags, or yielding on every 4th / 8th / 16th): the H100's mean probe step beside the hog and the
    replay's under each of ``rules`` (:data:`GAP_RULES`)."""
    doc = doc or load(GAP)
    rows = []
    for name, v in [("plain", doc)] + sorted(doc["variants"].items(), key=lambda kv: kv[1]["every"]):
        row = {"cubin": name, "h100_step": float(np.mean(measured(v["runs"])["probe_shared"]))}
        for rule, options in (rules or GAP_RULES).items():
            row[rule] = float(np.mean(replay(v["sass"], v["runs"], 32, **options)["probe_shared"]))
        rows.append(row)
    return rows


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    if "--gap" in argv:
        rules = dict(GAP_RULES, **{"greedy (until 2026-11-27)": sass_sim.GREEDY})
        for path in (GAP, GAP_IMAD):
            doc = load(path)
            print(f"probe step beside an {doc['hog_op']} hog ({os.path.basename(path)}), cycles: H100 / "
                  + " / ".join(rules))
            for r in gap_table(doc, rules):
                print(f"  {r['cubin']:8s} {r['h100_step']:6.1f} / " + " / ".join(f"{r[k]:6.1f}" for k in rules))
        return 0
    doc = load()
    for name, opts in (("greedy (the table until 2026-11-27)", sass_sim.GREEDY),
                       ("yield_switch, hold 1", sass_sim.YIELD),
                       ("the table (yield_switch, hold 1, gap_turn)", {})):
        print(name)
        for r in table(doc, **opts):
            print(f"  {r['cubin']:14s} probe step beside the hog: H100 {r['h100_step']:6.1f}  model "
                  f"{r['model_step']:6.1f}   (alone {r['h100_alone']:.1f} / {r['model_alone']:.1f}); hog +"
                  f"{r['h100_hog_extra']:.0f} / +{r['model_hog_extra']:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
