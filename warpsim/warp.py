"""One warp: 32 lanes, their PCs, registers and local memory; implements ExecContext.

Divergence: **per-lane PC with min-PC scheduling.** While all live lanes share one PC the warp
keeps a scalar ``pc`` (the fast path). When a branch splits the lanes, each lane keeps its own
PC and every step runs the lanes at the lowest PC. nvcc lays out structured control flow with
the join point after both sides and loop exits after the loop body, so the lanes that are
ahead wait at the join until the others arrive, and the warp is one again (back to the scalar
PC). A lane that exits leaves for good.

``step()`` executes one warp instruction and returns a :class:`Step` ``(pc, ins, active, warp)``;
the CTA, the debugger and the timed engine all drive a warp through it.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from isa.errors import MemoryFault, PtxSemanticError, UndefinedBehavior
from isa.ptx.ast import Addr, Imm, Instruction, Reg, Sym, Vec
from warpsim import memory as mem
from warpsim.regfile import NP, RegFile, fit, immediate, view

_DONE = np.iinfo(np.int64).max
_NO_LANES = np.zeros(32, dtype=bool)  # a guard false in every lane
_NO_LANES.setflags(write=False)
_ALL = np.ones(32, bool)
_U64 = np.uint64


class Step(NamedTuple):
    pc: int
    ins: Instruction
    active: np.ndarray  # lanes that executed (guard applied)
    warp: int


class Warp:
    def __init__(self, program, warp_id: int, nlanes: int, tid: np.ndarray, cta,
                 clock: Callable | None = None):
        self.program, self.cta, self.warp_id = program, cta, warp_id
        self.arch, self.ub_policy = cta.arch, cta.ub_policy
        self.rf = RegFile(program.regs, program.reg_loc.get)
        self.regs = self.rf.regs
        self.live = np.arange(32) < nlanes
        self.live_full = nlanes == 32
        self.pc, self.lpc = 0, None
        self.active = self.live.copy()
        self.steps = 0
        self.done = nlanes == 0
        self.blocked = None  # (bar_id, count) while waiting at a barrier
        self.fences = 0
        self.local = mem.Local(max(program.local_bytes, 0))
        self.clock = (lambda: clock(self)) if clock else (lambda: self.steps)
        self._specials(tid, nlanes)
        self._ops = program.ops
        self._ins = None

    def _specials(self, tid, nlanes):
        u32 = lambda v: np.full(32, v, np.uint32)  # noqa: E731
        s = {"%laneid": np.arange(32, dtype=np.uint32), "%warpid": u32(self.warp_id),
             "%nwarpid": u32(self.cta.nwarps), "%smid": u32(0), "%nsmid": u32(1), "%gridid": u32(0),
             "%dynamic_smem_size": u32(self.cta.dynamic_shared),
             "%total_smem_size": u32(self.cta.shared.size)}
        for i, ax in enumerate("xyz"):
            s[f"%tid.{ax}"] = tid[:, i].astype(np.uint32)
            s[f"%ntid.{ax}"] = u32(self.cta.ntid[i])
            s[f"%ctaid.{ax}"] = u32(self.cta.ctaid[i])
            s[f"%nctaid.{ax}"] = u32(self.cta.nctaid[i])
        lane = np.arange(32, dtype=np.uint64)
        for name, f in (("eq", lambda b: 1 << b), ("lt", lambda b: (1 << b) - 1), ("le", lambda b: (2 << b) - 1),
                        ("gt", lambda b: (0xFFFFFFFF << (b + 1)) & 0xFFFFFFFF),
                        ("ge", lambda b: (0xFFFFFFFF << b) & 0xFFFFFFFF)):
            s[f"%lanemask_{name}"] = np.array([f(int(b)) for b in lane], np.uint32)
        for k, v in getattr(self.cta, "cluster_specials", {}).items():  # %cluster_ctarank, %clusterid.x, ...
            s[k] = u32(v)
        for k, v in s.items():
            v.setflags(write=False)
        self.regs.update(s)

    # ------------------------------------------------------------------ stepping
    def step(self) -> Step:
        """Execute the warp instruction at the lowest PC; return what ran."""
        if self.lpc is None:
            pc, mask, full = self.pc, self.live, self.live_full
        else:
            pc = int(self.lpc.min())
            mask = self.lpc == pc
            full = False
        if pc >= len(self._ops):
            self._retire(mask)
            return Step(pc, None, mask, self.warp_id)
        body, ins, g, neg = self._ops[pc]
        if g is not None:
            p = self.regs[g]
            k = np.count_nonzero(p) if full else -1  # a uniform guard keeps the full warp (the common case)
            if k != (0 if neg else 32):
                mask = _NO_LANES if k == (32 if neg else 0) else mask & (~p if neg else p)
                full = False
        self.active, self._full, self._ins = mask, full, ins
        self._pc, self._taken, self._exited = pc, None, None
        if full or (mask is not _NO_LANES and mask.any()):
            body(self, ins)
        self.steps += 1
        self._advance(pc)
        return Step(pc, ins, mask, self.warp_id)

    def _advance(self, pc):
        taken, exited = self._taken, self._exited
        if self.lpc is None and exited is None:
            if taken is None:
                self.pc = pc + 1
                return
            if taken is self.live:  # a full warp's uniform branch (Warp.branch: taken is the active mask)
                self.pc = self._target
                return
            if not np.count_nonzero(taken):
                self.pc = pc + 1
                return
            if (taken == self.live).all():
                self.pc = self._target
                return
            self.lpc = np.where(self.live, pc + 1, _DONE)
        elif self.lpc is None:
            self.lpc = np.where(self.live, pc + 1, _DONE)
        else:
            self.lpc[self.lpc == pc] = pc + 1
        if taken is not None:
            self.lpc[taken] = self._target
        if exited is not None:
            self.lpc[exited] = _DONE
        self._reconverge()

    def _reconverge(self):
        if not self.live.any():
            self.done = True
            return
        live = self.lpc[self.live]
        if (live == live[0]).all():
            self.pc, self.lpc = int(live[0]), None

    def _retire(self, lanes):
        self.live = self.live & ~lanes
        self.live_full = False
        if self.lpc is not None:
            self.lpc[lanes] = _DONE
        self.done = not self.live.any()
        if not self.done and self.lpc is not None:
            self._reconverge()

    # ------------------------------------------------------------------ registers
    def read(self, op, ptype: str) -> np.ndarray:
        t = type(op)
        if t is Reg or t is Sym:
            arr = self.regs.get(op.name)
            if arr is not None:
                return view(arr, ptype)
        elif t is Imm:
            return immediate(op, ptype)
        return self._read_other(op, ptype)

    def _read_other(self, op, ptype):
        name = getattr(op, "name", None)
        if name in ("%clock", "%clock64"):
            v = np.full(32, self.clock(), np.uint64)
            return view(v if name == "%clock64" else v.astype(np.uint32), ptype)
        sym = self.symbol(name) if name is not None else None
        if sym is not None:  # a variable's name as a value: its address in its own state space
            if NP[ptype].itemsize < 4:
                self._error(f"the address of '{name}' does not fit .{ptype}", "a .u32 or .u64 destination")
            return np.full(32, sym[1], np.uint64).astype(NP[ptype])
        if isinstance(op, Vec):
            return self._error("a vector operand where a scalar was expected")
        return self._error(f"'{name or op}' is not a declared register, special register or symbol")

    def write(self, op, values, ptype: str) -> None:
        arr = self.regs.get(op.name) if type(op) in (Reg, Sym) else None
        if arr is None or not arr.flags.writeable:
            self._error(f"cannot write to '{getattr(op, 'name', op)}'", "a declared register as destination")
        v = np.asarray(values)
        v = v.view(arr.dtype) if v.dtype.itemsize == arr.dtype.itemsize and v.dtype != np.bool_ else fit(v, ptype, arr.dtype)
        if self._full:
            arr[:] = v
        else:
            np.copyto(arr, v, where=self.active)

    def read_vec(self, op, ptype: str) -> np.ndarray:
        if not isinstance(op, Vec):
            self._error("expected a vector operand {a, b, ...}")
        items = op.items
        out = np.empty((32, len(items)), NP[ptype])
        for k, x in enumerate(items):
            out[:, k] = self.read(x, ptype)
        return out

    def write_vec(self, op, values, ptype: str) -> None:
        if not isinstance(op, Vec):
            self._error("expected a vector operand {a, b, ...}")
        for k, x in enumerate(op.items):
            if not (type(x) is Reg and x.name == "_"):
                self.write(x, values[:, k], ptype)

    # ------------------------------------------------------------------ memory
    def symbol(self, name: str):
        """(space, address in that space) of a variable or parameter, or None."""
        p = self.program
        for space, table in (("shared", p.shared), ("param", p.params), ("local", p.local), ("const", p.consts)):
            v = table.get(name)
            if v is not None:
                return space, v.offset
        g = self.cta.global_vars.get(name)
        return ("global", g) if g is not None else None

    def address(self, op, space: str | None = None):
        if not isinstance(op, Addr):
            self._error("expected an address operand [base+offset]")
        base, sp = op.base, space or "generic"
        if base is None:
            return sp, np.full(32, op.offset & 0xFFFFFFFFFFFFFFFF, np.uint64)
        if isinstance(base, Reg) and base.name in self.regs:
            a = self.regs[base.name]
            a = a if a.dtype == np.uint64 else a.astype(np.uint64)
            return sp, a + _U64(op.offset & 0xFFFFFFFFFFFFFFFF) if op.offset else a
        sym = self.symbol(base.name)
        if sym is None:
            self._error(f"'{base.name}' is not a register or variable")
        vspace, off = sym
        if sp == "generic" and vspace != "global":
            off += mem.WINDOW[vspace]
        elif sp not in ("generic", vspace) and not (sp == "param" and vspace == "param"):
            self._error(f"'{base.name}' is in .{vspace}, not .{sp}")
        return sp, np.full(32, (off + op.offset) & 0xFFFFFFFFFFFFFFFF, np.uint64)

    def _space(self, space):
        if space == "global":
            return self.cta.gmem
        if space == "shared":
            return self.cta.shared
        if space == "local":
            return self.local
        if space == "param":
            return self.cta.params
        if space == "const":
            return self.cta.const
        self._error(f"unknown state space .{space}")

    def _generic(self, addr, fn):
        """Run ``fn(space, addr, lanes)`` per window that the active lanes' generic addresses hit."""
        win = (addr >> _U64(40)).astype(np.int64)
        for space, w in (("shared", 1), ("local", 2), ("param", 3), ("const", 4), ("global", -1)):
            lanes = self.active & ((win == w) if w > 0 else ((win < 1) | (win > 4)))
            if lanes.any():
                local = addr - _U64(mem.WINDOW[space]) if w > 0 else addr
                fn(space, np.where(lanes, local, _U64(0)), lanes)

    def load(self, space: str, addr, ptype: str, n: int = 1):
        dt = NP[ptype]
        try:
            if space != "generic":
                return self._space(space).load(addr, self.active, dt, n)
            out = np.zeros((32, n) if n > 1 else 32, dt)
            self._generic(addr, lambda sp, a, lanes: np.copyto(
                out, self._space(sp).load(a, lanes, dt, n), where=lanes[:, None] if n > 1 else lanes))
            return out
        except mem.Fault as f:
            self._fault(f, "load", space, addr)

    def store(self, space: str, addr, values, ptype: str, n: int = 1) -> None:
        dt = NP[ptype]
        v = np.asarray(values)
        if v.dtype != dt:
            v = v.view(dt) if v.dtype.itemsize == dt.itemsize else fit(v, ptype, np.dtype(f"u{dt.itemsize}")).view(dt)
        try:
            if space != "generic":
                self._space(space).store(addr, self.active, v, dt, n)
            else:
                self._generic(addr, lambda sp, a, lanes: self._space(sp).store(a, lanes, v, dt, n))
        except mem.Fault as f:
            self._fault(f, "store", space, addr)
        if self.cta.proxy is not None and space in ("shared", "generic"):  # generic-proxy writes (fence.proxy.async)
            self.cta.proxy.store(self, space, addr, dt.itemsize * n)

    def cvta(self, addr, space: str, to_generic: bool):
        """Generic <-> ``space`` address conversion (cvta / cvta.to)."""
        if space == "global":
            return addr
        base = _U64(mem.WINDOW[space])
        return addr + base if to_generic else addr - base

    def _fault(self, f, what, space, addr):
        t = tuple(int(self.regs[f"%tid.{a}"][f.lane]) for a in "xyz")
        raise MemoryFault(f"{self.where()}: {f.reason} ({what} from .{space}) at address {f.addr:#x} "
                          f"by lane {f.lane} of warp {self.warp_id} (thread {t} of CTA {self.cta.ctaid})") from None

    # ------------------------------------------------------------------ control and specials
    def special(self, name: str) -> np.ndarray:
        return self.read(Reg(name), "u64" if name == "%clock64" else "u32")

    def branch(self, target: str, taken) -> None:
        idx = self.program.labels.get(target)
        if idx is None:
            self._error(f"branch to undefined label '{target}'")
        self._taken = self.active if taken is True or taken is self.active else taken & self.active
        self._target = idx

    def exit(self) -> None:
        self._exited = self.active.copy()
        self.live = self.live & ~self._exited
        if self._exited.any():
            self.live_full = False
        self.done = not self.live.any()

    def barrier(self, bar_id: int, count: int | None, wait: bool = True) -> None:
        self.cta.arrive(self, bar_id, count, wait)

    def fence(self, kind: str) -> None:
        """membar / fence: no effect on a functional machine that runs one warp at a time; counted.
        ``fence.proxy.async`` makes this warp's generic-proxy shared-memory writes visible to the async proxy
        (tcgen05.mma/cp operand reads, warpsim.tcgen05_async.ProxyTracker)."""
        self.fences += 1
        if self.cta.proxy is not None and kind.startswith("fence.proxy.async") and not kind.endswith(".global"):
            self.cta.proxy.fence(self)

    def tcgen05(self):
        """ExecContext.tcgen05: this warp's port to its CTA's Tensor Memory, the CTA pair and the cluster's
        asynchronous tensor unit (warpsim.tcgen05_async.Port)."""
        return self.cta.tcgen05_port(self)

    def spin_wait(self) -> None:
        """ExecContext.spin_wait: this warp polls for something other warps or the async units will do
        (mbarrier.try_wait false); the functional CTA/cluster scheduler moves on to the next warp."""
        self.spinning = True

    def sleep(self, ns) -> None:
        """nanosleep: nothing to wait for functionally."""

    def undefined(self, rule: str, lanes=None, value=None, detail: str = ""):
        """Raise UndefinedBehavior for the first lane in ``lanes`` (ub_policy 'error')."""
        lane = int(np.argmax(lanes)) if lanes is not None else None
        v = None if value is None or lane is None else int(np.asarray(value)[lane])
        raise UndefinedBehavior(rule, lane=lane, value=v, where=self.where(), detail=detail)

    def where(self) -> str:
        ins = self._ins
        if ins is None:
            return f"{self.program.file}: warp {self.warp_id}"
        loc = ins.loc
        text = (loc.text.strip() if loc and loc.text else ins.name)
        return f"{loc if loc else self.program.file} ({text})"

    def _error(self, msg: str, expected: str | None = None):
        raise PtxSemanticError(self._ins.loc if self._ins else None, msg, expected)


