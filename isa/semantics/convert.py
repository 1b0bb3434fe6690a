"""cvt (PTX 9.7.9.21): integer <-> integer, integer <-> float, float <-> float, f32 pairs -> f16x2/bf16x2.

The rounding itself is :mod:`isa.numerics.convert` (exact, vectorised). NaN results are the
H100's (tests/ptx/machine/oracle): to f16/bf16 the canonical 0x7FFF; f16 -> f32 canonical;
bf16 -> f32 is a plain shift; f32/f16 -> f64 and f64 -> f32/f16 carry the payload (quieted);
float -> 64-bit integer NaN gives 0x8000000000000000, -> narrower integers 0.
"""
from __future__ import annotations

import numpy as np

from isa.numerics import convert as cv
from isa.semantics.common import ALL_TYPES, DT, FRND, INT_TYPES, IRND, bad, decoded, nops, split_mods, unsupported
from isa.semantics.registry import semantics

_FLOATS = ("f16", "bf16", "f32", "f64", "tf32")
_RANGE = cv.INT_RANGE


def _int_to_int(ins, dt, at, sat):
    lo, hi = _RANGE[dt]

    def f(a):
        v = a.astype(np.int64) if at.startswith("s") else a.astype(np.uint64)
        if sat:
            if at.startswith("s"):
                v = np.clip(v, max(lo, -(1 << 63)), min(hi, (1 << 63) - 1))
            else:
                v = np.minimum(v, np.uint64(hi))
        return v.astype(DT[dt])
    return f


def _sat01(bits, t):
    x = bits.view(DT[t])
    r = np.where(x != x, 0, np.clip(x, 0, 1)).astype(DT[t])
    return np.where(r == 0, DT[t](0), r).view(bits.dtype)  # -0 -> +0


def _float_to_float(ins, d, dt, at):
    rnd, ftz, sat = d["rnd"], d["ftz"] is not None, d["sat"] is not None
    relu, satf = d["relu"] is not None, d["satfinite"] is not None
    if dt == at:
        if dt not in ("f32", "f64") or rnd in FRND or relu or satf:
            unsupported(ins, None, expected="cvt{.rni|.rzi|.rmi|.rpi}{.ftz}{.sat}.f32.f32 (or .f64.f64)")
        irnd = rnd if rnd in IRND else None

        def same(a):
            b = a.view(DT["b" + dt[1:]])
            if irnd:
                b = cv.round_integral(b, dt, irnd, ftz)
            elif ftz:
                b = cv.convert_float(b, dt, dt, "rn", ftz=True)
            return _sat01(b, dt) if sat else b
        return same
    wider = cv.width(dt) > cv.width(at) and not (at == "f16" and dt == "bf16")
    if wider:
        if rnd or relu or satf:
            unsupported(ins, "a rounding modifier on a widening conversion")
        if (at, dt) == ("bf16", "f32"):
            f = (lambda b: b.astype(np.uint32) << np.uint32(16))
        else:
            nan = "canonical" if (at, dt) == ("f16", "f32") else "payload"
            f = (lambda b: cv.convert_float(b, at, dt, "rn", ftz=ftz, nan=nan))
    else:
        modes = FRND + (("rna",) if dt == "tf32" else ())
        if rnd not in modes:
            bad(ins, "a narrowing conversion needs a rounding modifier", expected=" or ".join("." + m for m in modes))
        if (relu or satf) and at != "f32":
            unsupported(ins, ".relu/.satfinite need an .f32 source")
        nan = "payload" if at == "f64" else "canonical"
        f = (lambda b: cv.convert_float(b, at, dt, rnd, ftz=ftz, relu=relu, satfinite=satf, nan=nan))
    if sat:
        if dt not in ("f32", "f64", "f16"):
            unsupported(ins, f".sat with destination .{dt}")
        return lambda a: _sat01(f(a.view(DT["b" + str(cv.width(at))])), dt)
    return lambda a: f(a.view(DT["b" + str(cv.width(at))]))


