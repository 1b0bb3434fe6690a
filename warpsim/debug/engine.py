"""The stepping engine, with no I/O (the ``bdb`` of warpsim): a :class:`Session` owns one kernel launch
and lets you step it one warp instruction at a time, stop at breakpoints and step back.

    s = Session("k.ptx", "spmma_loop", grid=1, block=64, args=(a, b, e, d, np.int32(2), out))
    s.break_at("mma.sp")                 # opcode prefix; also 42, "k.ptx:42", "k.cu:21", "$L__BB0_3", "*17"
    stop = s.continue_()                 # Stop(reason="breakpoint", warp=0, lane=0, pc=..., ...)
    s.frag().matrix("A")                 # the mma.sp operands as matrices (warpsim.debug.state.Fragments)
    s.stepi(); s.reverse_step()          # exact state restored from the history

Scheduling is the CTA's (``warpsim.cta``): warps round-robin, each for up to ``quantum`` instructions
or until it waits at a barrier. ``continue_``/``run`` follow that order; ``stepi``/``step`` run the
*focused* warp (as cuda-gdb does); when it waits at a barrier the other warps run until it is released.
A grid runs its CTAs one after another (x fastest), as ``warpsim run`` does.

History: before each warp instruction the engine records what the instruction can change: the
pre-image of every register it writes (the warp's ``write`` is observed), each warp's PC, masks and
flags, the CTA's barriers, and — for instructions that can write memory (anything but ALU, convert,
branch, barrier, mma and loads) — shared, global, local, param memory and Tensor Memory. ``reverse_step``
puts it all back. The history is a ring bounded in entries and bytes.

Subclasses override :meth:`Session.user_line`, :meth:`Session.user_break`, :meth:`Session.user_exit`
and :meth:`Session.user_exception`; they do nothing here.
"""
from __future__ import annotations

import copy
import os
import re
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from isa.errors import WarpsimError
from isa.ptx import ast
from warpsim.cta import CTA, BarrierDeadlock
from warpsim.debug import values as V
from warpsim.engine import dim3

MAX_THREADS_PER_CTA = 1024
PURE_TIMING = frozenset(("alu", "fma", "mul", "mul_wide", "div", "cvt", "special", "branch", "exit", "tensor", "barrier"))
LOADS = frozenset(("ld", "ldu"))
_WARP_FIXED = frozenset(("program", "cta", "warp_id", "arch", "ub_policy", "rf", "regs", "local", "clock",
                         "_ops", "write", "_tc_port"))
_CTA_FIXED = frozenset(("program", "launch", "quantum", "ctaid", "nctaid", "ntid", "arch", "ub_policy", "gmem",
                        "params", "const", "global_vars", "dynamic_shared", "shared", "nwarps", "warps", "tmem",
                        "cluster", "rank", "cluster_specials", "_tc_port", "proxy"))


class DebugError(WarpsimError):
    """A debugger request that cannot be done (bad location, no history, no mma.sp to show ...)."""


# ----------------------------------------------------------------------------- records


@dataclass
class Breakpoint:
    """A stop location: instruction indices (``pcs``) plus an optional per-lane condition."""

    number: int
    spec: str  # as the user wrote it
    kind: str  # "line" (PTX line), "source" (CUDA line from .loc), "label", "pc", "opcode", "function"
    pcs: frozenset
    where: str  # resolved place, for listings
    cond: str | None = None
    temporary: bool = False
    enabled: bool = True
    hits: int = 0

    def describe(self) -> str:
        what = "Temporary breakpoint" if self.temporary else "Breakpoint"
        text = f"{what} {self.number} at {self.where}"
        return text + (f" if {self.cond}" if self.cond else "")


@dataclass
class Stop:
    """Why and where execution stopped. ``reason``: step, breakpoint, exited, exception, no-history,
    history-start."""

    reason: str
    warp: int | None = None
    lane: int | None = None
    pc: int | None = None
    breakpoint: Breakpoint | None = None
    focus_changed: bool = False
    message: str = ""
    error: Exception | None = None
    steps: int = 0  # warp instructions executed (or undone) by the request


@dataclass
class MmaRecord:
    """The operands of one executed (or pending) mma.sp of one warp, as raw lane registers."""

    pc: int
    ins: ast.Instruction
    a: np.ndarray  # (32, na) uint32
    b: np.ndarray
    c: np.ndarray
    e: np.ndarray | None  # (32,) uint32; None for a dense mma
    d: np.ndarray | None  # (32, nd) uint32 once executed
    warp: int = 0


@dataclass
class _Snap:
    cta_index: int
    cta: CTA
    warp: int  # the warp that stepped
    warps: list  # per warp: dict of its mutable attributes
    cta_attrs: dict
    regs: dict  # pre-images of the registers the instruction wrote
    memory: dict | None  # space -> copies, for instructions that may write memory
    session: dict
    nbytes: int = 0
    machine: dict | None = None  # state outside the CTA's attributes: the cluster's tcgen05 unit, proxy counters


