"""Logic and bit instructions: and or xor not cnot lop3 shl shr popc clz brev bfe bfi prmt (PTX 9.7.7-8)."""
from __future__ import annotations

import numpy as np

from isa.ptx.ast import Imm, Reg, Vec
from isa.semantics.common import BITS, DT, bad, decoded, nops, one_type, split_mods, unsupported
from isa.semantics.registry import semantics

_U64 = np.uint64
_B = ("b16", "b32", "b64")


def _lowmask(k):
    """uint64 masks with the low ``k`` bits set (k in 0..64)."""
    k = np.asarray(k, np.int64)
    return np.where(k >= 64, _U64(0xFFFFFFFFFFFFFFFF), (_U64(1) << np.minimum(k, 63).astype(_U64)) - _U64(1))


def _w(ctx, ins, v, t):
    ctx.write(ins.operands[0], v, t)


def _logic(ins):
    op = ins.opcode
    d = split_mods(ins, {})
    t = one_type(ins, d["types"], _B + ("pred",))
    if op in ("not", "cnot"):
        nops(ins, 2)
        if op == "cnot" and t == "pred":
            unsupported(ins, "cnot.pred")
        f = np.logical_not if t == "pred" else ((lambda a: np.invert(a)) if op == "not" else
                                                (lambda a: (a == 0).astype(a.dtype)))
        return lambda ctx, ins: _w(ctx, ins, f(ctx.read(ins.operands[1], t)), t)
    nops(ins, 3)
    f = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    return lambda ctx, ins: _w(ctx, ins, f(ctx.read(ins.operands[1], t), ctx.read(ins.operands[2], t)), t)


def _lop3(ins):
    """``lop3{.BoolOp}.b32 d{|p}, a, b, c, immLut{, q}`` (PTX ISA 9.7.7.6): each bit of d is bit (a b c, read as a
    3-bit number) of ``immLut``, the table PTX writes as F(0xF0, 0xCC, 0xAA); with .or / .and, ``p = (d != 0)``
    or / and ``q``."""
    d = split_mods(ins, {"bool": ("or", "and")})
    one_type(ins, d["types"], ("b32",))
    boolop = d["bool"]
    nops(ins, 6 if boolop else 5)
    lut = ins.operands[4]
    if not isinstance(lut, Imm) or lut.kind != "int" or not 0 <= lut.value <= 255:
        bad(ins, "needs immLut, an integer constant 0..255", expected="lop3.b32 d, a, b, c, immLut;")
    table = int(lut.value)
    dst = ins.operands[0]
    dp = tuple(dst.items) if isinstance(dst, Vec) else (dst,)
    if len(dp) != (2 if boolop else 1):
        bad(ins, "destination must be d|p with .or / .and, else d", expected="lop3.or.b32 d|p, a, b, c, immLut, q;")

    def run(ctx, ins):
        o = ins.operands
        a, b, c = (ctx.read(x, "b32") for x in o[1:4])
        r = np.zeros_like(a)
        for i in range(8):
            if table >> i & 1:
                r |= (a if i & 4 else ~a) & (b if i & 2 else ~b) & (c if i & 1 else ~c)
        ctx.write(dp[0], r, "b32")
        if boolop and not (isinstance(dp[1], Reg) and dp[1].name == "_"):
            q = o[5]
            qv = ~ctx.read(Reg(q.name[1:]), "pred") if isinstance(q, Reg) and q.name.startswith("!") else \
                ctx.read(q, "pred")
            ctx.write(dp[1], (r != 0) | qv if boolop == "or" else (r != 0) & qv, "pred")
    return run


def _shift(ins):
    op = ins.opcode
    d = split_mods(ins, {})
    allowed = _B if op == "shl" else _B + ("u16", "u32", "u64", "s16", "s32", "s64")
    t = one_type(ins, d["types"], allowed)
    nops(ins, 3)
    n = BITS[t]
    signed = t.startswith("s")
    dt = DT[t]

    def run(ctx, ins):
        a = ctx.read(ins.operands[1], t)
        s = ctx.read(ins.operands[2], "u32")  # PTX: shift amounts >= the width are clamped to the width
        if op == "shl":
            r = np.where(s >= n, 0, a.astype(_U64) << np.minimum(s, n - 1).astype(_U64)).astype(dt)
        elif signed:
            r = (a.astype(np.int64) >> np.minimum(s, n - 1).astype(np.int64)).astype(dt)
        else:
            r = np.where(s >= n, 0, a.astype(_U64) >> np.minimum(s, n - 1).astype(_U64)).astype(dt)
        ctx.write(ins.operands[0], r, t)
    return run


def _popc(x):
    x = x.astype(_U64)
    c = np.zeros(x.shape, np.uint32)
    for k in range(8):
        c += _POP8[((x >> _U64(8 * k)) & _U64(0xFF)).astype(np.intp)]
    return c


_POP8 = np.array([bin(i).count("1") for i in range(256)], np.uint32)
_REV8 = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], np.uint64)


