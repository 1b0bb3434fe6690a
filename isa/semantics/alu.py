"""Integer arithmetic: add sub mul mad div rem min max neg abs (PTX ISA 9.7.1).

Each decoder returns a small closure ``run(ctx, ins)`` with the types and options bound, so a
step only reads, computes over 32 lanes with numpy and writes. Float forms of the same opcodes
live in :mod:`isa.semantics.alu_float` (the decoders here hand them over).

Integer division or remainder by zero is undefined in PTX: with ``ub_policy="error"`` it raises
UndefinedBehavior; with ``"hardware"`` it gives what an H100 gives: all ones, for div and rem,
u32/s32/u64/s64 alike (measured, tests/ptx/machine/oracle).
"""
from __future__ import annotations

import numpy as np

from isa.semantics import alu_float
from isa.semantics.common import BITS, DT, INT_TYPES, bad, decoded, nops, one_type, split_mods, unsupported
from isa.semantics.registry import semantics

_I64, _U64 = np.int64, np.uint64


def _u(t):
    return f"u{BITS[t]}"


def _s(t):
    return f"s{BITS[t]}"


def _binop(f, t_in, t_out=None):
    t_out = t_out or t_in

    def run(ctx, ins):
        o = ins.operands
        ctx.write(o[0], f(ctx.read(o[1], t_in), ctx.read(o[2], t_in)), t_out)
    return run


def _sat32(x):
    return np.clip(x, -(1 << 31), (1 << 31) - 1).astype(np.int32)


def _mulhi64(a, b, signed):
    """High 64 bits of the 128-bit product of uint64 bit patterns a, b."""
    m32 = _U64(0xFFFFFFFF)
    al, ah, bl, bh = a & m32, a >> _U64(32), b & m32, b >> _U64(32)
    ll, lh, hl, hh = al * bl, al * bh, ah * bl, ah * bh
    mid = (ll >> _U64(32)) + (lh & m32) + (hl & m32)
    hi = hh + (lh >> _U64(32)) + (hl >> _U64(32)) + (mid >> _U64(32))
    if signed:  # two's complement correction
        hi = hi - np.where(a.view(_I64) < 0, b, _U64(0)) - np.where(b.view(_I64) < 0, a, _U64(0))
    return hi


def _mul_parts(t, mode):
    """f(a, b) -> (product as the destination type, destination type) for mul/mad .lo/.hi/.wide."""
    n, signed = BITS[t], t.startswith("s")
    if mode == "lo":
        ut = DT[_u(t)]
        return (lambda a, b: a.view(ut) * b.view(ut)), _u(t)
    if mode == "wide":
        wt = f"{'s' if signed else 'u'}{2 * n}"
        return (lambda a, b: a.astype(DT[wt]) * b.astype(DT[wt])), wt
    if n == 64:
        return (lambda a, b: _mulhi64(a.view(_U64), b.view(_U64), signed).view(DT[t])), t
    wide = _I64 if signed else _U64
    return (lambda a, b: ((a.astype(wide) * b.astype(wide)) >> n).astype(DT[t])), t


def _decode_int_mul(ins, d, t, is_mad):
    mode = d["hilo"]
    if mode is None:
        bad(ins, "integer mul/mad needs .lo, .hi or .wide")
    if mode == "wide" and BITS[t] == 64:
        bad(ins, ".wide needs a 16- or 32-bit type")
    f, tout = _mul_parts(t, mode)
    sat = d["sat"] is not None
    if sat and not (is_mad and mode == "hi" and t == "s32"):
        unsupported(ins, ".sat", expected="mad.hi.sat.s32")
    if not is_mad:
        nops(ins, 3)
        return lambda ctx, ins: ctx.write(ins.operands[0], f(ctx.read(ins.operands[1], t), ctx.read(ins.operands[2], t)), tout)
    nops(ins, 4)

    def run(ctx, ins):
        o = ins.operands
        p = f(ctx.read(o[1], t), ctx.read(o[2], t))
        if sat:
            ctx.write(o[0], _sat32(p.astype(_I64) + ctx.read(o[3], "s32")), "s32")
        else:
            ctx.write(o[0], p.view(DT[_u(tout)]) + ctx.read(o[3], _u(tout)), _u(tout))
    return run


def _divrem(ins, t, op):
    signed = t.startswith("s")
    name = f"{op}.{t}"

    def run(ctx, ins):
        o = ins.operands
        a, b = ctx.read(o[1], t), ctx.read(o[2], t)
        zero = b == 0
        if zero.any():
            z = zero & ctx.active
            if z.any() and ctx.ub_policy == "error":
                ctx.undefined(f"integer {op} by zero (PTX ISA 9.7.1: {name})", z, a,
                              "ub_policy='hardware' gives all ones, as an H100 does")
            b = np.where(zero, 1, b).astype(b.dtype)
        if signed:
            minus1 = b == -1
            bb = np.where(minus1, 1, b).astype(b.dtype)
            r = np.fmod(a, bb)
            q = (a - r) // bb
            q = np.where(minus1, (0 - a.view(DT[_u(t)])).view(DT[t]), q)
            r = np.where(minus1, 0, r).astype(a.dtype)
        else:
            q, r = a // b, a % b
        res = q if op == "div" else r
        if zero.any():
            res = np.where(zero, np.full(32, -1, _I64).view(_U64).astype(DT[_u(t)]).view(DT[t]), res)
        ctx.write(o[0], res, t)
    return run


