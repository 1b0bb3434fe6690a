"""Where the H100's warps spend a loop trip, instruction by instruction, beside ``sass_sim``'s replay.

``traces/h100/stall_reasons_source.json`` (``traces/capture/stall_reasons.py --device-source OUT --long``) holds
Nsight Compute's per-instruction warp-state samples of recorded emulated timing kernels run for 256-2048 trips:
ncu takes one warp of the SM every 32 cycles, so ``samples * 32 / trips`` is a warp's cycles at an instruction in
a trip (the cycles before it issues, the one it issues in included). ``sass_sim.Loop.issue_log`` gives the same
of its replay: the cycles from one instruction's issue to the next's. Set side by side, they say which instructions
the replay times as the H100 does and where the two part.

    python -m warpsim.timing.pc_samples                          # every kernel: agreement, CALL and RET
    python -m warpsim.timing.pc_samples sp_e4m3_k64_f32_ilp1 1   # one kernel and warp count (of either file),
                                                                 # instruction by instruction where they differ
    python -m warpsim.timing.pc_samples dense_s4_k64_ilp4 8 '{"yield_switch": true, "hold": 1}'
    python -m warpsim.timing.pc_samples --several                # stall_reasons_source_more.json's runs under
                                                                 # the table's issue rule and the yield rule

A branch's wait is sampled at the address after it: a RET's redirect at an instruction never executed, the loop's
closing BRA's at the loop's exit (:func:`loop` gives those cycles to the instruction the branch goes to).
"""
from __future__ import annotations

import os
import sys

import numpy as np

from warpsim.timing import measurement, sass_profile, sass_sim

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "traces", "h100",
                      "stall_reasons_source.json")
#: the same samples of several-warp runs (``stall_reasons.py --device-source OUT --more``)
MORE = SOURCE.replace("source.json", "source_more.json")
#: cycles between two samples of the SM (``smsp__pcsamp_interval_cycles``)
INTERVAL = 32


def load(path: str = SOURCE) -> list:
    """The file's kernels (``form``, ``ilp``, ``warps``, ``reps``, ``cycles``, ``code``)."""
    return measurement.load(path, "stall_reasons_source", ("how", "launches"))["launches"]


def entry(kernel: str, warps: int, doc: list | None = None) -> dict:
    """The recorded launch of ``kernel`` (``<form>_ilp<n>``) with ``warps`` warps."""
    for e in doc or load():
        if f"{e['form']}_ilp{e['ilp']}" == kernel and e["warps"] == warps:
            return e
    raise KeyError(f"{kernel} with {warps} warps is not in the samples on file")


def loop(e: dict) -> tuple[list, np.ndarray, dict]:
    """The loop of a recorded launch as the replay runs it (its block, each CALL followed by the routine): the
    SASS text of each instruction of a trip, a warp's cycles at each in a trip (a routine instruction: its mean
    over the calls; with several warps ncu samples them in turn while the slowest runs, so the sum is its trip),
    and ``{reason: cycles}`` a trip."""
    trips, n = e["reps"] * e["warps"], len(e["cycles"])
    scale = INTERVAL / (e["reps"] * n)
    body = [c for c in e["code"] if c[2] == trips]
    calls = sum(1 for c in body if sass_profile.opcode(c[1]) == "CALL")
    routine = [c for c in e["code"] if calls and c[2] == trips * calls]
    after_ret = [c for c in e["code"] if c[2] == 0 and routine and c[0] == routine[-1][0] + 16]
    redirect = sum(after_ret[0][3].values()) * scale / calls if after_ret else 0.0
    # the loop's exit, where its closing BRA's wait is sampled: given to the loop's first instruction
    after_bra = [c for c in e["code"] if body and c[0] == body[-1][0] + 16]
    back = sum(after_bra[0][3].values()) * scale if after_bra else 0.0
    text, cycles, reasons = [], [], {}
    for c in body + routine + after_ret + after_bra:
        for r, k in c[3].items():
            reasons[r] = reasons.get(r, 0.0) + k * scale
    returned = False
    for c in body:
        text.append(c[1])
        cycles.append(sum(c[3].values()) * scale + (redirect if returned else 0.0) + (back if c is body[0] else 0.0))
        returned = False
        if sass_profile.opcode(c[1]) == "CALL":
            text += [r[1] for r in routine]
            cycles += [sum(r[3].values()) * scale / calls for r in routine]
            returned = True
    return text, np.array(cycles), reasons