def _decode(ins):
    d = split_mods(ins, {"rnd": FRND + IRND + ("rna",), "ftz": ("ftz",), "sat": ("sat",), "relu": ("relu",),
                         "satfinite": ("satfinite",)})
    types = d["types"]
    if len(types) != 2:
        bad(ins, "needs a destination and a source type", expected="cvt.dtype.atype")
    dt, at = types
    rnd, sat = d["rnd"], d["sat"] is not None
    if dt in ("f16x2", "bf16x2"):
        if at != "f32" or rnd not in ("rn", "rz"):
            unsupported(ins, None, expected=f"cvt.rn|rz{{.relu}}{{.satfinite}}.{dt}.f32 d, a, b")
        nops(ins, 3)
        one = _float_to_float(ins, d, dt[:-2], "f32")
        return "pair", one, dt, at
    nops(ins, 2)
    if dt in INT_TYPES and at in INT_TYPES:
        if rnd or d["ftz"] or d["relu"] or d["satfinite"]:
            unsupported(ins, "rounding/ftz on an integer conversion")
        return "int", _int_to_int(ins, dt, at, sat), dt, at
    if dt in _FLOATS and at in INT_TYPES:
        mode = rnd or "rn"
        if mode not in FRND or d["relu"] or d["satfinite"]:
            bad(ins, f"rounding .{mode} is not valid for integer-to-float", expected=".rn .rz .rm .rp")
        f = (lambda a: cv.int_to_float(a, at.startswith("s"), dt, mode))
        return "conv", ((lambda a: _sat01(f(a), dt)) if sat else f), dt, at
    if dt in INT_TYPES and at in _FLOATS and at != "tf32":
        if rnd not in IRND:
            bad(ins, "float-to-integer needs an integer rounding modifier", expected=".rni .rzi .rmi .rpi")
        ftz = d["ftz"] is not None
        return "conv", (lambda a: cv.float_to_int(a.view(DT["b" + str(cv.width(at))]), at, dt, rnd, ftz)
                        .astype(DT[dt])), dt, at
    if dt in _FLOATS and at in _FLOATS:
        return "conv", _float_to_float(ins, d, dt, at), dt, at
    unsupported(ins, f"conversion .{dt}.{at}")


@decoded(_decode)
def _cvt(ctx, ins, d):
    kind, f, dt, at = d
    o = ins.operands
    if kind == "pair":
        hi = f(ctx.read(o[1], "f32")).astype(np.uint32)
        lo = f(ctx.read(o[2], "f32")).astype(np.uint32)
        ctx.write(o[0], (hi << np.uint32(16)) | lo, "b32")
        return
    src = ctx.read(o[1], at if at != "tf32" else "b32")
    res = f(src)
    if dt in ("f16", "bf16"):
        ctx.write(o[0], res.astype(np.uint16), "b16")
    elif dt in ("f32", "tf32"):
        ctx.write(o[0], res.view(np.uint32) if res.dtype.itemsize == 4 else res.astype(np.uint32), "b32")
    elif dt == "f64":
        ctx.write(o[0], res.view(np.uint64), "b64")
    else:
        ctx.write(o[0], res, dt)


def _int_float(ins) -> bool:
    """A conversion between an integer and a float type (I2F / F2I on hardware: the ``cvt`` timing class); the
    others, integer to integer and float to float, are ALU work (a move or shift, F2FP / HADD2.F32:
    traces/h200/op_latency.json)."""
    types = [m for m in ins.mods if m in ALL_TYPES]
    return sum(t in INT_TYPES for t in types) == 1 and len(types) == 2


_CVT_SYNTAX = "cvt{.irnd|.frnd}{.ftz}{.sat}.dtype.atype d, a;  cvt.frnd{.relu}{.satfinite}.f16x2.f32 d, a, b;"
semantics("cvt", syntax=_CVT_SYNTAX, timing="cvt", when=_int_float)(_cvt)
semantics("cvt", syntax=_CVT_SYNTAX, timing="alu")(_cvt)
