"""f32/f64 add sub mul mad fma div min max neg abs with .rn/.rz/.rm/.rp, .ftz and .sat (PTX 9.7.3).

Bit-exact against an H100 (tests/ptx/machine/oracle), NaN results included, except
``div.approx.f32`` and ``div.full.f32``: modelled as the correctly rounded quotient (approx: zero
when |b| > 2^126, as on the H100), while the hardware uses its reciprocal approximation; they
differ by 1-2 ulp on about 9% of random inputs (PTX allows 2 ulp).
"""
from __future__ import annotations

import numpy as np

from isa.numerics import fparith as fp
from isa.semantics.common import bad, nops, unsupported

_CANON32 = np.uint32(0x7FFFFFFF)
_SIGN32 = np.uint32(0x80000000)
_QUIET64 = np.uint64(1 << 51)


def _canon(r):
    """float32 results -> bits, NaNs made canonical as the H100 does."""
    b = r.view(np.uint32)
    nan = r != r
    return np.where(nan, _CANON32, b) if nan.any() else b


def _fast_add(a, b):
    with np.errstate(all="ignore"):
        return _canon(a + b)


def _fast_mul(a, b):
    with np.errstate(all="ignore"):
        return _canon(a * b)


def _fast_fma(a, b, c):
    """fma.rn.f32 via f64 (exact product) unless a lane's f64 sum sits on an f32 rounding tie or is tiny."""
    with np.errstate(all="ignore"):
        s = a.astype(np.float64) * b + c
    bits = s.view(np.uint64)
    risky = ((bits & np.uint64(0x1FFFFFFF)) == np.uint64(0x10000000)) | ((np.abs(s) < 2.0 ** -125) & (s != 0))
    if risky.any():
        return fp.fma_f32(a.view(np.uint32), b.view(np.uint32), c.view(np.uint32), "rn")
    with np.errstate(all="ignore"):
        return _canon(s.astype(np.float32))


def _ftz(x):
    b = x.view(np.uint32)
    sub = (b & np.uint32(0x7F800000)) == 0
    return np.where(sub, b & _SIGN32, b).view(np.float32) if sub.any() else x


def _minmax32(op, nan_mode, ftz):
    f = np.fmin if op == "min" else np.fmax

    def g(a, b):
        if ftz:
            a, b = _ftz(a), _ftz(b)
        r = f(a, b)
        both_zero = (a == 0) & (b == 0)
        if both_zero.any():  # -0 < +0
            neg = (np.signbit(a) | np.signbit(b)) if op == "min" else (np.signbit(a) & np.signbit(b))
            r = np.where(both_zero, np.where(neg, np.float32(-0.0), np.float32(0.0)), r)
        if nan_mode:
            r = np.where((a != a) | (b != b), np.float32(np.nan), r)
        return _canon(r)
    return g


def _minmax64(op):
    f = np.fmin if op == "min" else np.fmax

    def g(a, b):
        r = f(a, b)
        both_zero = (a == 0) & (b == 0)
        if both_zero.any():
            neg = (np.signbit(a) | np.signbit(b)) if op == "min" else (np.signbit(a) & np.signbit(b))
            r = np.where(both_zero, np.where(neg, -0.0, 0.0), r)
        both_nan = (a != a) & (b != b)
        return np.where(both_nan, a.view(np.uint64) | _QUIET64, r.view(np.uint64)) if both_nan.any() else r.view(np.uint64)
    return g


def _unary32(op, ftz):
    def g(a):
        b = (_ftz(a) if ftz else a).view(np.uint32)
        r = b ^ _SIGN32 if op == "neg" else b & ~_SIGN32
        return np.where(a != a, _CANON32, r)
    return g


def _unary64(op):
    def g(a):
        b = a.view(np.uint64)
        r = b ^ np.uint64(1 << 63) if op == "neg" else b & np.uint64((1 << 63) - 1)
        return np.where(a != a, b | _QUIET64, r)
    return g


