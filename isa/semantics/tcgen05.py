"""tcgen05.* (PTX ISA 9.7.16): alloc/dealloc/relinquish, ld/st/wait, cp, shift, mma{.sp}, commit, fence.

The core lives in :mod:`isa.tcgen05` (descriptors, layouts, MMA) and :mod:`warpsim.tmem` (the CTA's
TMEM); the machine side is reached through ``ctx.tcgen05()`` (a :class:`warpsim.tcgen05_async.Port`:
this CTA's TMEM and shared memory, the CTA pair, the cluster's asynchronous tensor unit).
Asynchrony (9.7.16.6): mma, cp and shift are queued and complete later; ``tcgen05.commit`` arrives on its
mbarrier when they have; ld/st complete at ``wait::ld``/``wait::st``; the fences order them against
thread synchronisation. Accesses the program does not order are hazards (warpsim.tcgen05_async).
Warp-collective forms (alloc, dealloc, relinquish, ld, st) need one uniform operand across the warp;
single-thread forms (mma, cp, shift, commit) are issued once per active thread, in lane order.
``cta_group::2`` acts on the CTA pair of a cluster (both CTAs' TMEM and shared memory); alloc, dealloc
and relinquish_alloc_permit ::2 are executed by one warp in each CTA of the pair, the first blocking until
the other arrives (Table 46).
"""
from __future__ import annotations

import numpy as np

from isa.errors import LocatedUndefinedBehavior, WarpsimError
from isa.ptx.ast import Addr, Imm, Vec
from isa.semantics.common import bad, decoded, nops, unsupported
from isa.semantics.registry import semantics
from isa.tcgen05 import idesc as idm
from isa.tcgen05 import mma as mmam
from isa.tcgen05.tmem_layout import MAX_NUM, SHAPES

SHAPES_CP = ("128x256b", "4x256b", "128x128b", "64x128b", "32x128b")
_SYNC = ("sync", "aligned")


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
        d["multicast"] = "multicast::cluster" in rest
        allowed = ("mbarrier::arrive::one", "shared::cluster", "multicast::cluster", "b64")
        nops(ins, 2 if d["multicast"] else 1)
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
                             "fence}... (PTX ISA 9.7.16; cta_group::1 and ::2)", timing="tmem",
           when=lambda ins: bool(ins.mods) and ins.mods[0] not in ("mma", "commit", "cp", "shift"))
@decoded(_decode)
def tcgen05_warp(ctx, ins, d):
    op, o = d["op"], ins.operands
    port = ctx.tcgen05()
    unit = port.unit
    if op.startswith(("wait::", "fence::")):
        unit.advance()
        if op.startswith("wait::"):
            unit.wait(port, op[6:])
        else:
            unit.fence(port, "before" if "before" in op else "after")
        ctx.fence("tcgen05." + op)
        return
    live = getattr(ctx, "live", None)
    if live is not None and (live & ~ctx.active).any():
        ctx.undefined(f"tcgen05.{op}.sync.aligned executed by part of the warp (PTX ISA 9.7.16.8: all threads "
                      "of the warp must execute it)", lanes=live & ~ctx.active)
    cg = d["cta_group"]
    try:
        if op == "alloc":
            ncols = _uniform(ctx, ctx.read(o[1], "u32"), "nCols")
            sp, dst = ctx.address(o[0], "shared" if "shared::cta" in ins.modset else None)
            if sp == "generic":
                dst = ctx.cvta(dst, "shared", False)
            dst = _uniform(ctx, dst, "dst")
            if cg == 1:
                taddr = port.tmem.alloc(ncols, 1, where=ctx.where())
                ctx.store("shared", np.full(32, dst, np.uint64), np.full(32, taddr, np.uint32), "b32")
            else:
                port.cluster.pair_collective(ctx, "tcgen05.alloc", {"ncols": ncols, "dst": dst, "port": port},
                                             _alloc2)
        elif op == "dealloc":
            taddr = _uniform(ctx, _taddr(ctx, o[0]), "taddr")
            ncols = _uniform(ctx, ctx.read(o[1], "u32"), "nCols")
            if cg == 1:
                _dealloc(port, port.tmem, taddr, ncols, 1)
            else:
                port.cluster.pair_collective(ctx, "tcgen05.dealloc", {"taddr": taddr, "ncols": ncols, "port": port},
                                             _dealloc2)
        elif op == "relinquish_alloc_permit":
            if cg == 1:
                port.tmem.relinquish_alloc_permit(1)
            else:
                port.cluster.pair_collective(ctx, "tcgen05.relinquish_alloc_permit", {}, _relinquish2)
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
            tmem = port.tmem
            name = "tcgen05." + ".".join(ins.mods)
            _, lanes, cols = tmem._map(f"tcgen05.{op}", ctx.warp_id, taddr, shape, num, pack, imm)
            if op == "st":
                lanes, cols = lanes[ctx.active], cols[ctx.active]
            unit.ld_st(port, op, tmem, lanes.ravel(), cols.ravel(), name)
            if op == "ld":
                ctx.write_vec(regs, tmem.ld(ctx.warp_id, taddr, shape, num, pack, imm), "b32")
            else:
                tmem.st(ctx.warp_id, taddr, shape, num, ctx.read_vec(regs, "b32"), pack, imm, active=ctx.active)
    except WarpsimError as e:
        raise _located(ctx, e) from None


