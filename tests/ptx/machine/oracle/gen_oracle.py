"""Hardware oracle for single instructions: run each form on the GPU over fixed inputs.

Each entry of ``OPS`` is one PTX instruction with placeholders ``D A B C E`` and the types of
the destination and sources. For every entry this script builds a tiny kernel
(load sources, run the instruction, store the destination), checks it with ``ptxas`` (``--check``,
no GPU needed) or runs it on the GPU through CuPy (``--run OUT.npz``) over ``N`` lanes of inputs
from :func:`inputs` and saves the results. ``tests/test_hw_oracle.py`` replays the same
instructions in warpsim and compares bit for bit.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile

import numpy as np

N = 1024
SIZE = {"b16": 2, "b32": 4, "b64": 8, "pred": 4}

_I = ["add.s32", "add.sat.s32", "sub.sat.s32", "mul.lo.s32", "mul.hi.s32", "mul.hi.u32", "mad.lo.s32",
      "div.u32", "div.s32", "rem.u32", "rem.s32", "min.s32", "max.u32", "min.u32", "max.s32"]
OPS: list[tuple[str, str, tuple]] = []
for op in _I:
    OPS.append((f"{op} D, A, B" + (", C" if op.startswith("mad") else ""), "b32",
                ("b32", "b32", "b32") if op.startswith("mad") else ("b32", "b32")))
OPS += [
    ("mad.hi.s32 D, A, B, C", "b32", ("b32", "b32", "b32")),
    ("mad.hi.sat.s32 D, A, B, C", "b32", ("b32", "b32", "b32")),
    ("mul.wide.s32 D, A, B", "b64", ("b32", "b32")),
    ("mul.wide.u32 D, A, B", "b64", ("b32", "b32")),
    ("mad.wide.s32 D, A, B, C", "b64", ("b32", "b32", "b64")),
    ("mul.hi.u64 D, A, B", "b64", ("b64", "b64")),
    ("mul.hi.s64 D, A, B", "b64", ("b64", "b64")),
    ("mul.lo.u64 D, A, B", "b64", ("b64", "b64")),
    ("div.u64 D, A, B", "b64", ("b64", "b64")),
    ("div.s64 D, A, B", "b64", ("b64", "b64")),
    ("rem.u64 D, A, B", "b64", ("b64", "b64")),
    ("rem.s64 D, A, B", "b64", ("b64", "b64")),
    ("mul.wide.s16 D, A, B", "b32", ("b16", "b16")),
    ("abs.s32 D, A", "b32", ("b32",)),
    ("neg.s32 D, A", "b32", ("b32",)),
    ("shl.b32 D, A, B", "b32", ("b32", "shift")),
    ("shr.u32 D, A, B", "b32", ("b32", "shift")),
    ("shr.s32 D, A, B", "b32", ("b32", "shift")),
    ("shl.b64 D, A, B", "b64", ("b64", "shift")),
    ("shr.s64 D, A, B", "b64", ("b64", "shift")),
    ("shr.u16 D, A, B", "b16", ("b16", "shift")),
    ("shr.s16 D, A, B", "b16", ("b16", "shift")),
    ("popc.b32 D, A", "b32", ("b32",)),
    ("popc.b64 D, A", "b32", ("b64",)),
    ("clz.b32 D, A", "b32", ("b32",)),
    ("clz.b64 D, A", "b32", ("b64",)),
    ("brev.b32 D, A", "b32", ("b32",)),
    ("brev.b64 D, A", "b64", ("b64",)),
    ("bfe.u32 D, A, B, C", "b32", ("b32", "shift", "shift")),
    ("bfe.s32 D, A, B, C", "b32", ("b32", "shift", "shift")),
    ("bfe.s64 D, A, B, C", "b64", ("b64", "shift", "shift")),
    ("bfi.b32 D, A, B, C, E", "b32", ("b32", "b32", "shift", "shift")),
    ("prmt.b32 D, A, B, C", "b32", ("b32", "b32", "b32")),
    ("prmt.b32.f4e D, A, B, C", "b32", ("b32", "b32", "b32")),
    ("prmt.b32.b4e D, A, B, C", "b32", ("b32", "b32", "b32")),
    ("prmt.b32.rc8 D, A, B, C", "b32", ("b32", "b32", "b32")),
    ("prmt.b32.ecl D, A, B, C", "b32", ("b32", "b32", "b32")),
    ("prmt.b32.ecr D, A, B, C", "b32", ("b32", "b32", "b32")),
    ("prmt.b32.rc16 D, A, B, C", "b32", ("b32", "b32", "b32")),
    ("cnot.b32 D, A", "b32", ("b32",)),
]
for cmp in ("eq", "ne", "lt", "le", "gt", "ge"):
    OPS.append((f"setp.{cmp}.s32 D, A, B", "pred", ("b32", "b32")))
for cmp in ("lo", "ls", "hi", "hs"):
    OPS.append((f"setp.{cmp}.u32 D, A, B", "pred", ("b32", "b32")))
for cmp in ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"):
    OPS.append((f"setp.{cmp}.f32 D, A, B", "pred", ("f32", "f32")))
OPS += [("setp.ltu.f64 D, A, B", "pred", ("f64", "f64")), ("setp.ge.f64 D, A, B", "pred", ("f64", "f64"))]
for rnd in ("rn", "rz", "rm", "rp"):
    OPS += [(f"add.{rnd}.f32 D, A, B", "b32", ("f32", "f32")),
            (f"sub.{rnd}.f32 D, A, B", "b32", ("f32", "f32")),
            (f"mul.{rnd}.f32 D, A, B", "b32", ("f32", "f32")),
            (f"fma.{rnd}.f32 D, A, B, C", "b32", ("f32", "f32", "f32")),
            (f"div.{rnd}.f32 D, A, B", "b32", ("f32", "f32")),
            (f"add.{rnd}.f64 D, A, B", "b64", ("f64", "f64")),
            (f"mul.{rnd}.f64 D, A, B", "b64", ("f64", "f64")),
            (f"fma.{rnd}.f64 D, A, B, C", "b64", ("f64", "f64", "f64")),
            (f"div.{rnd}.f64 D, A, B", "b64", ("f64", "f64")),
            (f"cvt.{rnd}.f16.f32 D, A", "b16", ("f32",)),
            (f"cvt.{rnd}.bf16.f32 D, A", "b16", ("f32",)),
            (f"cvt.{rnd}.f32.f64 D, A", "b32", ("f64",)),
            (f"cvt.{rnd}.f16.f64 D, A", "b16", ("f64",)),
            (f"cvt.{rnd}.f32.s32 D, A", "b32", ("b32",)),
            (f"cvt.{rnd}.f32.u64 D, A", "b32", ("b64",)),
            (f"cvt.{rnd}.f64.s64 D, A", "b64", ("b64",)),
            (f"cvt.{rnd}.f16.s32 D, A", "b16", ("b32",)),
            (f"cvt.{rnd}i.s32.f32 D, A", "b32", ("f32",)),
            (f"cvt.{rnd}i.u32.f32 D, A", "b32", ("f32",)),
            (f"cvt.{rnd}i.s64.f64 D, A", "b64", ("f64",)),
            (f"cvt.{rnd}i.u64.f32 D, A", "b64", ("f32",)),
            (f"cvt.{rnd}i.s16.f16 D, A", "b16", ("f16",)),
            (f"cvt.{rnd}i.f32.f32 D, A", "b32", ("f32",))]
OPS += [
    ("add.ftz.f32 D, A, B", "b32", ("f32", "f32")),
    ("add.sat.f32 D, A, B", "b32", ("f32", "f32")),
    ("mul.rz.ftz.sat.f32 D, A, B", "b32", ("f32", "f32")),
    ("fma.rn.ftz.sat.f32 D, A, B, C", "b32", ("f32", "f32", "f32")),
    ("min.f32 D, A, B", "b32", ("f32", "f32")),
    ("max.f32 D, A, B", "b32", ("f32", "f32")),
    ("min.NaN.f32 D, A, B", "b32", ("f32", "f32")),
    ("max.ftz.f32 D, A, B", "b32", ("f32", "f32")),
    ("min.f64 D, A, B", "b64", ("f64", "f64")),
    ("abs.f32 D, A", "b32", ("f32",)),
    ("neg.f32 D, A", "b32", ("f32",)),
    ("abs.ftz.f32 D, A", "b32", ("f32",)),
    ("neg.f64 D, A", "b64", ("f64",)),
    ("div.full.f32 D, A, B", "b32", ("f32", "f32")),
    ("div.approx.f32 D, A, B", "b32", ("f32", "f32")),
    ("rcp.rn.f32 D, A", "b32", ("f32",)),
    ("sqrt.rn.f32 D, A", "b32", ("f32",)),
    ("cvt.rn.relu.f16.f32 D, A", "b16", ("f32",)),
    ("cvt.rn.satfinite.f16.f32 D, A", "b16", ("f32",)),
    ("cvt.rz.relu.satfinite.bf16.f32 D, A", "b16", ("f32",)),
    ("cvt.rna.tf32.f32 D, A", "b32", ("f32",)),
    ("cvt.rna.satfinite.tf32.f32 D, A", "b32", ("f32",)),
    ("cvt.rn.tf32.f32 D, A", "b32", ("f32",)),
    ("cvt.rz.tf32.f32 D, A", "b32", ("f32",)),
    ("cvt.rn.relu.tf32.f32 D, A", "b32", ("f32",)),
    ("cvt.f32.f16 D, A", "b32", ("f16",)),
    ("cvt.f32.bf16 D, A", "b32", ("bf16",)),
    ("cvt.f64.f32 D, A", "b64", ("f32",)),
    ("cvt.f64.f16 D, A", "b64", ("f16",)),
    ("cvt.ftz.f32.f16 D, A", "b32", ("f16",)),
    ("cvt.rn.ftz.f16.f32 D, A", "b16", ("f32",)),
    ("cvt.rn.bf16.f16 D, A", "b16", ("f16",)),
    ("cvt.rn.f16.bf16 D, A", "b16", ("bf16",)),
    ("cvt.rzi.ftz.s32.f32 D, A", "b32", ("f32",)),
    ("cvt.rni.sat.f32.f32 D, A", "b32", ("f32",)),
    ("cvt.sat.s8.s32 D, A", "b32", ("b32",)),
    ("cvt.sat.u8.s32 D, A", "b32", ("b32",)),
    ("cvt.sat.s16.u32 D, A", "b16", ("b32",)),
    ("cvt.sat.u32.s64 D, A", "b32", ("b64",)),
    ("cvt.sat.s32.u32 D, A", "b32", ("b32",)),
    ("cvt.s8.s32 D, A", "b32", ("b32",)),
    ("cvt.u8.u32 D, A", "b32", ("b32",)),
    ("cvt.s64.s16 D, A", "b64", ("b16",)),
    ("cvt.u32.s8 D, A", "b32", ("b32",)),
    ("cvt.s32.s8 D, A", "b32", ("b32",)),
    ("cvt.s16.s8 D, A", "b16", ("b32",)),
    ("cvt.rn.f32.u32 D, A", "b32", ("b32",)),
]

_REG = {2: ["%h1", "%h2", "%h3", "%h4", "%h5"], 4: ["%r1", "%r2", "%r3", "%r4", "%r5"],
        8: ["%rd11", "%rd12", "%rd13", "%rd14", "%rd15"]}
_BITS = {"b16": 16, "f16": 16, "bf16": 16, "b32": 32, "f32": 32, "shift": 32, "b64": 64, "f64": 64, "pred": 32}


def nbytes(t: str) -> int:
    return _BITS[t] // 8


def kernel_ptx(instr: str, dtype: str, stypes: tuple) -> str:
    """A kernel running ``instr`` once per thread on inputs ``pa..pe`` and storing to ``pd``."""
    names = "ABCE"
    lines = ["mov.u32 %r0, %tid.x;", "mov.u32 %r6, %ctaid.x;", "mov.u32 %r7, %ntid.x;",
             "mad.lo.u32 %r0, %r6, %r7, %r0;", "cvt.u64.u32 %rd0, %r0;"]
    text = instr
    for k, t in enumerate(stypes):
        s = nbytes(t)
        reg = _REG[s][k]
        lines += [f"ld.param.u64 %rd1, [p{names[k].lower()}];", f"mul.lo.u64 %rd2, %rd0, {s};",
                  "add.u64 %rd2, %rd1, %rd2;", f"ld.global.b{8 * s} {reg}, [%rd2];"]
        text = text.replace(f" {names[k]}", f" {reg}").replace(f",{names[k]}", f",{reg}")
    s = nbytes(dtype)
    dreg = "%p1" if dtype == "pred" else _REG[s][4]
    text = text.replace(" D,", f" {dreg},")
    lines.append(text + ";")
    if dtype == "pred":
        lines.append("selp.u32 %r5, 1, 0, %p1;")
        dreg = "%r5"
    lines += ["ld.param.u64 %rd1, [pd];", f"mul.lo.u64 %rd2, %rd0, {s};", "add.u64 %rd2, %rd1, %rd2;",
              f"st.global.b{8 * s} [%rd2], {dreg};", "ret;"]
    body = "\n\t".join(lines)
    return (".version 8.5\n.target sm_90a\n.address_size 64\n"
            ".visible .entry k(.param .u64 pd, .param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pe)\n{\n"
            "\t.reg .pred %p<2>; .reg .b16 %h<8>; .reg .b32 %r<8>; .reg .b64 %rd<16>;\n\t" + body + "\n}\n")


def _f32_edges() -> np.ndarray:
    e = [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC00123, 0x7F7FFFFF, 0x00800000,
         0x00000001, 0x807FFFFF, 0x3F800000, 0xBF800000, 0x3F000000, 0x477FE000, 0x477FF000, 0x477FEFFF,
         0x47800000, 0x387FC000, 0x33800000, 0x33000000, 0x33000001, 0x3F7FFFFF, 0x4F000000, 0xCF000000,
         0x4F800000, 0x5F000000, 0x5F800000, 0xDF000000, 0x3FC00000, 0x40200000, 0xBFC00000, 0x40100000]
    return np.array(e, dtype=np.uint32)


def inputs(ptype: str, pos: int) -> np.ndarray:
    """Fixed inputs (raw bits as unsigned ints) for an operand of ``ptype`` at position ``pos``."""
    rng = np.random.default_rng(1000 + 17 * pos + _BITS[ptype])
    if ptype == "shift":
        return np.concatenate([np.arange(72, dtype=np.uint32), rng.integers(0, 80, N - 72, dtype=np.uint32)])
    if ptype in ("f16", "bf16", "b16"):
        return rng.integers(0, 1 << 16, N, dtype=np.uint64).astype(np.uint16)
    if ptype == "f32":
        nice = (rng.standard_normal(N) * np.exp2(rng.integers(-40, 40, N))).astype(np.float32).view(np.uint32)
        near = (rng.standard_normal(N) * 4).astype(np.float16).astype(np.float32).view(np.uint32)
        near = near + rng.choice(np.array([0, 0x1000, 0x0FFF, 0x1001, 0x8000, 0x10000], np.uint32), N)
        x = np.where(rng.random(N) < 0.4, rng.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32),
                     np.where(rng.random(N) < 0.5, nice, near))
        edges = _f32_edges()
        x[: len(edges)] = edges
        return x.astype(np.uint32)
    if ptype == "f64":
        nice = rng.standard_normal(N) * np.exp2(rng.integers(-60, 60, N))
        rnd = rng.integers(0, 1 << 63, N, dtype=np.uint64) | (rng.integers(0, 2, N, dtype=np.uint64) << np.uint64(63))
        x = np.where(rng.random(N) < 0.4, rnd, nice.view(np.uint64))
        with np.errstate(invalid="ignore"):
            e32 = _f32_edges().view(np.float32).astype(np.float64).view(np.uint64)
        x[: len(e32)] = e32
        x[len(e32): len(e32) + 4] = [0x7FF0000000000001, 0x7FEFFFFFFFFFFFFF, 0x0000000000000001, 0x8010000000000000]
        return x.astype(np.uint64)
    bits = _BITS[ptype]
    top = (1 << bits) - 1
    edge = [0, 1, 2, 3, 7, top, top - 1, top >> 1, (top >> 1) + 1, 255, 256, 0x7FFF, 0x8000, 0xFFFF, 0x10000]
    small = rng.integers(-300, 300, N).astype(np.int64).view(np.uint64) & np.uint64(top)
    x = rng.integers(0, top, N, dtype=np.uint64, endpoint=True)
    x = np.where(rng.random(N) < 0.4, small, x)
    if pos == 1:  # divisors and right operands: many zeros and -1
        x[rng.random(N) < 0.1] = 0
        x[rng.random(N) < 0.05] = top
    x[: len(edge)] = edge
    return x.astype({32: np.uint32, 64: np.uint64}[bits])


def check() -> list[str]:
    """ptxas each kernel; return the instructions it refuses."""
    bad = []
    with tempfile.TemporaryDirectory() as d:
        for instr, dt, st in OPS:
            p = f"{d}/k.ptx"
            open(p, "w").write(kernel_ptx(instr, dt, st))
            r = subprocess.run(["ptxas", "-arch=sm_90a", p, "-o", f"{d}/k.cubin"], capture_output=True, text=True)
            if r.returncode:
                bad.append(f"{instr}: {r.stderr.strip()}")
    return bad


def run(out: str) -> None:
    import cupy as cp

    res = {"ops": np.array(json.dumps([[i, d, list(s)] for i, d, s in OPS]))}
    for instr, dt, st in OPS:
        with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
            f.write(kernel_ptx(instr, dt, st))
        mod = cp.RawModule(path=f.name)
        k = mod.get_function("k")
        ins = [inputs(t, pos) for pos, t in enumerate(st)]
        for pos, (t, x) in enumerate(zip(st, ins)):
            res[f"in:{t}:{pos}"] = x
        args = [cp.asarray(x) for x in ins]
        args += [cp.zeros(1, cp.uint8)] * (4 - len(args))
        d = cp.zeros(N, {2: cp.uint16, 4: cp.uint32, 8: cp.uint64}[nbytes(dt)])
        k((N // 128,), (128,), [d] + args)
        res[instr] = cp.asnumpy(d)
    np.savez_compressed(out, **res)


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        print("\n".join(check()) or "all accepted")
    else:
        run(sys.argv[2])
