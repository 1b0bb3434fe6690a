#!/usr/bin/env python3
"""Were the slow sparse-fp8 reps-4 timing runs the GPU warming up? Summarise traces/capture/warmup_run.sh.

    OUT=/tmp/out bash traces/capture/warmup_run.sh        # on the GPU: $OUT/cap.tgz
    python traces/capture/warmup_check.py DIR [--bundled traces/h100/timing]
                                                          # here: DIR = cap.tgz unpacked -> traces/h100/timing_warmup.json

Every statistic is warpsim.replay_timing.measured (the mean over the CTA's warps of end - start, median over
the launches with run_repeat >= 1), the number `warpsim replay` compares with.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))
from warpsim import tracefile  # noqa: E402
from warpsim.replay_timing import configurations, measured  # noqa: E402

FP8 = ("sp_e4m3_k64_f32", "sp_e5m2_k64_f32")
CONTROL = "sp_f16_k32_f32"
CAPTURES = {  # folder of cap.tgz: what it is
    "cold": "allcold: every timing trace in capture.py's order (e4m3 the first fp8 module), no warm-up, "
            "a fresh process (like the bundled capture, which ran the instruction/UB/program traces first)",
    "cold_fp8_alone": "fp8cold: the two fp8 traces alone (e4m3 first), no warm-up, a fresh process (the first "
                      "capture on the machine: SM clock 345 MHz idle before it)",
    "warm_kernels_fp8_alone": "fp8kern: the two fp8 traces alone, --timing-warmup kernels",
    "warm_runs": "allruns: every timing trace, --timing-warmup runs (the fp8 traces now in traces/h100/timing)",
    "warm_runs_fp8_alone": "fp8runs: the two fp8 traces alone, --timing-warmup runs",
}
FOLDER = {"cold": "allcold", "cold_fp8_alone": "fp8cold", "warm_kernels_fp8_alone": "fp8kern",
          "warm_runs": "allruns", "warm_runs_fp8_alone": "fp8runs"}


def _warmup_pass(tr):
    """The unrecorded warm-up pass of a --timing-warmup runs trace, as a trace (same run list)."""
    a = tr.arrays
    return SimpleNamespace(arrays={"start": a["warmup_start"], "end": a["warmup_end"], "run_ilp": a["run_ilp"],
                                   "run_warps": a["run_warps"], "run_reps": a["run_reps"],
                                   "run_repeat": a["run_repeat"]})


def _launches(tr, ilp, warps, reps):
    a = tr.arrays
    rows = [r for r in range(len(a["run_ilp"])) if (a["run_ilp"][r], a["run_warps"][r], a["run_reps"][r]) ==
            (ilp, warps, reps)]
    return [float(np.mean(a["end"][r, :warps].astype(np.int64) - a["start"][r, :warps].astype(np.int64)))
            for r in rows]


def form_table(name, bundled: Path, cap: Path, every=False):
    old = tracefile.read_trace(bundled / f"{name}.npz")
    traces = {"bundled": old}
    for k, f in FOLDER.items():
        p = cap / f / "timing" / f"{name}.npz"
        if p.exists():
            traces[k] = tracefile.read_trace(p)
    if "warm_runs" in traces:
        traces["warm_runs_warmup_pass"] = _warmup_pass(traces["warm_runs"])
    rows = []
    for cfg in configurations(old):
        if not every and cfg[1] != 1:
            continue
        row = {"ilp": cfg[0], "warps": cfg[1], "reps": cfg[2]}
        row.update({k: measured(t, *cfg) for k, t in traces.items()})
        if cfg[1] == 1 and cfg[2] == 4:
            row["launches"] = {k: _launches(t, *cfg) for k, t in traces.items()}
        rows.append(row)
    meta = {k: {x: t.meta.get(x) for x in ("warmup", "warmup_launches", "clocks_before", "clocks_after_warmup",
                                           "clocks_after")}
            for k, t in traces.items() if hasattr(t, "meta")}
    return rows, meta


def control(bundled: Path, cap: Path):
    """Every other timing trace: the largest relative difference from the bundled trace over its 46
    configurations, cold and warm."""
    out = {}
    for p in sorted(bundled.glob("*.npz")):
        name = p.stem
        if name in FP8 or name.startswith("trips_"):
            continue
        old = tracefile.read_trace(p)
        res = {}
        for k in ("cold", "warm_runs"):
            q = cap / FOLDER[k] / "timing" / p.name
            if not q.exists():
                continue
            new = tracefile.read_trace(q)
            d = {c: (measured(new, *c) - measured(old, *c)) / measured(old, *c) for c in configurations(old)}
            worst = max(d, key=lambda c: abs(d[c]))
            res[k] = {"max_rel": round(d[worst], 4), "at": list(worst),
                      "over_2pct": sum(abs(v) > 0.02 for v in d.values()),
                      "over_5pct": sum(abs(v) > 0.05 for v in d.values()), "configurations": len(d)}
        out[name] = res
    return out


def trips(cap: Path):
    """fp8_trips.py again: one-warp runs, the first trip's cycles (start clock to its end) and a later trip's."""
    z = np.load(cap / "trips" / "fp8trips.npz")
    rows = []
    for form in ("sp_e5m2_k64_f32", "sp_e4m3_k64_f32"):
        st, tr = z[f"{form}_start"].astype(np.int64), z[f"{form}_trip"].astype(np.int64)
        for k, (ilp, w, reps, r) in enumerate(z["runs"].tolist()):
            if w == 1:
                rows.append({"form": form, "ilp": ilp, "reps": reps, "repeat": r,
                             "first_trip": int(tr[k, 0, 0] - st[k, 0]), "second_trip": int(tr[k, 0, 1] - tr[k, 0, 0])})
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", type=Path, help="cap.tgz of warmup_run.sh, unpacked")
    ap.add_argument("--bundled", type=Path, default=REPO / "traces" / "h100" / "timing",
                    help="the timing traces to compare with (those recorded without warm-up)")
    ap.add_argument("--out", type=Path, default=REPO / "traces" / "h100" / "timing_warmup.json")
    ap.add_argument("--how", default="", help="text put first in the JSON's how field")
    ap.add_argument("--conclusion", default="")
    a = ap.parse_args(argv)
    forms = {}
    for name in FP8 + (CONTROL,):
        rows, meta = form_table(name, a.bundled, a.dir, every=name in FP8)
        forms[name] = {"configurations": rows, "meta": meta}
    doc = {"how": (a.how + " " if a.how else "") + __doc__.split("\n\n")[2].replace("\n", " "),
           "captures": dict(CAPTURES, bundled="the traces/h100/timing file recorded by capture.py without warm-up "
                                              "(traces/h100/device.json, 2026-11-22)",
                            warm_runs_warmup_pass="the unrecorded first pass of warm_runs (warmup_start/end): "
                                                  "the same process before its warm-up"),
           "conclusion": a.conclusion,
           "smi": (a.dir / "smi.txt").read_text().splitlines() if (a.dir / "smi.txt").exists() else [],
           "forms": forms, "control": control(a.bundled, a.dir), "trips_again": trips(a.dir)}
    a.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(a.out, a.out.stat().st_size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
