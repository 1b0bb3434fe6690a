"""tcgen05.* (PTX ISA 9.7.16): alloc/dealloc/relinquish, ld/st/wait, cp, shift, mma{.sp}, commit, fence.

The core lives in :mod:`isa.tcgen05` (descriptors, layouts, MMA) and :mod:`warpsim.tmem` (the CTA's
TMEM). Functional timing: an asynchronous operation (mma, cp, shift, ld, st) completes when it is
issued, which is one legal order; ``tcgen05.commit`` then arrives on its mbarrier at once, and
``wait::ld/st`` and the tcgen05 fences have nothing left to wait for.
Warp-collective forms (alloc, dealloc, relinquish, ld, st) need one uniform operand across the warp;
single-thread forms (mma, cp, shift, commit) are issued once per active thread, in lane order.
``cta_group::2`` needs the CTA pair of a cluster, which this machine (one CTA at a time) lacks.
"""
from __future__ import annotations

import numpy as np

from isa.errors import WarpsimError
from isa.ptx.ast import Addr, Imm, Vec
from isa.semantics.common import bad, decoded, nops, unsupported
from isa.semantics.registry import semantics
from isa.tcgen05 import idesc as idm
from isa.tcgen05 import mma as mmam
from isa.tcgen05.tmem_layout import MAX_NUM, SHAPES

SHAPES_CP = ("128x256b", "4x256b", "128x128b", "64x128b", "32x128b")
_SYNC = ("sync", "aligned")


def _machine(ctx):
    from warpsim.tmem import cta_smem, cta_tmem  # the machine's side: this CTA's TMEM and shared memory
    return cta_tmem(ctx.cta), cta_smem(ctx.cta)


def _located(ctx, e: WarpsimError):
    """Prefix a core error with the instruction's location (once), keeping its type."""
    if ctx.where() not in str(e):
        e.args = (f"{ctx.where()}: {e}",)
    return e


def _decode(ins):
    mods = list(ins.mods)
    if not mods:
        unsupported(ins)
    op, rest = mods[0], mods[1:]
    d = {"op": op, "cta_group": 1}
    for m in list(rest):
        if m.startswith("cta_group::"):
            d["cta_group"] = int(m.split("::")[1])
            rest.remove(m)
    if d["cta_group"] not in (1, 2):
        bad(ins, f".cta_group::{d['cta_group']} is illegal", expected=".cta_group::1 or .cta_group::2")
    if d["cta_group"] == 2:
        unsupported(ins, ".cta_group::2 (needs the CTA pair of a cluster; warpsim runs one CTA at a time)")
    if op in ("alloc", "dealloc", "relinquish_alloc_permit"):
        allowed = _SYNC + ("shared::cta", "b32")
        nops(ins, {"alloc": 2, "dealloc": 2, "relinquish_alloc_permit": 0}[op])
    elif op in ("ld", "st"):
        shape = [m for m in rest if m in SHAPES]
        num = [m for m in rest if m[0] == "x" and m[1:].isdigit()]
        if len(shape) != 1 or len(num) != 1:
            bad(ins, "needs one shape and one .num", expected=".16x64b .16x128b .16x256b .32x32b .16x32bx2 and .x1 .. .x128")
        d.update(shape=shape[0], num=int(num[0][1:]), pack=("pack::16b" in rest or "unpack::16b" in rest))
        if d["num"] > MAX_NUM[d["shape"]]:
            bad(ins, f".x{d['num']} is illegal for .{d['shape']}", expected=f".x1 .. .x{MAX_NUM[d['shape']]}")
        if "red" in rest:
            unsupported(ins, "tcgen05.ld.red (sm_101a/sm_103f/sm_110f, not sm_100a)")
        allowed = _SYNC + (shape[0], num[0], "pack::16b" if op == "ld" else "unpack::16b", "b32")
        nops(ins, 3 if d["shape"] == "16x32bx2" else 2)
    elif op in ("wait::ld", "wait::st", "fence::before_thread_sync", "fence::after_thread_sync"):
        allowed = _SYNC
        nops(ins, 0)
    elif op == "commit":
        if "multicast::cluster" in rest:
            unsupported(ins, ".multicast::cluster")
        allowed = ("mbarrier::arrive::one", "shared::cluster", "b64")
        nops(ins, 1)
    elif op == "cp":
        shape = [m for m in rest if m in SHAPES_CP]
        mc = [m for m in rest if m.startswith("warpx")]
        fmt = [m for m in rest if m.startswith(("b6x16", "b4x16"))]
        if len(shape) != 1:
            bad(ins, "needs one shape", expected="." + " .".join(SHAPES_CP))
        d.update(shape=shape[0], multicast=mc[0] if mc else None, decompress=fmt[0] if fmt else None)
        allowed = tuple(shape + mc + fmt) + ("b8x16",)
        nops(ins, 2)
    elif op == "shift":
        allowed = ("down",)
        nops(ins, 1)
    elif op == "mma":
        kinds = [m.split("::")[1] for m in rest if m.startswith("kind::")]
        if len(kinds) != 1 or kinds[0] not in idm.KINDS:
            bad(ins, "needs one .kind", expected="." + " .".join("kind::" + k for k in idm.KINDS))
        for m in rest:
            if m in ("ws", "ashift") or m.startswith("collector::"):
                if m != "collector::a::discard":
                    unsupported(ins, f".{m} (weight-stationary, collector buffers and A shift are not modelled)")
        sv = [m.split("::")[1] if "::" in m else m for m in rest if m.startswith("scale_vec") or m in ("block16", "block32")]
        d.update(kind=kinds[0], sparse="sp" in rest, block_scale="block_scale" in rest, scale_vec=sv[0] if sv else None)
        allowed = ("sp", "kind::" + kinds[0], "block_scale", "collector::a::discard") + tuple(
            m for m in rest if m.startswith("scale_vec") or m in ("block16", "block32"))
    else:
        unsupported(ins, f"tcgen05.{op}")
    extra = [m for m in rest if m not in allowed]
    if extra:
        unsupported(ins, "qualifier ." + " .".join(extra))
    return d