def _clone(v):
    """Copy containers and arrays; keep every other object (warps, instructions) by reference."""
    if isinstance(v, np.ndarray):
        return v.copy()
    if isinstance(v, dict):
        return {k: _clone(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_clone(x) for x in v]
    if isinstance(v, set):
        return set(v)
    if isinstance(v, tuple):
        return tuple(_clone(x) for x in v)
    return v


def _nbytes(v) -> int:
    if isinstance(v, np.ndarray):
        return v.nbytes
    if isinstance(v, dict):
        return sum(_nbytes(x) for x in v.values())
    if isinstance(v, (list, tuple)):
        return sum(_nbytes(x) for x in v)
    return 8


def freeze(v, _depth=0):
    """A comparable (==) image of a state value: arrays by dtype, shape and bytes; objects by their fields."""
    from warpsim.warp import Warp

    if isinstance(v, np.ndarray):
        return ("nd", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, dict):
        return ("dict", tuple(sorted(((repr(k), freeze(x, _depth)) for k, x in v.items()), key=lambda t: t[0])))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(freeze(x, _depth) for x in v))
    if isinstance(v, set):
        return ("set", tuple(sorted(repr(freeze(x, _depth)) for x in v)))
    if isinstance(v, Warp):
        return ("warp", v.warp_id)
    if isinstance(v, (int, float, str, bool, type(None), np.generic, ast.Instruction)):
        return v
    if _depth < 3 and hasattr(v, "__dict__"):
        return (type(v).__name__, freeze(vars(v), _depth + 1))
    return repr(v)


# ----------------------------------------------------------------------------- the session


