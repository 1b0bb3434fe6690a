"""How the H100's SM fetches instructions (``traces/h100/ifetch.json``, ``traces/capture/ifetch.py``) beside
:mod:`warpsim.timing.sass_sim`'s instruction fetch (the table's ``emulated["sass"]["fetch"]``).

Every active warp of one CTA runs 8 trips of N straight-line FFMA (4 KB .. 262 KB of SASS) on 8 independent
chains (one instruction a cycle when the code is there) or one (one every 4 cycles). What the runs show, cycles
an instruction of a later trip:

* up to 1,546 instructions (25 KB) a trip runs at the issue rate (1.02 / 4.01); at 2,058 (32.9 KB) the fast
  loop slows to 1.15: an L0 instruction cache of about 32 KB a sub-partition;
* from 49 KB to 98 KB the fast loop runs at 2.22-2.23 cycles an instruction, one 128-byte line of code every
  17.8 cycles from an SM-wide cache; the slow loop (32 cycles a line) keeps its rate;
* 131 KB: 2.56 / 4.19; 197 KB and more: 5.65 / 5.67, both loops, a line every 45 cycles: past a cache of
  131-197 KB the code comes from the L2. Both rates are the same for the fast and the slow loop, so a warp
  asks for a line when it starts the one before and waits for it;
* four warps, one a sub-partition, run as fast as one; two warps on one sub-partition that run the same code
  share its lines, and (the second experiment, warps on sub-partition 0 running copies that share no code)
  two warps with code of their own each keep the one-warp rate, four slow ones too: no port that the warps of
  a sub-partition share. Four copies past the SM cache come from the L2 at one line every 12.7-12.9 cycles in all;
* the same kernel launched again (same SM, 124 in every launch) starts with its code cached: its first trip
  is a later one, up to the SM cache's size. The process's first launch of a kernel fetches its first trip at
  about 2.2 cycles an instruction up to 66 KB and 4-5 beyond.

So ``sass_sim`` holds (the table's ``fetch``) a warp's next instruction until its 128-byte line is in the
sub-partition's L0 (``l0_lines`` lines, LRU); a warp starting a line asks for the ``ahead`` lines after it;
a line not in the L0 is there ``latency`` cycles later from the SM's cache (``l1i_lines``), or ``l2_latency``
from the L2, whose lines pass the SM's port one every ``l2_ii`` cycles (``ii``: a port of the sub-partition's
own, 0: none). The caches start holding the loop's code (a launch finds the code of the launches before it).
:func:`replay` and :func:`replay_distinct` run the probe's own SASS through it.

``traces/h100/branch_fetch.json`` (``traces/capture/branch_fetch.py``) measured what a taken branch costs: one
warp's loop of up to 45 code lines pays its closing branch as the replay did, one of 49 or more 11 cycles more,
and loops that branch over up to 1,024 instructions of their own code but run 12 lines pay nothing more for it:
a sub-partition keeps its last ``near_lines`` lines near and a branch to another costs ``near_miss`` cycles
(:func:`replay_branch`). ``traces/h100/regbank.json`` (``traces/capture/regbank.py``) ran the one-chain loop of
that file with its FFMA reading registers of one or both of the register file's two banks (:func:`measured_regbank`;
``sass_sim``'s ``banks``), and ``traces/h100/regbank_slack.json`` (``traces/capture/regbank_slack.py``) the same
chain with its stall count raised to 5, 6 and 8 (:func:`measured_slack`): two to four warps lose a cycle for each
other warp's second read from a bank even where the bank's rate leaves room (``sass_sim``'s ``bank_freeze``);
``traces/h100/regbank_alu.json`` (``traces/capture/regbank_alu.py``) a chain of LOP3 the same way (:func:`measured_alu`):
the ALU's instructions lose no such cycle.

    python -m warpsim.timing.ifetch            # the H100's cycles beside the replay's
    python -m warpsim.timing.ifetch --branch   # branch_fetch.json beside the replay
    python -m warpsim.timing.ifetch --regbank  # regbank.json beside the replay with the register banks
    python -m warpsim.timing.ifetch --slack    # regbank_slack.json beside the replay, with and without bank_freeze
    python -m warpsim.timing.ifetch --alu      # regbank_alu.json (LOP3 chains) beside the replay, the same way
"""
from __future__ import annotations

import os
import sys
from collections import defaultdict

import numpy as np

