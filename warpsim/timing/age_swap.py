"""A warp's age on its sub-partition: the scheduler probes run with their two warps swapped
(``traces/h100/age_swap.json``, ``traces/capture/age_swap.py``).

``loop_delay.json`` found the s4 pairs asymmetric (in phase only with the older warp ahead), and every scheduler
probe had had its hog on warp 0 and its probe on warp 4. The same probes, built once as recorded (``built``) and
once with the probe on warp 0 and the hog on warp 4 (``swapped``), the two builds in turn in one call, their loops
the same instruction for instruction. What the H100 does:

* **a warp that fills another's stall count mostly takes the turn whatever their ages**: of gap_stall's and
  gap_bank's 218 copies (an FFMA hog, a LOP3 chain at stall count 2-10, yielding or not, the register-bank forms)
  the swapped run's chain step is the built one's within 0.5 % in 200, to the cycle in most. One copy that does
  not yield shows an age every launch: a chain that keeps the turn at stall 4 without bank conflicts beside a hog
  yielding every 32nd FFMA, 10.67 cycles a step as the younger warp, 19.08 as the older. Three more of that set
  (stall 4 and 5, no conflicts) take two values in alternate launches built and one swapped;
* **where a warp yields at stall count 2, the younger warp does better**: the other copies that differ are the
  chains that yield at stall 2 (the older chain 1.6-2.3 % slower beside a hog yielding every 4th FFMA, 5.2 %
  every 8th); ``sched_probe``'s probe
  (ALU against ALU, both yielding on stall-2 LOP3) takes 9 % longer a step as the older warp (35.7 cycles
  against 32.8: fewer steps the hog leaves alone, more that wait three hog stretches), in launches of either
  slot assignment; ``sched_gap``'s beside an FFMA hog 0.5-5 % longer.

``sass_sim`` tells the two warps apart only by their turn, so it replays a run alike with the probe as the
younger or the older warp (:func:`blind`; :func:`table` sets each build's runs beside their replay). The s4
routines are ALU stretches at stall count 2 with yields; an edge of the younger warp there is the asymmetry
``loop_delay`` shows (a younger warp that leads runs away, one that follows
closes up), and the rule that gives it is not found (traces/h100/TIMING_FINDINGS.md, "A warp's age").

    python -m warpsim.timing.age_swap      # the H100's steps, built and swapped, beside the replay's
"""
from __future__ import annotations

import collections
import os
import sys

import numpy as np

from warpsim.timing import gap_stall, measurement, sched_probe

PATH = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "h100", "age_swap.json")
BUILDS = ("built", "swapped")
#: the sched_probe / sched_gap copies (``variant`` of the rows, ``loops`` of the file)
SCHED = ("sched_probe", "sched_gap", "sched_gap_yield4", "sched_gap_yield8", "sched_gap_yield16")


def load(path: str = PATH) -> dict:
    doc = measurement.load(path, "age_swap", ("rows", "loops"))
    loops = doc["loops"]
    if set(loops.get("builds", ())) != set(BUILDS) or not set(SCHED) <= set(loops.get("loops", ())) or \
            {r.get("build") for r in doc["rows"]} != set(BUILDS):
        raise ValueError(f"{path}: not both builds ({', '.join(BUILDS)}) or a copy's loops missing")
    if (loops.get("steps"), loops.get("probe_trips")) != (gap_stall.STEPS, gap_stall.PROBE_TRIPS):
        raise ValueError(f"{path}: not {gap_stall.PROBE_TRIPS} trips of {gap_stall.STEPS} chain steps")
    return doc


def gap_steps(doc: dict) -> dict:
    """``{(experiment, variant): {build: cycles a chain step}}`` of the gap_stall / gap_bank rows (the median over
    launches of ``gap_stall``'s step: the median of trips 2-8)."""
    got: dict = {}
    for r in doc["rows"]:
        if r["experiment"] in ("gap_stall", "gap_bank"):
            got.setdefault((r["experiment"], r["variant"]), {}).setdefault(r["build"], []).append(gap_stall._step(r))
    return {k: {b: float(np.median(v[b])) for b in BUILDS} for k, v in got.items()}


def gap_differ(doc: dict, within: float = 0.005) -> tuple[int, list]:
    """``(copies, [(experiment, variant, built, swapped)])``: of the gap copies, those whose swapped step is not
    within ``within`` of the built one."""
    steps = gap_steps(doc)
    out = [(e, v, s["built"], s["swapped"]) for (e, v), s in sorted(steps.items())
           if abs(s["swapped"] / s["built"] - 1) > within]
    return len(steps), out


def sched_runs(doc: dict, variant: str, build: str) -> list:
    """The rows of one sched copy and build, as ``sched_probe.measured`` reads them."""
    return [r for r in doc["rows"] if r["variant"] == variant and r["build"] == build]


def hog_trips(sass: dict, runs: list) -> int:
    """The trips of the hog's SASS loop a run's ``hog_n`` makes: ``hog_n`` x 64 of its instruction (LOP3, FFMA)
    over the loop's count of them (ptxas unrolls the source loop of 64)."""
    ops = collections.Counter(x.split()[0] for x in sass["hog_trip"]).most_common(1)[0][1]
    return max(r["hog_n"] for r in runs) * 64 // ops


def _replay(doc: dict, variant: str, build: str, probe_older: bool, **options) -> float:
    sass, runs = doc["loops"]["loops"][variant], sched_runs(doc, variant, build)
    got = sched_probe.replay(sass, runs, hog_trips(sass, runs), probe_older, **options)
    return float(np.mean(got["probe_shared"]))


def table(doc: dict | None = None, **options) -> list[dict]:
    """Per sched copy: the H100's mean probe step beside the hog, built and swapped, and the replay's (the table
    with ``options``) of each build's runs, the probe the younger warp in the built ones and the older in the
    swapped ones."""
    doc = doc or load()
    rows = []
    for variant in SCHED:
        row = {"copy": variant}
        for build in BUILDS:
            row[build] = float(np.mean(sched_probe.measured(sched_runs(doc, variant, build))["probe_shared"]))
            row[f"model_{build}"] = _replay(doc, variant, build, build == "swapped", **options)
        rows.append(row)
    return rows


def blind(doc: dict | None = None, **options) -> dict:
    """``{copy: (as the younger, as the older)}``: the replay's mean probe step of the copy's swapped runs with
    the probe the younger warp and the older: the same where the replay has no age."""
    doc = doc or load()
    return {v: (_replay(doc, v, "swapped", False, **options), _replay(doc, v, "swapped", True, **options))
            for v in SCHED}


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    doc = load()
    n, differ = gap_differ(doc)
    print(f"gap_stall / gap_bank copies, cycles a chain step: {n - len(differ)} of {n} the same within 0.5 % "
          "built and swapped; the others (built / swapped):")
    for e, v, b, s in differ:
        print(f"  {e:9s} {v:24s} {b:6.2f} / {s:6.2f}  {100 * (s / b - 1):+5.1f} %")
    print("probe step beside the hog, cycles: H100 built / swapped, the replay built / swapped")
    for r in table(doc, **measurement.options_in(argv)):
        print(f"  {r['copy']:18s} {r['built']:6.1f} / {r['swapped']:6.1f}   {r['model_built']:6.1f} / "
              f"{r['model_swapped']:6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
