"""The timed engine: a discrete-event model of SMs, their sub-partitions, schedulers, scoreboards and pipes.

Structure (no per-lane or per-cycle work):

* CTA ``i`` of the grid runs on SM ``i % sms``; an SM runs its CTAs one after another.
* A CTA's warp ``w`` sits on sub-partition ``w % 4``. Each sub-partition's scheduler issues at most one
  instruction per cycle. Which ready warp it takes is the table's ``issue.policy`` (see ``_pick``), except
  that warps whose tensor op has waited ``tensor_sharing.aging`` cycles for the pipe go first, the highest
  warp slot first (``_aged``; ``aging_nonyield`` in a native kernel whose loop ptxas left a non-tensor
  instruction without the yield flag, ``warpsim.timing.sass_profile.nonyield_loop``; there only while it has
  waited at most ``aging_cap`` cycles: a warp passed over longer gets no precedence until it issues).
* A warp issues in **ptxas order** (:mod:`warpsim.timing.sched`: loads sunk into the block that uses them,
  parameter loads and ALU work next to their use, loads hoisted, stretches of ALU work and memory accesses
  list-scheduled; a diverged warp's lanes too), in order. An instruction waits for the
  registers it reads (a scoreboard: a register is ready when the instruction that last wrote it
  completes), for its unit (a pipe accepts one warp instruction every ``ii`` cycles: INT/FP/SFU/branch/
  tensor per sub-partition, the LSU/MIO per SM); the instruction after a branch waits for its warp's
  in-flight tensor ops (``drain_tensor_at_branch``; at the branch itself unless ``drain_at_target``) and,
  after a taken one, for its redirect (``branch_taken``); a branch at the end of a block with a store waits
  for the store's register read
  (``store_read``; a global store's read waits ``store_read_other`` more per other warp of the
  sub-partition with a tensor op in flight before it; ``store_pipe``: the store holding the sub-partition's
  tensor pipe).
* Global loads go through a sectored L1 per SM (``memory``): a 32-byte sector present costs the L1 hit
  latency, one being filled waits for that fill (whichever warp asked for it), a missing one is fetched from
  L2 (its line ``l2_hit`` cycles away, or ``l2_far`` for a share of the lines picked by a hash of the
  address); the L1 starts empty at each launch. Its miss path takes one 128-byte line every ``miss_ii``
  cycles for the SM; a request's lines first pass the SM's tag stage, ``tag_lines`` a cycle (``l1_hit``; with
  ``tag_all`` off, a hit's only), then its data path takes the wavefronts, when the data is there (after the
  hit latency, or as the fill arrives: ``miss_wavefronts``), at ``wavefront`` cycles each from a
  sub-partition (``miss_wavefront`` for a fill's data) and ``wavefront_sm`` for the SM (``gmem_rate``,
  ``l1_dup``); the turns are booked at issue (:class:`warpsim.timing.slots.Slots`). A sub-partition issues a global
  store every ``store_ii`` cycles at most; stores queue at the SM's store port (``store_line`` cycles a line
  or ``store_sector`` a sector); while ``store_queue`` of them wait, no warp of the SM issues another.
* The functional engine's :meth:`warpsim.warp.Warp.step` runs every instruction in program order; an
  instruction is executed (with everything before it in program order) no later than the cycle it issues,
  and ``%clock``/``%clock64`` read the issue cycle of the clock read itself (nothing moves above a clock
  read). Results become visible to later instructions of the timing model at completion.
* Emulated tensor forms run as stages of hardware ops (``analysis.Stage``), each occupying its pipe.
* ``bar.sync`` releases the waiting warps ``barrier`` cycles after the barrier unit has taken the last arrival
  (one arrival each ``per_warp`` cycles). A warp that has arrived goes on issuing the classes of
  ``issue.barrier_defer`` (ptxas's BAR.SYNC.DEFER_BLOCKING) and waits for the release at its next instruction of
  another class; at a cluster's barrier it waits at once.

The event kernel is simpy: one process per sub-partition scheduler (``_scheduler``; never one per warp
instruction or lane), sleeping until the next cycle it can issue, so effects that cross warps (memory,
barriers, shared units) happen in cycle order; ties in one cycle go by SM, then sub-partition index
(``_Wake``'s priority). A scheduler whose next issue comes before every other pending event issues without
yielding, and so does one whose warps' next instructions touch nothing outside it (``_ahead``); one with a
single live warp runs the instructions that touch only its own pipes back to back (``_solo``). Which warp
issues: :class:`warpsim.timing.choice.WarpChoice`. Deterministic: no randomness, ties broken by fixed
order.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import simpy
from simpy.core import EmptySchedule
from simpy.events import Event, Interrupt

from isa.errors import WarpsimError
from warpsim.cta import CTA, BarrierDeadlock
from warpsim.engine import MAX_THREADS_PER_CTA, Stats, dim3, young_gc
from warpsim.timing.analysis import UNITS, _analysed
from warpsim.timing.choice import WarpChoice, _max_ready
from warpsim.timing.slots import Slots

_INF = float("inf")
_TENSOR = UNITS.index("tensor")
_U64 = np.uint64


@dataclass
class Timeline:
    """What the timed engine recorded for one launch.

    ``records``: one tuple per warp instruction, ``(cta, warp, pc, text, issue, ready, complete)``, in each
    warp's program (execution) order: ``cta`` is the CTA's linear index, ``issue`` the cycle it issued,
    ``ready`` the cycle its operands were ready, ``complete`` the cycle its results are written. An
    instruction that ptxas moved into a block the warp did not enter never issues: its three cycles are
    the cycle the warp left the block. ``tensor``: one tuple per tensor-pipe occupancy
    ``(sm, subpartition, start, end, cta, warp, pc)``. ``cycles``: the cycle the last warp finished.
    """

    records: list = field(default_factory=list)
    tensor: list = field(default_factory=list)
    cycles: float = 0.0
    params: str = ""
    sm_of_cta: dict = field(default_factory=dict)

    def issue_complete(self) -> list[tuple]:
        """``(cta, warp, pc, issue, complete)`` of every record, in issue order (ties: program order)."""
        return [(r[0], r[1], r[2], r[4], r[6]) for r in sorted(self.records, key=lambda r: r[4])]


class _Wake(Event):
    """A simpy timeout to an absolute cycle with a priority: events of one cycle are processed in priority
    order (simpy's own URGENT/NORMAL are 0 and 1; sub-partitions use 2 and up), so ties are deterministic and
    independent of the order the events were made in. ``at = inf``: never scheduled (woken by
    :meth:`TimedEngine._wake`)."""

    def __init__(self, env, at, priority):
        self.env = env
        self.callbacks = []
        self._ok = True
        self._value = None
        if at != _INF:
            env.schedule(self, priority, at - env.now if at > env.now else 0.0)


class _TW:
    """Timing state of one warp."""

    __slots__ = ("w", "sp", "cta_index", "t_next", "ready", "ver", "tensor_done", "queue", "qi", "nsunk",
                 "owed", "si", "cur", "prev_done", "first_issue", "first_ready", "skip_hoisted", "memo",
                 "blocked", "recs", "gaddr", "last_block", "last_t", "state", "pred_at", "slot", "memo_key",
                 "st_read", "st_others", "emu", "c_key", "c_qi", "c_it", "c_opr", "c_since", "c_base", "bar_free",
                 "bar_defer")

    def __init__(self, w, sp, cta_index, t0, nslots, state):
        self.w, self.sp, self.cta_index, self.state = w, sp, cta_index, state
        self.t_next = t0
        self.ready = [0.0] * nslots
        self.ver: dict = {}
        self.tensor_done = 0.0
        self.queue: tuple = ()
        self.qi = 0
        self.nsunk = 0
        self.owed: tuple = ()
        self.si = 0
        self.cur = None
        self.prev_done = 0.0
        self.first_issue = 0.0
        self.first_ready = 0.0
        self.skip_hoisted = False
        self.memo: dict = {}
        self.blocked = False
        self.bar_free = 0.0  # the release of the barrier it last waited at: its next instruction that may not
        # issue while it waits (analysis._deferred) issues no earlier
        self.bar_defer = False  # it waits at a CTA barrier (bar.sync), not a cluster's or a CTA pair's
        self.recs: dict = {}
        self.gaddr: dict = {}
        self.last_block = -1
        self.last_t = t0
        self.pred_at: dict = {}
        self.st_read = 0.0  # when the warp's last store has read its source registers
        self.st_others = None  # the other warps whose tensor ops delayed its last global store's read
        self.emu = 0             # emulated mma of a profiled loop started (sass_sim)
        self.c_key = None        # TimedEngine._own's values, kept while t_next and qi stay these
        self.c_qi = -1
        self.c_it = self.c_opr = self.c_since = self.c_base = None


class _SP:
    __slots__ = ("index", "smo", "warps", "live", "t_issue", "units", "rr", "state", "priority", "tlast",
                 "t_ii", "tflight", "last", "proc", "wait_t", "local", "rotations", "st_until", "l1_free", "slots")

    def __init__(self, index, smo, nunits, state):
        self.index, self.smo, self.state = index, smo, state
        self.warps: list[_TW] = []
        self.live = 0
        self.t_issue = 0.0
        self.units = [0.0] * nunits
        self.rr = 0
        self.priority = 2        # ties in one cycle: SM, then sub-partition index (set by _start_group)
        self.proc = None         # its simpy process (TimedEngine._scheduler)
        self.wait_t = None       # the cycle its process sleeps until (inf: until a barrier release)
        self.tlast = None        # the warp whose tensor op the pipe took last
        self.t_ii = 0.0          # the pipe cycles of that op (store_pipe)
        self.local = False       # at the last pick: no warp waited at a barrier, every next instruction local
        self.rotations = []      # rotations[rr]: the warps in round-robin order from slot rr (set at the start)
        self.st_until = 0.0      # the latest register read of a global store of its warps (store_read_other)
        self.l1_free = 0.0       # when its port into the L1's data path is free (memory["wavefront"])
        self.slots = Slots()     # the port's booked cycles (memory["miss_wavefronts"])
        self.tflight: list = []  # (completion, warp) of the tensor ops in flight
        self.last = None         # the warp that issued last


class _SM:
    """One SM: its CTAs still to run (one after another), SM-wide unit free times and its L1."""

    __slots__ = ("index", "ctas", "units", "l1", "l1_free", "tag_free", "miss_free", "stores", "slots")

    def __init__(self, index, ctas, nunits):
        self.index, self.ctas = index, list(ctas)
        self.units = [0.0] * nunits
        self.l1: dict = {}
        self.l1_free = 0.0
        self.slots = Slots()    # the data path's booked cycles (memory["miss_wavefronts"])
        self.tag_free = 0.0     # when its tag stage has looked up the lines asked for so far (memory["tag_lines"])
        self.miss_free = 0.0
        self.stores: list = []  # when each store queued at the store port leaves it (the last store_queue)


class TimedEngine(WarpChoice):
    def __init__(self, program, launch, params, record: bool = True, max_steps=None):
        self.program, self.launch, self.params = program, launch, params
        self.info, self.order, self.nslots = _analysed(program, params)
        self.n_ops = len(self.info)
        self.record = record
        self.max_steps = max_steps
        self.tl = Timeline(params=params.name)
        self.steps = 0
        self.now_issue = 0.0
        iss = params.issue
        self.nsp = int(iss["subpartitions"])
        self.drain = bool(iss["drain_tensor_at_branch"])
        self.drain_slack = float(iss.get("drain_slack", 0.0))
        self.br_pen = float(iss["branch_taken"])
        # drain_at_target: the branch issues without waiting for the drain; the instruction after it waits
        self.drain_target = self.drain and bool(iss.get("drain_at_target", False))
        if self.drain_target:
            self.drain = False
        bar = iss["barrier"]  # cycles, or {"release", "per_warp"} (the barrier unit takes one arrival each per_warp)
        self.bar_lat = float(bar["release"] if isinstance(bar, dict) else bar)
        self.bar_warp = float(bar.get("per_warp", 0.0) if isinstance(bar, dict) else 0.0)
        self.defer_any = bool(iss.get("barrier_defer"))
        self.policy = iss.get("policy", "lrr")
        self.greedy = self.policy == "greedy-lrr"
        self.pred_branch = float(iss.get("predicate_to_branch", 0.0))
        self.store_read = float(iss.get("store_read", 0.0))
        self.store_read_other = float(iss.get("store_read_other", 0.0))
        self.store_pipe = float(iss.get("store_pipe", 0.0))
        shr = iss.get("tensor_sharing", {})
        self.t_switch = float(shr.get("switch", 0.0))
        self.t_xw = float(shr.get("inflight_other", 0.0))
        self.t_aging = float(shr.get("aging", 0.0))
        self.t_aging_cap = _INF
        if "aging_nonyield" in shr and self._nonyield_loop(program, params):
            self.t_aging = float(shr["aging_nonyield"])
            self.t_aging_cap = float(shr.get("aging_cap", _INF))
        self.t_fresh = float(shr.get("switch_fresh", 0.0))
        self.switch_regs = int(shr.get("switch_regs", 0))
        self.switch_cost = self._switch_costs()
        mem = getattr(params, "memory", None) or {}
        self.l1_hit = float(mem.get("l1_hit", params.classes["mem_global"]["latency"]))
        self.l2_hit = float(mem.get("l2_hit", params.classes["mem_global"]["latency"]))
        self.sector_shift = int(mem.get("sector_bytes", 32)).bit_length() - 1
        self.l1_model = bool(mem)
        self.wavefront = float(mem.get("wavefront", 0.0))
        self.wavefront_sm = float(mem.get("wavefront_sm", self.wavefront))
        self.miss_ii = float(mem.get("miss_ii", 0.0))
        self.tag_lines = int(mem.get("tag_lines", 0))
        self.tag_all = bool(mem.get("tag_all", True))
        far = mem.get("l2_far") or {}
        self.l2_far = float(far.get("latency", self.l2_hit))
        self.l2_far_cut = int(float(far.get("share", 0.0)) * 1024)
        self.miss_wavefronts = bool(mem.get("miss_wavefronts", False))
        self.miss_wavefront = float(mem.get("miss_wavefront", self.wavefront))
        self.store_queue = int(mem.get("store_queue", 0))
        self.store_line = float(mem.get("store_line", 0.0))
        self.store_sector = float(mem.get("store_sector", 0.0))
        self.nunits = 1 + max(max(s.uidx for s in it.stages) for it in self.info) if self.info else 8
        self.env = simpy.Environment()
        self.failure: BaseException | None = None
        if launch.clock is None:
            launch.clock = lambda warp: int(self.now_issue)
        from warpsim.timing.tcgen05 import attach
        attach(self)  # tcgen05: queued operations complete at B200 cycles (warpsim.timing.tcgen05)

    @staticmethod
    def _nonyield_loop(program, params) -> bool:
        """A native kernel (no emulated-mma profile) whose loop ptxas left a non-tensor instruction without
        the yield flag (``tensor_sharing.aging_nonyield``; warpsim.timing.sass_profile.nonyield_loop)."""
        from warpsim.timing import sass_profile
        return (bool(sass_profile.nonyield_loop(program, params.arch))
                and sass_profile.lookup(program, params.arch) is None)

    # ------------------------------------------------------------------ grid
    def run_grid(self, grid, block) -> Stats:
        g, b = dim3(grid, "grid"), dim3(block, "block")
        if b[0] * b[1] * b[2] > MAX_THREADS_PER_CTA:
            raise WarpsimError(f"block {b} has {b[0] * b[1] * b[2]} threads; a CTA holds at most "
                               f"{MAX_THREADS_PER_CTA}")
        t0 = time.perf_counter()
        nsm = int(self.params.issue.get("sms", 1))
        ctas = [(x, y, z) for z in range(g[2]) for y in range(g[1]) for x in range(g[0])]
        per_sm: dict[int, list] = {}
        for i, c in enumerate(ctas):
            per_sm.setdefault(i % nsm, []).append((i, c))
        self.g, self.b = g, b
        for sm_index in sorted(per_sm):
            self._start_next(_SM(sm_index, per_sm[sm_index], self.nunits), 0.0)
        self._run_env()
        self._finish_records()
        return Stats(self.steps, len(ctas), time.perf_counter() - t0)

    def _finish_records(self):
        if self.record:
            self.tl.records = [tuple(r) for r in self.tl.records]

    def _start_next(self, owner, start):
        """Start ``owner``'s (an SM's) next CTA at cycle ``start``."""
        if not owner.ctas:
            return
        index, ctaid = owner.ctas.pop(0)
        cta = CTA(self.program, ctaid, self.g, self.b, self.launch)
        self._start_group(owner, [(index, cta, owner)], cta, start)

    def _start_group(self, owner, members, view, start):
        """Start CTAs together: ``members`` = [(linear index, CTA, _SM it runs on)]; ``view`` answers the
        deadlock report. They finish together (``_group_done``)."""
        state = {"cta": view, "owner": owner, "sps": [], "live": 0, "ctas": [m[1] for m in members]}
        for index, cta, smo in members:
            self.tl.sm_of_cta[index] = smo.index
            smo.units = [0.0] * self.nunits
            sps = [_SP(i, smo, self.nunits, state) for i in range(self.nsp)]
            for sp in sps:
                sp.priority = 2 + self.nsp * smo.index + sp.index
            for w in cta.warps:
                sp = sps[w.warp_id % self.nsp]
                tw = _TW(w, sp, index, start, self.nslots, state)
                tw.slot = len(sp.warps)
                sp.warps.append(tw)
                if not w.done:
                    sp.live += 1
                    state["live"] += 1
                    self._next_queue(tw, start)
            state["sps"] += [sp for sp in sps if sp.warps]
            for sp in sps:
                sp.rotations = [sp.warps[k:] + sp.warps[:k] for k in range(len(sp.warps))]
        for sp in state["sps"]:
            sp.t_issue = start
            sp.proc = self.env.process(self._scheduler(sp, start))
        if state["live"] == 0:
            self._group_done(state, start)

    def _group_done(self, state, t):
        for cta in state["ctas"]:
            cta.finish()  # queued tcgen05 operations complete; no TMEM may stay allocated
        self.tl.cycles = max(self.tl.cycles, t)
        self._start_next(state["owner"], t)

    # ------------------------------------------------------------------ the simpy processes
    def _run_env(self):
        """Process simpy events until none is left or a scheduler process failed (its error is raised as it
        was: simpy would hand back a rebuilt copy)."""
        step = self.env.step
        while self.failure is None:
            try:
                step()
            except EmptySchedule:
                break
        if self.failure is not None:
            raise self.failure

    def _scheduler(self, sp, start):
        """The simpy process of one sub-partition's warp scheduler.

        It issues at most one instruction per cycle (``_pick`` chooses the warp, ``_issue`` issues it). While
        its next issue comes before every other pending event, or no other process can change it (``_ahead``:
        every next instruction of its warps is local), it goes on without yielding; otherwise it sleeps until
        that cycle and picks again, since a unit shared with other sub-partitions may have been taken
        meanwhile. With no warp able to issue it sleeps until a barrier release wakes it (``_wake``)."""
        try:
            yield from self._schedule(sp, start)
        except BaseException as err:  # noqa: BLE001 -- handed to run_grid as raised
            self.failure = err

    def _schedule(self, sp, start):
        env = self.env
        pick, issue = self._pick, self._issue
        t, wake, best, bt = start, start, None, _INF
        while sp.live:
            if wake is not None:
                sp.wait_t = wake
                try:
                    yield _Wake(env, wake, sp.priority)
                    t = wake
                except Interrupt as why:
                    t = why.cause
                sp.wait_t = wake = None
                best, bt = pick(sp)
            if best is None:
                self._idle(sp)
                wake = _INF
                continue
            if bt > t:  # later than promised (a shared unit was taken meanwhile)
                wake = bt
                continue
            issue(best, sp, bt)
            if sp.live == 0:
                break
            if sp.live == 1:
                self._solo(sp, env.peek())
                if sp.live == 0:
                    break
            best, bt = pick(sp)
            # go on while this sub-partition stays the earliest, or while what its warps issue next touches
            # nothing outside it (_ahead)
            if best is not None and bt >= env.peek() and not self._ahead(sp, best):
                wake = bt
                continue
            t = bt

    def _wake(self, sp, t):
        """A warp of ``sp`` can issue again from cycle ``t`` (a barrier released it): a scheduler asleep past
        ``t`` is interrupted at ``t``."""
        if sp.wait_t is not None and sp.wait_t > t:
            _Wake(self.env, t, sp.priority).callbacks.append(lambda _ev: self._interrupt(sp, t))

    @staticmethod
    def _interrupt(sp, t):
        if sp.wait_t is not None and sp.wait_t > t:
            sp.proc.interrupt(t)

    def _solo(self, sp, t_other):
        """The only live warp of ``sp`` issues its one-pipe instructions back to back: those that touch
        nothing outside the sub-partition at any cycle, the others while they come before ``t_other`` (the next
        other pending event)."""
        tw = None
        for x in sp.warps:
            if not x.w.done:
                tw = x
        w = tw.w
        if tw.si or w.blocked is not None and not tw.bar_defer:
            return
        info, n_ops, ready = self.info, self.n_ops, tw.ready
        units, smunits = sp.units, sp.smo.units
        record, recs, order = self.record, self.tl.records, self.order
        drain, slack, pred_branch = self.drain, self.drain_slack, self.pred_branch
        max_steps = self.max_steps
        while True:
            q, qi = tw.queue, tw.qi
            if qi >= len(q):
                self._next_queue(tw, tw.last_t)
                q, qi = tw.queue, 0
            pc = q[qi]
            if pc >= n_ops:
                return
            it = info[pc]
            if not it.fast or w.blocked is not None and not (tw.bar_defer and self._deferrable(tw, pc)):
                return
            opr = 0.0
            for r in it.rs:
                v = ready[r]
                if v > opr:
                    opr = v
            t = tw.t_next
            if opr > t:
                t = opr
            if not it.defer and tw.bar_free > t:
                t = tw.bar_free
            u = (smunits if it.sm_unit else units)[it.uidx]
            if it.tensor and sp.tlast is not tw and sp.tlast is not None:
                u += self.t_switch
            if u > t:
                t = u
            if sp.t_issue > t:
                t = sp.t_issue
            if it.branch:
                if drain and tw.tensor_done - slack > t:
                    t = tw.tensor_done - slack
                if it.guard_slot >= 0:
                    p = tw.pred_at.get(it.guard_slot, -_INF) + pred_branch
                    if p > t:
                        t = p
            if t >= t_other and not it.local:
                return
            # issue (as _issue_fast)
            sp.t_issue = t + it.slot
            rec = None
            if qi >= tw.nsunk:
                if w.lpc is None and w.pc == pc:
                    self.now_issue = t
                    w.step()
                    self.steps += 1
                    if max_steps is not None and self.steps > max_steps:
                        raise WarpsimError(f"CTA {tw.state['cta'].ctaid}: more than {max_steps} warp "
                                           f"instructions; stopped (an endless loop?)")
                    if record:
                        rec = [tw.cta_index, w.warp_id, pc, it.text, t, t, t]
                        recs.append(rec)
                else:
                    self._execute_through(tw, pc, t)
                    if record:
                        rec = tw.recs.pop(pc, None)
            elif record:
                rec = tw.recs.pop(pc, None)
            done = t + it.lat
            if it.tensor:
                sp.tlast, sp.t_ii = tw, it.ii
            (smunits if it.sm_unit else units)[it.uidx] = t + it.ii
            if rec is not None:
                rec[4], rec[5], rec[6] = t, opr, done
            for r in it.ws:
                ready[r] = done
            if it.pred_ws:
                for r in it.pred_ws:
                    tw.pred_at[r] = t
            tw.t_next = t + it.slot
            if it.tensor:
                if done > tw.tensor_done:
                    tw.tensor_done = done
                if record:
                    self.tl.tensor.append((sp.smo.index, sp.index, t, t + it.ii, tw.cta_index, w.warp_id, pc))
            elif it.branch and not w.done:
                tw.t_next = self._after_branch(tw, it, pc, t)
            tw.qi = qi + 1
            tw.last_t = t
            if qi + 1 >= len(q):
                b = order.block_of[pc]
                if tw.last_block == b:
                    sunk = order.sunk_to.get(b)
                    if sunk is not None:
                        tw.owed = sunk[1]
            if w.done:
                return

    def _after_branch(self, tw, it, pc, t) -> float:
        """The cycle the instruction after the branch ``it`` (at ``pc``, issued at ``t``) may issue: ``branch_taken``
        later if the branch was taken (its warp goes on elsewhere than ``pc + 1``) and, with ``drain_at_target``,
        no earlier than the drain of the warp's tensor ops."""
        w = tw.w
        taken = it.taken_cost and (w.pc if w.lpc is None else int(w.lpc.min())) != pc + 1
        n = t + 1.0 + (self.br_pen if taken else 0.0)
        if self.drain_target:
            return max(n, tw.tensor_done - self.drain_slack + 1.0)
        return n

    def _idle(self, sp):
        """No warp of ``sp`` can issue: every live one waits at a barrier (a release pushes it again)."""
        state = sp.state
        blocked_everywhere = all(tw.w.done or tw.w.blocked is not None for s in state["sps"] for tw in s.warps)
        if blocked_everywhere and state["live"] > 0:
            raise BarrierDeadlock(state["cta"]._deadlock_message())

    # ------------------------------------------------------------------ the issue order of a warp
    def _next_queue(self, tw, t):
        """After a block's last instruction issued: what the warp issues next, in ptxas order.

        A diverged warp's lanes at the lowest pc run their whole block before any other lane runs (the others
        wait at block starts: branch targets, or after a branch), so they issue in the block's order too."""
        w = tw.w
        order = self.order
        pc = w.pc if w.lpc is None else int(w.lpc.min())
        entry = order.entry.get(pc)
        if entry is not None:
            if tw.memo:
                tw.memo = {}  # ptxas shares a repeated product inside one pass through a block only
            k = order.nsunk.get(pc, 0)
            if k and tw.owed == entry[:k]:  # coming from the block that sank them here
                tw.queue, tw.qi, tw.nsunk, tw.owed = entry, 0, k, ()
            elif tw.owed and w.lpc is not None:
                # diverged elsewhere: the lanes that run the block the loads sank into come later, so the loads
                # are timed now (as in program order)
                tw.queue, tw.qi, tw.nsunk, tw.owed = tw.owed + entry[k:], 0, len(tw.owed), ()
            else:
                self._drop_owed(tw, t)
                tw.queue, tw.qi, tw.nsunk = entry[k:], 0, 0
            tw.last_block = pc
            return
        # inside a block: program order, one instruction at a time (owed ones first)
        owed = tw.owed
        tw.queue, tw.qi, tw.nsunk, tw.owed = owed + (pc,), 0, len(owed), ()
        tw.last_block = -1

    def _drop_owed(self, tw, t):
        """Instructions ptxas moved into a block this warp did not enter: they never issue."""
        for pc in tw.owed:
            rec = tw.recs.pop(pc, None)
            if rec is not None:
                rec[4] = rec[5] = rec[6] = t
        tw.owed = ()

    # ------------------------------------------------------------------ functional execution
    def _execute_through(self, tw, pc, t):
        """Run the warp's instructions in program order up to and including ``pc`` (at cycle ``t``)."""
        w = tw.w
        self.now_issue = t
        info = self.info
        record = self.record
        while not w.done:
            cur = w.pc if w.lpc is None else int(w.lpc.min())
            if cur > pc or cur >= self.n_ops:
                if cur >= self.n_ops and pc >= self.n_ops:
                    w.step()  # past the end: the lanes retire
                    continue
                return
            it = info[cur]
            g = it.gload
            if g is not None and self.l1_model:
                tw.gaddr[cur] = self._sectors(w, g, self._lanes(w, cur))
            w.step()
            if it.gsaddr is not None and self.store_queue:  # the lanes that stored, at the address they used
                tw.gaddr[cur] = self._sectors(w, it.gsaddr, w.active)
            self.steps += 1
            if self.max_steps is not None and self.steps > self.max_steps:
                raise WarpsimError(f"CTA {tw.state['cta'].ctaid}: more than {self.max_steps} warp instructions; "
                                   f"stopped (an endless loop?)")
            if record:
                rec = [tw.cta_index, w.warp_id, cur, it.text, t, t, t]
                self.tl.records.append(rec)
                tw.recs[cur] = rec
            if cur == pc:
                return

    def _lanes(self, w, pc):
        """The lanes that run ``pc`` when the warp executes it next: those at it, its guard applied."""
        mask = w.live if w.lpc is None else w.lpc == pc
        _body, _ins, g, neg = self.program.ops[pc]
        if g is not None:
            p = w.regs[g]
            mask = mask & (~p if neg else p)
        return mask

    def _sectors(self, w, g, lanes):
        """(32-byte sectors, L1 wavefronts) of a global access by ``lanes``: the wavefronts are the most
        distinct 4-byte words that fall into one of the 32 banks (a bank conflict replays the access)."""
        base, off, space, nbytes = g
        a = w.regs.get(base)
        if a is None:
            return None
        a = a[lanes]
        if a.dtype != np.uint64:
            a = a.astype(np.uint64)
        if space == "generic" and a.size and int(a.max()) >> 40 in (1, 2, 3, 4):
            return None  # a generic address into shared/local/param/const: not the L1 data path
        a = a + _U64(off & 0xFFFFFFFFFFFFFFFF)
        sectors = np.unique(a >> _U64(self.sector_shift)).tolist()
        words = a >> _U64(2)
        if nbytes > 4:
            words = (words[:, None] + np.arange(nbytes // 4, dtype=np.uint64)[None, :]).ravel()
        words = np.unique(words)
        wf = int(np.bincount((words & _U64(31)).astype(np.int64), minlength=1).max()) if words.size else 1
        return sectors, wf

    # ------------------------------------------------------------------ issue
    def _issue(self, tw, sp, t):
        w = tw.w
        if tw.si == 0:
            pc = tw.queue[tw.qi]
            if pc < self.n_ops:
                it = self.info[pc]
                if it.fast:
                    return self._issue_fast(tw, sp, it, pc, t)
        sp.t_issue = t + 1.0
        sp.rr = tw.slot + 1 if tw.slot + 1 < len(sp.warps) else 0
        sp.last = tw
        if tw.si == 0:
            if pc >= self.n_ops:  # past the end: the lanes retire
                self._execute_through(tw, pc, t)
                tw.t_next = t + 1.0
                tw.qi += 1
                if w.done:
                    self._warp_done(tw, sp, t)
                return
            it = self.info[pc]
            if tw.qi >= tw.nsunk:
                self._execute_through(tw, pc, t)
            opr = self._operands(tw, it, it.stages[0]) if not it.single else _max_ready(tw.ready, it.rs)
            tw.cur, tw.first_issue, tw.first_ready = it, t, opr
            tw.skip_hoisted = False
            if it.emulated:  # the product of the same A/B/E values was computed already: ptxas hoists/CSEs it
                key = (it.emulated,) + tuple((r, tw.ver.get(r, 0)) for r in it.rs_ab)
                tw.skip_hoisted = key in tw.memo
                tw.memo_key = key
            if it.branch and not w.done:
                tw.t_next = self._after_branch(tw, it, pc, t)
        it = tw.cur
        if it.store:
            self._issue_store(tw, t, it)
        stages = it.stages
        if tw.si == 0 and tw.skip_hoisted:  # start at the first stage the shared product does not cover
            while tw.si < len(stages) - 1 and stages[tw.si].hoisted:
                tw.si += 1
            tw.prev_done = tw.memo[tw.memo_key]
        st = stages[tw.si]
        done = self._run_stage(tw, sp, st, t)
        if it.gsaddr is not None and self.store_queue:
            self._store_port(tw, sp, it, t)
        if st.hoisted and not tw.skip_hoisted:
            tw.memo[tw.memo_key] = done
        tw.si += 1
        while tw.si < len(stages) and tw.skip_hoisted and stages[tw.si].hoisted:
            tw.si += 1
        if tw.si < len(stages):
            tw.prev_done = done
            return
        tw.si = 0
        tw.qi += 1
        tw.last_t = t
        ready = tw.ready
        if it.gload is not None and self.l1_model:
            done = self._l1_load(tw, sp, it, t, done)
        for r in it.ws:
            ready[r] = done
        for r in it.pred_ws:
            tw.pred_at[r] = tw.first_issue
        if it.emulated:
            ver = tw.ver
            for r in it.writes:
                ver[r] = ver.get(r, 0) + 1
        if self.record:
            rec = tw.recs.pop(it.pc, None)
            if rec is not None:
                rec[4], rec[5], rec[6] = tw.first_issue, tw.first_ready, done
        if tw.qi >= len(tw.queue):
            sunk = self.order.sunk_to.get(self.order.block_of[it.pc])
            if sunk is not None and tw.last_block == self.order.block_of[it.pc]:
                tw.owed = sunk[1]
        if it.barrier or w.done:
            if it.barrier:
                rel = self._bar_arrive(tw, it, t)
                if w.blocked is None and "arrive" not in it.text:
                    self._released(tw, rel)  # the last arrival waits for the release too
            self._after_barrier(tw, t)
            if w.done:
                self._warp_done(tw, sp, t)

    def _issue_store(self, tw, t, it):
        """A store issued at ``t`` reads its source registers ``store_read`` cycles later (issue.store_read);
        a global store ``store_read_other`` cycles later still per other warp with a tensor op in flight on its
        sub-partition."""
        r = t + self.store_read
        if self.store_pipe and it.gstore:
            u = tw.sp.units
            u[_TENSOR] = (u[_TENSOR] if u[_TENSOR] > t else t) + self.store_pipe * tw.sp.t_ii
        if self.store_read_other and it.gstore:
            others = {x[1] for x in tw.sp.tflight if x[0] > t and x[1] is not tw}
            tw.st_others = others
            r += self.store_read_other * len(others)
        if r > tw.st_read:
            tw.st_read = r
        if tw.st_others is not None and tw.st_read > tw.sp.st_until:
            tw.sp.st_until = tw.st_read

    def _store_port(self, tw, sp, it, t):
        """A global store issued at ``t`` queues at the SM's store port, which takes ``store_line`` cycles a line
        or ``store_sector`` a sector, whichever is more; while ``store_queue`` stores wait there, no warp of
        the SM issues another (each sub-partition's "gstore" unit stays shut)."""
        got = tw.gaddr.pop(it.pc, None)  # taken when the store ran (_execute_through)
        if not got or not got[0]:
            return
        sectors = got[0]
        cost = max(self.store_line * len({s >> 2 for s in sectors}), self.store_sector * len(sectors))
        sm = sp.smo
        q = sm.stores
        start = q[-1] if q and q[-1] > t else t
        q.append(start + cost)
        if len(q) > self.store_queue:
            del q[0]
        if len(q) == self.store_queue:
            gate = q[0]
            for other in tw.state["sps"]:
                if other.smo is sm and other.units[it.uidx] < gate:
                    other.units[it.uidx] = gate

    def _issue_fast(self, tw, sp, it, pc, t):
        """_issue for an instruction of one stage on one pipe (no emulation, barrier, exit or L1 model)."""
        w = tw.w
        sp.t_issue = t + it.slot
        n = len(sp.warps)
        if n > 1:
            sp.rr = tw.slot + 1 if tw.slot + 1 < n else 0
            sp.last = tw
        rec = None
        if tw.qi >= tw.nsunk:
            if w.lpc is None and w.pc == pc:  # the next instruction in program order: run it
                self.now_issue = t
                w.step()
                self.steps += 1
                if self.max_steps is not None and self.steps > self.max_steps:
                    raise WarpsimError(f"CTA {tw.state['cta'].ctaid}: more than {self.max_steps} warp "
                                       f"instructions; stopped (an endless loop?)")
                if self.record:
                    rec = [tw.cta_index, w.warp_id, pc, it.text, t, t, t]
                    self.tl.records.append(rec)
            else:
                self._execute_through(tw, pc, t)
                if self.record:
                    rec = tw.recs.pop(pc, None)
        elif self.record:
            rec = tw.recs.pop(pc, None)
        ready = tw.ready
        done = t + it.lat
        if it.tensor:
            done = self._tensor_issue(tw, sp, t, done, it.ii)
        (sp.smo.units if it.sm_unit else sp.units)[it.uidx] = t + it.ii
        if rec is not None:
            rec[4], rec[5], rec[6] = t, (tw.c_opr if tw.c_key == tw.t_next and tw.c_qi == tw.qi
                                         else _max_ready(ready, it.rs)), done
        for r in it.ws:
            ready[r] = done
        if it.pred_ws:
            for r in it.pred_ws:
                tw.pred_at[r] = t
        tw.t_next = t + it.slot
        if it.tensor:
            if done > tw.tensor_done:
                tw.tensor_done = done
            if self.record:
                self.tl.tensor.append((sp.smo.index, sp.index, t, t + it.ii, tw.cta_index, w.warp_id, pc))
        elif it.branch and not w.done:
            tw.t_next = self._after_branch(tw, it, pc, t)
        tw.qi += 1
        tw.last_t = t
        if tw.qi >= len(tw.queue):
            b = self.order.block_of[pc]
            if tw.last_block == b:
                sunk = self.order.sunk_to.get(b)
                if sunk is not None:
                    tw.owed = sunk[1]

    def _l1_load(self, tw, sp, it, t, done):
        """Completion of a global load issued at ``t``: every sector in the L1 (a hit) -> its lines through the
        SM's tag stage (``_tags``), then its wavefronts through the L1 data path after the hit latency (with
        ``tag_all`` a miss's lines pass the tag stage too, before the rest); a sector being filled -> when that fill
        arrives; a missing sector -> fetched from L2 (and in the L1 from its first fill on), its line ``l2_hit``
        or ``l2_far`` cycles away; with ``miss_wavefronts`` the data of a fill then passes the data path too."""
        got = tw.gaddr.pop(it.pc, None)
        if got is None:
            return done
        sectors, wf = got
        sm = sp.smo
        l1 = sm.l1
        if self.tag_lines and self.tag_all:
            t = self._tags(sm, t, sectors)
        end = -1.0
        missing = []
        for s in sectors:
            f = l1.get(s)
            if f is not None and f <= t:
                continue  # in the L1
            if f is None:
                missing.append(s)
            elif f > end:
                end = f
        if missing:
            fill = self._miss(sm, t, missing)
            for s in missing:
                f = fill[s >> 2]
                if s not in l1 or l1[s] > f:
                    l1[s] = f
                if f > end:
                    end = f
        if end >= 0.0:  # waits for L2: the fill delivers the data (miss_wavefronts: through the data path)
            return self._booked(sp, sm, t, end, wf, self.miss_wavefront) if self.miss_wavefronts else end
        if self.tag_lines and not self.tag_all:
            t = self._tags(sm, t, sectors)
        start = t + self.l1_hit
        if self.miss_wavefronts:
            return self._booked(sp, sm, t, start, wf, self.wavefront)
        if sp.l1_free > start:
            start = sp.l1_free
        if sm.l1_free > start:
            start = sm.l1_free
        sp.l1_free = start + wf * self.wavefront
        sm.l1_free = start + wf * self.wavefront_sm
        return sp.l1_free

    def _booked(self, sp, sm, t, ready, wf, per) -> float:
        """``memory["miss_wavefronts"]``: when a request issued at ``t`` whose data is there at ``ready`` (a hit's
        latency on, or a fill's arrival) has its ``wf`` wavefronts through the L1 data path: the first cycle from
        ``ready`` on where its sub-partition's port has ``wf * per`` cycles free (``wavefront`` for a hit,
        ``miss_wavefront`` for a fill's data) and the SM's path
        ``wf * wavefront_sm`` (:class:`warpsim.timing.slots.Slots`: a miss books its turn at issue, hundreds of
        cycles ahead, and the hits issued meanwhile take the cycles before it)."""
        a, b = wf * per, wf * self.wavefront_sm
        sp.slots.forget(t - 64.0)
        sm.slots.forget(t - 64.0)
        s = ready
        while True:
            s1 = sp.slots.earliest(s, a)
            s = sm.slots.earliest(s1, b)
            if s == s1:
                break
        sp.slots.book(s, a)
        sm.slots.book(s, b)
        return s + a

    def _tags(self, sm, t, sectors) -> float:
        """When a request issued at ``t`` has its lines looked up: the SM's tag stage takes ``tag_lines`` of its
        128-byte lines a cycle after the requests before it (a lone request of at most ``tag_lines``: ``t``).
        Hits only, unless ``tag_all``."""
        start = sm.tag_free if sm.tag_free > t else t
        sm.tag_free = start + -(-len({s >> 2 for s in sectors}) // self.tag_lines)
        return sm.tag_free - 1.0

    def _miss(self, sm, t, missing) -> dict:
        """``{line: fill cycle}`` of the lines of the ``missing`` sectors asked for at ``t``: each takes its turn of
        the SM's miss path (one line every ``miss_ii`` cycles), then its L2 latency."""
        lines = sorted({s >> 2 for s in missing})
        start = t
        if self.miss_ii:
            start = t if sm.miss_free <= t else sm.miss_free
            sm.miss_free = start + len(lines) * self.miss_ii
        return {ln: start + k * self.miss_ii + self._l2_latency(ln) for k, ln in enumerate(lines)}

    def _l2_latency(self, line: int) -> float:
        """Cycles from the L2 to the SM for a 128-byte line: ``l2_far`` for the share of lines a hash of the
        address puts in the far part of the L2, ``l2_hit`` for the rest."""
        if not self.l2_far_cut:
            return self.l2_hit
        h = (line * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        return self.l2_far if (h >> 54) < self.l2_far_cut else self.l2_hit

    def _tensor_issue(self, tw, sp, t, done, ii):
        """A tensor op of ``tw`` enters ``sp``'s pipe at ``t`` for ``ii`` cycles: its completion is delayed by
        ``inflight_other`` per tensor op of another warp still in flight there (tensor_sharing)."""
        sp.tlast, sp.t_ii = tw, ii
        if self.store_read_other and sp.st_until > t and len(sp.warps) > 1:  # a global store's read pending
            for ow in sp.warps:
                if ow is not tw and ow.st_others is not None and ow.st_read > t and tw not in ow.st_others:
                    ow.st_others.add(tw)
                    ow.st_read += self.store_read_other
                    ow.c_key = None  # its branch waits for st_read: what _own kept is stale
                    if ow.st_read > sp.st_until:
                        sp.st_until = ow.st_read
        if self.t_xw and len(sp.warps) > 1:
            fl, n = [], 0
            for x in sp.tflight:  # the ops still in flight at t, and how many are other warps'
                if x[0] > t:
                    fl.append(x)
                    if x[1] is not tw:
                        n += 1
            done += self.t_xw * n
            fl.append((done, tw))
            sp.tflight = fl
        return done

    def _run_stage(self, tw, sp, st, t):
        """Occupy ``st``'s unit from cycle ``t``; returns when its results are written."""
        if st.sass is not None:
            return self._run_sass_stage(tw, sp, st.sass, t)
        span = st.count * st.ii
        (sp.smo.units if st.sm else sp.units)[st.uidx] = t + span
        last = t + (st.count - 1) * st.ii
        done = last + st.latency
        if st.unit == "tensor":
            done = self._tensor_issue(tw, sp, t, done, span)
        nxt = t + (st.warp_busy or (span if st.count > 1 else 1.0))
        if nxt > tw.t_next:
            tw.t_next = nxt
        if st.unit == "tensor":
            if done > tw.tensor_done:
                tw.tensor_done = done
            if self.record:
                self.tl.tensor.append((sp.smo.index, sp.index, t, t + span, tw.cta_index, tw.w.warp_id,
                                       tw.cur.pc))
        return done

    def _run_sass_stage(self, tw, sp, stage, t):
        """An emulated mma of a profiled loop (sass_sim): 1/n of the loop trip that ptxas's SASS takes with the
        warps still running on each sub-partition of the SM; the warp's first trip pays the cold L1."""
        live = [0] * self.nsp
        for x in tw.state["sps"]:
            if x.smo is sp.smo:
                live[x.index] += x.live
        c = stage.cycles(tuple(live), sp.index, tw.emu < stage.per_trip)
        tw.emu += 1
        if t + c > tw.t_next:
            tw.t_next = t + c
        return t + c

    # ------------------------------------------------------------------ barriers and exits
    def _released(self, tw, rel):
        """``tw``'s barrier releases it at ``rel``: its next instruction that may not issue while it waits
        issues no earlier (``bar_free``); without ``issue.barrier_defer``, or after a cluster's barrier, that is
        every instruction."""
        if tw.bar_defer:
            tw.bar_defer = False
            if rel > tw.bar_free:
                tw.bar_free = rel
                tw.c_key = None  # _own's kept cycle did not know of it
        elif rel > tw.t_next:
            tw.t_next = rel

    def _may_defer(self, tw) -> bool:
        """Whether ``tw``, waiting at a barrier, may issue its next instruction (analysis._deferred; at a CTA
        barrier only)."""
        if tw.si or not tw.bar_defer:
            return False
        if tw.qi >= len(tw.queue):
            self._next_queue(tw, tw.last_t)
        return self._deferrable(tw, tw.queue[tw.qi])

    def _deferrable(self, tw, pc) -> bool:
        """``pc`` may issue while ``tw`` waits at a barrier: it and every instruction the warp runs before it in
        program order (``_execute_through``: ptxas's order may put it ahead of them) may, so no memory access
        runs before the release."""
        w = tw.w
        if pc >= self.n_ops or w.lpc is not None:
            return False
        info = self.info
        if pc < w.pc:  # run already (ptxas put its issue later): only its timing is left
            return info[pc].defer
        return all(info[q].defer for q in range(w.pc, pc + 1))

    def _bar_arrive(self, tw, it, t) -> float:
        """A warp's arrival at barrier ``it.bar_id`` at cycle ``t``: the CTA's barrier unit takes one arrival every
        ``per_warp`` cycles (``issue.barrier``); the barrier, if this arrival completes it, releases its warps
        ``release`` cycles after the unit has taken it. Returns that cycle (kept for ``_after_barrier``). An old
        phase's last cycle is below any new arrival's, so the unit's record of a barrier is never reset."""
        taken = tw.state.setdefault("bar_taken", {})
        tw.bar_defer = self.defer_any and "cluster" not in it.text and "arrive" not in it.text
        h = max(t, taken.get(it.bar_id, t)) + self.bar_warp
        taken[it.bar_id] = h
        tw.state["bar_release"] = h + self.bar_lat
        return h + self.bar_lat

    def _warp_done(self, tw, sp, t):
        sp.live -= 1
        state = tw.state
        state["live"] -= 1
        state["end"] = max(state.get("end", 0.0), t)
        self._drop_owed(tw, t)
        if state["live"] == 0:
            self._group_done(state, state["end"])

    def _after_barrier(self, tw, t):
        state = tw.state
        cta = tw.w.cta
        if tw.w.done:
            for bar_id in list(cta.bars):
                cta._try_release(bar_id)
        rel = state.pop("bar_release", t + self.bar_lat)
        for sp in state["sps"]:
            woke = False
            for o in sp.warps:
                now_blocked = o.w.blocked is not None
                if o.blocked and not now_blocked:
                    self._released(o, rel)
                    woke = True
                o.blocked = now_blocked
            if woke and sp is not tw.sp and sp.live:
                self._wake(sp, rel)


def run_grid_timed(program, grid, block, launch, params=None, max_steps=None, record: bool = True):
    """Run the grid on the timed engine; returns ``(Stats, Timeline)``."""
    if params is None:
        from warpsim.timing.params import params_for
        params = params_for(launch.arch)
    cls = TimedEngine
    if launch.cluster_dims != (1, 1, 1):  # the CTAs of a cluster run together (warpsim.timing.tcgen05)
        from warpsim.timing.tcgen05 import ClusterTimedEngine as cls
    eng = cls(program, launch, params, record, max_steps)
    with young_gc():
        stats = eng.run_grid(grid, block)
    return stats, eng.tl