def _uniform(ctx, vals, what: str) -> int:
    v = np.asarray(vals)[ctx.active]
    if v.size and (v != v[0]).any():
        lanes = ctx.active & (np.asarray(vals) != v[0])
        ctx.undefined(f"tcgen05: {what} differs between the threads of the warp (PTX ISA 9.7.16.8)", lanes=lanes,
                      value=np.asarray(vals))
    return int(v[0]) if v.size else 0


def _taddr(ctx, op) -> np.ndarray:
    if isinstance(op, Addr):
        return ctx.address(op)[1]
    return ctx.read(op, "u32").astype(np.uint64)


@semantics("tcgen05", syntax="tcgen05.{alloc,dealloc,relinquish_alloc_permit,ld,st,wait,cp,shift,mma{.sp},commit,"
                             "fence}... (PTX ISA 9.7.16; cta_group::1)", timing="tmem",
           when=lambda ins: bool(ins.mods) and ins.mods[0] not in ("mma", "commit", "cp", "shift"))
@decoded(_decode)
def tcgen05_warp(ctx, ins, d):
    op, o = d["op"], ins.operands
    if op.startswith(("wait::", "fence::")):
        ctx.fence("tcgen05." + op)
        return
    tmem, _ = _machine(ctx)
    live = getattr(ctx, "live", None)
    if live is not None and (live & ~ctx.active).any():
        ctx.undefined(f"tcgen05.{op}.sync.aligned executed by part of the warp (PTX ISA 9.7.16.8: all threads "
                      "of the warp must execute it)", lanes=live & ~ctx.active)
    try:
        if op == "alloc":
            ncols = _uniform(ctx, ctx.read(o[1], "u32"), "nCols")
            sp, dst = ctx.address(o[0], "shared" if "shared::cta" in ins.modset else None)
            if sp == "generic":
                dst = ctx.cvta(dst, "shared", False)
            taddr = tmem.alloc(ncols, d["cta_group"])
            ctx.store("shared", dst, np.full(32, taddr, np.uint32), "b32")
        elif op == "dealloc":
            tmem.dealloc(_uniform(ctx, _taddr(ctx, o[0]), "taddr"), _uniform(ctx, ctx.read(o[1], "u32"), "nCols"),
                         d["cta_group"])
        elif op == "relinquish_alloc_permit":
            tmem.relinquish_alloc_permit(d["cta_group"])
        else:
            shape, num, pack = d["shape"], d["num"], d["pack"]
            addr_op = o[1] if op == "ld" else o[0]
            taddr = _uniform(ctx, _taddr(ctx, addr_op), "taddr")
            imm = _uniform(ctx, ctx.read(o[2] if op == "ld" else o[1], "u32"), "immHalfSplitoff") \
                if shape == "16x32bx2" else None
            regs = o[0] if op == "ld" else o[-1]
            nregs = SHAPES[shape][0] * num
            if not isinstance(regs, Vec) or len(regs.items) != nregs:
                bad(ins, f"needs a vector of {nregs} registers")
            if op == "ld":
                ctx.write_vec(regs, tmem.ld(ctx.warp_id, taddr, shape, num, pack, imm), "b32")
            else:
                tmem.st(ctx.warp_id, taddr, shape, num, ctx.read_vec(regs, "b32"), pack, imm, active=ctx.active)
    except WarpsimError as e:
        raise _located(ctx, e) from None


