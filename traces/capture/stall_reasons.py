#!/usr/bin/env python3
"""What the H100's warps wait on in the emulated timing loops: Nsight Compute's warp-state counters (the cycles
each warp spends stalled, by reason) of the recorded timing kernels themselves, one CTA of 1-16 warps.

    python traces/capture/stall_reasons.py --device OUT     # on the GPU: ncu over --run, OUT/ncu_<part>.csv
    python traces/capture/stall_reasons.py --run PART OUT   # what ncu profiles (CuPy); its launch list to OUT
    python traces/capture/stall_reasons.py --json OUT       # here: traces/h100/stall_reasons.json from OUT
    python traces/capture/stall_reasons.py --device OUT --parts one   # sparse fp8 ILP 1-8, one warp ...
    python traces/capture/stall_reasons.py --json OUT --parts one     # ... to traces/h100/stall_reasons_one.json
    python traces/capture/stall_reasons.py --json-rate OUT  # here: traces/h100/l1_rate_stalls.json from OUT
    python traces/capture/stall_reasons.py --device-source OUT --long   # on the GPU: per-instruction samples
    python traces/capture/stall_reasons.py --json-source OUT  # here: traces/h100/stall_reasons_source.json
    python traces/capture/stall_reasons.py --device-source OUT --more   # several-warp runs (SOURCE_MORE) ...
    python traces/capture/stall_reasons.py --json-source OUT --more     # ... to stall_reasons_source_more.json

``--json-rate`` summarises the same counters of ``l1_rate.py``'s probes (local loads, stores, shuffles; 1-16
warps spread or on one sub-partition), taken on the GPU by (2026-11-26, 27 s)::

    python3 traces/capture/l1_rate.py --build
    ncu --kernel-name regex:rate_ --metrics <STALL_METRICS>,smsp__warps_active.sum,smsp__issue_active.sum,\
        sm__cycles_elapsed.max --csv --page raw --log-file OUT/ncu_lr.csv python3 traces/capture/l1_rate.py --device OUT

Compared with ``sass_sim``'s own account of its warps' cycles by ``python -m warpsim.timing.stall_reasons``.

The kernels are the recorded ones (the PTX and input of traces/h100/timing/<form>.npz), launched as the timing
traces were: the sparse fp8 forms each right after ``capture.py``'s L1 reset (as their traces' ``meta.before``
says), the s4 forms one configuration after the other, each twice (as ``capture.py`` launches them, which sets the
mode of their pairs: traces/h100/TIMING_FINDINGS.md). ncu replays the whole application once per counter pass
(``--replay-mode application``), so every pass sees the launches before it as the traces did; ``--cache-control
none`` and ``--clock-control none`` leave the caches and clocks alone. Each pass writes its launch list with the
kernels' own clocks, so a pass that ran unlike the trace shows.

The stall counters are the ``smsp__warps_issue_stalled_<reason>`` counters the installed ncu lists for the chip
(``ncu --query-metrics``), summed over the SM's four sub-partitions: warp-cycles in that state, a warp in one
state a cycle (``selected`` the cycles it issued).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from trips import _tracefile, write_atomic  # noqa: E402  (warpsim/tracefile.py loaded by path, no install needed)
from l1_counters import _ncu_rows  # noqa: E402  (the rows of ncu --csv --page raw)

#: the parts, one ncu run each, in order: (form, ilp, reset before each launch)
PARTS = {
    "fp8": [(f, ilp, True) for ilp in (4, 1) for f in ("sp_e4m3_k64_f32", "sp_e5m2_k64_f32")],
    "s4": [("sp_s4_k64", 1, False), ("dense_s4_k64", 4, False), ("sp_s4_k64", 4, False), ("dense_s4_k64", 1, False)],
    "one": [(f, ilp, True) for ilp in range(1, 9) for f in ("sp_e4m3_k64_f32", "sp_e5m2_k64_f32")],
}
WARPS = tuple(range(1, 17))
#: the warps of a part's launches where not :data:`WARPS`
PART_WARPS = {"one": (1,)}
#: the parts of traces/h100/stall_reasons.json (``--parts`` by default)
MAIN = ("fp8", "s4")
#: the file each set of parts makes (``--parts``), and what its launches are
FILES = {MAIN: ("stall_reasons.json",
                         "fp8: ILP 4 and 1 of sp_e4m3/sp_e5m2, each launch right after capture.py's L1 reset; s4: "
                         "sp_s4_k64 ILP 1, dense_s4_k64 ILP 4, sp_s4_k64 ILP 4, dense_s4_k64 ILP 1, one configuration "
                         "after the other, each launched twice (repeat 0, 1), as capture.py launches them."),
         ("one",): ("stall_reasons_one.json",
                    "one: sp_e4m3/sp_e5m2 at ILP 1-8 with one warp, each launched twice (repeat 0, 1), each launch "
                    "right after capture.py's L1 reset.")}
#: ``--device-source``: per-instruction warp-state samples (ncu's SourceCounters) of a few launches, each as its
#: part launches it: (form, ilp, warps, reset before)
SOURCE = (("sp_e4m3_k64_f32", 1, 4, True), ("sp_e4m3_k64_f32", 1, 8, True), ("sp_e4m3_k64_f32", 1, 16, True),
          ("dense_s4_k64", 4, 4, False), ("dense_s4_k64", 4, 8, False), ("sp_s4_k64", 1, 8, False))
#: ``--device-source --long``: the same samples over many trips, enough for each instruction of a loop
#: (form, ilp, warps, reset before, trips): one warp against one and two a sub-partition
SOURCE_LONG = (("sp_e4m3_k64_f32", 1, 1, True, 2048), ("sp_e4m3_k64_f32", 1, 4, True, 2048),
               ("sp_e4m3_k64_f32", 1, 8, True, 2048), ("sp_e4m3_k64_f32", 4, 1, True, 256),
               ("sp_e4m3_k64_f32", 4, 5, True, 256), ("dense_e4m3_k32_f32", 1, 1, False, 2048),
               ("dense_s4_k64", 4, 1, False, 256), ("dense_s4_k64", 4, 8, False, 256))
#: ``--device-source --more``: the same for several-warp runs the replay misses under one issue rule or the other
SOURCE_MORE = (("dense_e4m3_k32_f32", 1, 8, False, 2048), ("dense_e4m3_k32_f32", 1, 16, False, 2048),
               ("sp_e4m3_k64_f32", 1, 6, True, 2048), ("sp_e4m3_k64_f32", 4, 10, True, 128),
               ("sp_s4_k64", 1, 1, False, 256), ("sp_s4_k64", 1, 8, False, 256), ("dense_s4_k64", 4, 5, False, 256))
REPS = 32
REPEATS = 2
#: counters besides the stall reasons: (base name, roll-up); kept if the installed ncu lists them
OTHERS = (("sm__cycles_elapsed", "max"), ("smsp__warps_active", "sum"), ("smsp__issue_active", "sum"),
          ("smsp__inst_executed", "sum"), ("smsp__inst_executed_pipe_alu", "sum"),
          ("smsp__inst_executed_pipe_fma", "sum"), ("smsp__inst_executed_pipe_lsu", "sum"),
          ("smsp__pipe_alu_cycles_active", "sum"), ("smsp__pipe_fma_cycles_active", "sum"),
          ("l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss", "sum"),
          ("l1tex__t_sectors_pipe_lsu_mem_local_op_st", "sum"))
STALL = re.compile(r"^smsp__warps_issue_stalled_[a-z0-9_]+$")
#: the stall counters taken of the ``l1_rate.py`` probes (``--json-rate``)
RATE_STALLS = ("selected", "not_selected", "wait", "dispatch_stall", "short_scoreboard", "long_scoreboard",
               "mio_throttle", "lg_throttle", "math_pipe_throttle", "no_instruction", "branch_resolving")


def schedule(part: str) -> list:
    """(form, ilp, warps, repeat, reset, trips) of every launch of ``part``, in launch order (``source``: each of
    :data:`SOURCE` twice, the second one profiled; trips :data:`REPS` but in ``source_long`` and ``source_more``)."""
    if part == "source":
        return [(f, ilp, w, r, reset, REPS) for f, ilp, w, reset in SOURCE for r in range(REPEATS)]
    if part in ("source_long", "source_more"):
        return [(f, ilp, w, r, reset, reps) for f, ilp, w, reset, reps in
                (SOURCE_LONG if part == "source_long" else SOURCE_MORE) for r in range(REPEATS)]
    return [(f, ilp, w, r, reset, REPS) for f, ilp, reset in PARTS[part] for w in PART_WARPS.get(part, WARPS)
            for r in range(REPEATS)]


class Recorded:
    """Launches of the recorded timing kernels (the PTX and input of traces/h100/timing/<form>.npz, CuPy): one CTA
    of ``32 * warps`` threads, ``REPS`` trips, each warp's start and end clock."""

    def __init__(self, cp):
        self.cp, self.tf, self.mods = cp, _tracefile(), {}
        self.start, self.end, self.smid = cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint32)

    def module(self, form: str):
        """``form``'s module (its trace's PTX through a file), its input and a sink."""
        if form not in self.mods:
            cp = self.cp
            tr = self.tf.read_trace(REPO / "traces" / "h100" / "timing" / f"{form}.npz")
            ptx = Path(os.environ.get("TMPDIR", "/tmp")) / f"recorded_{form}.ptx"
            ptx.write_text(tr.ptx)
            ncols = tr.arrays["input"].shape[1]
            self.mods[form] = (cp.RawModule(path=str(ptx)), cp.asarray(tr.arrays["input"]),
                               cp.zeros(16 * 32 * ncols, cp.uint32))
        return self.mods[form]

    def launch(self, form: str, ilp: int, warps: int, before=None, reps: int = REPS) -> dict:
        """``<form>_ilp<ilp>`` launched once for ``reps`` trips, right after ``before()`` if given (once its clock
        buffers are zeroed): ``{"start": [...], "end": [...]}``, the clocks of its warps."""
        cp = self.cp
        mod, inp, sink = self.module(form)
        self.start.fill(0), self.end.fill(0)
        if before:
            before()
        mod.get_function(f"{form}_ilp{ilp}")((1,), (32 * warps,), (inp, self.start, self.end, self.smid, sink,
                                                                     np.int32(reps)))
        cp.cuda.runtime.deviceSynchronize()
        return {"start": cp.asnumpy(self.start)[:warps].astype(np.int64).tolist(),
                "end": cp.asnumpy(self.end)[:warps].astype(np.int64).tolist()}


