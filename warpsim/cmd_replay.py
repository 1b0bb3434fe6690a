"""``warpsim replay [PATH...]``: the bundled H100 traces (default) or yours, through the simulator.

Values are compared bit for bit (instruction and program traces); timing traces compare simulated
with measured cycles against a 5 % bound. Exit status: 0 when every value is bit-exact, 1 on any
value mismatch (or, with ``--fail-on-timing``, any timing configuration outside its bound), 2 when a
trace file is unreadable (truncated, tampered, wrong version).
"""
from __future__ import annotations

import contextlib
import json
import os
import sys

import numpy as np
from pathlib import Path

from isa.errors import WarpsimError
from warpsim import parallel, replay, tracefile
from warpsim.replay_timing import ACCEL_SIM_LATENCY
from warpsim.timing import known

BUNDLED = Path(__file__).resolve().parent.parent / "traces"


def _progress(i: int, n: int, path: str) -> None:
    if sys.stderr.isatty():
        width = 30
        done = int(width * i / max(n, 1))
        sys.stderr.write(f"\r[{'#' * done}{'.' * (width - done)}] {i}/{n} {path[-50:]:50}")
        sys.stderr.flush()


def _replay_one(job):
    """One file of :func:`run` (in a worker or here): ``(file, result, None)``; ``(file, None, message)`` for a
    file that cannot be read (TraceError); ``(file, None, WarpsimError)`` for another error warpsim raises on
    purpose, its message kept (its own class may not come back from a worker)."""
    f, args = job
    try:
        return f, replay.replay_file(f, args.arch, args.max_mismatches, timing=args.timing), None
    except tracefile.TraceError as err:
        return f, None, str(err)
    except WarpsimError as err:
        return f, None, WarpsimError(str(err))


def run(args) -> int:
    paths = args.paths or [str(BUNDLED)]
    files = replay.trace_files(paths)
    if not files:
        print(f"no trace files (*.npz) under {', '.join(paths)}", file=sys.stderr)
        return 2
    results = []
    _progress(0, len(files), files[0])
    jobs = int(getattr(args, "jobs", 1) or 1)
    replayed = parallel.fork_map(_replay_one, [(f, args) for f in files], jobs)
    with contextlib.closing(replayed):  # closed: the workers end with the loop, an early return included
        for i, (f, res, err) in enumerate(replayed, start=1):
            if isinstance(err, Exception):
                raise err
            if err is not None:
                print(f"\nerror: {err}", file=sys.stderr)
                return 2
            if i < len(files):
                _progress(i, len(files), files[i])
            if res is not None:
                results.append(res)
    _progress(len(files), len(files), "done")
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    if args.json:
        print(json.dumps([r.to_json() for r in results], indent=1))
    else:
        print(table(results, verbose=args.verbose))
    values_ok = all(r.ok for r in results if r.kind != "timing")
    timing_ok = all(r.ok for r in results if r.kind == "timing")
    return 0 if values_ok and (timing_ok or not args.fail_on_timing) else 1


