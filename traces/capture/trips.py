#!/usr/bin/env python3
"""Per-trip clock64 traces: which warp of a shared sub-partition gets the tensor pipe, trip by trip.

    python traces/capture/trips.py --out traces/h100          # on the GPU (CuPy)
    python traces/capture/trips.py --ptx-only DIR             # write the kernels only (no GPU)

The kernels are the recorded timing kernels (``traces/h100/timing/<form>.npz``, their PTX) of
sp_f16_k16_f32, dense_f16_k16_f32 and sp_f16_k32_f32 at ILP 1, 2 and 4, with one change: at the end of
every loop trip (before the trip counter's increment) lane 0 of each warp stores ``%clock64`` to
``sink + ntid.x * 16 + (warp * reps + trip) * 8`` (4 instructions per trip: CS2R, IMAD.WIDE, IADD, STG).
Everything else (loads, chains, the start/end clocks, the xor of the results into ``sink``) is as recorded.

Writes ``OUT/timing/trips_<form>.npz`` (kind ``timing``, the layout of the other timing traces plus
``trip`` (R, 16, 32) uint64: warp w's clock after trip j, 0 where not run). Runs: ILP 1, 2, 4 with 1 warp
and ILP 1, 4 with 4, 8, 12, 13, 16 warps, reps 32, 3 launches each (the first is the cold one).
"""
from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
FORMS = ("sp_f16_k16_f32", "dense_f16_k16_f32", "sp_f16_k32_f32")
ILPS = (1, 2, 4)
REPS = 32


