"""Compare, select, move: setp selp mov (PTX 9.7.4, 9.7.9.1).

``setp`` writes ``p`` and, with ``p|q`` (a two-item Vec operand), ``q = !cmp``; with a boolean
op (``.and .or .xor``) both are combined with the predicate ``c`` (``!c`` negated: a Reg whose
name starts with ``!``). ``mov`` also packs/unpacks vectors (``mov.b32 %r, {%h1, %h2}``) and
takes a variable's address (``mov.u32 %r, smem``).
"""
from __future__ import annotations

import numpy as np

from isa.ptx.ast import Reg, Vec
from isa.semantics.common import BITS, DT, INT_TYPES, bad, decoded, nops, one_type, split_mods, unsupported
from isa.semantics.registry import semantics

_INT_CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
            "ge": np.greater_equal}
_UNS_CMP = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}
_F_CMP = ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")
_BOOL = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}


def _cmp_fn(ins, cmp, t):
    if t in ("f32", "f64"):
        if cmp not in _F_CMP:
            unsupported(ins, f"compare .{cmp} on .{t}")
        if cmp == "num":
            return lambda a, b: (a == a) & (b == b)
        if cmp == "nan":
            return lambda a, b: (a != a) | (b != b)
        if cmp == "ne":
            return lambda a, b: (a != b) & (a == a) & (b == b)
        if cmp.endswith("u"):
            base = _INT_CMP[cmp[:-1]]
            return lambda a, b: base(a, b) | (a != a) | (b != b)
        return _INT_CMP[cmp]
    if t.startswith("b") and cmp not in ("eq", "ne"):
        unsupported(ins, f"compare .{cmp} on .{t}", expected=".eq or .ne on bit types")
    if cmp in _UNS_CMP:
        if not t.startswith("u") and not t.startswith("b"):
            unsupported(ins, f".{cmp} needs an unsigned type")
        return _INT_CMP[_UNS_CMP[cmp]]
    if cmp not in _INT_CMP:
        unsupported(ins, f"compare .{cmp} on .{t}")
    return _INT_CMP[cmp]


def _pred_operand(ctx, op):
    if isinstance(op, Reg) and op.name.startswith("!"):
        return ~ctx.read(Reg(op.name[1:]), "pred")
    return ctx.read(op, "pred")


def _setp(ins):
    cmps = tuple(_INT_CMP) + tuple(_UNS_CMP) + _F_CMP
    d = split_mods(ins, {"cmp": cmps, "bool": tuple(_BOOL), "ftz": ("ftz",)})
    t = one_type(ins, d["types"], INT_TYPES + ("b16", "b32", "b64", "f32", "f64"))
    if d["cmp"] is None:
        bad(ins, "needs a comparison (.eq, .lt, ...)")
    if d["ftz"] and t != "f32":
        unsupported(ins, ".ftz on a type other than .f32")
    f = _cmp_fn(ins, d["cmp"], t)
    ftz = d["ftz"] is not None
    floating = t.startswith("f")
    combine = _BOOL.get(d["bool"])
    nops(ins, 4 if combine else 3)
    dst = ins.operands[0]
    pq = tuple(dst.items) if isinstance(dst, Vec) else (dst,)
    if len(pq) not in (1, 2):
        bad(ins, "destination must be p or p|q")

    def run(ctx, ins):
        o = ins.operands
        a, b = ctx.read(o[1], t), ctx.read(o[2], t)
        if ftz:
            a, b = _ftz(a), _ftz(b)
        if floating:
            with np.errstate(invalid="ignore"):  # NaN operands compare false (or true for .ne/.nan), silently
                r = f(a, b)
        else:
            r = f(a, b)
        nr = ~r
        if combine is not None:
            c = _pred_operand(ctx, o[3])
            r, nr = combine(r, c), combine(nr, c)
        ctx.write(pq[0], r, "pred")
        if len(pq) == 2 and not (isinstance(pq[1], Reg) and pq[1].name == "_"):
            ctx.write(pq[1], nr, "pred")
    return run


def _ftz(x):
    b = x.view(np.uint32)
    return np.where((b & np.uint32(0x7F800000)) == 0, b & np.uint32(0x80000000), b).view(np.float32)


def _selp(ins):
    d = split_mods(ins, {})
    t = one_type(ins, d["types"], INT_TYPES + ("b16", "b32", "b64", "f32", "f64"))
    nops(ins, 4)

    def run(ctx, ins):
        o = ins.operands
        c = _pred_operand(ctx, o[3])
        ctx.write(o[0], np.where(c, ctx.read(o[1], t), ctx.read(o[2], t)), t)
    return run


def _mov(ins):
    d = split_mods(ins, {})
    t = one_type(ins, d["types"], INT_TYPES + ("b16", "b32", "b64", "f16", "bf16", "f16x2", "bf16x2", "f32", "f64",
                                               "pred"))
    nops(ins, 2)
    dst, src = ins.operands
    n = BITS.get(t, 32)
    if isinstance(src, Vec) or isinstance(dst, Vec):
        if not t.startswith("b"):
            bad(ins, "vector pack/unpack needs a .b16/.b32/.b64 type")
        vec = src if isinstance(src, Vec) else dst
        k = len(vec.items)
        if k not in (2, 4) or n % k:
            bad(ins, f"cannot split .{t} into {k} parts")
        et = f"b{n // k}"
        if et == "b8":
            unsupported(ins, "8-bit pack/unpack")
        whole = t if t.startswith("b") else "b32"
        if isinstance(src, Vec):
            def pack(ctx, ins):
                parts = ctx.read_vec(ins.operands[1], et).astype(np.uint64)
                v = np.zeros(32, np.uint64)
                for i in range(k):
                    v |= parts[:, i] << np.uint64(i * (n // k))
                ctx.write(ins.operands[0], v.astype(DT[whole]), whole)
            return pack

        def unpack(ctx, ins):
            v = ctx.read(ins.operands[1], whole).astype(np.uint64)
            m = np.uint64((1 << (n // k)) - 1)
            parts = np.stack([(v >> np.uint64(i * (n // k))) & m for i in range(k)], axis=1).astype(DT[et])
            ctx.write_vec(ins.operands[0], parts, et)
        return unpack
    return lambda ctx, ins: ctx.write(ins.operands[0], ctx.read(ins.operands[1], t), t)


def _run(ctx, ins, d):
    d(ctx, ins)


semantics("setp", syntax="setp.CmpOp{.ftz}.type p{|q}, a, b;  setp.CmpOp.BoolOp{.ftz}.type p{|q}, a, b, {!}c;",
          timing="alu")(decoded(_setp)(_run))
semantics("selp", syntax="selp.type d, a, b, c;", timing="alu")(decoded(_selp)(_run))
semantics("mov", syntax="mov.type d, a;  mov.b32 d, {h0, h1};  mov.b64 {r0, r1}, d;  mov.u32 d, var;",
          timing="alu")(decoded(_mov)(_run))
