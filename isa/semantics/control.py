"""Control flow and synchronisation: bra, bar/barrier, ret, exit, membar, fence, nanosleep (PTX 9.7.12-13).

``bar.sync``/``barrier.sync`` wait at named barrier ``a`` (0-15) for all the CTA's threads or
``b`` threads; ``bar.arrive`` arrives without waiting. ``membar``/``fence`` change nothing on a
machine that runs one warp at a time but are executed and counted (``ctx.fence``);
``nanosleep`` does nothing. In a kernel ``ret`` ends the thread like ``exit``.
"""
from __future__ import annotations

import numpy as np

from isa.semantics.common import bad, decoded, nops, unsupported
from isa.semantics.registry import semantics


def _target(ins):
    nops(ins, 1)
    if ins.mods not in ((), ("uni",)):
        unsupported(ins, "qualifier ." + " .".join(m for m in ins.mods if m != "uni"))
    op = ins.operands[0]
    name = getattr(op, "name", None)
    if name is None:
        bad(ins, "needs a label")
    return name


@semantics("bra", syntax="bra{.uni} label;", timing="branch")
@decoded(_target)
def bra(ctx, ins, target):
    ctx.branch(target, ctx.active)


def _decode_bar(ins):
    mods = set(ins.mods) - {"cta", "aligned"}
    if ins.opcode == "bar" and mods == {"sync"} or ins.opcode == "barrier" and mods == {"sync"}:
        wait = True
    elif mods == {"arrive"}:
        wait = False
    else:
        unsupported(ins, None, expected="bar{.cta}.sync, bar{.cta}.arrive, barrier{.cta}.sync{.aligned}, "
                                        "barrier{.cta}.arrive{.aligned}")
    if wait:
        nops(ins, 1, 2)
    else:
        nops(ins, 2)
    return wait


def _uniform(ctx, op, what):
    v = ctx.read(op, "u32")
    vals = np.unique(v[ctx.active])
    if len(vals) != 1:
        ctx.undefined(f"barrier {what} must be the same in every thread of the warp (PTX ISA 9.7.13.1)",
                      ctx.active, v)
    return int(vals[0])


@decoded(_decode_bar)
def _bar(ctx, ins, wait):
    o = ins.operands
    bar_id = _uniform(ctx, o[0], "id")
    count = _uniform(ctx, o[1], "count") if len(o) == 2 else None
    ctx.barrier(bar_id, count, wait)


semantics("bar", syntax="bar{.cta}.sync a{, b};  bar{.cta}.arrive a, b;", timing="barrier")(_bar)
semantics("barrier", syntax="barrier{.cta}.sync{.aligned} a{, b};  barrier{.cta}.arrive{.aligned} a, b;",
          timing="barrier", when=lambda ins: "cluster" not in ins.mods)(_bar)  # barrier.cluster: semantics/cluster.py


def _decode_end(ins):
    if ins.mods not in ((), ("uni",)):
        unsupported(ins, "qualifier ." + " .".join(ins.mods))
    nops(ins, 0)


@semantics("ret", syntax="ret{.uni};", timing="exit")
@decoded(_decode_end)
def ret(ctx, ins, _):
    ctx.exit()


@semantics("exit", syntax="exit;", timing="exit")
@decoded(_decode_end)
def exit_(ctx, ins, _):
    ctx.exit()


def _decode_fence(ins):
    if ins.opcode == "membar":
        if ins.mods not in (("cta",), ("gl",), ("sys",)):
            unsupported(ins, None, expected="membar.cta, membar.gl or membar.sys")
    nops(ins, 0)
    return ins.name


@semantics("membar", syntax="membar.level;  (level .cta .gl .sys)", timing="alu")
@decoded(_decode_fence)
def membar(ctx, ins, kind):
    ctx.fence(kind)


@semantics("fence", syntax="fence{.sem}.scope;  fence.proxy.kind;  (no effect functionally, counted)", timing="alu")
@decoded(_decode_fence)
def fence(ctx, ins, kind):
    ctx.fence(kind)


def _decode_sleep(ins):
    if ins.mods != ("u32",):
        bad(ins, "expected nanosleep.u32 t")
    nops(ins, 1)


@semantics("nanosleep", syntax="nanosleep.u32 t;", timing="alu")
@decoded(_decode_sleep)
def nanosleep(ctx, ins, _):
    ctx.sleep(ctx.read(ins.operands[0], "u32"))