def run(part: str, out: Path) -> None:
    """Launch ``part``'s schedule (CuPy); write its launch list with the kernels' clocks to
    ``out/launches_<part>_<pass>.json`` (one file per application pass of ncu)."""
    import cupy as cp
    from capture import l1_resetter
    kernels, reset, launches = Recorded(cp), l1_resetter(cp), []
    for form, ilp, w, repeat, before, reps in schedule(part):
        clocks = kernels.launch(form, ilp, w, reset if before else None, reps)
        cyc = [e - s for s, e in zip(clocks["start"], clocks["end"])]
        launches.append({"form": form, "ilp": ilp, "warps": w, "reps": reps, "repeat": repeat,
                         "reset": before, "cycles": cyc})
    k = len(list(out.glob(f"launches_{part}_*.json")))
    (out / f"launches_{part}_{k}.json").write_text(json.dumps(launches))


def metric_names(ncu: str, out: Path) -> list:
    """The metrics to collect (``name.rollup``): every stall-reason counter the installed ncu lists, and
    :data:`OTHERS` that it lists; its listing is kept in ``out/query.txt``."""
    text = subprocess.run([ncu, "--query-metrics", "--chip", "gh100"], capture_output=True, text=True).stdout
    (out / "query.txt").write_text(text)
    names = {line.split()[0] for line in text.splitlines() if line.strip()}
    stalls = sorted(n for n in names if STALL.match(n))
    return [f"{n}.sum" for n in stalls] + [f"{n}.{r}" for n, r in OTHERS if n in names]