def _div_approx(ftz, full):
    """div.full: the correctly rounded quotient; div.approx: the same, except that a divisor with
    |b| > 2^126 gives a zero quotient (the H100's reciprocal flushes, div.full rescales)."""
    def g(a, b):
        if ftz:
            a, b = _ftz(a), _ftz(b)
        q = fp.div_f32(a.view(np.uint32), b.view(np.uint32), "rn", ftz)
        if not full:
            huge = (np.abs(b) > np.float32(2.0 ** 126)) & np.isfinite(b) & np.isfinite(a)
            q = np.where(huge, (a.view(np.uint32) ^ b.view(np.uint32)) & _SIGN32, q)
        return q
    return g


def _f32(ins, d, op):
    mode, ftz, sat = d["rnd"] or "rn", d["ftz"] is not None, d["sat"] is not None
    exact = (mode == "rn" and not ftz and not sat)
    if op in ("add", "sub"):
        if exact:
            return (lambda a, b: _fast_add(a, b)) if op == "add" else (lambda a, b: _fast_add(a, -b))
        flip = _SIGN32 if op == "sub" else np.uint32(0)
        return lambda a, b: fp.add_f32(a.view(np.uint32), b.view(np.uint32) ^ flip, mode, ftz, sat)
    if op == "mul":
        return _fast_mul if exact else (lambda a, b: fp.mul_f32(a.view(np.uint32), b.view(np.uint32), mode, ftz, sat))
    if op in ("fma", "mad"):
        if op == "fma" and d["rnd"] is None:
            bad(ins, "fma.f32 needs a rounding modifier", expected=".rn, .rz, .rm or .rp")
        if exact:
            return _fast_fma
        return lambda a, b, c: fp.fma_f32(a.view(np.uint32), b.view(np.uint32), c.view(np.uint32), mode, ftz, sat)
    if op == "div":
        if sat:
            unsupported(ins, ".sat")
        if d["approx"]:
            return _div_approx(ftz, d["approx"] == "full")
        if d["rnd"] is None:
            bad(ins, "div.f32 needs .approx, .full or a rounding modifier")
        return lambda a, b: fp.div_f32(a.view(np.uint32), b.view(np.uint32), mode, ftz)
    if op in ("min", "max"):
        return _minmax32(op, d["nan"] is not None, ftz)
    return _unary32(op, ftz)


def _f64(ins, d, op):
    if d["ftz"] or d["sat"] or d["approx"] or d["nan"]:
        unsupported(ins, "qualifier not valid on .f64")
    mode = d["rnd"] or "rn"
    if op in ("fma", "div") and d["rnd"] is None:
        bad(ins, f"{op}.f64 needs a rounding modifier", expected=".rn, .rz, .rm or .rp")
    if op in ("add", "sub", "mul", "div"):
        name = "add" if op == "sub" else op
        sgn = -1.0 if op == "sub" else 1.0
        return lambda a, b: fp.f64_op(name, a, sgn * b if op == "sub" else b, mode=mode)
    if op in ("fma", "mad"):
        return lambda a, b, c: fp.f64_op("fma", a, b, c, mode=mode)
    if op in ("min", "max"):
        return _minmax64(op)
    return _unary64(op)


def decode(ins, d, t):
    """A ``run(ctx, ins)`` for the float form of ``ins`` (t is f32 or f64)."""
    op = ins.opcode
    if op == "rem" or d["hilo"] or d["xorsign"]:
        unsupported(ins, "not a float operation")
    if t == "f32" and d["rnd"] and op in ("min", "max", "neg", "abs"):
        unsupported(ins, f".{d['rnd']} on {op}")
    f = _f32(ins, d, op) if t == "f32" else _f64(ins, d, op)
    n = {"neg": 1, "abs": 1, "fma": 3, "mad": 3}.get(op, 2)
    nops(ins, n + 1)
    out = "b32" if t == "f32" else "b64"
    if n == 1:
        return lambda ctx, ins: ctx.write(ins.operands[0], f(ctx.read(ins.operands[1], t)), out)
    if n == 2:
        return lambda ctx, ins: ctx.write(ins.operands[0], f(ctx.read(ins.operands[1], t),
                                                             ctx.read(ins.operands[2], t)), out)
    return lambda ctx, ins: ctx.write(ins.operands[0], f(ctx.read(ins.operands[1], t), ctx.read(ins.operands[2], t),
                                                         ctx.read(ins.operands[3], t)), out)
