#!/usr/bin/env python3
"""Does what the launches before left in the L1 set the sparse fp8 kernels' times? The recorded kernels
re-run after four kinds of launch.

    python traces/capture/l1_state.py --device OUT     # on the GPU (CuPy): OUT/l1_state.npz
    python traces/capture/l1_state.py --json OUT       # here: traces/h100/l1_state.json

The recorded sp_e4m3_k64_f32 and sp_e5m2_k64_f32 timing kernels (their PTX and input from the timing traces),
each measured launch right after one launch of a kind (``BEFORE``) on every SM:

* ``self``: the same kernel with the same warps and trips (what the recorded traces' repeats had before them);
* ``smem``: a kernel that asks for 200 KB of dynamic shared memory, one CTA of 256 threads an SM
  (``capture.py``'s ``l1-reset``: the carveout the driver picks for it leaves the L1 28 KB; the measured launch,
  with none, gets its L1 back);
* ``ca``: 264 CTAs of 1,024 threads, each CTA loading 512 KB of global memory of its own with ``ld.global.ca``
  (an L1 full of global lines the next launch does not touch, recently used);
* ``cg``: the same loads with ``ld.global.cg`` (the L2 only: the L1 as the launch before the ``cg`` one left it).

Runs (``runs()``), both forms: ILP 2, 4 and 8 with one warp at 4 and 32 trips, ILP 4 with 4-9 warps at 32
trips, each 5 times after each kind of launch (the kinds alternate within a configuration).
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
from trips import _tracefile, write_atomic  # noqa: E402
from capture import l1_resetter  # noqa: E402  (the smem kind: capture.py's l1-reset)

FORMS = ("sp_e4m3_k64_f32", "sp_e5m2_k64_f32")
BEFORE = ("self", "smem", "ca", "cg")
REPEATS = 5
CA_KB = 512
FLUSH = r"""
extern "C" __global__ void stream(const uint4* __restrict__ src, unsigned long long* sink, int n, int ca) {
    const uint4* p = src + (size_t)blockIdx.x * n;
    unsigned acc = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        uint4 v = ca ? __ldca(p + i) : __ldcg(p + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u) sink[blockIdx.x] = acc;
}
"""


def runs():
    """(ILP, warps, reps) of the measured configurations."""
    one = [(ilp, 1, reps) for ilp in (2, 4, 8) for reps in (4, 32)]
    return one + [(4, w, 32) for w in range(4, 10)]


def schedule():
    """(form, ILP, warps, reps, before, repeat) of every measured launch, in launch order."""
    return [(f, ilp, w, reps, b, r) for f in range(len(FORMS)) for ilp, w, reps in runs()
            for r in range(REPEATS) for b in range(len(BEFORE))]


def device(out: Path):
    import cupy as cp
    tf = _tracefile()
    stream = cp.RawModule(code=FLUSH, options=("-std=c++17",)).get_function("stream")
    carve = l1_resetter(cp)
    n = CA_KB * 1024 // 16
    buf = cp.arange(264 * n * 4, dtype=cp.uint32)
    fsink = cp.zeros(264, cp.uint64)
    funcs, inputs = {}, {}
    for fi, form in enumerate(FORMS):
        src = tf.read_trace(REPO / "traces" / "h100" / "timing" / f"{form}.npz")
        p = out / f"{form}.ptx"
        p.write_text(src.ptx)
        mod = cp.RawModule(path=str(p))
        for ilp in (2, 4, 8):
            funcs[fi, ilp] = mod.get_function(f"{form}_ilp{ilp}")
        inputs[fi] = cp.asarray(src.arrays["input"])
    S = schedule()
    start, end = np.zeros((len(S), 16), np.uint64), np.zeros((len(S), 16), np.uint64)
    smid = np.zeros((len(S), 16), np.uint32)
    d_s, d_e, d_sm = cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint32)
    d_sink = cp.zeros(16 * 32 * 64, cp.uint32)

    def measured(fi, ilp, w, reps):
        funcs[fi, ilp]((1,), (32 * w,), (inputs[fi], d_s, d_e, d_sm, d_sink, np.int32(reps)))

    for fi, ilp, w, reps, b in {s[:5] for s in S}:  # every kernel once: the driver's JIT and first launches
        measured(fi, ilp, w, reps)
    cp.cuda.Device().synchronize()
    for k, (fi, ilp, w, reps, b, _r) in enumerate(S):
        kind = BEFORE[b]
        if kind == "self":
            measured(fi, ilp, w, reps)
        elif kind == "smem":
            carve()
        else:
            stream((264,), (1024,), (buf, fsink, np.int32(n), np.int32(kind == "ca")))
        d_s.fill(0), d_e.fill(0)
        measured(fi, ilp, w, reps)
        cp.cuda.Device().synchronize()
        start[k], end[k], smid[k] = cp.asnumpy(d_s), cp.asnumpy(d_e), cp.asnumpy(d_sm)
    np.savez_compressed(out / "l1_state.npz", schedule=np.array(S, np.int32), start=start, end=end, smid=smid)
    summary(S, start, end)


def summary(S, start, end):
    cyc = end.astype(np.int64) - start.astype(np.int64)
    for fi, form in enumerate(FORMS):
        for ilp, w, reps in runs():
            cells = []
            for b, kind in enumerate(BEFORE):
                ks = [k for k, s in enumerate(S) if s[:5] == (fi, ilp, w, reps, b)]
                m = [int(cyc[k, :w].mean()) for k in ks]
                cells.append(f"{kind} {min(m)}-{max(m)}")
            print(f"{form} ilp{ilp} w{w} r{reps}: " + " | ".join(cells))


def to_json(out: Path):
    z = np.load(out / "l1_state.npz")
    S = [tuple(s) for s in z["schedule"].tolist()]
    st, en = z["start"].astype(np.int64), z["end"].astype(np.int64)
    rows = [{"form": FORMS[fi], "ilp": ilp, "warps": w, "reps": reps, "before": BEFORE[b], "repeat": r,
             "order": k, "smid": int(z["smid"][k, 0]), "start": (st[k, :w] - st[k, :w].min()).tolist(),
             "cycles": (en[k, :w] - st[k, :w]).tolist()}
            for k, (fi, ilp, w, reps, b, r) in enumerate(S)]
    doc = {"how": " ".join(__doc__.split("\n\n")[0].split()) + " " + " ".join(__doc__.split("\n\n", 2)[2].split()),
           "device": "H100 80GB HBM3", "runs": rows}
    write_atomic(REPO / "traces" / "h100" / "l1_state.json", json.dumps(doc, separators=(",", ":")) + "\n")
    summary(S, st, en)


def main(argv=None):
    return device_json_cli(device, to_json, argv)


if __name__ == "__main__":
    sys.exit(main())