def device(out: Path, parts=MAIN) -> int:
    """ncu over each of ``parts`` (``--replay-mode application``), one run each."""
    out.mkdir(parents=True, exist_ok=True)
    ncu = os.environ.get("NCU") or "ncu"
    (out / "ncu_version.txt").write_text(subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout)
    metrics = metric_names(ncu, out)
    print(f"{len(metrics)} metrics: {' '.join(metrics)}", flush=True)
    collect = ["--metrics", ",".join(metrics)] if any(STALL.match(m.rsplit(".", 1)[0]) for m in metrics) else \
        ["--section", "WarpStateStats", "--section", "SchedulerStats"]
    rc = 0
    for part in parts:
        cmd = [ncu, "--replay-mode", "application", "--clock-control", "none", "--cache-control", "none",
               "--kernel-name", "regex:^(sp_e|sp_s4|dense_s4)", *collect, "--csv", "--page", "raw",
               "--log-file", str(out / f"ncu_{part}.csv"), sys.executable, __file__, "--run", part, str(out)]
        t0 = time.time()
        r = subprocess.run(cmd)
        print(f"{part}: rc {r.returncode}, {time.time() - t0:.0f} s", flush=True)
        rc = rc or r.returncode
    return rc


def device_source(out: Path, part: str = "source") -> int:
    """ncu's SourceCounters of both launches of each of :data:`SOURCE` (``part`` source_long:
    :data:`SOURCE_LONG`): per SASS instruction the warp-state samples by reason, ``out/<part>.csv`` (ncu's source
    page; the report in ``out/<part>.ncu-rep``)."""
    out.mkdir(parents=True, exist_ok=True)
    ncu = os.environ.get("NCU") or "ncu"
    rep = out / part
    cmd = [ncu, "--replay-mode", "application", "--clock-control", "none", "--cache-control", "none",
           "--kernel-name", "regex:^(sp_e|sp_s4|dense_s4|dense_e)", "--section", "SourceCounters",
           "--section", "WarpStateStats", "--warp-sampling-interval", "0",
           "--import-source", "no", "-f", "-o", str(rep),
           sys.executable, __file__, "--run", part, str(out)]
    r = subprocess.run(cmd)
    print(f"{part}: rc {r.returncode}", flush=True)
    page = subprocess.run([ncu, "-i", f"{rep}.ncu-rep", "--page", "source", "--csv", "--print-source", "sass"],
                          capture_output=True, text=True)
    (out / f"{part}.csv").write_text(page.stdout + page.stderr)
    raw = subprocess.run([ncu, "-i", f"{rep}.ncu-rep", "--page", "raw", "--csv"], capture_output=True, text=True)
    (out / f"{part}_raw.csv").write_text(raw.stdout + raw.stderr)
    return r.returncode