class Session:
    """One kernel launch under the debugger. See the module docstring."""

    def __init__(self, module, kernel: str, grid=1, block=32, args=(), *, shared_mem: int = 0,
                 arch: str | None = None, ub_policy: str = "error", clock=None, timing: bool | None = None,
                 quantum: int = 512, history: int = 100_000, history_bytes: int = 512 << 20):
        from warpsim.module import RawModule

        if isinstance(module, RawModule):
            self.mod = module
        elif isinstance(module, (str, os.PathLike)) and "\n" not in str(module) and os.path.exists(module):
            self.mod = RawModule(path=str(module), arch=arch, ub_policy=ub_policy)
        else:
            self.mod = RawModule(code=str(module), arch=arch, ub_policy=ub_policy)
        self.kernel = self.mod.get_function(kernel)
        self.program = self.kernel.program
        self.name = kernel
        self.grid, self.block = dim3(grid, "grid"), dim3(block, "block")
        if self.block[0] * self.block[1] * self.block[2] > MAX_THREADS_PER_CTA:
            raise DebugError(f"block {self.block} has more than {MAX_THREADS_PER_CTA} threads")
        self.args, self.shared_mem, self.clock, self.quantum = tuple(args), shared_mem, clock, quantum
        # timing: the timed engine (warpsim.timing) runs the launch once, recording when each warp's
        # instructions issue; stepping then shows (and %clock reads) those cycles. Default: the module's
        # setting (RawModule(timing=True)); a ``clock`` callable replaces it.
        self.timing = clock is not None or (self.mod.timing if timing is None else bool(timing))
        self.timeline = None
        self._issue: dict = {}
        if self.timing and clock is None:
            self._run_timed()
        self.history_limit, self.history_bytes = history, history_bytes
        self.breakpoints: dict[int, Breakpoint] = {}
        self._bp_number = 0
        self.source_lines = (self.mod.module.source or "").splitlines()
        self.files = _file_table(self.mod.module)
        self._writes_memory = [self._may_write_memory(pc) for pc in range(len(self.program.ops))]
        self._start()

    # ---------------------------------------------------------------- launch state
    def _run_timed(self) -> None:
        from warpsim.timing.model import run_grid_timed

        launch, _ = self.kernel.prepare(self.args, self.shared_mem)
        _, self.timeline = run_grid_timed(self.program, self.grid, self.block, launch, self.mod.timing_params)
        # records are in each warp's program order (the timed engine may issue in ptxas order)
        for cta, warp, pc, _text, issue, _ready, complete in self.timeline.records:
            self._issue.setdefault((cta, warp), []).append((pc, issue, complete))
        self.clock = self._timed_clock

    def _timed_clock(self, w) -> int:
        """%clock as the timed run saw it: the issue cycle of the warp's current instruction."""
        seq = self._issue.get((self.cta_index, w.warp_id), ())
        return int(seq[w.steps][1]) if w.steps < len(seq) else int(self.timeline.cycles)

    def _start(self) -> None:
        self.launch, self.mapped = self.kernel.prepare(self.args, self.shared_mem, clock=self.clock)
        self.cta_index = 0
        self.cta = self._make_cta(0)
        self.focus_warp, self.focus_lane = 0, 0
        self._autofocus = False  # the focus was last moved by the engine (a stop, an exit), not by focus()
        self._rr = [0, 0]
        self.last_mma: dict[int, MmaRecord] = {}
        self._done_steps = 0  # warp instructions of the CTAs already finished
        self.finished = False
        self.started = False
        self.history: deque[_Snap] = deque()
        self._hist_bytes = 0

    def restart(self) -> None:
        """Back to the launch: fresh memory from the arguments, every warp at its first instruction.
        Breakpoints are kept."""
        self._start()

    @property
    def nctas(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    def _ctaid(self, index: int) -> tuple[int, int, int]:
        gx, gy, _ = self.grid
        return index % gx, (index // gx) % gy, index // (gx * gy)

    def _make_cta(self, index: int) -> CTA:
        cta = CTA(self.program, self._ctaid(index), self.grid, self.block, self.launch, self.quantum)
        for w in cta.warps:
            _observe_writes(w)
        return cta

    @property
    def warps(self):
        return self.cta.warps

    def warp(self, n: int | None = None):
        n = self.focus_warp if n is None else n
        if not 0 <= n < len(self.cta.warps):
            raise DebugError(f"no warp {n} (this CTA has warps 0..{len(self.cta.warps) - 1})")
        return self.cta.warps[n]

    # ---------------------------------------------------------------- where a warp is
    @staticmethod
    def next_pc(w) -> int | None:
        """The instruction a warp runs next (its lowest lane PC), None when it has finished."""
        if w.done:
            return None
        return w.pc if w.lpc is None else int(w.lpc.min())

    @staticmethod
    def group(w) -> np.ndarray:
        """Lanes that run the warp's next instruction (before its guard): cuda-gdb's active lanes."""
        if w.done:
            return np.zeros(32, bool)
        if w.lpc is None:
            return w.live.copy()
        return w.live & (w.lpc == w.lpc.min())

    @staticmethod
    def lane_pc(w, lane: int) -> int | None:
        if not w.live[lane]:
            return None
        return w.pc if w.lpc is None else int(w.lpc[lane])

    def instruction(self, pc: int | None):
        if pc is None or not 0 <= pc < len(self.program.ops):
            return None
        return self.program.ops[pc][1]

    def location(self, pc: int | None) -> str:
        ins = self.instruction(pc)
        if ins is None:
            return "<end>"
        return f"{os.path.basename(ins.loc.file)}:{ins.loc.line}" if ins.loc else f"pc {pc}"

    def line_of(self, pc: int | None) -> int | None:
        ins = self.instruction(pc)
        return ins.loc.line if ins is not None and ins.loc else None

    def source_text(self, pc: int | None) -> str:
        ins = self.instruction(pc)
        if ins is None:
            return ""
        text = ins.loc.text if ins.loc and ins.loc.text else ins.name
        return re.sub(r"\s+", " ", text.strip())

    def thread_of(self, warp: int, lane: int) -> tuple[int, int, int]:
        w = self.cta.warps[warp]
        return tuple(int(w.regs[f"%tid.{a}"][lane]) for a in "xyz")

    def nlanes(self, warp: int) -> int:
        n = self.block[0] * self.block[1] * self.block[2]
        return max(0, min(32, n - 32 * warp))

    # ---------------------------------------------------------------- focus
    def focus(self, warp: int | None = None, lane: int | None = None) -> None:
        """Move the focus (omitted coordinates keep their value)."""
        w = self.focus_warp if warp is None else int(warp)
        ln = self.focus_lane if lane is None else int(lane)
        self.warp(w)
        if not 0 <= ln < 32:
            raise DebugError(f"no lane {ln} (lanes are 0..31)")
        if ln >= self.nlanes(w):
            raise DebugError(f"warp {w} has {self.nlanes(w)} threads: lane {ln} does not exist")
        self.focus_warp, self.focus_lane = w, ln
        self._autofocus = False

    def focus_line(self) -> str:
        """cuda-gdb's focus line."""
        b, t = self.cta.ctaid, self.thread_of(self.focus_warp, self.focus_lane)
        return (f"[Switching focus to CUDA kernel 0, grid 1, block ({b[0]},{b[1]},{b[2]}), "
                f"thread ({t[0]},{t[1]},{t[2]}), device 0, sm 0, warp {self.focus_warp}, lane {self.focus_lane}]")

    def _refocus(self) -> bool:
        """Keep the focus on something alive: a finished warp hands it to the next live warp, an exited
        lane to the warp's first live lane. True when it moved."""
        if self.finished:
            return False
        w = self.cta.warps[self.focus_warp]
        if w.done:
            for k in range(1, len(self.cta.warps) + 1):
                nw = self.cta.warps[(self.focus_warp + k) % len(self.cta.warps)]
                if not nw.done:
                    self.focus_warp, self.focus_lane = nw.warp_id, int(np.argmax(nw.live))
                    self._autofocus = True
                    return True
            return False
        if not w.live[self.focus_lane]:
            self.focus_lane = int(np.argmax(w.live))
            self._autofocus = True
            return True
        return False

    # ---------------------------------------------------------------- breakpoints
    def break_at(self, spec: str, cond: str | None = None, temporary: bool = False) -> Breakpoint:
        """A breakpoint at ``spec``: a PTX line (``42``, ``k.ptx:42``), a CUDA line from ``.loc``
        (``k.cu:21``), a label (``$L__BB0_3``), an instruction index (``*17``), the kernel's name, or an
        opcode prefix (``mma.sp``, ``bar``, ``st.shared``). ``cond`` is a per-lane expression."""
        kind, pcs, where = self.resolve(spec)
        if cond:
            V.evaluate(cond, self.cta.warps[0].regs, self.program.regs)  # parse and name check now
        self._bp_number += 1
        bp = Breakpoint(self._bp_number, spec, kind, frozenset(pcs), where, cond or None, temporary)
        self.breakpoints[bp.number] = bp
        return bp

    def delete(self, numbers=None) -> list[int]:
        """Delete breakpoints (all when ``numbers`` is None); returns the numbers deleted."""
        if numbers is None:
            gone = sorted(self.breakpoints)
            self.breakpoints.clear()
            return gone
        for n in numbers:
            if n not in self.breakpoints:
                raise DebugError(f"no breakpoint number {n}")
        for n in numbers:
            del self.breakpoints[n]
        return list(numbers)

    def resolve(self, spec: str) -> tuple[str, list[int], str]:
        """(kind, instruction indices, description) of a location."""
        s = spec.strip()
        ops = self.program.ops
        if not s:
            raise DebugError("a breakpoint needs a location (line, file:line, label, *pc or opcode)")
        if s.startswith("*"):
            try:
                pc = int(s[1:], 0)
            except ValueError:
                raise DebugError(f"'{s}': expected *N, an instruction index") from None
            if not 0 <= pc < len(ops):
                raise DebugError(f"no instruction {pc} (the kernel has {len(ops)})")
            return "pc", [pc], f"pc {pc}, {self.location(pc)}"
        m = re.fullmatch(r"(?:(.+):)?(\d+)", s)
        if m:
            file, line = m.group(1), int(m.group(2))
            ptx = os.path.basename(self.program.file)
            if file is None or os.path.basename(file) == ptx:
                return self._ptx_line(line)
            return self._source_line(file, line)
        label = s if s in self.program.labels else "$" + s if "$" + s in self.program.labels else None
        if label is not None:
            pc = self.program.labels[label]
            return "label", [pc], f"{label}, {self.location(pc)}"
        if s == self.name:
            return "function", [0], f"{self.name}, {self.location(0)}"
        pcs = [pc for pc, op in enumerate(ops) if _opcode_match(op[1].name, s)]
        if pcs:
            lines = ", ".join(str(self.line_of(p)) for p in pcs)
            return "opcode", pcs, f"'{s}' ({len(pcs)} instruction{'s' if len(pcs) > 1 else ''}: line{'s' if len(pcs) > 1 else ''} {lines})"
        raise DebugError(f"no line, label, kernel or instruction matches '{s}'")

    def _ptx_line(self, line: int):
        ops = self.program.ops
        after = [pc for pc, op in enumerate(ops) if op[1].loc and op[1].loc.line >= line]
        if not after:
            raise DebugError(f"no instruction at or after line {line} of {os.path.basename(self.program.file)}")
        pc = min(after, key=lambda p: (ops[p][1].loc.line, p))
        return "line", [pc], f"{self.location(pc)} (pc {pc})"

    def _source_line(self, file: str, line: int):
        names = [f for f in self.files.values() if os.path.basename(f) == os.path.basename(file)]
        if not names:
            known = ", ".join(os.path.basename(f) for f in self.files.values()) or "none (compile with -lineinfo)"
            raise DebugError(f"no source file '{file}' in the PTX's .file table (files: {known})")
        ins = [op[1] for op in self.program.ops]
        pcs = [pc for pc, i in enumerate(ins) if i.src_line == line and (pc == 0 or ins[pc - 1].src_line != line)]
        if not pcs:
            raise DebugError(f"no instruction comes from {os.path.basename(file)}:{line} (see .loc lines)")
        where = ", ".join(self.location(p) for p in pcs)
        return "source", pcs, f"{os.path.basename(file)}:{line} ({where})"

    def _hit(self, w, pc: int):
        """The breakpoint (and lanes) that stop warp ``w`` before the instruction at ``pc``, if any."""
        lanes = self.group(w)
        for n in sorted(self.breakpoints):
            bp = self.breakpoints[n]
            if not bp.enabled or pc not in bp.pcs:
                continue
            hits = lanes
            if bp.cond:
                try:
                    hits = lanes & np.asarray(V.evaluate(bp.cond, w.regs, self.program.regs)).astype(bool)
                except V.ExprError:
                    hits = lanes  # a condition that cannot be evaluated stops (as gdb does)
            if hits.any():
                return bp, hits
        return None

    # ---------------------------------------------------------------- executing
    def _may_write_memory(self, pc: int) -> bool:
        ins = self.program.ops[pc][1]
        if ins.opcode in LOADS:
            return False
        try:
            timing = self.program.spec(pc).timing
        except WarpsimError:
            return True
        return timing not in PURE_TIMING

    def _snapshot(self, w, pc: int | None) -> _Snap:
        cta = self.cta
        warps = [{k: _clone(v) for k, v in vars(x).items() if k not in _WARP_FIXED} for x in cta.warps]
        cta_attrs = {k: _clone(v) for k, v in vars(cta).items() if k not in _CTA_FIXED}
        memory = None
        if pc is None or pc >= len(self._writes_memory) or self._writes_memory[pc]:
            memory = {"shared": cta.shared.buf.copy(), "params": cta.params.buf.copy(),
                      "local": w.local.buf.copy(),
                      "global": [r[2].copy() for r in self.launch.gmem.regions],
                      "tmem": copy.deepcopy(vars(cta)["tmem"]) if "tmem" in vars(cta) else _ABSENT,
                      "proxy": cta.proxy.arrays() if getattr(cta, "proxy", None) is not None else _ABSENT}
        session = {"focus_warp": self.focus_warp, "focus_lane": self.focus_lane, "_autofocus": self._autofocus,
                   "_rr": list(self._rr),
                   "last_mma": dict(self.last_mma), "finished": self.finished, "started": self.started,
                   "_done_steps": self._done_steps}
        snap = _Snap(self.cta_index, cta, w.warp_id, warps, cta_attrs, {}, memory, session)
        unit = cta.cluster.unit if getattr(cta, "cluster", None) is not None else None
        if unit is not None or getattr(cta, "proxy", None) is not None:  # tcgen05 kernels: every step (bar.sync too)
            snap.machine = {"tcunit": unit.state() if unit is not None else _ABSENT,
                            "proxy": cta.proxy.counters() if cta.proxy is not None else _ABSENT}
        snap.nbytes = _nbytes(warps) + (_nbytes(memory) if memory else 0) + 256
        return snap

    def _restore(self, snap: _Snap) -> None:
        self.cta_index, self.cta = snap.cta_index, snap.cta
        cta = self.cta
        for x, saved in zip(cta.warps, snap.warps):
            d = vars(x)
            for k in [k for k in d if k not in _WARP_FIXED and k not in saved]:
                del d[k]
            d.update(_clone(saved))
        w = cta.warps[snap.warp]
        for name, arr in snap.regs.items():
            np.copyto(w.regs[name], arr)
        d = vars(cta)
        for k in [k for k in d if k not in _CTA_FIXED and k not in snap.cta_attrs]:
            del d[k]
        d.update(_clone(snap.cta_attrs))
        m = snap.memory
        if m is not None:
            np.copyto(cta.shared.buf, m["shared"])
            np.copyto(cta.params.buf, m["params"])
            np.copyto(w.local.buf, m["local"])
            for r, saved in zip(self.launch.gmem.regions, m["global"]):
                np.copyto(r[2], saved)
            if m["tmem"] is _ABSENT:
                d.pop("tmem", None)
            else:
                d["tmem"] = copy.deepcopy(m["tmem"])
            if m.get("proxy", _ABSENT) is not _ABSENT:
                cta.proxy.set_arrays(m["proxy"])
        x = snap.machine
        if x is not None:  # the cluster's asynchronous tcgen05 state (warpsim.tcgen05_async), proxy counters
            if x["tcunit"] is _ABSENT:
                cta.cluster.unit = None
            else:
                if cta.cluster.unit is None:
                    from warpsim.tcgen05_async import TensorUnit
                    cta.cluster.unit = TensorUnit(cta.cluster, cta.launch)
                cta.cluster.unit.set_state(x["tcunit"])
            if x["proxy"] is not _ABSENT:
                cta.proxy.set_counters(x["proxy"])
        for k, v in snap.session.items():
            setattr(self, k, _clone(v) if k == "_rr" else v)
        self.last_mma = dict(snap.session["last_mma"])

    def _push(self, snap: _Snap) -> None:
        self.history.append(snap)
        self._hist_bytes += snap.nbytes
        while self.history and (len(self.history) > self.history_limit or self._hist_bytes > self.history_bytes):
            self._hist_bytes -= self.history.popleft().nbytes

    def _exec(self, w, rr: list | None = None, follow: bool = False) -> Stop | None:
        """Run one instruction of warp ``w`` with history; a machine error restores the state before it
        and comes back as a Stop(reason="exception"). ``rr``: the scheduler's position picking ``w``
        (counted after the instruction); ``follow``: the focus moves to ``w``."""
        pc = self.next_pc(w)
        snap = self._snapshot(w, pc)
        if rr is not None:
            self._rr = rr
        if follow and w.warp_id != self.focus_warp:
            g = self.group(w)
            self.focus_warp = w.warp_id
            self.focus_lane = self.focus_lane if g[self.focus_lane] else int(np.argmax(g))
            self._autofocus = True
        ins = self.instruction(pc)
        rec = _mma_operands(w, pc, ins) if ins is not None and ins.opcode == "mma" else None
        w._wlog = snap.regs
        try:
            w.step()
        except WarpsimError as err:
            w._wlog = None
            self._restore(snap)
            self.focus_warp = w.warp_id
            g = self.group(w)
            if not g[self.focus_lane]:
                self.focus_lane = int(np.argmax(g))
            stop = Stop("exception", w.warp_id, self.focus_lane, pc, message=str(err), error=err)
            self.user_exception(stop)
            return stop
        finally:
            vars(w).pop("_wlog", None)
        snap.nbytes += _nbytes(snap.regs)
        self._push(snap)
        if rr is not None:
            self._rr[1] += 1
        self.started = True
        if rec is not None:
            rec.d = w.read_vec(ins.operands[0], "b32").copy()
            self.last_mma = {**self.last_mma, w.warp_id: rec}
        if w.done:
            for bar_id in list(self.cta.bars):
                self.cta._try_release(bar_id)
        if all(x.done for x in self.cta.warps):
            self._next_cta()
        return None

    def _next_cta(self) -> None:
        if self.cta_index + 1 < self.nctas:
            self._done_steps += self.cta.steps
            self.cta_index += 1
            self.cta = self._make_cta(self.cta_index)
            self._rr = [0, 0]
            self.focus_warp, self.focus_lane, self._autofocus = 0, 0, True
        else:
            self.finished = True
            self.kernel.write_back(self.launch, self.mapped)

    def _runnable(self, w) -> bool:
        return not w.done and w.blocked is None

    def _pick(self):
        """(warp, scheduler position) the CTA's round-robin scheduler runs next; (None, None) when the CTA
        has finished. Nothing changes until the instruction runs."""
        warps, q = self.cta.warps, self.quantum
        i, k = self._rr
        if k < q and self._runnable(warps[i]):
            return warps[i], [i, k]
        n = len(warps)
        for j in range(1, n + 1):
            w = warps[(i + j) % n]
            if self._runnable(w):
                return w, [(i + j) % n, 0]
        if all(w.done for w in warps):
            return None, None
        raise BarrierDeadlock(self.cta._deadlock_message())

    def scheduled(self):
        """The warp the CTA's round-robin scheduler runs next (None when the CTA has finished)."""
        return self._pick()[0]

    def _exec_scheduled(self, follow: bool = False):
        """(warp, stop) for one instruction of the scheduler's warp."""
        w, rr = self._pick()
        if w is None:
            return None, None
        return w, self._exec(w, rr, follow)

    def _finish(self, stop: Stop) -> Stop:
        if self.finished:
            stop.reason, stop.warp, stop.lane, stop.pc = "exited", None, None, None
            stop.message = (f"kernel {self.name} exited: {self.retired()} warp instructions in "
                            f"{self.nctas} CTA{'s' if self.nctas > 1 else ''}"
                            + (f", {self.timeline.cycles:g} cycles (timed engine, {self.timeline.params})"
                               if self.timeline is not None else ""))
            self.user_exit(stop)
            return stop
        stop.focus_changed = self._refocus() or stop.focus_changed
        stop.warp, stop.lane = self.focus_warp, self.focus_lane
        stop.pc = self.next_pc(self.cta.warps[self.focus_warp])
        if stop.reason == "breakpoint":
            self.user_break(stop)
        elif stop.reason == "step":
            self.user_line(stop)
        return stop

    def _deadlock(self, err, steps) -> Stop:
        stop = Stop("exception", self.focus_warp, self.focus_lane, self.next_pc(self.warp()), message=str(err),
                    error=err, steps=steps)
        self.user_exception(stop)
        return stop

    def _ended(self) -> Stop:
        return self._finish(Stop("exited"))

    # ---------------------------------------------------------------- public stepping
    def stepi(self, warp: int | None = None, *, scheduler: bool = False) -> Stop:
        """One warp instruction of the focused warp (or of ``warp``). A warp waiting at a barrier lets
        the others run (breakpoints ignored) until it is released; a finished warp's step runs the
        scheduler's next warp instead. ``scheduler=True``: exactly one instruction of the warp the CTA's
        scheduler runs next, and the focus follows it."""
        if self.finished:
            return self._ended()
        if scheduler:
            return self._stepi_scheduled()
        if warp is not None:
            self.focus(warp, None if self.focus_lane < self.nlanes(warp) else 0)
        cta_before, steps, w = self.cta, 0, self.warp()
        try:
            while w.blocked is not None and not w.done:
                x, stop = self._exec_scheduled()
                if stop is not None:
                    stop.steps = steps
                    return stop
                if x is None or self.cta is not cta_before:
                    break
                steps += 1
            if self.cta is cta_before and not self.finished:
                stop = self._exec(w) if not w.done else self._exec_scheduled(follow=True)[1]
                if stop is not None:
                    stop.steps = steps
                    return stop
                steps += 1
        except BarrierDeadlock as err:
            return self._deadlock(err, steps)
        return self._finish(Stop("step", steps=steps, focus_changed=self.cta is not cta_before))

    def _stepi_scheduled(self) -> Stop:
        cta_before, old = self.cta, (self.focus_warp, self.focus_lane)
        try:
            _, stop = self._exec_scheduled(follow=True)
        except BarrierDeadlock as err:
            return self._deadlock(err, 0)
        if stop is not None:
            return stop
        changed = self.cta is not cta_before or old != (self.focus_warp, self.focus_lane)
        return self._finish(Stop("step", steps=1, focus_changed=changed))

    def step(self) -> Stop:
        """Step the focused warp until the focused lane has run an instruction (cuda-gdb's
        ``step_divergent_lanes on``): lanes on the other side of a branch are stepped over."""
        if self.finished:
            return self._ended()
        w, lane, total = self.warp(), self.focus_lane, 0
        while True:
            ran = self.group(w)[lane]
            stop = self.stepi()
            total += stop.steps
            if stop.reason != "step" or ran or stop.focus_changed or not w.live[lane]:
                stop.steps = total
                return stop

    def next(self) -> Stop:
        """Step over calls: the machine runs one function (no ``call``), so this is :meth:`step`."""
        return self.step()

    def continue_(self) -> Stop:
        """Run in the scheduler's order until a breakpoint, an error or the end of the kernel. The
        focused warp's current instruction does not stop it again (it steps off its breakpoint)."""
        if self.finished:
            return self._ended()
        here = (self.cta, self.focus_warp, self.next_pc(self.warp()))
        first, steps = True, 0
        try:
            while True:
                w, rr = self._pick()
                if w is None:
                    break
                pc = self.next_pc(w)
                if self.breakpoints and not (first and (self.cta, w.warp_id, pc) == here):
                    hit = self._hit(w, pc)
                    if hit is not None:
                        return self._break(w, hit, steps)
                first = False
                stop = self._exec(w, rr)
                if stop is not None:
                    stop.steps = steps
                    return stop
                steps += 1
                if self.finished:
                    break
        except BarrierDeadlock as err:
            return self._deadlock(err, steps)
        return self._finish(Stop("exited", steps=steps))

    def _break(self, w, hit, steps) -> Stop:
        bp, lanes = hit
        bp.hits += 1
        old = (self.focus_warp, self.focus_lane, self.cta_index)
        self.focus_warp = w.warp_id
        if not lanes[self.focus_lane]:
            self.focus_lane = int(np.argmax(lanes))
        if bp.temporary:
            del self.breakpoints[bp.number]
        changed = old != (self.focus_warp, self.focus_lane, self.cta_index)
        self._autofocus = self._autofocus or changed
        return self._finish(Stop("breakpoint", breakpoint=bp, steps=steps, focus_changed=changed))

    def run(self) -> Stop:
        """Run to the end of the kernel, ignoring breakpoints (errors still stop)."""
        saved, self.breakpoints = self.breakpoints, {}
        try:
            return self.continue_()
        finally:
            self.breakpoints = saved

    def reverse_stepi(self) -> Stop:
        """Undo warp instructions until one of the focused warp's is undone (other warps' later
        instructions go first, keeping the order consistent)."""
        if not self.history:
            return Stop("no-history", self.focus_warp, self.focus_lane, self.next_pc(self.warp()),
                        message="no more reverse-execution history")
        target, fl, undone = self.focus_warp, self.focus_lane, 0
        last = self.history[-1]
        # the engine moved the focus away from the warp that ran last (it exited, a CTA ended): undo that
        # warp's instruction and give the focus back as it was then; otherwise the focus stays
        keep = not ((self._autofocus and last.warp != target) or last.cta is not self.cta)
        if not keep:
            target = last.warp
        while self.history:
            cta = self.cta
            snap = self.history.pop()
            self._hist_bytes -= snap.nbytes
            self._restore(snap)
            undone += 1
            if snap.warp == target or snap.cta is not cta:
                break
        if keep:
            self.focus_warp, self.focus_lane = target, fl
        stop = Stop("step", self.focus_warp, self.focus_lane, self.next_pc(self.warp()), steps=undone)
        self.user_line(stop)
        return stop

    def reverse_step(self) -> Stop:
        """Undo until the focused lane's previous instruction is undone (the reverse of :meth:`step`)."""
        if not self.history:
            return self.reverse_stepi()
        lane, total = self.focus_lane, 0
        while True:
            stop = self.reverse_stepi()
            total += stop.steps
            if stop.reason != "step" or self.group(self.warp())[lane] or not self.history:
                stop.steps = total
                return stop

    def reverse_continue(self) -> Stop:
        """Undo until a warp is about to run an instruction with a breakpoint, or the history is exhausted."""
        if not self.history:
            return self.reverse_stepi()
        undone = 0
        while self.history:
            snap = self.history.pop()
            self._hist_bytes -= snap.nbytes
            self._restore(snap)
            undone += 1
            w = self.cta.warps[snap.warp]
            hit = self._hit(w, self.next_pc(w)) if self.breakpoints else None
            if hit is not None:
                bp, lanes = hit
                self.focus_warp = w.warp_id
                if not lanes[self.focus_lane]:
                    self.focus_lane = int(np.argmax(lanes))
                return Stop("breakpoint", self.focus_warp, self.focus_lane, self.next_pc(w), bp, steps=undone)
        return Stop("history-start", self.focus_warp, self.focus_lane, self.next_pc(self.warp()), steps=undone,
                    message="no more reverse-execution history")

    # ---------------------------------------------------------------- hooks (bdb's user_*)
    def user_line(self, stop: Stop) -> None:
        """Called when a step stops."""

    def user_break(self, stop: Stop) -> None:
        """Called when a breakpoint stops execution."""

    def user_exit(self, stop: Stop) -> None:
        """Called when the kernel has finished."""

    def user_exception(self, stop: Stop) -> None:
        """Called when an instruction raised (the state is the one before it)."""

    # ---------------------------------------------------------------- reading state
    def retired(self, warp: int | None = None) -> int:
        """Warp instructions retired: by one warp of the current CTA, or in total when ``warp`` is None."""
        if warp is not None:
            return self.warp(warp).steps
        return self._done_steps + self.cta.steps

    def cycle(self, warp: int | None = None) -> tuple[float | int | None, str]:
        """(value, what it is). With timing: the simulated cycle at which the warp's next instruction
        issues in the timed run (``"cycle"``), the cycle by which all its instructions had completed once
        it has finished (``"cycle (finished)"``), or None with ``"diverged"`` where the timed run executed a
        different instruction at this point. A ``clock=`` callable: its value. Without timing: the
        warp's retired-instruction count (``"instructions retired"``)."""
        w = self.warp(warp)
        if not self.timing:
            return w.steps, "instructions retired"
        if self.timeline is None:
            return int(self.launch.clock(w)), "cycle"
        seq = self._issue.get((self.cta_index, w.warp_id), ())
        if w.done or w.steps >= len(seq):
            return max((c for _, _, c in seq), default=0.0), "cycle (finished)"
        pc, issue, _ = seq[w.steps]
        if pc != self.next_pc(w):
            return None, "diverged"
        return issue, "cycle"

    def register(self, name: str, warp: int | None = None) -> np.ndarray:
        w = self.warp(warp)
        if name not in w.regs:
            raise DebugError(f"no register {name} in this kernel")
        return w.regs[name]

    def evaluate(self, expr: str, warp: int | None = None) -> np.ndarray:
        """``expr`` for all 32 lanes of a warp (see :mod:`warpsim.debug.values`)."""
        return V.evaluate(expr, self.warp(warp).regs, self.program.regs)

    def lane_registers(self, warp: int | None = None, lane: int | None = None):
        from warpsim.debug.state import LaneRegisters

        w = self.warp(warp)
        lane = self.focus_lane if lane is None else lane
        return LaneRegisters.of(self, w, lane)

    def warp_state(self, warp: int | None = None):
        from warpsim.debug.state import WarpState

        return WarpState.of(self, self.warp(warp))

    def warp_states(self):
        from warpsim.debug.state import WarpState

        return [WarpState.of(self, w) for w in self.cta.warps]

    def frag(self, warp: int | None = None):
        """The focused warp's mma.sp operands: its pending mma.sp (the next instruction) if it is one,
        else the last one it executed."""
        from warpsim.debug.state import Fragments

        w = self.warp(warp)
        pc = self.next_pc(w)
        ins = self.instruction(pc)
        if ins is not None and ins.opcode == "mma":
            return Fragments(self, _mma_operands(w, pc, ins), pending=True)
        rec = self.last_mma.get(w.warp_id)
        if rec is None or rec.pc is None:
            raise DebugError(f"warp {w.warp_id} is not at an mma.sp and has not executed one yet "
                             f"(try `break mma.sp` then `continue`)")
        return Fragments(self, rec, pending=False)

    def tmem(self):
        """(Tmem or None, note): this CTA's Tensor Memory, or why there is none."""
        try:
            from warpsim import tmem as tm
        except ImportError:
            return None, "Tensor Memory is not part of this warpsim"
        if not hasattr(tm, "cta_tmem"):
            return None, "Tensor Memory (warpsim.tmem) is not wired into the machine yet"
        t = vars(self.cta).get("tmem")
        if t is None:
            arch = self.mod.arch or ""
            old = arch.startswith("sm_") and arch[3:6].rstrip("af").isdigit() and int(arch[3:6].rstrip("af")) < 100
            return None, (f"no Tensor Memory in CTA {self.cta.ctaid}: no tcgen05 instruction has used it"
                          + (f" (TMEM exists on sm_100a and later; this module targets {arch})" if old else ""))
        return t, ""

    # ---------------------------------------------------------------- memory
    def resolve_address(self, text: str) -> tuple[str, int]:
        """``&name``, ``SPACE:ADDR``, a number or a register (focused lane) → (space, address in it).
        Plain numbers and registers are generic addresses (shared/local/param windows, else global)."""
        from warpsim import memory as mem

        t = text.strip()
        space = None
        m = re.match(r"(shared|global|local|param|const|generic)\s*:\s*(.+)$", t)
        if m:
            space, t = m.group(1), m.group(2).strip()
        if t.startswith("&"):
            sym = self.warp().symbol(t[1:].strip())
            if sym is None:
                raise DebugError(f"no variable or parameter named '{t[1:].strip()}'")
            sp, off = sym
            return ("params" if sp == "param" else sp), off
        if t[:1] in "%$":
            vals = self.evaluate(t)
            addr = int(vals[self.focus_lane])
        else:
            try:
                addr = int(t, 0)
            except ValueError:
                raise DebugError(f"'{t}' is not an address (a number, a register, &name or space:addr)") from None
        if space is None or space == "generic":
            for sp in ("shared", "local", "param", "const"):
                base = mem.WINDOW[sp]
                if base <= addr < base + mem.WINDOW_SIZE:
                    return ("params" if sp == "param" else sp), addr - base
            return "global", addr
        return ("params" if space == "param" else space), addr

    def read_memory(self, space: str, addr: int, nbytes: int) -> bytes:
        """``nbytes`` from ``space`` at ``addr`` (local: the focused lane's), or DebugError as gdb says it."""
        if space == "global":
            g = self.launch.gmem
            for base, size, buf, _ in g.regions:
                if base <= addr and addr + nbytes <= base + size:
                    return buf[addr - base: addr - base + nbytes].tobytes()
            raise DebugError(f"Cannot access memory at address {addr:#x} (no global allocation holds "
                             f"{nbytes} bytes there)")
        if space == "local":
            w = self.warp()
            loc = w.local
            if 0 <= addr and addr + nbytes <= loc.size:
                row = self.focus_lane * loc.row
                return loc.buf[row + addr: row + addr + nbytes].tobytes()
            raise DebugError(f"Cannot access memory at local address {addr:#x} (local size {loc.size})")
        flat = {"shared": self.cta.shared, "params": self.cta.params, "const": self.cta.const}.get(space)
        if flat is None:
            raise DebugError(f"unknown state space '{space}'")
        if 0 <= addr and addr + nbytes <= flat.size:
            return flat.buf[addr: addr + nbytes].tobytes()
        raise DebugError(f"Cannot access memory at {space} address {addr:#x} ({flat.name}: {flat.size} bytes)")

    # ---------------------------------------------------------------- whole state (tests, checks)
    def full_state(self, focus: bool = True):
        """Everything the machine and the session hold, as a comparable value: every warp's attributes
        and registers and local memory, shared/param/global memory, barriers, TMEM, the scheduler's
        position, the mma.sp records, and (unless ``focus=False``) the focus."""
        cta = self.cta
        warps = []
        for w in cta.warps:
            d = {k: v for k, v in vars(w).items() if k not in _WARP_FIXED}
            warps.append((freeze(d), freeze(dict(w.regs)), freeze(w.local.buf)))
        cta_d = {k: v for k, v in vars(cta).items() if k not in _CTA_FIXED}
        unit = cta.cluster.unit
        mem = (freeze(cta.shared.buf), freeze(cta.params.buf), tuple(freeze(r[2]) for r in self.launch.gmem.regions),
               freeze(vars(cta).get("tmem")), unit.image() if unit is not None else None,
               freeze(vars(cta.proxy)) if getattr(cta, "proxy", None) is not None else None)
        where = (self.focus_warp, self.focus_lane, self._autofocus) if focus else ()
        sess = (self.cta_index, where, tuple(self._rr), self.finished,
                tuple(sorted((k, v.pc, freeze(v.a), freeze(v.d)) for k, v in self.last_mma.items())))
        return (tuple(warps), freeze(cta_d), mem, sess)


class _Absent:
    def __repr__(self):
        return "<absent>"


_ABSENT = _Absent()


def _opcode_match(name: str, prefix: str) -> bool:
    return name == prefix or (name.startswith(prefix) and name[len(prefix)] in ".:")


def _file_table(module) -> dict[int, str]:
    out = {}
    for text in getattr(module, "verbatim", ()):
        m = re.match(r'\.file\s+(\d+)\s+"([^"]*)"', text.strip())
        if m:
            out[int(m.group(1))] = m.group(2)
    return out


def _observe_writes(w) -> None:
    """Record the pre-image of each register an instruction writes (for reverse execution): an
    instance attribute wraps ``Warp.write`` (``write_vec`` calls it too); mma takes the general way, which
    writes D through ``write_vec``, instead of the in-place one."""
    real = type(w).write

    def write(op, values, ptype, _w=w, _real=real):
        log = vars(_w).get("_wlog")
        if log is not None:
            name = getattr(op, "name", None)
            if name in _w.regs and name not in log:
                log[name] = _w.regs[name].copy()
        return _real(_w, op, values, ptype)

    w.write = write
    w.mma_sp_in_place = lambda ins, form, variant, selector: False


def _mma_operands(w, pc: int, ins) -> MmaRecord:
    from isa.ptx.ast import Vec

    ops = ins.operands
    a, b, c = (w.read_vec(op, "b32").copy() for op in ops[1:4])
    e = None
    if len(ops) > 4:
        e_op = ops[4].items[0] if isinstance(ops[4], Vec) else ops[4]
        e = w.read(e_op, "b32").copy()
    return MmaRecord(pc, ins, a, b, c, e, None, w.warp_id)