def _alloc2(first, second):
    """tcgen05.alloc.cta_group::2: the same columns in both CTAs of the pair; each warp's address lands in its
    own CTA's shared memory."""
    if first["ncols"] != second["ncols"]:
        raise LocatedUndefinedBehavior.at(second["where"], "tcgen05.alloc.cta_group::2: the two warps of the pair ask "
                                          f"for different nCols ({first['ncols']} at {first['where']}, "
                                          f"{second['ncols']} here; PTX ISA 9.7.16.7.1)")
    t0, t1 = first["cta"].tensor_memory(), second["cta"].tensor_memory()
    for t in (t0, t1):
        t.check_alloc(first["ncols"], 2)
    used = t0.used() | t1.used()
    for e, t in ((first, t0), (second, t1)):
        t.alloc(e["ncols"], 2, smem=e["port"].smem(e["cta"]), dst=e["dst"], where=e["where"], used=used)


def _dealloc(port, tmem, taddr, ncols, cg):
    lane, col = taddr >> 16 & 0xFFFF, taddr & 0xFFFF
    if lane == 0 and tmem.allocs.get(col) == ncols:  # what it frees must be finished with (a synchronous op)
        lanes, cols = np.meshgrid(np.arange(128), np.arange(col, col + ncols), indexing="ij")
        port.unit.advance()
        port.unit.check(port, f"tcgen05.dealloc.cta_group::{cg}", [], [(tmem, lanes.ravel(), cols.ravel())],
                        synchronous=True, verb="frees")
    tmem.dealloc(taddr, ncols, cg)


def _dealloc2(first, second):
    for e in (first, second):
        if (e["taddr"], e["ncols"]) != (first["taddr"], first["ncols"]):
            raise LocatedUndefinedBehavior.at(second["where"], "tcgen05.dealloc.cta_group::2: the two warps of the "
                                              f"pair free different TMEM (taddr {first['taddr']:#x}, nCols "
                                              f"{first['ncols']} at {first['where']}; taddr {e['taddr']:#x}, nCols "
                                              f"{e['ncols']} here)")
    for e in (first, second):
        _dealloc(e["port"], e["cta"].tensor_memory(), e["taddr"], e["ncols"], 2)


def _relinquish2(first, second):
    for e in (first, second):
        e["cta"].tensor_memory().relinquish_alloc_permit(2)


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


@semantics("tcgen05", syntax="tcgen05.mma{.sp}.cta_group.kind{.block_scale{.scale_vec}} [d], a-desc|[a], b-desc, "
                             "{[sp-meta],} idesc, {[scale-A], [scale-B] | {disable-output-lane}}, enable-input-d "
                             "{, scale-input-d};  tcgen05.{cp,shift,commit} ...", timing="async",
           when=lambda ins: bool(ins.mods) and ins.mods[0] in ("mma", "commit", "cp", "shift"))
@decoded(_decode)
def tcgen05_thread(ctx, ins, d):
    op, o = d["op"], ins.operands
    port = ctx.tcgen05()
    unit, cg = port.unit, d["cta_group"]
    name = "tcgen05." + ".".join(ins.mods)
    if op == "mma":
        v = _mma_operands(ctx, ins, d)
    elif op == "commit":
        _, bar = ctx.address(o[0], "shared")
        mask = ctx.read(o[1], "u16") if d["multicast"] else None
    else:
        taddr = _taddr(ctx, o[0])
        sdesc = ctx.read(o[1], "b64") if op == "cp" else None
    for lane in np.flatnonzero(ctx.active):
        lane = int(lane)
        try:
            if op == "commit":
                if mask is not None:  # the same offset in every CTA of ctaMask
                    m, off = int(mask[lane]), port.cluster.smem(int(bar[lane]), port.cta, ctx.where())[1]
                    targets = [(port.cluster.cta(r, ctx.where(), name), off) for r in range(16) if m >> r & 1]
                else:
                    targets = [port.cluster.smem(int(bar[lane]), port.cta, ctx.where())]
                unit.commit(port, lane, targets, ctx.where(), cg)
                continue
            ctas = port.ctas(cg, name)
            tmems = [port.tmem_of(c) for c in ctas]
            smems = [port.async_smem(c) for c in ctas]  # read through the async proxy
            if op == "cp":
                def run(views, t=int(taddr[lane]), s=int(sdesc[lane])):
                    for view, sm in zip(views, smems):
                        view.cp(t, d["shape"], sm, s, d["multicast"], cg, d["decompress"])
                unit.run_async(port, "cp", lane, {"text": name, "shape": d["shape"]}, cg, tmems, run)
                port.check_proxy(ctas, smems, name)
            elif op == "shift":
                def run(views, t=int(taddr[lane])):
                    for view in views:
                        view.shift(t, cg)
                unit.run_async(port, "shift", lane, {"text": name}, cg, tmems, run)
            else:
                desc = idm.decode(int(v["idesc"][lane]), d["kind"], cta_group=cg, sparse=d["sparse"])
                get = lambda k: int(v[k][lane]) if k in v else None  # noqa: E731
                info = {"text": name, "acc": get("d"), "m": desc.m, "n": desc.n, "kind": d["kind"],
                        "sparse": d["sparse"], "ts": "a_tmem" in v, "block_scale": d["block_scale"]}

                def run(views):
                    mmam.mma(desc, [mmam.Cta(view, sm) for view, sm in zip(views, smems)], get("d"), get("b_desc"),
                             a_desc=get("a_desc"), a_tmem=get("a_tmem"), sp_meta_tmem=get("meta"),
                             enable_input_d=bool(v["enable"][lane]),
                             disable_output_lane=v["disable"][lane] if "disable" in v else None,
                             scale_input_d=v.get("scale_input_d", 0), scale_a_tmem=get("scale_a"),
                             scale_b_tmem=get("scale_b"), scale_vec=d["scale_vec"])
                unit.run_async(port, "mma", lane, info, cg, tmems, run)
                port.check_proxy(ctas, smems, name)
        except WarpsimError as e:
            raise _located(ctx, e) from None
