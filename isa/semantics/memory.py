"""ld, st and cvta (PTX 9.7.9.3, 9.7.9.8, 9.7.9.17).

State spaces .global .shared{::cta} .local .const .param{::entry} and generic addressing;
types b8-b64, u/s 8-64, f16/bf16/f32/f64; .v2/.v4. Ordering and cache qualifiers (.volatile
.relaxed .acquire .release .weak, scopes, .ca .cg .cs .lu .cv .nc, .L1::/.L2:: hints) are
accepted: a functional machine that runs one warp at a time is already sequentially consistent.
A narrower load into a wider register is zero- or (.sN) sign-extended; a narrower store takes
the register's low bits.
"""
from __future__ import annotations

from isa.ptx.ast import Vec
from isa.semantics.common import BITS, bad, decoded, nops, unsupported
from isa.semantics.registry import semantics

_SPACES = {"global": "global", "shared": "shared", "shared::cta": "shared", "local": "local", "const": "const",
           "param": "param", "param::entry": "param"}
_ORDER = ("volatile", "relaxed", "acquire", "release", "weak", "mmio")
_SCOPE = ("cta", "gpu", "sys", "cluster")
_CACHE = ("ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc")
_TYPES = ("b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16", "bf16",
          "f32", "f64", "f16x2", "bf16x2")


def _decode_ldst(ins):
    space, vec, types = None, 1, []
    for m in ins.mods:
        if m in _SPACES:
            if space is not None:
                bad(ins, "two state spaces")
            space = _SPACES[m]
        elif m in ("v2", "v4"):
            vec = int(m[1])
        elif m in _TYPES:
            types.append(m)
        elif m in _ORDER or m in _SCOPE or m in _CACHE or m.startswith(("L1::", "L2::")):
            continue
        else:
            unsupported(ins, f"qualifier .{m}")
    if len(types) != 1:
        bad(ins, "needs exactly one type", expected="e.g. .b32, .f32, .u8")
    t = types[0]
    if ins.opcode == "st" and space == "const":
        bad(ins, ".const memory is read-only")
    if ins.opcode == "st" and space == "param":
        unsupported(ins, "st.param (device function calls are not modelled)")
    nops(ins, 2)
    data = ins.operands[0] if ins.opcode == "ld" else ins.operands[1]
    if vec > 1 and not (isinstance(data, Vec) and len(data.items) == vec):
        bad(ins, f".v{vec} needs a vector of {vec} registers")
    if vec == 1 and isinstance(data, Vec):
        bad(ins, "a vector operand needs .v2 or .v4")
    if vec * BITS.get(t, 32) > 128:
        bad(ins, f".v{vec}.{t} is wider than 128 bits")
    return space or "generic", vec, t


@decoded(_decode_ldst)
def _ld(ctx, ins, d):
    space, n, t = d
    o = ins.operands
    sp, addr = ctx.address(o[1], space)
    v = ctx.load(sp, addr, t, n)
    if n == 1:
        ctx.write(o[0], v, t)
    else:
        ctx.write_vec(o[0], v, t)


@decoded(_decode_ldst)
def _st(ctx, ins, d):
    space, n, t = d
    o = ins.operands
    sp, addr = ctx.address(o[0], space)
    v = ctx.read(o[1], t) if n == 1 else ctx.read_vec(o[1], t)
    ctx.store(sp, addr, v, t, n)


def _decode_cvta(ins):
    to = "to" in ins.modset
    spaces = [_SPACES[m] for m in ins.mods if m in _SPACES]
    sizes = [m for m in ins.mods if m in ("u32", "u64")]
    rest = set(ins.mods) - {"to"} - set(sizes) - {m for m in ins.mods if m in _SPACES}
    if rest:
        unsupported(ins, "qualifier ." + " .".join(sorted(rest)))
    if len(spaces) != 1 or spaces[0] == "param" and to or len(sizes) != 1:
        bad(ins, "expected cvta{.to}.space.size d, a", expected="space .global .shared .local .const .param; .u32/.u64")
    nops(ins, 2)
    return spaces[0], to, sizes[0]


@decoded(_decode_cvta)
def _cvta(ctx, ins, d):
    space, to, size = d
    a = ctx.read(ins.operands[1], size).astype("u8")
    ctx.write(ins.operands[0], ctx.cvta(a, space, not to).astype("u8" if size == "u64" else "u4"), size)


def _in(space):
    return lambda ins: any(_SPACES.get(m) == space for m in ins.mods)


_LD = "ld{.space}{.sem}{.cop}{.vec}.type d, [a];  (space .global .shared .local .const .param or generic)"
_ST = "st{.space}{.sem}{.cop}{.vec}.type [a], b;"
for _sp, _tm in (("global", "mem_global"), ("shared", "mem_shared"), ("local", "mem_local"),
                 ("const", "mem_param"), ("param", "mem_param")):
    semantics("ld", syntax=_LD, timing=_tm, when=_in(_sp))(_ld)
    semantics("st", syntax=_ST, timing=_tm, when=_in(_sp))(_st)
semantics("ld", syntax=_LD, timing="mem_global")(_ld)
semantics("st", syntax=_ST, timing="mem_global")(_st)
semantics("cvta", syntax="cvta.space.size d, a;  cvta.to.space.size d, a;", timing="alu")(_cvta)
