#!/usr/bin/env python3
"""What the per-trip clock store costs when several warps share a sub-partition (ILP 1).

    python traces/capture/store_sharing.py --out traces/h100/trips     # on the GPU (CuPy)
    python traces/capture/store_sharing.py --ptx-only DIR              # write the kernels only (no GPU)

The ILP-1 kernels of traces/capture/trips.py (the recorded timing kernels of sp_f16_k16_f32,
dense_f16_k16_f32 and sp_f16_k32_f32 plus, every loop trip, lane 0 storing %clock64 with st.global) and
variants of them that change only the trip's store:

* ``base``: as trips.py (CS2R, IMAD.WIDE, IADD, ``@!P0 STG.E.64``; the loop's BRA waits on the STG's read
  barrier);
* ``nost``: no store in the loop: the clock is xor-ed into a register, stored once after the loop;
* ``shared``: ``st.shared.u64`` (STS) of the clock to a per-warp slot instead of the STG;
* ``predoff``: the STG predicated off in every lane (``tid.x == ntid.x``, never true; the SASS is base's);
* ``split``: warps 0-3 run base's loop, warps 4.. nost's (one STG warp per sub-partition);
* ``alu_base`` / ``alu_nost`` / ``clk_base`` / ``clk_nost``: warps 0-3 run base's (nost's) loop, warps 4..
  no tensor op: they spin for 12,000 cycles on 4 dependent IMADs (alu) or 4 clock reads (clk) and a clock
  compare.

Runs: warps 1, 4, 8, 12, 16 (1..4 per sub-partition), reps 32, 4 launches each (the first is the cold one).
Writes ``OUT/store_sharing.json``: ``{form: {variant: {warps: {"start": [[per warp] per launch], "end":
..., "trip": [[median clock difference between consecutive trips, per warp] per launch] (variants that store
the clock every trip)}}}}`` plus ``device`` and ``how``. Warps 4.. of the alu/clk variants record nothing.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from trips import FORMS, REPS, capture_cli, device_record, module_ptx, write_atomic  # noqa: E402

WARPS = (1, 4, 8, 12, 16)
LAUNCHES = 4
VARIANTS = ("base", "nost", "shared", "predoff", "split", "alu_base", "alu_nost", "clk_base", "clk_nost")
CLOCKED = ("base", "split", "alu_base", "clk_base")  # lane 0 stores %clock64 every trip (split, alu, clk: warps 0-3)
PRE = "setp.eq.u32 %pq1, %rq3, 0;"
STORE = re.compile(r"mov\.u64 %rdq5, %clock64;\n(\s*)mul\.wide\.u32 %rdq6, (%r\d+), 8;\n\s*add\.s64 %rdq7, "
                   r"%rdq4, %rdq6;\n\s*@%pq1 st\.global\.u64 \[%rdq7\], %rdq5;\n((?:.*\n){2}\s*@%p\d+ bra\s+"
                   r"\$L__BB\d+_\d+;\n)")
SPIN = {"alu": "\tmad.lo.u32 %rs2, %rs2, 1664525, 1013904223;\n", "clk": "\tmov.u64 %rdc2, %clock64;\n"}


def _ilp1(ptx: str, form: str) -> str:
    """The module of trips.py with only its ILP-1 kernel, spare registers declared."""
    mod = module_ptx(ptx, form)
    head = mod[:mod.index(".visible .entry")]
    i = mod.index(f".visible .entry trips_{form}_ilp1(")
    body = mod[i:mod.index("\n}\n", i) + 3]
    body = body.replace("\t.reg .b64 \t%rdq<8>;",
                        "\t.reg .b64 \t%rdq<12>;\n\t.reg .b64 \t%rdc<4>;\n\t.reg .b32 \t%rs<4>;")
    body = body.replace("\t.reg .pred \t%pq<2>;", "\t.reg .pred \t%pq<4>;")
    return head, body


def _nost(body: str) -> str:
    body = body.replace(PRE, PRE + "\n\tmov.u64 %rdq8, 0;")
    return STORE.sub(lambda m: f"mov.u64 %rdq5, %clock64;\n{m.group(1)}xor.b64 %rdq8, %rdq8, %rdq5;\n{m.group(3)}"
                     f"{m.group(1)}@%pq1 st.global.u64 [%rdq4], %rdq8;\n", body)


def _spin(body: str, kind: str) -> str:
    """Warps 4.. branch to a loop without tensor ops for 12,000 cycles."""
    body = body.replace(PRE, PRE + "\n\tsetp.ge.u32 %pq2, %rq2, 4;\n\t@%pq2 bra $SPIN;")
    spin = ("\n$SPIN:\n\tmov.u64 %rdc1, %clock64;\n\tmov.u32 %rs2, %rq1;\n$SPINL:\n" + SPIN[kind] * 4
            + "\tmov.u64 %rdc2, %clock64;\n\tsub.s64 %rdc3, %rdc2, %rdc1;\n\tsetp.lt.s64 %pq3, %rdc3, 12000;\n"
            "\t@%pq3 bra $SPINL;\n\tsetp.eq.u32 %pq3, %rs2, 12345;\n\t@%pq3 st.global.u32 [%rdq2], %rs2;\n\tret;\n")
    return re.sub(r"\n\tret;\n\n}\n", lambda m: "\n\tret;\n" + spin + "\n}\n", body)


def _split(body: str) -> str:
    """Warps 0-3 run the loop with the STG, warps 4.. a copy with the clock xor-ed into a register."""
    body = body.replace(PRE, PRE + "\n\tsetp.ge.u32 %pq2, %rq2, 4;\n\tmov.u64 %rdq8, 0;")
    i = body.index("$L__BB0_2:\n")
    end = "@%p2 bra \t$L__BB0_2;\n"
    j = body.index(end, i) + len(end)
    loop = body[i:j]
    m = re.search(r"(\t*)@%pq1 st\.global\.u64 \[%rdq7\], %rdq5;\n", loop)
    copy = loop.replace(m.group(0), m.group(1) + "xor.b64 %rdq8, %rdq8, %rdq5;\n").replace("$L__BB0_2", "$L__NS_2")
    copy += "\t@%pq1 st.global.u64 [%rdq4], %rdq8;\n\tbra.uni \t$L__BB0_3;\n"
    return body[:i] + "@%pq2 bra \t$L__NS_2;\n" + loop + "\tbra.uni \t$L__BB0_3;\n" + copy + body[j:]


def variant(ptx: str, form: str, kind: str) -> str:
    head, body = _ilp1(ptx, form)
    plain = body
    if kind == "nost":
        body = _nost(body)
    elif kind == "shared":
        body = body.replace(PRE, PRE + "\n\tmov.u64 %rdq9, qsm;\n\tmul.wide.u32 %rdq10, %rq2, 8;\n"
                            "\tadd.s64 %rdq9, %rdq9, %rdq10;")
        body = STORE.sub(lambda m: f"mov.u64 %rdq5, %clock64;\n{m.group(1)}@%pq1 st.shared.u64 [%rdq9], %rdq5;\n"
                         f"{m.group(3)}", body)
        head += ".shared .align 8 .b64 qsm[64];\n\n"
    elif kind == "predoff":
        body = body.replace(PRE, "setp.eq.u32 %pq1, %rq1, %rq4;")
    elif kind == "split":
        body = _split(body)
    elif kind != "base":
        spin, loop = kind.split("_")
        body = _spin(_nost(body) if loop == "nost" else body, spin)
    if body == plain and kind != "base":
        raise ValueError(f"variant {kind} changed nothing in {form}")
    return head + body


def capture(form, tf):
    import cupy as cp
    src = tf.read_trace(REPO / "traces" / "h100" / "timing" / f"{form}.npz")
    d_in = cp.asarray(src.arrays["input"])
    d = Path("/tmp/store_sharing_ptx")
    d.mkdir(exist_ok=True)
    out = {}
    for kind in VARIANTS:
        p = d / f"{kind}_{form}.ptx"
        p.write_text(variant(src.ptx, form, kind))
        fn = cp.RawModule(path=str(p)).get_function(f"trips_{form}_ilp1")
        per = {}
        for w in WARPS:
            rec = {"start": [], "end": [], "trip": []}
            for _ in range(LAUNCHES):
                d_s, d_e, d_sm = cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint32)
                d_sink = cp.zeros(32 * w * 16 * 4, cp.uint32)
                fn((1,), (32 * w,), (d_in, d_s, d_e, d_sm, d_sink, np.int32(REPS)))
                cp.cuda.Device().synchronize()
                rec["start"].append([int(x) for x in cp.asnumpy(d_s)[:w]])
                rec["end"].append([int(x) for x in cp.asnumpy(d_e)[:w]])
                if kind in CLOCKED:
                    sink = cp.asnumpy(d_sink).view(np.uint8)[32 * w * 16:32 * w * 16 + w * REPS * 8].view(np.uint64)
                    t = sink.reshape(w, REPS).astype(np.int64)
                    rec["trip"].append([float(np.median(np.diff(t[k]))) if t[k].all() else None for k in range(w)])
            per[str(w)] = rec
        out[kind] = per
        print(form, kind, flush=True)
    return out


def main(argv=None):
    def run(tf, out):
        res = {"device": device_record(), "how": __doc__.split("\n\n")[2].replace("\n", " "), "reps": REPS}
        for f in FORMS:
            res[f] = capture(f, tf)
        out.mkdir(parents=True, exist_ok=True)
        path = out / "store_sharing.json"
        write_atomic(path, json.dumps(res))
        print(path)

    return capture_cli(argv, FORMS, lambda f, ptx: {f"{k}_{f}.ptx": variant(ptx, f, k) for k in VARIANTS}, run)

if __name__ == "__main__":
    sys.exit(main())