def _brev(x, n):
    x = x.astype(_U64)
    r = np.zeros(x.shape, _U64)
    for k in range(n // 8):
        r |= _REV8[((x >> _U64(8 * k)) & _U64(0xFF)).astype(np.intp)] << _U64(n - 8 - 8 * k)
    return r


def _clz(x, n):
    x = x.astype(_U64)
    length = np.zeros(x.shape, np.int64)
    for s in (32, 16, 8, 4, 2, 1):
        big = x >= (_U64(1) << _U64(s))
        x = np.where(big, x >> _U64(s), x)
        length += big * s
    length += x > 0
    return (n - length).astype(np.uint32)


def _bitop(ins):
    op = ins.opcode
    d = split_mods(ins, {})
    n_ops = {"popc": 2, "clz": 2, "brev": 2, "bfe": 4, "bfi": 5}[op]
    nops(ins, n_ops)
    if op == "bfe":
        t = one_type(ins, d["types"], ("u32", "u64", "s32", "s64"))
    else:
        t = one_type(ins, d["types"], ("b32", "b64"))
    n, dt = BITS[t], DT[t]
    if op in ("popc", "clz"):
        f = _popc if op == "popc" else (lambda x: _clz(x, n))
        return lambda ctx, ins: _w(ctx, ins, f(ctx.read(ins.operands[1], t)), "u32")
    if op == "brev":
        return lambda ctx, ins: _w(ctx, ins, _brev(ctx.read(ins.operands[1], t), n).astype(dt), t)
    if op == "bfe":
        signed = t.startswith("s")

        def run(ctx, ins):
            o = ins.operands
            a = ctx.read(o[1], t).astype(dt).view(DT["u" + t[1:]]).astype(_U64)
            pos = (ctx.read(o[2], "u32") & 0xFF).astype(np.int64)
            ln = (ctx.read(o[3], "u32") & 0xFF).astype(np.int64)
            eff = np.minimum(ln, np.maximum(n - pos, 0))
            r = (a >> np.minimum(pos, 63).astype(_U64)) & _lowmask(eff)
            r = np.where(pos >= n, _U64(0), r)
            if signed:
                top = np.minimum(pos + ln - 1, n - 1)
                sbit = (ln != 0) & (((a >> np.maximum(top, 0).astype(_U64)) & _U64(1)) == 1)
                r = np.where(sbit, r | ~_lowmask(eff), r)
            ctx.write(o[0], (r & _lowmask(n)).astype(DT["u" + t[1:]]), "u" + t[1:])
        return run

    def run_bfi(ctx, ins):
        o = ins.operands
        a, b = ctx.read(o[1], t).astype(_U64), ctx.read(o[2], t).astype(_U64)
        pos = (ctx.read(o[3], "u32") & 0xFF).astype(np.int64)
        ln = (ctx.read(o[4], "u32") & 0xFF).astype(np.int64)
        eff = np.minimum(ln, np.maximum(n - pos, 0))
        sh = np.minimum(pos, 63).astype(_U64)
        m = np.where(pos >= n, _U64(0), _lowmask(eff) << sh)
        ctx.write(o[0], ((b & ~m) | ((a << sh) & m)).astype(dt), t)
    return run_bfi


_PRMT = {
    "f4e": lambda s, i: s + i, "b4e": lambda s, i: (s - i) % 8, "rc8": lambda s, i: s,
    "ecl": lambda s, i: np.maximum(i, s), "ecr": lambda s, i: np.minimum(i, s),
    "rc16": lambda s, i: 2 * (s & 1) + (i & 1),
}


def _prmt(ins):
    d = split_mods(ins, {"mode": tuple(_PRMT)})
    one_type(ins, d["types"], ("b32",))
    nops(ins, 4)
    mode = d["mode"]

    def run(ctx, ins):
        o = ins.operands
        src = (ctx.read(o[1], "u32").astype(_U64) | (ctx.read(o[2], "u32").astype(_U64) << _U64(32)))
        c = ctx.read(o[3], "u32").astype(np.int64)
        out = np.zeros(32, _U64)
        for i in range(4):
            if mode is None:
                sel = (c >> (4 * i)) & 0xF
                byte = (src >> (8 * (sel & 7)).astype(_U64)) & _U64(0xFF)
                byte = np.where(sel & 8, np.where(byte & _U64(0x80), _U64(0xFF), _U64(0)), byte)
            else:
                idx = _PRMT[mode](c & 3, i)
                byte = (src >> (8 * idx).astype(_U64)) & _U64(0xFF)
            out |= byte << _U64(8 * i)
        ctx.write(o[0], out.astype(np.uint32), "u32")
    return run


def _run(ctx, ins, d):
    d(ctx, ins)


for _op in ("and", "or", "xor", "not", "cnot"):
    semantics(_op, syntax=f"{_op}.type d, a{'' if _op in ('not', 'cnot') else ', b'};", timing="alu")(
        decoded(_logic)(_run))
semantics("lop3", syntax="lop3.b32 d, a, b, c, immLut;  lop3.BoolOp.b32 d|p, a, b, c, immLut, q;  "
          ".BoolOp = {.or, .and}", timing="alu")(decoded(_lop3)(_run))
for _op in ("shl", "shr"):
    semantics(_op, syntax=f"{_op}.type d, a, b;  (b is .u32; amounts >= width clamp)", timing="alu")(
        decoded(_shift)(_run))
for _op, _syn in (("popc", "popc.type d, a;"), ("clz", "clz.type d, a;"), ("brev", "brev.type d, a;"),
                  ("bfe", "bfe.type d, a, b, c;"), ("bfi", "bfi.type f, a, b, c, d;")):
    semantics(_op, syntax=_syn, timing="alu")(decoded(_bitop)(_run))
semantics("prmt", syntax="prmt.b32{.mode} d, a, b, c;", timing="alu")(decoded(_prmt)(_run))