def _tracefile():
    spec = importlib.util.spec_from_file_location("warpsim_tracefile", REPO / "warpsim" / "tracefile.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["warpsim_tracefile"] = mod
    spec.loader.exec_module(mod)
    return mod


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it and ``os.replace``: a broken run leaves
    the old file whole."""
    import os
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _entry(ptx: str, name: str) -> str:
    i = ptx.index(f".entry {name}(")
    j = ptx.index("\n}\n", i) + 3
    return ptx[i:j]


def instrument(ptx: str, form: str, ilp: int) -> str:
    """The recorded kernel <form>_ilp<ilp> renamed trips_<form>_ilp<ilp>, with the per-trip clock store."""
    old = f"{form}_ilp{ilp}"
    new = f"trips_{form}_ilp{ilp}"
    body = _entry(ptx, old).replace(old, new)
    # the loop: ... add.s32 %rC, %rC, 1; setp.lt.s32 %pX, %rC, %rN; @%pX bra $L__BBk_2;
    m = re.search(r"\n([ \t]*)add\.s32\s+(%r\d+), \2, 1;\s*\n\s*setp\.lt\.s32\s+(%p\d+), \2, (%r\d+);\s*\n"
                  r"\s*@\3 bra\s+(\$L__BB\d+_\d+);", body)
    if m is None:
        raise ValueError(f"no loop counter in {old}")
    ind, ctr = m.group(1), m.group(2)
    trip = (f"\n{ind}mov.u64 %rdq5, %clock64;\n{ind}mul.wide.u32 %rdq6, {ctr}, 8;\n"
            f"{ind}add.s64 %rdq7, %rdq4, %rdq6;\n{ind}@%pq1 st.global.u64 [%rdq7], %rdq5;")
    body = body[:m.start()] + trip + body[m.start():]
    # the base address, first thing in the kernel (before the start clock read)
    m2 = re.search(r"\n([ \t]*)ld\.param\.u64\s", body)
    ind = m2.group(1)
    pre = (f"\n{ind}ld.param.u64 %rdq1, [{new}_param_4];\n{ind}cvta.to.global.u64 %rdq2, %rdq1;\n"
           f"{ind}mov.u32 %rq1, %tid.x;\n{ind}mov.u32 %rq4, %ntid.x;\n{ind}mul.wide.u32 %rdq3, %rq4, 16;\n"
           f"{ind}add.s64 %rdq2, %rdq2, %rdq3;\n{ind}shr.u32 %rq2, %rq1, 5;\n"
           f"{ind}mul.wide.u32 %rdq3, %rq2, {REPS * 8};\n{ind}add.s64 %rdq4, %rdq2, %rdq3;\n"
           f"{ind}and.b32 %rq3, %rq1, 31;\n{ind}setp.eq.u32 %pq1, %rq3, 0;")
    body = body[:m2.start()] + pre + body[m2.start():]
    decl = "\t.reg .b64 \t%rdq<8>;\n\t.reg .b32 \t%rq<5>;\n\t.reg .pred \t%pq<2>;\n"
    k = body.index("\t.reg")
    return body[:k] + decl + body[k:]


def module_ptx(ptx: str, form: str) -> str:
    head = ptx[:ptx.index(".visible .entry") if ".visible .entry" in ptx else ptx.index(".entry")]
    head = head[:head.rfind("\n", 0, len(head) - 1) + 1] if head.rstrip().endswith("//") else head
    ents = [".visible " + instrument(ptx, form, i) for i in ILPS]
    return head + "\n".join(ents) + "\n"


def runs():
    out = []
    for ilp in ILPS:
        out += [(ilp, 1, REPS, r) for r in range(3)]
    for ilp in (1, 4):
        for w in (4, 8, 12, 13, 16):
            out += [(ilp, w, REPS, r) for r in range(3)]
    return out


def capture(form, tf, out: Path, dev: dict):
    import cupy as cp
    src = tf.read_trace(REPO / "traces" / "h100" / "timing" / f"{form}.npz")
    ptx = module_ptx(src.ptx, form)
    d = Path("/tmp/trips_ptx")
    d.mkdir(exist_ok=True)
    (d / f"trips_{form}.ptx").write_text(ptx)
    mod = cp.RawModule(path=str(d / f"trips_{form}.ptx"))
    inp = src.arrays["input"]
    R = runs()
    start = np.zeros((len(R), 16), np.uint64)
    end = np.zeros((len(R), 16), np.uint64)
    smid = np.zeros((len(R), 16), np.uint32)
    trip = np.zeros((len(R), 16, REPS), np.uint64)
    d_in = cp.asarray(inp)
    d_s, d_e, d_sm = cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint32)
    funcs = {i: mod.get_function(f"trips_{form}_ilp{i}") for i in ILPS}
    for k, (ilp, w, reps, _r) in enumerate(R):
        d_sink = cp.zeros(32 * w * 16 * 4, cp.uint32)
        d_s.fill(0), d_e.fill(0), d_sm.fill(0)
        funcs[ilp]((1,), (32 * w,), (d_in, d_s, d_e, d_sm, d_sink, np.int32(reps)))
        cp.cuda.Device().synchronize()
        start[k], end[k], smid[k] = cp.asnumpy(d_s), cp.asnumpy(d_e), cp.asnumpy(d_sm)
        sink = cp.asnumpy(d_sink).view(np.uint8)[32 * w * 16:32 * w * 16 + w * reps * 8].view(np.uint64)
        trip[k, :w] = sink.reshape(w, reps)
    ra = np.array(R, np.int32)
    arrays = {"start": start, "end": end, "smid": smid, "run_ilp": ra[:, 0], "run_warps": ra[:, 1],
              "run_reps": ra[:, 2], "run_repeat": ra[:, 3], "input": inp, "trip": trip}
    meta = dict(src.meta)
    meta.update({"kernels": [{"name": f"trips_{form}_ilp{i}", "ilp": i} for i in ILPS], "source": src.name,
                 "how": __doc__.split("\n\n")[2].replace("\n", " ") + " " + src.meta["how"]})
    path = out / "timing" / f"trips_{form}.npz"
    tf.write_trace(path, "timing", arrays, name=f"timing/trips_{form}", ptx=ptx, launch=src.launch, device=dev,
                   meta=meta)
    return path


def device_record() -> dict:
    """traces/h100/device.json's device record with this GPU's nvidia-smi line and the capture time."""
    import json
    import subprocess
    dev = json.loads((REPO / "traces" / "h100" / "device.json").read_text()).get("device", {})
    try:
        dev = dict(dev, smi=subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm",
                                             "--format=csv,noheader"], capture_output=True, text=True).stdout.strip(),
                   captured=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    except OSError:
        pass
    return dev


def capture_cli(argv, forms, ptx_files, run) -> int:
    """The command line of a capture script built on the recorded timing kernels: ``--ptx-only DIR`` writes
    the kernels it runs, ``ptx_files(form, recorded PTX)`` -> {file name: PTX} for each of ``forms`` (no
    GPU); ``--out DIR`` runs ``run(tracefile module, DIR)`` on the GPU."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path)
    ap.add_argument("--ptx-only", type=Path)
    args = ap.parse_args(argv)
    tf = _tracefile()
    if args.ptx_only:
        args.ptx_only.mkdir(parents=True, exist_ok=True)
        for f in forms:
            src = tf.read_trace(REPO / "traces" / "h100" / "timing" / f"{f}.npz")
            for name, text in ptx_files(f, src.ptx).items():
                (args.ptx_only / name).write_text(text)
        return 0
    run(tf, args.out)
    return 0


def main(argv=None):
    def run(tf, out):
        dev = device_record()
        for f in FORMS:
            print(capture(f, tf, out, dev), flush=True)

    return capture_cli(argv, FORMS, lambda f, ptx: {f"trips_{f}.ptx": module_ptx(ptx, f)}, run)

if __name__ == "__main__":
    sys.exit(main())