def table(results, verbose: bool = False) -> str:
    """Per form (instruction traces merged over input classes), per program, per timing trace."""
    merged: dict = {}
    for r in results:
        for g in r.groups:
            key = (r.kind, g.name)
            agg = merged.setdefault(key, {"inst": 0, "exact": 0, "first": [], "err": "", "files": 0, "cyc": [],
                                          "base": [], "known": ""})
            agg["known"] = agg["known"] or g.known
            agg["inst"] += g.instances
            agg["exact"] += g.exact
            agg["files"] += 1
            agg["err"] = agg["err"] or g.error
            agg["first"] += g.mismatches[: max(0, 3 - len(agg["first"]))]
            if g.measured_cycles is not None:
                agg["cyc"].append((g.simulated_cycles, g.measured_cycles))
                if g.baseline_cycles is not None:
                    agg["base"].append((g.baseline_cycles, g.measured_cycles))
    lines = [f"{'kind':11} {'form / program / timing configuration':54} {'instances':>9} {'bit-exact':>10}"]
    for (kind, name), agg in sorted(merged.items()):
        pct = 100.0 * agg["exact"] / agg["inst"] if agg["inst"] else 0.0
        if agg["err"]:
            lines.append(f"{kind:11} {name:54} {agg['inst']:9d}  ERROR: {agg['err'][:120]}")
            continue
        if agg["cyc"]:
            sim, hw = agg["cyc"][0]
            verdict = "within 5%" if agg["exact"] == agg["inst"] else "OUTSIDE 5%"
            base = ""
            if agg["base"]:
                b = agg["base"][0][0]
                base = f"  fixed-latency {b:.1f} ({100 * (b - hw) / hw:+.1f}%)"
            lines.append(f"{kind:11} {name:54} {'':9} {verdict:>10}  cycles sim {sim:.1f} hw {hw:.1f} "
                         f"({100 * (sim - hw) / hw:+.1f}%){base}")
            if agg["known"]:
                lines.append(f"{'':11} {agg['known']}")
            continue
        lines.append(f"{kind:11} {name:54} {agg['inst']:9d} {pct:9.3f}%")
        if verbose or pct < 100.0:
            lines += ["    " + m.render().replace("\n", "\n    ") for m in agg["first"]]
    values = {k: a for k, a in merged.items() if k[0] != "timing"}
    total = sum(a["inst"] for a in values.values())
    exact = sum(a["exact"] for a in values.values())
    ok = all(a["exact"] == a["inst"] and not a["err"] for a in values.values())
    nfiles = sum(r.kind != "timing" for r in results)
    lines.append("")
    if nfiles:
        lines.append(f"values: {nfiles} trace files, {total} instances, {exact} bit-exact "
                     f"({100.0 * exact / max(total, 1):.3f}%): {'OK' if ok else 'MISMATCH'}")
    lines += _timing_summary("timing", [p for a in merged.values() for p in a["cyc"]])
    outside = [a for a in merged.values() if a["cyc"] and a["exact"] < a["inst"]]
    if outside:
        nk = sum(bool(a["known"]) for a in outside)
        lines.append(f"  outside 5%: {len(outside)}, {nk} of them known misses (warpsim.timing.known, "
                     f"{known.FINDINGS})" + ("" if nk == len(outside) else f"; {len(outside) - nk} NOT known"))
    lines += _timing_summary(f"fixed-latency {ACCEL_SIM_LATENCY:g}/{ACCEL_SIM_LATENCY:g} model (Accel-Sim's default)",
                             [p for a in merged.values() for p in a["base"]])
    devices = sorted({r.device for r in results})
    lines.append(f"traces recorded on: {', '.join(devices)}")
    return "\n".join(lines)


def _timing_summary(label: str, pairs) -> list[str]:
    """One summary line over (simulated, measured) cycle pairs; none without pairs."""
    errs = [abs(s - h) / h for s, h in pairs if h]
    if not errs:
        return []
    inside = sum(e <= 0.05 for e in errs)
    return [f"{label}: {len(errs)} configurations, {inside} within 5% of the hardware, "
            f"median error {100 * float(np.median(errs)):.2f}%, max {100 * max(errs):.1f}%"]


def register(sub) -> None:
    p = sub.add_parser("replay", help="replay hardware traces and report where the model differs")
    p.add_argument("paths", nargs="*", help="trace files or folders (default: the bundled traces/)")
    p.add_argument("--arch", default=None, help="simulate this target instead of the trace's GPU (e.g. sm_80)")
    p.add_argument("--json", action="store_true", help="machine-readable results")
    p.add_argument("--max-mismatches", type=int, default=3, help="mismatches reported per form (default 3)")
    p.add_argument("-v", "--verbose", action="store_true", help="show sample mismatches even for passing forms")
    p.add_argument("--timing", choices=("quick", "all", "off"), default="quick",
                   help="timing traces: a representative subset of configurations (default), all, or none")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                   help="trace files replayed at once, each in a process of its own (default: the CPUs, %(default)s)")
    p.add_argument("--fail-on-timing", action="store_true",
                   help="exit 1 when a timing configuration is outside its 5%% bound")
    p.set_defaults(func=run)