def _number(text: str) -> float:
    return float(text.replace(",", "")) if text not in ("", "n/a") else float("nan")


def summarise(out: Path, parts=MAIN) -> int:
    """traces/h100/stall_reasons.json (``parts`` fp8 and s4; stall_reasons_one.json: one): one row per profiled
    launch (its launch-list entry, the clocks of every application pass, the counters)."""
    name, launches = FILES[tuple(parts)]
    rows, keys = [], None
    for part in parts:
        passes = [json.loads(p.read_text()) for p in sorted(out.glob(f"launches_{part}_*.json"))]
        got = _ncu_rows(out / f"ncu_{part}.csv")
        want = schedule(part)
        if len(got) != len(want) or any(len(p) != len(want) for p in passes):
            raise SystemExit(f"{out}: part {part}: {len(got)} profiled kernels, passes of "
                             f"{[len(p) for p in passes]} launches, expected {len(want)}")
        for i, (r, (form, ilp, w, repeat, reset, reps)) in enumerate(zip(got, want)):
            if r["Kernel Name"] != f"{form}_ilp{ilp}" or int(r["Block Size"].strip("()").split(",")[0]) != 32 * w:
                raise SystemExit(f"ncu row {r['ID']}: {r['Kernel Name']} {r['Block Size']}, expected "
                                 f"{form}_ilp{ilp} with {32 * w} threads")
            metrics = [k for k in r if re.match(r"^(smsp|sm|l1tex)__\w+\.sum$", k) or k == "sm__cycles_elapsed.max"]
            keys = keys or metrics
            rows.append({"part": part, "form": form, "ilp": ilp, "warps": w, "reps": reps, "repeat": repeat,
                         "reset": reset, "cycles": [p[i]["cycles"] for p in passes],
                         "counters": {k: _number(r[k]) for k in metrics}})
    doc = {"how": "Nsight Compute warp-state counters of the recorded emulated timing kernels (the PTX and input of "
                  "traces/h100/timing/<form>.npz), one CTA of 32*warps threads, reps 32, on an H100 80GB HBM3: "
                  "traces/capture/stall_reasons.py --device (ncu --replay-mode application --cache-control none "
                  "--clock-control none). " + launches + " smsp__ counters are sums over the SM's sub-partitions "
                  "(warp-cycles; the stall counters a warp's cycles by what it waits on, 'selected' those it "
                  "issued); cycles: the kernel's own per-warp end - start clocks in every application pass of ncu.",
           "ncu": (out / "ncu_version.txt").read_text().strip().splitlines()[-1] if (out / "ncu_version.txt").exists()
           else "", "keys": keys, "rows": rows}
    dest = REPO / "traces" / "h100" / name
    write_atomic(dest, json.dumps(doc, indent=0) + "\n")
    print(f"{dest}: {len(rows)} launches, {len(keys)} counters")
    return 0


