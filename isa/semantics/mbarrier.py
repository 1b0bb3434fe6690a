"""mbarrier.init / arrive / test_wait / try_wait / inval (PTX ISA 9.7.13.15), without transaction counts.

The barrier object is the 64-bit word in shared memory. Its real layout is opaque; warpsim keeps
bits 19:0 = pending arrivals of the current phase, 39:20 = expected arrivals, 62 = initialized,
63 = current phase parity. ``tcgen05.commit`` arrives through :func:`arrive_one`.
A phase completes when its pending count reaches zero: the parity flips and pending = expected.
``try_wait``/``test_wait`` never block here: they answer whether the awaited phase has completed
and the program's own loop spins (the CTA scheduler runs the other warps meanwhile).
Every arrival carries what the arriving warp has published of its tcgen05 knowledge, and a wait that
sees its phase complete learns it (warpsim.tcgen05_async); ``tcgen05.commit`` arrives later, when the
operations it tracks complete. ``.shared::cluster`` addresses may name a peer CTA's mbarrier (mapa).
"""
from __future__ import annotations

import numpy as np

from isa.errors import LocatedUndefinedBehavior, MemoryFault
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


def arrive_bytes(buf: np.ndarray, off: int, count: int, where: str, what: str = "mbarrier.arrive"):
    """Arrive ``count`` times on the mbarrier at byte ``off`` of the shared-memory bytes ``buf``.
    Returns (the phase completed, parity of the phase arrived on, the word before)."""
    if off % 8 or not 0 <= off <= len(buf) - 8:
        raise MemoryFault(f"{where}: {what} on an mbarrier at shared offset {off:#x}: not an 8-byte aligned object "
                          f"inside the CTA's {len(buf)}-byte shared memory")
    cell = buf[off:off + 8].view(np.uint64)
    word = int(cell[0])
    if not word & _INIT:
        raise LocatedUndefinedBehavior.at(where, f"{what}: mbarrier arrive on an object that is not initialized "
                                                 "(PTX ISA 9.7.13.15.5)", f"shared offset {off:#x}")
    pending = word & _COUNT
    if count > pending:
        raise LocatedUndefinedBehavior.at(where, f"{what}: mbarrier arrivals exceed the pending count of the current "
                                                 "phase", f"{count} arrivals, {pending} pending")
    pending -= count
    parity = word >> 63
    new = word & ~_COUNT | pending
    if pending == 0:
        new = (word ^ _PHASE) & ~_COUNT | ((word >> 20) & _COUNT)
    cell[0] = np.uint64(new)
    return pending == 0, parity, word


def arrive_one(ctx, addr: int, count: int = 1) -> int:
    """Arrive ``count`` times on the mbarrier at .shared::cluster address ``addr`` from ``ctx``'s warp (its
    published tcgen05 knowledge rides along); returns the state before."""
    port = ctx.tcgen05()
    cta, off = port.cluster.smem(addr, port.cta, ctx.where())
    completed, parity, word = arrive_bytes(port.smem(cta), off, count, ctx.where())
    port.unit.mbar_arrive(cta.rank, off, port.k.published(), completed, parity)
    return word


@semantics("mbarrier", syntax="mbarrier.init.shared{::cta}.b64 [a], count;  mbarrier.arrive{.shared{::cta}}.b64 "
                              "state, [a]{, count};  mbarrier.{test,try}_wait{.parity}{.shared{::cta}}.b64 p, [a], "
                              "state|parity;  mbarrier.inval.shared{::cta}.b64 [a];", timing="async")
@decoded(_decode)
def mbarrier(ctx, ins, d):
    op, space, parity = d
    o = ins.operands
    port = ctx.tcgen05()
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
        for a in np.unique(addr[ctx.active]):
            port.unit.mbar_init(port.cta.rank, int(a))
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
    port.unit.advance()  # queued tcgen05 operations that are due complete, and their commits arrive
    word = ctx.load("shared", addr, "b64").astype(np.uint64)
    phase = (word >> np.uint64(63)).astype(bool)
    if parity:
        want = ctx.read(o[2], "u32").astype(bool)  # the phase with this parity has completed
    else:
        want = (ctx.read(o[2], "b64") >> np.uint64(63)).astype(bool)  # the phase of that arrive's state
    done = phase != want
    ctx.write(o[0], done, "pred")
    if not (done | ~ctx.active).all() and hasattr(ctx, "spin_wait"):
        ctx.spin_wait()  # not yet: a functional scheduler may run the other warps first
    for a, p in {(int(addr[i]), int(want[i])) for i in np.flatnonzero(ctx.active & done)}:
        port.unit.mbar_acquire(port, port.cta.rank, a, p)  # the waiter learns what that phase's arrivals carried