def _decode_arith(ins):
    op = ins.opcode
    d = split_mods(ins, {"hilo": ("lo", "hi", "wide"), "sat": ("sat",), "rnd": ("rn", "rz", "rm", "rp"),
                         "ftz": ("ftz",), "approx": ("approx", "full"), "nan": ("NaN",), "xorsign": ("xorsign",)})
    types = d["types"]
    if len(types) == 1 and types[0] in ("f32", "f64"):
        return alu_float.decode(ins, d, types[0])
    t = one_type(ins, types, INT_TYPES if op not in ("neg", "abs") else ("s16", "s32", "s64"))
    if any(d[k] for k in ("rnd", "ftz", "approx", "nan", "xorsign")) or (d["hilo"] and op not in ("mul", "mad")):
        unsupported(ins, "qualifier not valid on an integer type")
    if op in ("mul", "mad"):
        return _decode_int_mul(ins, d, t, op == "mad")
    if d["sat"] and not (op in ("add", "sub") and t == "s32"):
        unsupported(ins, ".sat", expected=f"{op}.sat.s32")
    if op in ("neg", "abs"):
        nops(ins, 2)
        f = (lambda a: 0 - a) if op == "neg" else np.abs
        return lambda ctx, ins: ctx.write(ins.operands[0], f(ctx.read(ins.operands[1], t)), t)
    nops(ins, 3)
    if op in ("div", "rem"):
        return _divrem(ins, t, op)
    if op in ("min", "max"):
        return _binop(np.minimum if op == "min" else np.maximum, t)
    if d["sat"]:
        sgn = 1 if op == "add" else -1
        return _binop(lambda a, b: _sat32(a.astype(_I64) + sgn * b.astype(_I64)), "s32")
    return _binop((lambda a, b: a + b) if op == "add" else (lambda a, b: a - b), _u(t))


def _run(ctx, ins, d):
    d(ctx, ins)


_SYNTAX = {
    "add": "add{.sat}.type d, a, b;  add{.rnd}{.ftz}{.sat}.f32 d, a, b;  add{.rnd}.f64 d, a, b;",
    "sub": "sub{.sat}.type d, a, b;  sub{.rnd}{.ftz}{.sat}.f32 d, a, b;  sub{.rnd}.f64 d, a, b;",
    "mul": "mul.mode.type d, a, b (mode .lo .hi .wide);  mul{.rnd}{.ftz}{.sat}.f32;  mul{.rnd}.f64",
    "mad": "mad.mode{.sat}.type d, a, b, c;  mad.rnd{.ftz}{.sat}.f32;  mad.rnd.f64",
    "fma": "fma.rnd{.ftz}{.sat}.f32 d, a, b, c;  fma.rnd.f64 d, a, b, c;",
    "div": "div.type d, a, b;  div.approx{.ftz}.f32;  div.full{.ftz}.f32;  div.rnd{.ftz}.f32;  div.rnd.f64",
    "rem": "rem.type d, a, b;",
    "min": "min.type d, a, b;  min{.ftz}{.NaN}.f32;  min.f64",
    "max": "max.type d, a, b;  max{.ftz}{.NaN}.f32;  max.f64",
    "neg": "neg.type d, a;  neg{.ftz}.f32;  neg.f64",
    "abs": "abs.type d, a;  abs{.ftz}.f32;  abs.f64",
}
_TIMING = {"add": "alu", "sub": "alu", "mul": "mul", "mad": "mul", "fma": "fma", "div": "div", "rem": "div",
           "min": "alu", "max": "alu", "neg": "alu", "abs": "alu"}

def _is_float(ins):
    return "f32" in ins.modset or "f64" in ins.modset


def _is_wide(ins):
    return "wide" in ins.modset


for _op, _syn in _SYNTAX.items():
    semantics(_op, syntax=_syn, timing="fma" if _op not in ("div", "rem") else "div", when=_is_float)(
        decoded(_decode_arith)(_run))
    if _op in ("mul", "mad"):  # a 64-bit product of 32-bit integers: IMAD.WIDE
        semantics(_op, syntax=_syn, timing="mul_wide", when=_is_wide)(decoded(_decode_arith)(_run))
    if _op != "fma":
        semantics(_op, syntax=_syn, timing=_TIMING[_op])(decoded(_decode_arith)(_run))