def _mma_operands(ctx, ins, d):
    """Per-lane operand arrays of a tcgen05.mma form, by position (9.7.16.10.9 syntax)."""
    o = list(ins.operands)
    out = {"d": _taddr(ctx, o.pop(0))}
    a = o.pop(0)
    out["a_tmem" if isinstance(a, Addr) else "a_desc"] = _taddr(ctx, a) if isinstance(a, Addr) else ctx.read(a, "b64")
    out["b_desc"] = ctx.read(o.pop(0), "b64")
    if d["sparse"]:
        out["meta"] = _taddr(ctx, o.pop(0))
    out["idesc"] = ctx.read(o.pop(0), "b32")
    if d["block_scale"]:
        out["scale_a"], out["scale_b"] = _taddr(ctx, o.pop(0)), _taddr(ctx, o.pop(0))
    elif o and isinstance(o[0], Vec):
        out["disable"] = ctx.read_vec(o.pop(0), "b32")
    if not o:
        bad(ins, "is missing enable-input-d")
    out["enable"] = ctx.read(o.pop(0), "pred")
    if o and not d["block_scale"]:
        if not isinstance(o[0], Imm):
            bad(ins, "scale-input-d must be an immediate 0..15")
        out["scale_input_d"] = int(o.pop(0).value)
    if o:
        bad(ins, f"has {len(o)} operand(s) too many")
    return out


@semantics("tcgen05", syntax="tcgen05.mma{.sp}.cta_group::1.kind{.block_scale{.scale_vec}} [d], a-desc|[a], b-desc, "
                             "{[sp-meta],} idesc, {[scale-A], [scale-B] | {disable-output-lane}}, enable-input-d "
                             "{, scale-input-d};  tcgen05.{cp,shift,commit} ...", timing="async",
           when=lambda ins: bool(ins.mods) and ins.mods[0] in ("mma", "commit", "cp", "shift"))
@decoded(_decode)
def tcgen05_thread(ctx, ins, d):
    op, o = d["op"], ins.operands
    tmem, smem = _machine(ctx)
    cta = [mmam.Cta(tmem, smem)]
    if op == "mma":
        v = _mma_operands(ctx, ins, d)
    elif op == "commit":
        sp, bar = ctx.address(o[0], "shared")
    else:
        taddr = _taddr(ctx, o[0])
        sdesc = ctx.read(o[1], "b64") if op == "cp" else None
    for lane in np.flatnonzero(ctx.active):
        try:
            if op == "commit":  # every earlier async op of this thread has completed: arrive now
                from isa.semantics.mbarrier import arrive_one
                arrive_one(ctx, int(bar[lane]))
            elif op == "cp":
                tmem.cp(int(taddr[lane]), d["shape"], smem, int(sdesc[lane]), d["multicast"], d["cta_group"],
                        d["decompress"])
            elif op == "shift":
                tmem.shift(int(taddr[lane]), d["cta_group"])
            else:
                desc = idm.decode(int(v["idesc"][lane]), d["kind"], cta_group=d["cta_group"], sparse=d["sparse"])
                get = lambda k: int(v[k][lane]) if k in v else None  # noqa: E731
                mmam.mma(desc, cta, get("d"), get("b_desc"), a_desc=get("a_desc"), a_tmem=get("a_tmem"),
                         sp_meta_tmem=get("meta"), enable_input_d=bool(v["enable"][lane]),
                         disable_output_lane=v["disable"][lane] if "disable" in v else None,
                         scale_input_d=v.get("scale_input_d", 0), scale_a_tmem=get("scale_a"),
                         scale_b_tmem=get("scale_b"), scale_vec=d["scale_vec"])
        except WarpsimError as e:
            raise _located(ctx, e) from None
