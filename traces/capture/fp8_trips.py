#!/usr/bin/env python3
"""Per-trip clock64 of the sparse fp8 timing kernels: which trips of a spilling kernel are long.

    python traces/capture/fp8_trips.py --device OUT      # on the GPU (CuPy): OUT/fp8trips.npz
    python traces/capture/fp8_trips.py --json OUT        # here: traces/h100/trips/sp_fp8_trips.json

The kernels are the recorded sp_e5m2_k64_f32 and sp_e4m3_k64_f32 timing kernels at ILP 1, 2, 4, 8 with the
per-trip clock store of traces/capture/trips.py (``instrument``; ptxas's SASS of the instrumented kernels
spills within 3 % of the recorded ones). e5m2's module is loaded first (capture.py loaded e4m3 first).
Runs, in this order for each form: ILP 1, 2, 4, 8 with one warp at reps 4 and 32, 3 launches each; ILP 4
with 2, 4, 5, 8, 16 warps at reps 32, 2 launches each. The JSON holds per run the warps' cycles from the
start clock to the end of each trip, and to the end clock.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
FORMS = ("sp_e5m2_k64_f32", "sp_e4m3_k64_f32")
ILPS = (1, 2, 4, 8)


def runs():
    out = [(ilp, 1, reps, r) for ilp in ILPS for reps in (4, 32) for r in range(3)]
    return out + [(4, w, 32, r) for w in (2, 4, 5, 8, 16) for r in range(2)]


def device(out: Path):
    import cupy as cp
    sys.path.insert(0, str(HERE))
    import trips
    tf = trips._tracefile()
    R, res = runs(), {}
    for form in FORMS:
        src = tf.read_trace(REPO / "traces" / "h100" / "timing" / f"{form}.npz")
        head = src.ptx[:src.ptx.index(".visible .entry")]
        p = out / f"trips_{form}.ptx"
        p.write_text(head + "\n".join(".visible " + trips.instrument(src.ptx, form, i) for i in ILPS) + "\n")
        mod = cp.RawModule(path=str(p))
        funcs = {i: mod.get_function(f"trips_{form}_ilp{i}") for i in ILPS}
        inp = cp.asarray(src.arrays["input"])
        start, end = np.zeros((len(R), 16), np.uint64), np.zeros((len(R), 16), np.uint64)
        trip = np.zeros((len(R), 16, trips.REPS), np.uint64)
        d_s, d_e, d_sm = cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint32)
        for k, (ilp, w, reps, _r) in enumerate(R):
            d_sink = cp.zeros(32 * w * 16 * 4, cp.uint32)
            funcs[ilp]((1,), (32 * w,), (inp, d_s, d_e, d_sm, d_sink, np.int32(reps)))
            cp.cuda.Device().synchronize()
            start[k], end[k] = cp.asnumpy(d_s), cp.asnumpy(d_e)
            sink = cp.asnumpy(d_sink).view(np.uint8)[32 * w * 16:32 * w * 16 + w * trips.REPS * 8].view(np.uint64)
            trip[k, :w] = sink.reshape(w, trips.REPS)
        res.update({f"{form}_start": start, f"{form}_end": end, f"{form}_trip": trip})
    np.savez_compressed(out / "fp8trips.npz", runs=np.array(R, np.int32), **res)


def to_json(out: Path):
    z = np.load(out / "fp8trips.npz")
    rows = []
    for form in FORMS:
        st, en, tr = (z[f"{form}_{k}"].astype(np.int64) for k in ("start", "end", "trip"))
        for k, (ilp, w, reps, r) in enumerate(z["runs"].tolist()):
            rows.append({"form": form, "ilp": ilp, "warps": w, "reps": reps, "repeat": r,
                         "start": (st[k, :w] - st[k, :w].min()).tolist(),
                         "trip_end": (tr[k, :w, :reps] - st[k, :w, None]).tolist(),
                         "end": (en[k, :w] - st[k, :w]).tolist()})
    doc = {"how": __doc__.split("\n\n")[2].replace("\n", " "), "device": "H100 80GB HBM3, driver 580.159.04",
           "runs": rows}
    path = REPO / "traces" / "h100" / "trips" / "sp_fp8_trips.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(path, path.stat().st_size)


def device_json_cli(device_fn, json_fn, argv=None, json_flag: str = "json") -> int:
    """``--device DIR``: run ``device_fn(DIR)`` on the GPU; ``--json DIR`` (or ``--<json_flag>``): ``json_fn(DIR)``
    summarises what it wrote into traces/h100 (the two steps of a one-off capture)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", metavar="DIR", type=Path)
    ap.add_argument(f"--{json_flag}", dest="local", metavar="DIR", type=Path)
    a = ap.parse_args(argv)
    if a.device:
        device_fn(a.device)
    if a.local:
        json_fn(a.local)
    return 0


def main(argv=None):
    return device_json_cli(device, to_json, argv)


if __name__ == "__main__":
    sys.exit(main())