def summarise_source(out: Path, part: str = "source_long") -> int:
    """traces/h100/stall_reasons_source.json from ``--device-source OUT --long`` (``part`` source_long,
    :data:`SOURCE_LONG`), or stall_reasons_source_more.json from ``--more`` (``part`` source_more,
    :data:`SOURCE_MORE`): per entry the clocks of its two launches and, per SASS instruction of the kernel
    (address from the kernel's start, text, times executed in one launch), the warp-state samples of both
    launches by reason (ncu takes one warp of the SM every ``smsp__pcsamp_interval_cycles`` = 32 cycles:
    ``samples * 32 / trips`` is a warp's cycles at that instruction in a trip). A RET's redirect is sampled at
    the address after the RET (an instruction never executed): the samples there are kept as ncu gives them."""
    passes = [json.loads(p.read_text()) for p in sorted(out.glob(f"launches_{part}_*.json"))]
    want = schedule(part)
    rows = list(csv.reader((out / f"{part}.csv").open()))
    heads = [i for i, r in enumerate(rows) if r and r[0] == "Kernel Name"] + [len(rows)]
    if len(heads) - 1 != len(want):
        raise SystemExit(f"{out}/{part}.csv: {len(heads) - 1} kernels, expected {len(want)}")
    launches = []
    for k, (a, b) in enumerate(zip(heads, heads[1:])):
        form, ilp, w, repeat, reset, reps = want[k]
        if rows[a][1] != f"{form}_ilp{ilp}":
            raise SystemExit(f"{part}.csv kernel {k}: {rows[a][1]}, expected {form}_ilp{ilp}")
        head = rows[a + 1]
        reasons = [h for h in head if h.startswith("stall_") and "Not Issued" not in h]
        code, base = [], None
        for r in rows[a + 2:b]:
            if len(r) != len(head):
                continue
            x = dict(zip(head, r))
            addr = int(x["Address"], 16)
            base = addr if base is None else base
            code.append([addr - base, x["Source"].strip(), int(x["Instructions Executed"] or 0),
                         {h[6:]: int(x[h]) for h in reasons if x[h] not in ("", "0")}])
        cycles = [p[k]["cycles"] for p in passes]
        if repeat == 0:
            launches.append({"form": form, "ilp": ilp, "warps": w, "reset": reset, "reps": reps,
                             "cycles": [cycles], "code": code})
            continue
        got = launches[-1]  # the same kernel again: its samples are added to the first launch's
        if [c[:3] for c in got["code"]] != [c[:3] for c in code]:
            raise SystemExit(f"{part}.csv kernel {k}: not the code of the launch before")
        got["cycles"].append(cycles)
        for c, more in zip(got["code"], code):
            for h, n in more[3].items():
                c[3][h] = c[3].get(h, 0) + n
    doc = {"how": "Nsight Compute's SourceCounters (per-instruction warp-state sampling, one sample of one warp of "
                  "the SM every 32 cycles; each kernel launched twice in a row, samples summed) of the recorded "
                  "emulated timing kernels (the PTX and input of traces/h100/timing/<form>.npz), one CTA, many "
                  "trips, on an H100 80GB HBM3, 2026-11-27: traces/capture/stall_reasons.py --device-source OUT "
                  f"{'--long' if part == 'source_long' else '--more'} (ncu --replay-mode application "
                  "--cache-control none --clock-control none --warp-sampling-interval 0); code: [byte offset, SASS, "
                  "times executed in one launch, {reason: samples of both}]; cycles: per launch, each warp's end - "
                  "start clock in every application pass (the instrumented pass that counts executions runs slower).",
           "launches": launches}
    dest = REPO / "traces" / "h100" / ("stall_reasons_source.json" if part == "source_long" else
                                       "stall_reasons_source_more.json")
    write_atomic(dest, json.dumps(doc, separators=(",", ":")) + "\n")
    print(f"{dest}: {len(launches)} kernels")
    return 0


