"""mbarrier.init / arrive / test_wait / try_wait / inval (PTX ISA 9.7.13.15), without transaction counts.

The barrier object is the 64-bit word in shared memory. Its real layout is opaque; warpsim keeps
bits 19:0 = pending arrivals of the current phase, 39:20 = expected arrivals, 62 = initialized,
63 = current phase parity. ``tcgen05.commit`` arrives through :func:`arrive_one`.
A phase completes when its pending count reaches zero: the parity flips and pending = expected.
``try_wait``/``test_wait`` never block here: they answer whether the awaited phase has completed
and the program's own loop spins (the CTA scheduler runs the other warps meanwhile).
"""
from __future__ import annotations

import numpy as np

from isa.semantics.common import bad, decoded, nops, unsupported
from isa.semantics.registry import semantics

_COUNT = (1 << 20) - 1
_INIT, _PHASE = 1 << 62, 1 << 63
_SPACE = {"shared": "shared", "shared::cta": "shared", "shared::cluster": "shared"}
_IGNORED = ("release", "acquire", "relaxed", "cta", "cluster", "parity", "b64", "noComplete")


def _decode(ins):
    op = ins.mods[0] if ins.mods else ""
    if op not in ("init", "arrive", "test_wait", "try_wait", "inval"):
        unsupported(ins, f"mbarrier.{op}" if op else None,
                    expected="mbarrier.init/arrive/test_wait/try_wait/inval (no expect_tx/complete_tx)")
    space = "generic"
    for m in ins.mods[1:]:
        if m in _SPACE:
            space = _SPACE[m]
        elif m not in _IGNORED:
            unsupported(ins, f"qualifier .{m}")
    if "b64" not in ins.modset:
        bad(ins, "needs .b64")
    nops(ins, *{"init": (2,), "arrive": (2, 3), "test_wait": (3,), "try_wait": (3, 4), "inval": (1,)}[op])
    return op, space, "parity" in ins.modset


def _addr(ctx, op, space):
    sp, a = ctx.address(op, space)
    if sp == "generic":
        a = ctx.cvta(a, "shared", False)
    return a


def arrive_one(ctx, addr: int, count: int = 1) -> int:
    """Arrive ``count`` times on the mbarrier at shared address ``addr``; returns the state before."""
    lane = np.zeros(32, bool)
    lane[int(np.argmax(ctx.active))] = True
    a = np.full(32, addr, np.uint64)
    word = int(_load(ctx, a, lane))
    if not word & _INIT:
        ctx.undefined("mbarrier arrive on an object that is not initialized (PTX ISA 9.7.13.15.5)", lanes=lane,
                      value=np.full(32, addr))
    pending = word & _COUNT
    if count > pending:
        ctx.undefined("mbarrier arrivals exceed the pending count of the current phase", lanes=lane,
                      value=np.full(32, pending), detail=f"{count} arrivals, {pending} pending")
    pending -= count
    new = word & ~_COUNT | pending
    if pending == 0:
        new = (word ^ _PHASE) & ~_COUNT | ((word >> 20) & _COUNT)
    _store(ctx, a, lane, new)
    return word


def _load(ctx, a, lanes):
    saved = ctx.active
    try:
        ctx.active = lanes
        return ctx.load("shared", a, "b64")[int(np.argmax(lanes))]
    finally:
        ctx.active = saved


def _store(ctx, a, lanes, word):
    saved = ctx.active
    try:
        ctx.active = lanes
        ctx.store("shared", a, np.full(32, word, np.uint64), "b64")
    finally:
        ctx.active = saved


@semantics("mbarrier", syntax="mbarrier.init.shared{::cta}.b64 [a], count;  mbarrier.arrive{.shared{::cta}}.b64 "
                              "state, [a]{, count};  mbarrier.{test,try}_wait{.parity}{.shared{::cta}}.b64 p, [a], "
                              "state|parity;  mbarrier.inval.shared{::cta}.b64 [a];", timing="async")
@decoded(_decode)
def mbarrier(ctx, ins, d):
    op, space, parity = d
    o = ins.operands
    if op in ("init", "inval"):
        addr = _addr(ctx, o[0], space)
        if op == "init":
            n = ctx.read(o[1], "u32").astype(np.uint64)
            if (ctx.active & ((n < 1) | (n > _COUNT))).any():
                ctx.undefined("mbarrier.init count must be in 1..2^20-1", lanes=ctx.active & ((n < 1) | (n > _COUNT)),
                              value=n)
            ctx.store("shared", addr, np.uint64(_INIT) | n | (n << np.uint64(20)), "b64")
        else:
            ctx.store("shared", addr, np.zeros(32, np.uint64), "b64")
        return
    addr = _addr(ctx, o[1], space)
    if op == "arrive":
        count = ctx.read(o[2], "u32") if len(o) == 3 else np.ones(32, np.uint32)
        state = np.zeros(32, np.uint64)
        for lane in np.flatnonzero(ctx.active):
            state[lane] = arrive_one(ctx, int(addr[lane]), int(count[lane]))
        if not (getattr(o[0], "name", None) == "_"):
            ctx.write(o[0], state, "b64")
        return
    word = ctx.load("shared", addr, "b64").astype(np.uint64)
    phase = (word >> np.uint64(63)).astype(bool)
    if parity:
        want = ctx.read(o[2], "u32").astype(bool)  # the phase with this parity has completed
    else:
        want = (ctx.read(o[2], "b64") >> np.uint64(63)).astype(bool)  # the phase of that arrive's state
    ctx.write(o[0], phase != want, "pred")