from warpsim.timing import measurement, sass_sim

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "traces", "h100", "ifetch.json")
#: what a taken branch costs by the code run since its target (``traces/capture/branch_fetch.py``)
BRANCH = os.path.join(HERE, "..", "..", "traces", "h100", "branch_fetch.json")
#: warps of one sub-partition reading registers of the same bank (``traces/capture/regbank.py``)
REGBANK = os.path.join(HERE, "..", "..", "traces", "h100", "regbank.json")
#: the same chain with longer stall counts (``traces/capture/regbank_slack.py``)
SLACK = os.path.join(HERE, "..", "..", "traces", "h100", "regbank_slack.json")
#: a chain of LOP3 (the ALU) with longer stall counts (``traces/capture/regbank_alu.py``)
ALU = os.path.join(HERE, "..", "..", "traces", "h100", "regbank_alu.json")
#: placements of the runs: sub-partition populations
PLACEMENTS = {"one": (1, 0, 0, 0), "sp0x2": (2, 0, 0, 0), "spread4": (1, 1, 1, 1), "spread8": (2, 2, 2, 2)}


def load(path: str = DATA) -> dict:
    return measurement.load(path, "ifetch", ("rows", "loops"))


def kernel(n: int, chains: int) -> str:
    return f"ifetch_{n}_{chains}"


def _together(stamps: dict) -> float:
    """The warps' mean trip while all of them run: each warp's median over its trips after the first that lie
    between the last warp's start and the first warp's end (the warps start up to ~1,000 cycles apart), all of
    its later trips if none do."""
    st = {w: np.array(s, np.int64) for w, s in stamps.items()}
    lo, hi = max(s[0] for s in st.values()), min(s[-1] for s in st.values())
    got = []
    for s in st.values():
        trips = np.diff(s)[1:]
        inside = trips[(s[1:-1] >= lo) & (s[2:] <= hi)]
        got.append(float(np.median(inside if len(inside) else trips)))
    return float(np.mean(got))


def measured(doc: dict | None = None) -> dict:
    """``{(n, chains, placement): (first trip, later trip)}`` in cycles, the active warps' mean: the first trip
    of the kernel's later launches (its code cached), the median over launches of :func:`_together`."""
    doc = doc or load()
    first, later = defaultdict(list), defaultdict(list)
    for r in doc["rows"]:
        key = (r["n"], r["chains"], r["placement"])
        later[key].append(_together(r["stamps"]))
        if r["repeat"] > 0:
            first[key].append(float(np.mean([s[1] - s[0] for s in r["stamps"].values()])))
    return {k: (float(np.median(first[k])), float(np.median(later[k]))) for k in later}


def cold(doc: dict | None = None) -> dict:
    """``{(n, chains): extra cycles}``: the process's first launch of a kernel (one warp), its first trip over
    the same trip of the kernel's later launches."""
    doc = doc or load()
    got = {}
    for r in doc["rows"]:
        if r["placement"] == "one":
            t0 = float(np.diff(r["stamps"]["0"])[0])
            got.setdefault((r["n"], r["chains"]), []).append((r["repeat"], t0))
    return {k: next(t for rep, t in v if rep == 0) - float(np.median([t for rep, t in v if rep > 0]))
            for k, v in got.items()}


