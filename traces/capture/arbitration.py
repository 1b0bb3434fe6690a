#!/usr/bin/env python3
"""Tensor-pipe arbitration with 4 warps per sub-partition: which warp the H100 starves, and when.

    python traces/capture/arbitration.py --out traces/h100          # on the GPU (CuPy)
    python traces/capture/arbitration.py --ptx-only DIR             # write the kernels only (no GPU)

The kernels are the recorded ILP4 timing kernels (``traces/h100/timing/<form>.npz``) of dense_f16_k16_f32,
dense_f16_k16_f16, sp_f16_k16_f32 and sp_f16_k32_f32, each in these variants:

* ``plain``: as recorded (renamed);
* ``align``: once a warp's A/B/E fragments are loaded (their xor stored past the D values of ``sink``), a
  ``bar.sync`` releases every warp into the loop at once;
* ``stag``: ``align``, then the k-th warp of each sub-partition (warp w, k = w // 4) spins until 300 k
  cycles after the release;
* ``late``: ``align``, then warps 12..15 (the 4th of each sub-partition) spin 1500 cycles;
* ``gap``: before each trip's counter increment, a chain of six dependent multiplies on ``%clock`` feeds
  the counter (ptxas: ``S2UR`` + six ``UIMAD``; about 35 more cycles between a trip's last mma and the
  next trip's first);
* ``rec``/``recalign`` (``plain``/``align`` plus): after the 16th mma of a trip, ``%clock`` is copied into
  one of 8 registers when the trip counter is 0,1,2,3,4,6,8,12 (``UISETP`` + ``USEL`` in the mma stall
  slots), stored after the loop.

Runs: every variant with 12 (``stag``/``late``/``rec*``), 13 and 16 warps, reps 32, 3 launches (the first
is dropped). Writes ``OUT/arbitration.json``: ``{form: {variant: {warps: [[end - start per warp] per
launch]}}}`` (``rec*`` also ``trips``: the 8 clocks per warp relative to the earliest start).
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
FORMS = ("dense_f16_k16_f32", "dense_f16_k16_f16", "sp_f16_k16_f32", "sp_f16_k32_f32")
VARIANTS = ("plain", "align", "stag", "late", "gap", "rec", "recalign")
RECORDED_TRIPS = (0, 1, 2, 3, 4, 6, 8, 12)
REPS = 32

sys.path.insert(0, str(HERE))
from trips import _entry, capture_cli  # noqa: E402  (the recorded kernel text; warpsim/tracefile.py by path)


def _declare(body: str, decl: str) -> str:
    k = body.index("\t.reg")
    return body[:k] + decl + body[k:]


def _before_loop(body: str, lines: list[str]) -> str:
    m = re.search(r"\n(\$L__BB\d+_2):", body)
    return body[:m.start()] + "\n\t" + "\n\t".join(lines) + body[m.start():]


def _align(body: str, name: str) -> str:
    mma = re.search(r"mma\.[^\n]*", body).group(0)
    groups = re.findall(r"\{([^}]*)\}", mma)
    regs = re.findall(r"%r\d+", groups[1] + groups[2]) + re.findall(r"%r\d+", mma[mma.rindex("}") + 1:])
    lines = [f"xor.b32 %rq1, {regs[0]}, {regs[1]};"] + [f"xor.b32 %rq1, %rq1, {r};" for r in regs[2:]]
    lines += [f"ld.param.u64 %rdq1, [{name}_param_4];", "cvta.to.global.u64 %rdq1, %rdq1;",
              "mov.u32 %rq2, %tid.x;", "mov.u32 %rq3, %ntid.x;", "mul.wide.u32 %rdq2, %rq3, 16;",
              "add.s64 %rdq1, %rdq1, %rdq2;", "mul.wide.u32 %rdq2, %rq2, 4;", "add.s64 %rdq1, %rdq1, %rdq2;",
              "st.global.u32 [%rdq1], %rq1;", "bar.sync 0;"]
    return _before_loop(body, lines)


def _delay(body: str, kind: str) -> str:
    spin = ["mov.u32 %rq6, %tid.x;", "shr.u32 %rq6, %rq6, 7;"]
    if kind == "stag":
        spin += ["mul.lo.s32 %rq6, %rq6, 300;"]
    else:
        spin += ["setp.eq.u32 %pq9, %rq6, 3;", "selp.u32 %rq6, 1500, 0, %pq9;"]
    spin += ["mov.u32 %rq7, %clock;", "add.s32 %rq7, %rq7, %rq6;", "$Lspin_q:", "mov.u32 %rq5, %clock;",
             "sub.s32 %rq5, %rq5, %rq7;", "setp.lt.s32 %pq8, %rq5, 0;", "@%pq8 bra $Lspin_q;"]
    k = body.index("bar.sync 0;") + len("bar.sync 0;")
    return _declare(body[:k] + "\n\t" + "\n\t".join(spin) + body[k:], "\t.reg .pred \t%pq<10>;\n")


def _gap(body: str) -> str:
    m = re.search(r"\n([ \t]*)add\.s32\s+(%r\d+), \2, 1;\s*\n\s*setp\.lt\.s32\s+(%p\d+), \2, (%r\d+);", body)
    ctr, reps = m.group(2), m.group(4)
    lines = ["mov.u32 %rq4, %clock;"] + ["mul.lo.s32 %rq4, %rq4, %rq4;"] * 6 + \
            [f"shr.u32 %rq5, {reps}, 30;", "and.b32 %rq5, %rq5, %rq4;", f"add.s32 {ctr}, {ctr}, %rq5;"]
    return body[:m.start()] + "\n\t" + "\n\t".join(lines) + body[m.start():]


def _record(body: str, name: str) -> str:
    ctr = re.search(r"\n[ \t]*add\.s32\s+(%r\d+), \1, 1;\s*\n\s*setp\.lt\.s32", body).group(1)
    body = _declare(body, "\t.reg .b32 \t%rt<9>;\n\t.reg .pred \t%pt<9>;\n\t.reg .b64 \t%rdt<3>;\n")
    pos = re.search(r"\n\$L__BB\d+_2:", body).end()
    for _ in range(16):
        pos = body.index("mma.", pos) + 4
    pos = body.index("\n", pos)
    ins = ["mov.u32 %rt8, %clock;"]
    for j, t in enumerate(RECORDED_TRIPS):
        ins += [f"setp.eq.s32 %pt{j}, {ctr}, {t};", f"@%pt{j} mov.u32 %rt{j}, %rt8;"]
    body = body[:pos] + "\n\t" + "\n\t".join(ins) + body[pos:]
    body = _before_loop(body, [f"mov.u32 %rt{j}, 0;" for j in range(8)])
    m = re.search(r"\n(\$L__BB\d+_3):\n", body)
    st = [f"ld.param.u64 %rdt1, [{name}_param_4];", "cvta.to.global.u64 %rdt1, %rdt1;",
          "mov.u32 %rq6, %tid.x;", "mov.u32 %rq7, %ntid.x;", "mul.wide.u32 %rdt2, %rq7, 16;",
          "add.s64 %rdt1, %rdt1, %rdt2;", "mul.wide.u32 %rdt2, %rq6, 32;", "add.s64 %rdt1, %rdt1, %rdt2;"]
    st += [f"st.global.u32 [%rdt1+{4 * j}], %rt{j};" for j in range(8)]
    return body[:m.end()] + "\t" + "\n\t".join(st) + "\n" + body[m.end():]


def variant(ptx: str, form: str, kind: str) -> str:
    """The recorded kernel <form>_ilp4 as ``a_<form>_<kind>``."""
    name = f"a_{form}_{kind}"
    body = _declare(_entry(ptx, f"{form}_ilp4").replace(f"{form}_ilp4", name),
                    "\t.reg .b64 \t%rdq<4>;\n\t.reg .b32 \t%rq<8>;\n")
    if kind in ("align", "stag", "late", "recalign"):
        body = _align(body, name)
    if kind in ("stag", "late"):
        body = _delay(body, kind)
    if kind == "gap":
        body = _gap(body)
    if kind.startswith("rec"):
        body = _record(body, name)
    return body


def module_ptx(ptx: str, form: str) -> str:
    head = ptx[:ptx.index(".visible .entry")]
    return head + "\n".join(".visible " + variant(ptx, form, k) for k in VARIANTS) + "\n"


def _warps(kind: str):
    return (12, 13, 16) if kind in ("stag", "late") or kind.startswith("rec") else (13, 16)


def capture(form, tf, out: dict):
    import cupy as cp
    src = tf.read_trace(REPO / "traces" / "h100" / "timing" / f"{form}.npz")
    d = Path("/tmp/arbitration_ptx")
    d.mkdir(exist_ok=True)
    (d / f"{form}.ptx").write_text(module_ptx(src.ptx, form))
    mod = cp.RawModule(path=str(d / f"{form}.ptx"))
    inp = cp.asarray(src.arrays["input"])
    res = out.setdefault(form, {})
    for kind in VARIANTS:
        fn = mod.get_function(f"a_{form}_{kind}")
        for w in _warps(kind):
            for launch in range(3):
                s, e, sm = cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint32)
                sink = cp.zeros(32 * w * 16 * 4, cp.uint32)
                fn((1,), (32 * w,), (inp, s, e, sm, sink, np.int32(REPS)))
                cp.cuda.Device().synchronize()
                if launch == 0:
                    continue
                s, e = cp.asnumpy(s)[:w].astype(np.int64), cp.asnumpy(e)[:w].astype(np.int64)
                run = res.setdefault(kind, {}).setdefault(str(w), [])
                run.append((e - s).tolist())
                if kind.startswith("rec"):
                    clk = cp.asnumpy(sink)[32 * w * 4: 32 * w * 12].reshape(w, 32, 8)[:, 0, :].astype(np.int64)
                    rel = (clk - (int(s.min()) & 0xFFFFFFFF)) & 0xFFFFFFFF
                    res[kind].setdefault(f"{w}_trips", []).append(rel.tolist())


def main(argv=None):
    def run(tf, out_dir):
        out: dict = {}
        for f in FORMS:
            capture(f, tf, out)
        path = out_dir / "arbitration.json"
        path.write_text(json.dumps(out))
        print(path)

    return capture_cli(argv, FORMS, lambda f, ptx: {f"arbitration_{f}.ptx": module_ptx(ptx, f)}, run)

if __name__ == "__main__":
    sys.exit(main())
