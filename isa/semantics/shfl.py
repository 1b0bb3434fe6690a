"""Exchange a register between the lanes of a warp: shfl.sync (PTX ISA 9.7.8.6).

``shfl.sync.mode.b32 d{|p}, a, b, c, membermask``: each lane computes a source lane ``j`` from ``b`` (a lane or
a lane offset), the clamp value ``c[4:0]`` and the segment mask ``c[12:8]``; if ``j`` is in range (``p``) it
takes lane ``j``'s ``a``, else its own. Undefined, and reported: a lane that executes it outside
``membermask``, a lane of ``membermask`` that does not execute it with the others, a lane reading ``a`` from a
lane that does not execute it (``ub_policy="hardware"``: 0 and the predicate true, as the H200 gives:
traces/h200/shfl.json).
"""
from __future__ import annotations

import numpy as np

from isa.ptx.ast import Reg, Vec
from isa.semantics.common import bad, decoded, nops, split_mods
from isa.semantics.registry import semantics

_MODES = ("up", "down", "bfly", "idx")
_LANE = np.arange(32, dtype=np.int64)


def _decode(ins):
    d = split_mods(ins, {"mode": _MODES, "sync": ("sync",)})
    if d["sync"] is None or d["mode"] is None or d["types"] != ["b32"]:
        bad(ins, "is not shfl.sync with a mode and .b32", expected="shfl.sync.{up,down,bfly,idx}.b32")
    nops(ins, 5)
    dst = ins.operands[0]
    dp = tuple(dst.items) if isinstance(dst, Vec) else (dst,)
    if len(dp) not in (1, 2):
        bad(ins, "destination must be d or d|p")
    return d["mode"], dp


def source_lanes(mode: str, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(j, pval)`` of each lane (PTX ISA 9.7.8.6): the lane it reads and whether that lane was in range."""
    bval, cval, segmask = b & 31, c & 31, (c >> 8) & 31
    max_lane = (_LANE & segmask) | (cval & ~segmask)
    min_lane = _LANE & segmask
    if mode == "up":
        j = _LANE - bval
        pval = j >= max_lane
    else:
        j = {"down": _LANE + bval, "bfly": _LANE ^ bval, "idx": min_lane | (bval & ~segmask)}[mode]
        pval = j <= max_lane
    return np.where(pval, j, _LANE), pval


@semantics("shfl", syntax="shfl.sync.mode.b32 d{|p}, a, b, c, membermask;  .mode = {.up, .down, .bfly, .idx}",
           timing="shfl")
@decoded(_decode)
def shfl(ctx, ins, decoded_):
    mode, dp = decoded_
    o = ins.operands
    act = ctx.active
    a = ctx.read(o[1], "b32")
    b, c = (ctx.read(x, "b32").astype(np.int64) for x in (o[2], o[3]))
    member = ((ctx.read(o[4], "b32").astype(np.int64)[:, None] >> _LANE[None, :]) & 1).astype(bool)
    _check_members(ctx, act, member)
    j, pval = source_lanes(mode, b, c)
    lost = act & ~act[j]
    got = a[j]
    if lost.any():
        if ctx.ub_policy == "error":
            ctx.undefined("shfl.sync: a lane reads a from a lane that does not execute it (PTX ISA 9.7.8.6); "
                          "ub_policy='hardware' gives 0, as an H200 does", lost, j)
        got = np.where(lost, np.uint32(0), got)
    ctx.write(dp[0], got, "b32")
    if len(dp) == 2 and not (isinstance(dp[1], Reg) and dp[1].name == "_"):
        ctx.write(dp[1], pval, "pred")


def _check_members(ctx, act, member):
    """Every executing lane names itself and the same lanes in ``membermask``, and those lanes all execute it."""
    rows = member[act]
    outside = act & ~member[_LANE, _LANE]
    if outside.any():
        ctx.undefined("shfl.sync executed by a lane outside its membermask (PTX ISA 9.7.8.6)", outside)
    if len(rows) and not (rows == rows[0]).all():
        ctx.undefined("shfl.sync: the lanes executing it give different membermasks (PTX ISA 9.7.8.6)", act)
    if len(rows) and (rows[0] & ~act).any():
        ctx.undefined("shfl.sync: a lane of membermask does not execute it with the others (PTX ISA 9.7.8.6)",
                      rows[0] & ~act)