def body(doc: dict, name: str) -> tuple[list, list]:
    """The loop of kernel ``name`` (encoded SASS lines) and the 128-byte code line of each instruction."""
    loop = doc["loops"][name]
    lines = measurement.expanded(loop["body"])
    return lines, [(loop["at"] + j) // 8 for j in range(len(lines))]


def replay(doc: dict | None = None, sizes=None, **fetch) -> dict:
    """The keys of :func:`measured` (only ``sizes`` if given), from ``sass_sim`` running each kernel's loop
    under the table's ``emulated["sass"]`` entry with its ``fetch`` updated by ``fetch``."""
    from warpsim.timing.params_sm90 import TABLE
    doc = doc or load()
    cfg = sass_sim.probe_cfg(fetch=fetch)
    loops = {}
    for n, chains in sorted({(n, c) for n, c, _p in measured(doc)}):
        if sizes is None or n in sizes:
            lines, code = body(doc, kernel(n, chains))
            loops[(n, chains)] = sass_sim.Loop(lines, cfg, TABLE["tensor"], code)
    sass_sim.prefetch([(loop, pop) for loop in loops.values() for pop in PLACEMENTS.values()])
    out = {}
    for (n, chains), loop in loops.items():
        for place, pop in PLACEMENTS.items():
            trip = loop.cycles(pop)
            out[(n, chains, place)] = tuple(float(np.mean([trip[s][i] for s in range(4) if pop[s]]))
                                            for i in (0, 1))
    return out


def measured_distinct(doc: dict | None = None) -> dict:
    """``{(n, chains, warps, copies): cycles}``: warps on one sub-partition running ``copies`` loops that share
    no code, from the first warp's loop start to the last one's end (the sub-partition's issue slots are the
    limit for four fast warps, which the scheduler runs partly one after another), median over launches."""
    doc = doc or load()
    got = defaultdict(list)
    for r in doc["distinct_rows"]:
        st = r["stamps"].values()
        got[(r["n"], r["chains"], r["warps"], r["copies"])].append(max(s[-1] for s in st) - min(s[0] for s in st))
    return {k: float(np.median(v)) for k, v in got.items()}


def replay_distinct(doc: dict | None = None, **fetch) -> dict:
    """The keys of :func:`measured_distinct`, from ``sass_sim.issue`` running the warps' copies (warp k the
    (k mod copies)-th loop of the kernel's code), all from cycle 0, with the table's ``fetch`` updated by
    ``fetch``."""
    from warpsim.timing.params_sm90 import TABLE
    doc = doc or load()
    cfg = sass_sim.table_cfg(fetch=fetch)
    out = {}
    for n, chains, warps, copies in measured_distinct(doc):
        loops = doc["distinct_loops"][f"ifetchd_{n}_{chains}"]
        progs, code = [], []
        for k in range(warps):
            loop = loops[k % copies]
            progs.append(measurement.expanded(loop["body"]))
            code.append([(loop["at"] + j) // 8 for j in range(len(progs[-1]))])
        trips = len(doc["distinct_rows"][0]["stamps"]["0"]) - 1
        logs = sass_sim.issue(progs, [0] * warps, [trips] * warps, cfg, TABLE["tensor"], code)
        out[(n, chains, warps, copies)] = float(max(log[-1] for log in logs) + 1)
    return out


def load_branch(path: str = BRANCH) -> dict:
    return measurement.load(path, "branch_fetch", ("rows", "loops"))


def load_regbank(path: str = REGBANK) -> dict:
    return measurement.load(path, "regbank", ("rows", "loops"))


#: the placements of ``regbank.json``: warps on sub-partition 0
REGBANK_PLACEMENTS = {"one": (1, 0, 0, 0), "sp0x2": (2, 0, 0, 0), "sp0x3": (3, 0, 0, 0), "sp0x4": (4, 0, 0, 0)}


def measured_regbank(doc: dict | None = None) -> dict:
    """``{(kernel, variant, placement): cycles}`` of ``regbank.json``: a later trip, the median over the active
    warps' trips after the first and over the launches."""
    return _later_trips((doc or load_regbank())["rows"], ("kernel", "variant"))


def replay_regbank(doc: dict | None = None, **overrides) -> dict:
    """The keys of :func:`measured_regbank` from ``sass_sim`` with the register file's banks (``banks``; the
    register operands of each copy's instructions from the file) under the probe table with ``overrides``."""
    doc = doc or load_regbank()

    def loop_of(kernel, variant):
        return body(doc, kernel), "FFMA", None, doc["loops"]["operands"][kernel][variant]
    return _replay_copies(measured_regbank(doc), loop_of, overrides)


def load_slack(path: str = SLACK) -> dict:
    return measurement.load(path, "regbank_slack", ("rows", "loops"))


def measured_slack(doc: dict | None = None) -> dict:
    """``{(kernel, variant, placement): cycles}`` of ``regbank_slack.json`` (as :func:`measured_regbank`)."""
    return _later_trips((doc or load_slack())["rows"], ("kernel", "variant"))


def replay_slack(doc: dict | None = None, regbank: dict | None = None, **overrides) -> dict:
    """The keys of :func:`measured_slack` from ``sass_sim`` under the probe table with ``overrides``: each copy is
    ``regbank.json``'s loop with the registers of the copy there that reads the same b and c, and the chain's
    steps (ptxas's stall count of 4) waiting the copy's stall count."""
    doc, regbank = doc or load_slack(), regbank or load_regbank()
    copies = {tuple(v): k for k, v in regbank["loops"]["variants"].items() if v}

    def loop_of(kernel, variant):
        b, c, stall = doc["loops"]["variants"][variant]
        return body(regbank, kernel), "FFMA", stall, regbank["loops"]["operands"][kernel][copies[(b, c)]]
    return _replay_copies(measured_slack(doc), loop_of, overrides)


def load_alu(path: str = ALU) -> dict:
    return measurement.load(path, "regbank_alu", ("rows", "loops"))


def measured_alu(doc: dict | None = None) -> dict:
    """``{(kernel, variant, placement): cycles}`` of ``regbank_alu.json`` (as :func:`measured_regbank`)."""
    return _later_trips((doc or load_alu())["rows"], ("kernel", "variant"))


def replay_alu(doc: dict | None = None, **overrides) -> dict:
    """The keys of :func:`measured_alu` from ``sass_sim`` under the probe table with ``overrides``: the file's LOP3
    loop with each copy's registers and the chain's steps waiting the copy's stall count."""
    doc = doc or load_alu()

    def loop_of(kernel, variant):
        return body(doc, kernel), "LOP3", doc["loops"]["variants"][variant][2], doc["loops"]["operands"][variant]
    return _replay_copies(measured_alu(doc), loop_of, overrides)


def _replay_copies(measured: dict, loop_of, overrides: dict) -> dict:
    """``measured``'s keys replayed: ``loop_of(kernel, variant)`` gives the loop's ``(lines, code)``, the chain's
    opcode, the copy's stall count for its steps (those at ptxas's 4; None: as compiled) and the copy's run-length
    coded operands."""
    from warpsim.timing.params_sm90 import TABLE
    cfg = sass_sim.probe_cfg(**{"banks": True, **overrides})
    loops: dict = {}
    out = {}
    for kernel, variant, place in measured:
        if (kernel, variant) not in loops:
            (lines, code), op, stall, operands = loop_of(kernel, variant)
            if stall is not None:
                step = f"{op} 4 "
                lines = [f"{op} {stall} " + x[len(step):] if x.startswith(step) else x for x in lines]
            loops[(kernel, variant)] = sass_sim.Loop(lines, cfg, TABLE["tensor"], code, measurement.expanded(operands))
    sass_sim.prefetch([(loops[(k, v)], REGBANK_PLACEMENTS[p]) for k, v, p in measured])
    for kernel, variant, place in measured:
        out[(kernel, variant, place)] = loops[(kernel, variant)].cycles(REGBANK_PLACEMENTS[place])[0][1]
    return out


def _later_trips(rows: list, names) -> dict:
    """``{(row[name] for name in names, placement): the median of the active warps' trips after the first over the
    rows}``."""
    names = (names,) if isinstance(names, str) else names
    got = defaultdict(list)
    for r in rows:
        got[tuple(r[n] for n in names) + (r["placement"],)] += [float(d) for s in r["stamps"].values()
                                                                 for d in np.diff(s)[1:]]
    return {k: float(np.median(v)) for k, v in got.items()}


def measured_branch(doc: dict | None = None) -> dict:
    """``{(kernel, placement): cycles}`` of ``branch_fetch.json``: a later trip of the loop, the median over the
    active warps' trips after the first and over the launches."""
    return _later_trips((doc or load_branch())["rows"], "kernel")


def executed(loop: dict) -> tuple[list, list]:
    """What a trip of a ``branch_fetch`` loop runs (encoded SASS lines; a skip loop's block left out) and the
    128-byte code line of each instruction."""
    lines = measurement.expanded(loop["body"])
    index = list(range(len(lines)))
    if "skip" in loop:
        i, j = loop["skip"]
        index = index[:i + 1] + index[j:]
    return [lines[k] for k in index], [(loop["at"] + k) // 8 for k in index]


def replay_branch(doc: dict | None = None, **fetch) -> dict:
    """The keys of :func:`measured_branch` from ``sass_sim`` running each loop (:func:`executed`) alone or two
    on sub-partition 0, with the table's ``fetch`` updated by ``fetch``."""
    from warpsim.timing.params_sm90 import TABLE
    doc = doc or load_branch()
    cfg = sass_sim.probe_cfg(fetch=fetch)
    runs = list(measured_branch(doc))
    loops: dict = {}
    for kernel_name, _place in runs:
        if kernel_name not in loops:
            lines, code = executed(doc["loops"][kernel_name])
            loops[kernel_name] = sass_sim.Loop(lines, cfg, TABLE["tensor"], code)
    sass_sim.prefetch([(loops[k], PLACEMENTS[p]) for k, p in runs])
    return {(k, p): loops[k].cycles(PLACEMENTS[p])[0][1] for k, p in runs}


def branch_table(doc: dict | None = None) -> str:
    """``branch_fetch.json`` beside the replay: per loop its code lines, the H100's later trip, the replay's."""
    doc = doc or load_branch()
    hw, model = measured_branch(doc), replay_branch(doc)
    rows = ["a later trip, H100 / sass_sim (cycles); lines: the 128-byte code lines a trip runs"]
    for k in hw:
        _, code = executed(doc["loops"][k[0]])
        rows.append(f"{k[0]:>14} {k[1]:>6} {len(set(code)):4} lines {hw[k]:8.0f}/{model[k]:<8.0f}")
    return "\n".join(rows)


def ratios(cycles: dict) -> dict:
    """``{(kernel, variant, placement): cycles over one warp's}`` of :func:`measured_regbank`-like ``cycles``."""
    return {(k, v, p): c / cycles[(k, v, "one")] for (k, v, p), c in cycles.items()}


def _bank_rows(hw: dict, models: list) -> list:
    """Per loop and copy: one warp's trip and 2 / 3 / 4 warps' over it, the H100's then each of ``models``'."""
    rows = []
    for kernel, variant in dict.fromkeys((k, v) for k, v, _p in hw):
        one = "/".join(f"{m[(kernel, variant, 'one')]:.0f}" for m in [hw] + models)
        cells = ["/".join(f"{r[(kernel, variant, p)]:.3f}" for r in map(ratios, [hw] + models))
                 for p in list(REGBANK_PLACEMENTS)[1:]]
        rows.append(f"{kernel:12} {variant:8} {one:>16} " + " ".join(f"{c:>19}" for c in cells))
    return rows


def regbank_table(doc: dict | None = None) -> str:
    """``regbank.json`` beside the replay: per loop and register copy the trip of one warp and of 2-4 warps on one
    sub-partition over one warp's, H100 / sass_sim as the table has it / without ``bank_freeze``."""
    doc = doc or load_regbank()
    return _copies_table(measured_regbank(doc), [replay_regbank(doc), replay_regbank(doc, bank_freeze=False)],
                         "the registers b and c")


def slack_table(doc: dict | None = None) -> str:
    """``regbank_slack.json`` beside the replay, as :func:`regbank_table`."""
    doc = doc or load_slack()
    return _copies_table(measured_slack(doc), [replay_slack(doc), replay_slack(doc, bank_freeze=False)])


def alu_table(doc: dict | None = None) -> str:
    """``regbank_alu.json`` beside the replay, as :func:`regbank_table`."""
    doc = doc or load_alu()
    return _copies_table(measured_alu(doc), [replay_alu(doc), replay_alu(doc, bank_freeze=False)])


def _copies_table(hw: dict, models: list, copy: str = "b, c and the chain's stall count") -> str:
    """The H100's runs ``hw`` beside the replays ``models`` (the table's, then without ``bank_freeze``), a copy
    being ``copy``: per loop and copy (:func:`_bank_rows`) under a header."""
    return "\n".join(["a later trip of one warp (cycles), and of 2 / 3 / 4 warps on one sub-partition over it: H100 / "
                      f"sass_sim / sass_sim without bank_freeze; copy: {copy} (loops.variants)"] + _bank_rows(hw, models))


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    for flag, table in (("--branch", branch_table), ("--regbank", regbank_table), ("--slack", slack_table),
                        ("--alu", alu_table)):
        if flag in argv:
            print(table())
            return 0
    doc = load()
    hw, model, first = measured(doc), replay(doc), cold(doc)
    print("cycles a later trip (an instruction), H100 / sass_sim; cold: the first launch's extra first-trip cycles")
    print(f"{'N':>6} {'KB':>5} {'chains':>6} " + " ".join(f"{p:>17}" for p in PLACEMENTS) + f" {'cold':>7}")
    for (n, chains) in sorted({(n, c) for n, c, _p in hw}, key=lambda k: (-k[1], k[0])):
        kb = doc["loops"][kernel(n, chains)]["bytes"] / 1000
        cells = []
        for p in PLACEMENTS:
            h, m = hw[(n, chains, p)][1], model[(n, chains, p)][1]
            cells.append(f"{h:7.0f}/{m:7.0f}".rjust(17))
        print(f"{n:6} {kb:5.0f} {chains:6} " + " ".join(cells) + f" {first[(n, chains)]:7.0f}")
    hw, model = measured_distinct(doc), replay_distinct(doc)
    print("\nwarps on sub-partition 0 running copies of the loop that share no code: cycles from the first loop "
          "start to the last loop end, H100 / sass_sim")
    for k in sorted(hw, key=lambda k: (-k[1], k[0], k[2], k[3])):
        print(f"{k[0]:6} chains {k[1]}  {k[2]} warps {k[3]} copies {hw[k]:9.0f}/{model[k]:7.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
