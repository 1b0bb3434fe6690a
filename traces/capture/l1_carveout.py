#!/usr/bin/env python3
"""How the spill frames of the sparse fp8 timing kernels use the L1: the recorded sp_e4m3_k64_f32 kernels
(ILP 2, 4, 8) re-run with the L1 made smaller by a dynamic shared-memory request (the unified 256 KB
L1/shared array: the carveout the driver picks for S bytes of shared memory is taken from the L1).

    python traces/capture/l1_carveout.py --device OUT     # on the GPU (CuPy): OUT/l1_carveout.npz
    python traces/capture/l1_carveout.py --json OUT       # here: traces/h100/l1_carveout.json

Runs, for each S in SMEM (KB): ILP 2 and ILP 4 with 1..4 warps (one per sub-partition), ILP 8 with 1 warp,
all at reps 32, 3 launches each (the module loaded once; the first launch of each configuration is kept
too). The kernel itself does not touch shared memory.

What came back (H100, 2026-11-22): the times fall into five groups that are not monotonic in S; they match
(inferred, not queried) the carveout that fits the most CTAs of S (+1 KB reserved) bytes: L1 = 256 KB - carveout of {0, 132, 164, 196, 228} KB = 256, 124, 92, 60,
28 KB (e.g. S = 16 KB and 112 KB both leave 28 KB: ILP 4 one warp 1.63 M cycles; S = 128 KB leaves 124 KB:
0.59 M; S = 0: 0.57 M).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from fp8_trips import device_json_cli  # noqa: E402  (--device / --json)
from trips import _tracefile  # noqa: E402  (warpsim/tracefile.py by path)

FORM = "sp_e4m3_k64_f32"
SMEM = (0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224)


def runs():
    out = []
    for s in SMEM:
        for ilp, ws in ((2, (1, 2, 3, 4)), (4, (1, 2, 3, 4)), (8, (1,))):
            for w in ws:
                for r in range(3):
                    out.append((s, ilp, w, r))
    return out


def device(out: Path):
    import cupy as cp
    tf = _tracefile()
    src = tf.read_trace(REPO / "traces" / "h100" / "timing" / f"{FORM}.npz")
    p = out / f"{FORM}.ptx"
    p.write_text(src.ptx)
    mod = cp.RawModule(path=str(p))
    funcs = {i: mod.get_function(f"{FORM}_ilp{i}") for i in (2, 4, 8)}
    for f in funcs.values():
        f.max_dynamic_shared_size_bytes = max(SMEM) * 1024
    inp = cp.asarray(src.arrays["input"])
    R = runs()
    start, end = np.zeros((len(R), 16), np.uint64), np.zeros((len(R), 16), np.uint64)
    smid = np.zeros((len(R), 16), np.uint32)
    d_s, d_e, d_sm = cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint32)
    d_sink = cp.zeros(16 * 32 * 64, cp.uint32)
    for k, (s, ilp, w, _r) in enumerate(R):
        d_s.fill(0), d_e.fill(0)
        funcs[ilp]((1,), (32 * w,), (inp, d_s, d_e, d_sm, d_sink, np.int32(32)), shared_mem=s * 1024)
        cp.cuda.Device().synchronize()
        start[k], end[k], smid[k] = cp.asnumpy(d_s), cp.asnumpy(d_e), cp.asnumpy(d_sm)
    np.savez_compressed(out / "l1_carveout.npz", runs=np.array(R, np.int32), start=start, end=end, smid=smid)
    for k, (s, ilp, w, r) in enumerate(R):
        if r == 2:
            d = (end[k, :w].astype(np.int64) - start[k, :w].astype(np.int64))
            print(f"smem {s:3d}K ilp{ilp} warps{w}: {' '.join(str(x) for x in d)}")


def to_json(out: Path):
    z = np.load(out / "l1_carveout.npz")
    rows = []
    st, en = z["start"].astype(np.int64), z["end"].astype(np.int64)
    for k, (s, ilp, w, r) in enumerate(z["runs"].tolist()):
        rows.append({"smem_kb": s, "ilp": ilp, "warps": w, "reps": 32, "repeat": r,
                     "start": (st[k, :w] - st[k, :w].min()).tolist(), "cycles": (en[k, :w] - st[k, :w]).tolist()})
    doc = {"how": __doc__.split("\n\n")[0].replace("\n", " ") + " " + __doc__.split("\n\n")[2].replace("\n", " "),
           "device": "H100 80GB HBM3", "form": FORM, "runs": rows}
    path = REPO / "traces" / "h100" / "l1_carveout.json"
    path.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(path, path.stat().st_size)


def main(argv=None):
    return device_json_cli(device, to_json, argv)


if __name__ == "__main__":
    sys.exit(main())