def _mma_sp(self, form, variant, selector, a, b, c, e, **scales):
    """ExecContext.mma_sp: the warp's tensor core (warpsim.tensorcore)."""
    from warpsim.tensorcore import mma_sp
    return mma_sp((form, variant), a, b, c, e, selector=selector, arch=self.arch, ub_policy=self.ub_policy,
                  where=self.where(), **scales)


def _mma_sp_in_place(self, ins, form, variant, selector) -> bool:
    """ExecContext.mma_sp_in_place: D from the registers into the registers through the warp's 32-bit bank
    (warpsim.tensorcore.InPlace), for a full warp whose operands are all declared 32-bit registers. False:
    not taken (nothing was read or written; the body goes the general way, which also names an invalid
    metadata code)."""
    if not self._full or self.ub_policy == "hardware" or (form.sparse and selector not in form.selectors):
        return False
    derived = self.program.derived
    key = ("mma", self._pc, self.arch)
    bound = derived.get(key, False)
    if bound is False:
        bound = derived[key] = _bind_mma(self.rf, ins, form, variant, selector, self.arch)
    return bound is not None and bound.run(self.rf.flat[_U32])


_U32 = np.dtype(np.uint32)


def _bind_mma(rf, ins, form, variant, selector, arch):
    """The InPlace plan of an mma instruction, or None when an operand is not a plain 32-bit register (an
    immediate, the sink ``_``, a register named twice in D, block scales)."""
    from warpsim.tensorcore import bind, plan

    if form.block_scaled:
        return None
    ops = tuple(ins.operands[:4])  # d, a, b, c (and the metadata register e)
    if form.sparse:
        e = ins.operands[4]
        ops += (e.items[0] if isinstance(e, Vec) else e,)
    rows = []
    for op in ops:
        names = [x.name if type(x) is Reg else None for x in (op.items if isinstance(op, Vec) else (op,))]
        if None in names or any(n not in rf.rows or rf.regs[n].dtype != _U32 for n in names):
            return None
        rows.append([rf.rows[n] for n in names])
    if len(set(rows[0])) != len(rows[0]):
        return None
    return bind(plan(form, variant, selector, arch), rows[1], rows[2], rows[3], rows[4][0] if form.sparse else 0,
                rows[0])


Warp.mma_sp = _mma_sp
Warp.mma_sp_in_place = _mma_sp_in_place
