#!/usr/bin/env python3
"""How many of the sparse fp8 timing kernels' local-memory (spill) accesses hit the H100's L1: Nsight Compute
reads the L1TEX and L2 counters of the recorded kernels themselves (the PTX and input of
traces/h100/timing/sp_e4m3_k64_f32.npz and sp_e5m2_k64_f32.npz), one CTA of 1-16 warps, reps 32.

    python traces/capture/l1_counters.py --device OUT     # on the GPU: runs ncu over --run, OUT/ncu_*.csv
    python traces/capture/l1_counters.py --run LIST.json  # what ncu profiles (CuPy), writes the launch list
    python traces/capture/l1_counters.py --json OUT       # here: traces/h100/l1_counters.json from OUT

The call made (2026-11-23; /usr/local/cuda/bin/ncu of the machine image, its version not recorded; an H100
80GB HBM3 like that of traces/h100/device.json): --device, 71 s; every kernel took 4 counter passes.
Summarised and compared with the L1 model by ``python -m warpsim.timing.l1_counters``.

Every configuration is launched twice in a row; the second launch is the one kept (the timing traces'
statistic is the median of the non-first launches). ncu runs with ``--cache-control none`` (the L1 and L2
keep what the launches before left, as in the timing capture) and ``--clock-control none``. A kernel that
needs more than one counter pass is replayed by ncu with its memory restored, so the first pass's state
differs from the later ones'; the counts are per launch and do not depend on clocks.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from trips import _tracefile, write_atomic  # noqa: E402  (warpsim/tracefile.py loaded by path, no install needed)
FORMS = ("sp_e4m3_k64_f32", "sp_e5m2_k64_f32")
#: (form, ilp, warps, reps), in launch order: ILP 4 (the runs outside 5 %) first
CONFIGS = tuple((f, ilp, w, 32) for ilp in (4, 1, 2, 8) for f in FORMS for w in range(1, 17)) + \
    tuple((f, ilp, 1, 4) for f in FORMS for ilp in range(1, 9))
#: the counters: local loads and stores through the L1 (sectors, requests, hits, misses) and the L2
#: sectors the SM's L1 read and wrote
METRICS = ",".join(
    [f"l1tex__t_sectors_pipe_lsu_mem_local_op_{op}{x}.sum" for op in ("ld", "st") for x in ("", "_lookup_hit",
                                                                                          "_lookup_miss")]
    + [f"l1tex__t_requests_pipe_lsu_mem_local_op_{op}.sum" for op in ("ld", "st")]
    + ["lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum", "sm__cycles_elapsed.max"])


def run(list_path: Path, ilp_only: int | None = None) -> None:
    """Launch every configuration (of ILP ``ilp_only`` if given) twice (CuPy), the trace's PTX and input;
    write the launch list."""
    import cupy as cp
    tf = _tracefile()
    launches = []
    mods = {}
    for form, ilp, w, reps in CONFIGS:
        if ilp_only is not None and ilp != ilp_only:
            continue
        if form not in mods:
            tr = tf.read_trace(REPO / "traces" / "h100" / "timing" / f"{form}.npz")
            ptx = Path(os.environ.get("TMPDIR", "/tmp")) / f"l1c_{form}.ptx"
            ptx.write_text(tr.ptx)
            inp = cp.asarray(tr.arrays["input"])
            mods[form] = (cp.RawModule(path=str(ptx)), inp, tr.arrays["input"].shape[1])
        mod, inp, ncols = mods[form]
        f = mod.get_function(f"{form}_ilp{ilp}")
        d_s, d_e = cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint64)
        d_sm, d_sink = cp.zeros(16, cp.uint32), cp.zeros(16 * 32 * ncols, cp.uint32)
        for repeat in range(2):
            f((1,), (32 * w,), (inp, d_s, d_e, d_sm, d_sink, np.int32(reps)))
            cp.cuda.runtime.deviceSynchronize()
            cyc = (cp.asnumpy(d_e)[:w].astype(np.int64) - cp.asnumpy(d_s)[:w].astype(np.int64)).tolist()
            launches.append({"form": form, "ilp": ilp, "warps": w, "reps": reps, "repeat": repeat,
                             "cycles": cyc})
    list_path.write_text(json.dumps(launches))


def device(out: Path) -> int:
    """ncu over --run, in two parts (ILP 4 first) so that a time limit leaves the first."""
    out.mkdir(parents=True, exist_ok=True)
    ncu = os.environ.get("NCU") or "ncu"
    rc = 0
    for part in (4, None):
        tag = "ilp4" if part else "all"
        cmd = [ncu, "--clock-control", "none", "--cache-control", "none", "--kernel-name", "regex:^sp_e",
               "--metrics", METRICS, "--csv", "--page", "raw", "--log-file", str(out / f"ncu_{tag}.csv"),
               sys.executable, __file__, "--run", str(out / f"launches_{tag}.json")]
        cmd += ["--ilp", str(part)] if part else []
        t0 = time.time()
        r = subprocess.run(cmd)
        print(f"{tag}: rc {r.returncode}, {time.time() - t0:.0f} s", flush=True)
        rc = rc or r.returncode
    return rc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--device", type=Path)
    g.add_argument("--run", type=Path)
    g.add_argument("--json", type=Path)
    ap.add_argument("--ilp", type=int, help="with --run: only the configurations of this ILP")
    a = ap.parse_args(argv)
    if a.run:
        run(a.run, a.ilp)
        return 0
    if a.device:
        return device(a.device)
    return summarise(a.json)


#: the counters kept per launch (sectors of 32 bytes; requests are warp instructions)
KEEP = {"ld": "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
        "ld_hit": "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum",
        "ld_miss": "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum",
        "st": "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
        "st_hit": "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_hit.sum",
        "st_miss": "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_miss.sum",
        "ld_requests": "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
        "st_requests": "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum",
        "l2_read": "lts__t_sectors_srcunit_tex_op_read.sum",
        "l2_write": "lts__t_sectors_srcunit_tex_op_write.sum",
        "sm_cycles": "sm__cycles_elapsed.max", "passes": "profiler__replayer_passes"}


def _ncu_rows(path: Path) -> list[dict]:
    import csv
    import io
    text = path.read_text()
    rows = list(csv.DictReader(io.StringIO(text[text.index('"ID"'):])))
    return [r for r in rows if r["ID"].isdigit()]


def summarise(out: Path) -> int:
    """traces/h100/l1_counters.json: one row per profiled launch, its launch-list entry and the counters."""
    rows = []
    for part in ("ilp4", "all"):
        launches = json.loads((out / f"launches_{part}.json").read_text())
        got = _ncu_rows(out / f"ncu_{part}.csv")
        if len(got) != len(launches):
            raise SystemExit(f"{out}/ncu_{part}.csv: {len(got)} profiled kernels, {len(launches)} launches")
        for r, launch in zip(got, launches):
            name = f"{launch['form']}_ilp{launch['ilp']}"
            if r["Kernel Name"] != name or int(r["Block Size"].strip("()").split(",")[0]) != 32 * launch["warps"]:
                raise SystemExit(f"ncu row {r['ID']}: {r['Kernel Name']} {r['Block Size']}, expected {name}")
            counters = {k: int(float(r[m].replace(",", ""))) for k, m in KEEP.items()}
            rows.append(dict(launch, part=part, **counters))
    doc = {"how": "Nsight Compute counters of the recorded sparse fp8 timing kernels (the PTX and input of "
                  "traces/h100/timing/sp_e4m3_k64_f32.npz, sp_e5m2_k64_f32.npz), one CTA of 32*warps "
                  "threads on an H100 80GB HBM3: traces/capture/l1_counters.py --device (/usr/local/cuda/bin/ncu, "
                  "--cache-control none --clock-control none, 2026-11-23). Two parts in one machine session: "
                  "'ilp4' (ILP 4, 1-16 warps, reps 32) then 'all' (ILP 4, 1, 2, 8 with 1-16 warps, reps 32; "
                  "ILP 1-8 with one warp, reps 4); each configuration launched twice in a row (repeat 0, 1). "
                  "Counters: local-memory sectors (32 B) loaded / stored through the L1's tag stage, with "
                  "tag hits and misses, requests (warp instructions), and the sectors the L1 read from and "
                  "wrote to the L2; sm_cycles the SM's elapsed cycles (max over SMs); cycles the kernel's "
                  "own per-warp end - start clocks as the launch left them (after ncu's last counter pass).",
           "keys": KEEP, "rows": rows}
    dest = REPO / "traces" / "h100" / "l1_counters.json"
    write_atomic(dest, json.dumps(doc, indent=0) + "\n")
    print(f"{dest}: {len(rows)} launches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