def replay_gaps(kernel: str, warps_here: int = 1, trips: int = 8, stagger: int = 0, **options) -> np.ndarray:
    """The replay's cycles at each instruction of a trip (a late one): ``warps_here`` warps of ``kernel`` on
    one sub-partition, the k-th starting the loop k x ``stagger`` cycles after the first, under the table
    (``options`` override it), the mean over those warps."""
    return _gaps(kernel, (warps_here, 0, 0, 0), trips, **dict(options, stagger=stagger))


def population_gaps(kernel: str, warps: int, trips: int = 8, **options) -> np.ndarray:
    """The replay's cycles at each instruction of a late trip with ``warps`` warps of ``kernel`` in the CTA (warp
    w on sub-partition w mod 4), the mean over the warps (``options`` override the table)."""
    return _gaps(kernel, sass_sim.population(warps), trips, **options)


def _gaps(kernel: str, population: tuple, trips: int, **options) -> np.ndarray:
    log = sass_sim.table_loop(kernel, **options).issue_log(population, trips)
    return _late_trip(log, log.shape[1] // trips, trips)


def _trip(kernel: str) -> list:
    """The encoded SASS of one trip of ``kernel``'s loop as the replay runs it (``sass_profile.trip``)."""
    return sass_profile.trip(sass_profile.kernel_loop(kernel, "sm_90"))


def _late_trip(issued, n: int, trips: int) -> np.ndarray:
    """The cycles before each instruction of the third-to-last of ``trips`` trips of ``n`` instructions, the mean
    over the warps whose issue cycles ``issued`` holds."""
    return np.mean([np.diff(t)[n * (trips - 3) - 1:n * (trips - 2) - 1] for t in issued], axis=0)


def several(doc: list | None = None, rules: dict | None = None) -> list:
    """Per several-warp run of :data:`MORE`: the kernel, its warps, the H100's trip (the samples' sum: the
    slowest warp's), and per issue rule of ``rules`` (``{name: table overrides}``) the replay's mean trip and the
    sum over the trip of |H100 - replay| at each instruction."""
    doc = doc or load(MORE)
    out = []
    for e in doc:
        kernel = f"{e['form']}_ilp{e['ilp']}"
        _, hw, _ = loop(e)
        row = {"kernel": kernel, "warps": e["warps"], "h100": float(hw.sum())}
        for name, options in (rules or RULES).items():
            gaps = population_gaps(kernel, e["warps"], **options)
            row[name] = (float(gaps.sum()), float(np.abs(gaps - hw).sum()))
        out.append(row)
    return out


#: the issue rules :func:`several` sets side by side: the greedy table's until 2026-11-27, the measured yield rule
#: with the measured CALL/RET split on that table, and the table's (the same with ``gap_turn`` and ``keep_cycles``)
RULES = {"greedy": sass_sim.GREEDY, "yield": dict(sass_sim.YIELD, redirect={"CALL": 1, "RET": 37, "BRA": 6},
                                                  yield_order="lru"), "table": {}}


def agreement(kernel: str, warps: int = 1, doc: list | None = None, **options) -> dict:
    """One warp's trip, instruction by instruction, H100 against replay: ``instructions``, ``within_1`` (how
    many the two time within a cycle), ``h100`` and ``replay`` (cycles a trip), ``ops_match``."""
    text, hw, _ = loop(entry(kernel, warps, doc))
    gaps = replay_gaps(kernel, 1, **options)
    prof = _trip(kernel)
    return {"instructions": len(hw), "within_1": int(np.sum(np.abs(hw - gaps) <= 1.0)),
            "h100": float(hw.sum()), "replay": float(gaps.sum()),
            "ops_match": [sass_profile.opcode(t) for t in text] == [p.split()[0].split(".")[0] for p in prof]}


def call_ret(kernel: str, warps: int = 1, doc: list | None = None) -> dict:
    """What a CALL and a RET cost a warp on the H100 past their stall counts (the fetch redirect): the cycles at
    the routine's first instruction less the CALL's stall count, and at the instruction after the CALL less the
    RET's (the samples of the RET's redirect included), mean over the calls of a trip."""
    text, hw, _ = loop(entry(kernel, warps, doc))
    prof = _trip(kernel)
    stall = [int(p.split()[1]) for p in prof]
    calls = [i for i, t in enumerate(text) if sass_profile.opcode(t) == "CALL"]
    rets = [i for i, t in enumerate(text) if sass_profile.opcode(t) == "RET"]
    return {"CALL": float(np.mean([hw[i + 1] - stall[i] for i in calls])),
            "RET": float(np.mean([hw[i + 1] - stall[i] for i in rets]))}


def differences(kernel: str, warps: int, doc: list | None = None, least: float = 1.5, **options) -> str:
    """The instructions where the H100's cycles and the replay's (the CTA's ``warps`` warps, the mean over them:
    :func:`population_gaps`) differ by more than ``least``."""
    text, hw, _ = loop(entry(kernel, warps, doc))
    gaps = population_gaps(kernel, warps, **options)
    prof = _trip(kernel)
    out = [f"{kernel}, {warps} warps: cycles a trip H100 {hw.sum():.0f}, replay {gaps.sum():.0f}"]
    for i in np.flatnonzero(np.abs(hw - gaps) > least):
        out.append(f"{i:5} {text[i][:56]:56} {prof[i]:26} H100 {hw[i]:6.1f} replay {gaps[i]:6.1f}")
    return "\n".join(out)


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    doc = load() + load(MORE)
    options = measurement.options_in(argv)
    plain = [a for a in argv if not a.startswith(("{", "--"))]
    if plain:
        if len(plain) > 1 and not plain[1].isdigit():
            raise SystemExit(f"error: {plain[1]!r}: expected a warp count after the kernel")
        kernel, warps = plain[0], int(plain[1]) if len(plain) > 1 else 1
        try:
            entry(kernel, warps, doc)
        except KeyError as err:
            kinds = ", ".join(f"{e['form']}_ilp{e['ilp']} {e['warps']}" for e in doc)
            raise SystemExit(f"error: {err.args[0]}; expected one of {kinds}")
        print(differences(kernel, warps, doc, **options))
        return 0
    if "--several" in argv:
        print("several warps: trip (cycles) and sum over it of |H100 - replay| at each instruction")
        for r in several():
            print(f"{r['kernel']:24} {r['warps']:2} warps: H100 {r['h100']:7.0f}" + "".join(
                f" | {name} {trip:7.0f} {off:6.0f}" for name, (trip, off) in
                ((n, r[n]) for n in RULES)))
        return 0
    for e in load():
        kernel = f"{e['form']}_ilp{e['ilp']}"
        if e["warps"] != 1:
            continue
        a = agreement(kernel, 1, doc, **options)
        line = (f"{kernel:24} one warp: {a['within_1']} of {a['instructions']} instructions within a cycle, "
                f"trip H100 {a['h100']:.0f} / replay {a['replay']:.0f}")
        if any(sass_profile.opcode(c[1]) == "CALL" for c in e["code"]):
            cr = call_ret(kernel, 1, doc)
            line += f"; past the stall count a CALL {cr['CALL']:.1f}, a RET {cr['RET']:.1f}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
