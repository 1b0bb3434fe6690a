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

The same kernel with the two warps' operands patched too (``traces/h100/gap_bank.json``,
``traces/capture/gap_bank.py``): the hog's FFMA as built (``reuse``: ``Rd, Rd, R4.reuse, R5.reuse``), without
reuse bits (``conflict``: Rd and R4 both from bank 0) or as ``Rd, Rd, R7, R7`` (``free``: one register a bank);
the chain's LOP3 as built (``lop``: R9 and R3 both from bank 1) or ``R9, R9, R2, R2`` (``lopfree``). A grid (stall
counts 2, 3, 4, 6, yielding or not, the hog yielding every 4th or 16th FFMA, every form) and a period set (chains
that keep the turn at stall 3-5, the hog yielding every 2nd-32nd FFMA or never, both warps free or both as
built). The replay with the register banks (the copies' operands). What the H100 does:

* the hog alone: a yielding FFMA that reads R4 from bank 0 beside Rd (its reuse bits cleared by the yield) costs
  nothing more than the yield (92 / 80 cycles a trip yielding every 4th / 16th, reuse or free alike); every FFMA
  reading two registers of one bank costs a cycle (140 / 137);
* the partial takes at stall 3-5 are not a rule of the stall count alone: they move with the banks and with the
  hog's yield period, and not monotonically. Without any bank conflict a chain that keeps the turn at stall 4
  runs 7.2 cycles a step beside a hog that never yields (20.1 as built: the hog lets it in only at its branch)
  and 6.2 / 7.8 / 10.7 with the hog yielding every 16th / 24th / 32nd; at stall 3 19.8 without yields and 7.5 /
  13.5 / 6.2 at every 16th / 24th / 32nd;
* a chain with its own conflict (``lop``) beside a hog reading R7 from bank 1 every cycle (``free``) at stall 6
  runs 9.2 cycles a step with the hog yielding every 4th, 6.3 without the conflict.

    python -m warpsim.timing.gap_stall            # the H100's probe steps and hog trips beside the replay's
    python -m warpsim.timing.gap_stall --banks    # gap_bank.json: the same with the operands patched
"""
from __future__ import annotations

import os
import sys
from functools import lru_cache

import numpy as np

from warpsim.timing import measurement, sass_sim

PATH = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "h100", "gap_stall.json")
BANKS = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "h100", "gap_bank.json")
STEPS = 264      # the probe's chain steps a trip (the file's loops["steps"])
PROBE_TRIPS = 8  # the probe's trips, the first not counted (loops["probe_trips"])
#: the rules :func:`table` sets beside the H100: the table's, and the loop branch as this probe shows it (keeps
#: the sub-partition one cycle, the hog's next instruction 10 cycles after it)
RULES = {"table": {}, "branch as measured here": {"keep_cycles": 1, "redirect": {"BRA": 4}}}


@lru_cache(maxsize=4)
def load(path: str = PATH, kind: str = "gap_stall") -> dict:
    """``gap_stall.json`` (or, ``kind`` "gap_bank", ``gap_bank.json``, whose loops carry their operands)."""
    doc = measurement.load(path, kind, ("rows", "loops"))
    loops = doc["loops"]
    if set(loops.get("loops", ())) != set(loops.get("variants", ())) or not doc["rows"] or \
            (loops.get("steps"), loops.get("probe_trips")) != (STEPS, PROBE_TRIPS):
        raise ValueError(f"{path}: variants without loops, no runs, or not {PROBE_TRIPS} trips of {STEPS} steps")
    if kind == "gap_bank" and any("probe_operands" not in v or "hog_operands" not in v
                                  for v in loops["loops"].values()):
        raise ValueError(f"{path}: loops without their operands (probe_operands, hog_operands)")
    return doc


def load_banks(path: str = BANKS) -> dict:
    return load(path, "gap_bank")


def _step(row: dict) -> float:
    """Cycles a probe step of one launch: the median of its trips after the first."""
    p = np.asarray(row["probe"][:PROBE_TRIPS + 1], np.int64)
    return float(np.median(np.diff(p)[1:] / STEPS))


def _hog_trip(row: dict, doc: dict) -> float:
    """Cycles a hog trip of one launch (its first clock to its last, over its trips)."""
    return (row["hog_clocks"][1] - row["hog_clocks"][0]) / doc["loops"]["hog_trips"]


def _medians(runs: dict) -> dict:
    return {k: float(np.median(v)) for k, v in runs.items()}


def measured(doc: dict | None = None) -> tuple[dict, dict]:
    """``({(variant, hog beside): cycles a probe step}`` (the median over repeats of the median of trips 2-8) and
    ``{variant: the hog's cycles a trip})`` (its 6,000 trips, the probe beside it for the first few hundred)."""
    doc = doc or load()
    steps: dict = {}
    hog: dict = {}
    for r in doc["rows"]:
        steps.setdefault((r["variant"], r["hog"]), []).append(_step(r))
        if r["hog"]:
            hog.setdefault(r["variant"], []).append(_hog_trip(r, doc))
    return _medians(steps), _medians(hog)


def measured_banks(doc: dict | None = None) -> tuple[dict, dict]:
    """``gap_bank.json``'s ``({variant: cycles a probe step}`` (as :func:`measured`) and ``{variant: the hog's
    cycles a trip alone})`` (the copies that also ran the hog without the probe)."""
    doc = doc or load_banks()
    steps: dict = {}
    hog: dict = {}
    for r in doc["rows"]:
        if r["probe_runs"]:
            steps.setdefault(r["variant"], []).append(_step(r))
        else:
            hog.setdefault(r["variant"], []).append(_hog_trip(r, doc))
    return _medians(steps), _medians(hog)


def _warps(loops: dict, names: tuple) -> tuple[list, list | None]:
    """The programs of warps ``names`` of a copy's ``loops`` and their operands (None if the file has none)."""
    programs = [measurement.expanded(loops[n]) for n in names]
    if f"{names[0]}_operands" not in loops:
        return programs, None
    return programs, [measurement.expanded(loops[f"{n}_operands"]) for n in names]


def replay(variant: str, hog: bool = True, doc: dict | None = None, **options) -> float:
    """sass_sim's cycles a probe step of ``variant`` (the table with ``options``), with the hog or alone; with
    the register banks where the file holds the operands (``gap_bank.json``)."""
    from warpsim.timing.params_sm90 import TABLE
    names = ("hog", "probe") if hog else ("probe",)
    programs, operands = _warps((doc or load())["loops"]["loops"][variant], names)
    trips = [3000, PROBE_TRIPS][-len(names):]  # the hog runs past the probe's last trip
    issued = sass_sim.issue(programs, [0] * len(names), trips, sass_sim.probe_cfg(**options), TABLE["tensor"],
                            operands=operands)[-1]
    return float(np.median(np.diff(issued[::len(programs[-1])])[1:] / STEPS))


def replay_hog(variant: str, doc: dict | None = None, trips: int = 40, **options) -> float:
    """sass_sim's cycles a trip of the hog of ``variant`` alone (the trips after the first)."""
    from warpsim.timing.params_sm90 import TABLE
    programs, operands = _warps((doc or load())["loops"]["loops"][variant], ("hog",))
    issued = sass_sim.issue(programs, [0], [trips], sass_sim.probe_cfg(**options), TABLE["tensor"],
                            operands=operands)[0]
    return float((issued[-1] - issued[len(programs[0]) - 1]) / (trips - 1))


def _table(doc: dict, h100: dict, rules: dict | None) -> list[dict]:
    """Per variant of ``doc``: the H100's cycles a probe step beside the hog (``h100[variant]``) and each rule's."""
    return [{"variant": v, "h100": h100[v], **{name: replay(v, True, doc, **opts)
                                               for name, opts in (rules or RULES).items()}}
            for v in doc["loops"]["variants"]]


def table(rules: dict | None = None, doc: dict | None = None) -> list[dict]:
    """Per variant: the H100's cycles a probe step beside the hog and each rule's (``rules``, :data:`RULES`)."""
    doc = doc or load()
    hw, _ = measured(doc)
    return _table(doc, {v: hw[(v, True)] for v in doc["loops"]["variants"]}, rules)


def table_banks(rules: dict | None = None, doc: dict | None = None) -> list[dict]:
    """:func:`table` of ``gap_bank.json`` (the replay with the register banks)."""
    doc = doc or load_banks()
    return _table(doc, measured_banks(doc)[0], rules)


def _banks_grid(rows: dict) -> None:
    forms = [f"{f}_{c}" for f in ("reuse", "conflict", "free") for c in ("lop", "lopfree")]
    print("the grid, cycles a chain step: H100 / " + " / ".join(RULES) + ", by the forms " + ", ".join(forms))
    for s in (2, 3, 4, 6):
        for y in "yn":
            for h in (4, 16):
                got = [rows[f"s{s}{y}_h{h}_{f}"] for f in forms]
                cells = ("/".join(f"{r[k]:.1f}" for k in ("h100", *RULES)) for r in got)
                print(f"  s{s}{y} h{h:<2d} " + "  ".join(cells))


def periods(doc: dict) -> list[int]:
    """The hog's yield periods of ``gap_bank.json``'s period set (every n-th FFMA, 0: never): those its stall-5
    chains ran beside (the grid has no stall 5)."""
    return sorted({h for s, _y, h, _f, _c in doc["loops"]["variants"].values() if s == 5})


def _banks_periods(rows: dict, every: list) -> None:
    print("the period set, cycles a chain step that keeps the turn, by the hog's yield period (every n-th FFMA, "
          "0: never)")
    print(f"  {'':24s}" + "".join(f"{h:>7d}" for h in every))
    for s in (3, 4, 5):
        for form in ("free_lopfree", "reuse_lop"):
            for k in ("h100", *RULES):
                cells = (f"{rows[f's{s}n_h{h}_{form}'][k]:7.2f}" for h in every)
                print(f"  s{s}n {form:12s} {k[:6]:6s} " + "".join(cells))


def main_banks() -> int:
    doc = load_banks()
    _, hog = measured_banks(doc)
    print("the hog alone, cycles a trip: H100 / the table")
    for v, cycles in hog.items():
        print(f"  {v.split('_', 1)[1].rsplit('_', 1)[0]:14s} {cycles:6.1f} / {replay_hog(v, doc):6.1f}")
    rows = {r["variant"]: r for r in table_banks(doc=doc)}
    _banks_grid(rows)
    _banks_periods(rows, periods(doc))
    for k in RULES:
        err = np.array([abs(r[k] / r["h100"] - 1) for r in rows.values()])
        print(f"{k}: {int((err < 0.05).sum())} of {len(rows)} within 5 % (median {100 * np.median(err):.1f} %)")
    return 0


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    if "--banks" in argv:
        return main_banks()
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