def summarise_rate(out: Path) -> int:
    """traces/h100/l1_rate_stalls.json: per launch of ``l1_rate.py --device`` (``OUT/l1_rate_raw.json``) its
    configuration and ncu's counters (``OUT/ncu_lr.csv``, one row per launch in launch order)."""
    runs = json.loads((out / "l1_rate_raw.json").read_text())["rows"]
    got = _ncu_rows(out / "ncu_lr.csv")
    if len(got) != len(runs):
        raise SystemExit(f"{out}: {len(got)} profiled kernels, {len(runs)} launches")
    keys = [f"smsp__warps_issue_stalled_{x}.sum" for x in RATE_STALLS] + ["smsp__warps_active.sum",
                                                                          "smsp__issue_active.sum"]
    rows = []
    for r, run in zip(got, runs):
        if r["Kernel Name"] != f"rate_{run['op']}":
            raise SystemExit(f"ncu row {r['ID']}: {r['Kernel Name']}, expected rate_{run['op']}")
        rows.append({k: run[k] for k in ("op", "placement", "warps", "repeat")} | {
            "counters": {k: _number(r[k]) for k in keys}})
    doc = {"how": "Nsight Compute 2025.3.1 warp-state counters of traces/capture/l1_rate.py's probes (every active "
                  "warp of one CTA runs 32 independent ld.local / st.local / shfl.sync or 16 ld + 16 st a trip, "
                  "warps spread over the sub-partitions or all on sub-partition 0), one row per launch of "
                  "l1_rate.py --device under ncu (default kernel replay) on an H100 80GB HBM3, 2026-11-26; "
                  "smsp__ counters summed over the SM's sub-partitions (warp-cycles).", "rows": rows}
    dest = REPO / "traces" / "h100" / "l1_rate_stalls.json"
    write_atomic(dest, json.dumps(doc, indent=0) + "\n")
    print(f"{dest}: {len(rows)} launches")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--device", type=Path)
    g.add_argument("--device-source", type=Path)
    g.add_argument("--run", nargs=2, metavar=("PART", "OUT"))
    g.add_argument("--json", type=Path)
    g.add_argument("--json-rate", type=Path)
    g.add_argument("--json-source", type=Path)
    ap.add_argument("--parts", default=",".join(MAIN), help="with --device and --json: fp8,s4 (stall_reasons.json) or "
                                                     "one (stall_reasons_one.json)")
    ap.add_argument("--long", action="store_true", help="with --device-source: SOURCE_LONG's launches, many trips")
    ap.add_argument("--more", action="store_true", help="with --device-source / --json-source: SOURCE_MORE's")
    a = ap.parse_args(argv)
    parts = tuple(a.parts.split(","))
    if parts not in FILES:
        ap.error(f"--parts: one of {', '.join(','.join(p) for p in FILES)}")
    if a.run:
        run(a.run[0], Path(a.run[1]))
        return 0
    if a.device:
        return device(a.device, parts)
    source = "source_long" if a.long else "source_more" if a.more else "source"
    if a.device_source:
        return device_source(a.device_source, source)
    if a.json_rate:
        return summarise_rate(a.json_rate)
    if a.json_source:
        return summarise_source(a.json_source, "source_more" if a.more else "source_long")
    return summarise(a.json, parts)


if __name__ == "__main__":
    sys.exit(main())
