"""The timed engine: a simpy event model of SMs, their sub-partitions, schedulers, scoreboards and pipes.

Structure (one simpy process per sub-partition scheduler, one per SM; never one per lane):

* CTA ``i`` of the grid runs on SM ``i % sms``; an SM runs its CTAs one after another.
* A CTA's warp ``w`` sits on sub-partition ``w % 4``. Each sub-partition's scheduler issues at most one
  instruction per cycle, taking the warp that can issue earliest; ties go in loose round-robin order
  (the warp after the one issued last).
* A warp issues in order. An instruction waits for the registers it reads (a scoreboard: each register
  is ready when the instruction that last wrote it completes), for its unit (a pipe accepts one warp
  instruction every ``ii`` cycles: INT/FP/SFU/branch/tensor per sub-partition, the LSU/MIO per SM), and
  a branch waits for its warp's in-flight tensor ops (``drain_tensor_at_branch``).
* Every issue runs the instruction's functional body (:meth:`warpsim.warp.Warp.step`) at its issue cycle;
  ``%clock``/``%clock64`` read that cycle. Results become visible to later instructions of the timing
  model at completion (issue + latency); the functional state changes at issue, which is safe because
  no reader can issue before the writer completes.
* Emulated tensor forms run as stages of hardware ops (``analysis.Stage``), each occupying its pipe.
* ``bar.sync`` releases the waiting warps ``barrier`` cycles after the last arrival.

Deterministic: no randomness, ties broken by fixed order.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import simpy

from isa.errors import WarpsimError
from warpsim.cta import CTA, BarrierDeadlock
from warpsim.engine import MAX_THREADS_PER_CTA, Stats, dim3
from warpsim.timing.analysis import analyse

_INF = float("inf")


@dataclass
class Timeline:
    """What the timed engine recorded for one launch.

    ``records``: one tuple per warp instruction, ``(cta, warp, pc, text, issue, ready, complete)``:
    ``cta`` is the CTA's linear index, ``ready`` the cycle its operands were ready, ``complete`` the
    cycle its results are written. ``tensor``: one tuple per tensor-pipe occupancy
    ``(sm, subpartition, start, end, cta, warp, pc)``. ``cycles``: the cycle the last warp finished.
    """

    records: list = field(default_factory=list)
    tensor: list = field(default_factory=list)
    cycles: float = 0.0
    params: str = ""
    sm_of_cta: dict = field(default_factory=dict)

    def issue_complete(self) -> list[tuple]:
        """``(cta, warp, pc, issue, complete)`` of every record, in issue order."""
        return [(r[0], r[1], r[2], r[4], r[6]) for r in self.records]


class _TW:
    """Timing state of one warp."""

    __slots__ = ("w", "sp", "t_next", "ready", "ver", "tensor_done", "si", "cur", "prev_done", "first_issue",
                 "first_ready", "skip_hoisted", "memo", "cta_index", "blocked")

    def __init__(self, w, sp, cta_index, t0):
        self.w, self.sp, self.cta_index = w, sp, cta_index
        self.t_next = t0
        self.ready: dict = {}
        self.ver: dict = {}
        self.tensor_done = 0.0
        self.si = 0
        self.cur = None
        self.prev_done = 0.0
        self.first_issue = 0.0
        self.first_ready = 0.0
        self.skip_hoisted = False
        self.memo: dict = {}
        self.blocked = False


class _SP:
    __slots__ = ("index", "warps", "t_issue", "units", "rr", "proc", "waiting", "wake", "sleep_until")

    def __init__(self, index):
        self.index = index
        self.warps: list[_TW] = []
        self.t_issue = 0.0
        self.units: dict = {}
        self.rr = 0
        self.proc = None
        self.waiting = False
        self.wake = None
        self.sleep_until = _INF


class TimedEngine:
    def __init__(self, program, launch, params, record: bool = True, max_steps=None):
        self.program, self.launch, self.params = program, launch, params
        self.info = analyse(program, params)
        self.n_ops = len(self.info)
        self.env = simpy.Environment()
        self.record = record
        self.max_steps = max_steps
        self.tl = Timeline(params=params.name)
        self.steps = 0
        self.now_issue = 0.0
        iss = params.issue
        self.nsp = int(iss["subpartitions"])
        self.drain = bool(iss["drain_tensor_at_branch"])
        self.br_pen = float(iss["branch_taken"])
        self.bar_lat = float(iss["barrier"])
        self.sm_units: dict = {}
        self.scope = {u: v.get("scope", "sp") for u, v in params.units.items()}
        if launch.clock is None:
            launch.clock = lambda warp: int(self.now_issue)
        from warpsim.timing.tcgen05 import attach
        attach(self)  # tcgen05: queued operations complete at B200 cycles (warpsim.timing.tcgen05)

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
        for sm, lst in per_sm.items():
            self.env.process(self._sm(sm, lst, g, b))
        self.env.run()
        return Stats(self.steps, len(ctas), time.perf_counter() - t0)

    def _sm(self, sm, ctas, g, b):
        for index, ctaid in ctas:
            cta = CTA(self.program, ctaid, g, b, self.launch)
            self.tl.sm_of_cta[index] = sm
            self.sm_units = {}
            start = self.env.now
            sps = [_SP(i) for i in range(self.nsp)]
            for w in cta.warps:
                sp = sps[w.warp_id % self.nsp]
                sp.warps.append(_TW(w, sp, index, start))
            live = [sp for sp in sps if sp.warps]
            state = {"cta": cta, "sps": live, "sm": sm, "index": index, "waiting": 0}
            for sp in live:
                sp.t_issue = start
                sp.proc = self.env.process(self._scheduler(sp, state))
            yield simpy.AllOf(self.env, [sp.proc for sp in live])
            cta.finish()  # queued tcgen05 operations complete; no TMEM may stay allocated
            self.tl.cycles = max(self.tl.cycles, self.env.now)

    # ------------------------------------------------------------------ one sub-partition
    def _earliest(self, tw, sp):
        """(cycle tw's next instruction/stage can issue, cycle its operands are ready)."""
        w = tw.w
        if tw.si:
            it = tw.cur
        else:
            pc = w.pc if w.lpc is None else int(w.lpc.min())
            if pc >= self.n_ops:
                return tw.t_next, tw.t_next
            it = self.info[pc]
        st = it.stages[tw.si]
        ready = tw.ready
        after = st.after
        opr = 0.0
        if after == "all":
            for r in it.reads:
                v = ready.get(r)
                if v is not None and v > opr:
                    opr = v
        elif after == "ab":
            for r in it.reads_ab:
                v = ready.get(r)
                if v is not None and v > opr:
                    opr = v
        elif after == "prev":
            opr = tw.prev_done
        elif after == "prev+c":
            opr = tw.prev_done
            for r in it.reads_c:
                v = ready.get(r)
                if v is not None and v > opr:
                    opr = v
        t = tw.t_next if tw.t_next > opr else opr
        unit = st.unit
        if self.scope.get(unit) == "sm":
            u = self.sm_units.get(unit, 0.0)
        else:
            u = sp.units.get(unit, 0.0)
        if u > t:
            t = u
        if it.branch and self.drain and tw.tensor_done > t:
            t = tw.tensor_done
        return t, opr

    def _scheduler(self, sp, state):
        env = self.env
        ws = sp.warps
        n = len(ws)
        while True:
            best, bt, bopr = None, _INF, 0.0
            alive = False
            for k in range(n):
                tw = ws[(sp.rr + k) % n]
                w = tw.w
                if w.done:
                    continue
                alive = True
                if w.blocked is not None:
                    continue
                t, opr = self._earliest(tw, sp)
                if t < bt:
                    best, bt, bopr = tw, t, opr
            if not alive:
                return
            if best is None:  # every live warp waits at a barrier
                state["waiting"] += 1
                if state["waiting"] >= sum(1 for s in state["sps"] if any(not t.w.done for t in s.warps)):
                    raise BarrierDeadlock(state["cta"]._deadlock_message())
                sp.wake = env.event()
                yield sp.wake
                sp.wake = None
                state["waiting"] -= 1
                continue
            t = bt if bt > sp.t_issue else sp.t_issue
            if t > env.now:
                sp.sleep_until = t
                try:
                    yield env.timeout(t - env.now)
                except simpy.Interrupt:
                    sp.sleep_until = _INF
                    continue
                sp.sleep_until = _INF
                t2, bopr = self._earliest(best, sp)
                if t2 > t:
                    continue
            self._issue(best, sp, t, bopr, state)
            sp.rr = (ws.index(best) + 1) % n

    # ------------------------------------------------------------------ issue
    def _issue(self, tw, sp, t, opr, state):
        w = tw.w
        sp.t_issue = t + 1.0
        if tw.si == 0:
            pc = w.pc if w.lpc is None else int(w.lpc.min())
            if pc >= self.n_ops:  # past the end: the lanes retire
                self.now_issue = t
                w.step()
                tw.t_next = t + 1.0
                if w.done:
                    self._warp_done(tw, t, state)
                return
            it = self.info[pc]
            self.now_issue = t
            w.step()
            self.steps += 1
            if self.max_steps is not None and self.steps > self.max_steps:
                raise WarpsimError(f"CTA {state['cta'].ctaid}: more than {self.max_steps} warp instructions; "
                                   f"stopped (an endless loop?)")
            tw.cur, tw.first_issue, tw.first_ready = it, t, opr
            tw.skip_hoisted = False
            if it.emulated:  # the product of the same A/B/E values was computed already: ptxas hoists/CSEs it
                key = (it.emulated,) + tuple((r, tw.ver.get(r, 0)) for r in it.reads_ab)
                tw.skip_hoisted = key in tw.memo
                tw.memo[key] = True
            if it.branch:
                npc = w.pc if w.lpc is None else int(w.lpc.min())
                if npc != pc + 1:
                    tw.t_next = t + 1.0 + self.br_pen
        it = tw.cur
        stages = it.stages
        st = stages[tw.si]
        done = self._run_stage(tw, sp, st, t, state)
        tw.si += 1
        while tw.si < len(stages) and tw.skip_hoisted and stages[tw.si].hoisted:
            tw.si += 1
        if tw.si >= len(stages):
            tw.si = 0
            ver, ready = tw.ver, tw.ready
            for r in it.writes:
                ready[r] = done
                ver[r] = ver.get(r, 0) + 1
            if self.record:
                self.tl.records.append((tw.cta_index, w.warp_id, it.pc, it.text, tw.first_issue, tw.first_ready,
                                        done))
            if it.barrier or w.done:
                if it.barrier and w.blocked is None and "arrive" not in it.text:
                    tw.t_next = max(tw.t_next, t + self.bar_lat)  # the last arrival waits for the release too
                self._after_barrier(tw, t, state)
        else:
            tw.prev_done = done

    def _run_stage(self, tw, sp, st, t, state):
        """Occupy ``st``'s unit from cycle ``t``; returns when its results are written."""
        if tw.si == 0 and st.hoisted and tw.skip_hoisted:
            return t
        span = st.count * st.ii
        if self.scope.get(st.unit) == "sm":
            self.sm_units[st.unit] = t + span
        else:
            sp.units[st.unit] = t + span
        last = t + (st.count - 1) * st.ii
        done = last + st.latency
        nxt = t + (span if st.count > 1 else 1.0)
        if nxt > tw.t_next:
            tw.t_next = nxt
        if st.unit == "tensor":
            if done > tw.tensor_done:
                tw.tensor_done = done
            if self.record:
                self.tl.tensor.append((state["sm"], sp.index, t, t + span, tw.cta_index, tw.w.warp_id,
                                       tw.cur.pc))
        return done

    # ------------------------------------------------------------------ barriers and exits
    def _warp_done(self, tw, t, state):
        self._after_barrier(tw, t, state)

    def _after_barrier(self, tw, t, state):
        cta = state["cta"]
        if tw.w.done:
            for bar_id in list(cta.bars):
                cta._try_release(bar_id)
        rel = t + self.bar_lat
        for sp in state["sps"]:
            woke = False
            for o in sp.warps:
                now_blocked = o.w.blocked is not None
                if o.blocked and not now_blocked:
                    if rel > o.t_next:
                        o.t_next = rel
                    woke = True
                o.blocked = now_blocked
            if woke:
                if sp.wake is not None and not sp.wake.triggered:
                    sp.wake.succeed()
                elif sp.sleep_until > rel and sp.proc is not None and sp.proc.is_alive and sp is not tw.sp:
                    sp.proc.interrupt()


def run_grid_timed(program, grid, block, launch, params=None, max_steps=None, record: bool = True):
    """Run the grid on the timed engine; returns ``(Stats, Timeline)``."""
    if params is None:
        from warpsim.timing.params import params_for
        params = params_for(launch.arch)
    cls = TimedEngine
    if launch.cluster_dims != (1, 1, 1):  # the CTAs of a cluster run together (warpsim.timing.tcgen05)
        from warpsim.timing.tcgen05 import ClusterTimedEngine as cls
    eng = cls(program, launch, params, record, max_steps)
    stats = eng.run_grid(grid, block)
    return stats, eng.tl
