"""Which warp a sub-partition issues from next, and when (:class:`WarpChoice`, a part of
:class:`warpsim.timing.model.TimedEngine`).

``_pick`` takes the warp whose next instruction (or emulated stage) can issue first, in round-robin order
from the slot after the last one that issued, by the table's ``issue.policy`` (``greedy-lrr``: the warp
that issued last goes on while it can issue first), except that a warp whose tensor op has waited
``tensor_sharing.aging`` cycles for the pipe goes first, the highest slot first (``_aged``; with
``aging_nonyield``, only while it has waited at most ``aging_cap``: the H100 gives a long-starved warp no
turn while the others keep the pipe). A warp's
earliest cycle is the latest of: the cycle after its last issue, its operands' ready cycles (the
scoreboard), its unit's next free cycle (plus a switch cost on the tensor pipe after another warp's op),
and for a branch its warp's tensor drain, its predicate and its block's store read. The part that depends
on the warp alone is kept (``_own``) until the warp issues again.
"""
from __future__ import annotations

_INF = float("inf")


class WarpChoice:
    """The warp-choice methods of the timed engine (they read the engine's parameters and state)."""

    def _ahead(self, sp, best):
        """Whether ``sp`` may issue ``best``'s next instruction ahead of the other pending events: it touches
        nothing outside the sub-partition, and so does the next instruction of every other live warp there
        (their issue cycles, and so the pick, depend on nothing another process does) and none waits at a
        barrier (a release from another sub-partition could come first)."""
        return self._local(best) if sp.live == 1 else sp.local

    def _local(self, tw):
        if tw.si:
            return False
        q = tw.queue
        pc = q[tw.qi] if tw.qi < len(q) else -1
        return 0 <= pc < self.n_ops and self.info[pc].local

    def _pick(self, sp):
        """(warp, cycle) of the instruction ``sp`` issues next."""
        ws = sp.warps
        n = len(ws)
        if sp.live == 1 and n == 1:
            tw = ws[0]
            if tw.w.done or tw.w.blocked is not None and not self._may_defer(tw):
                return None, _INF
            t = self._earliest(tw, sp)[0]
            return tw, (t if t > sp.t_issue else sp.t_issue)
        best, bt = None, _INF
        last, t_last = sp.last, _INF
        aged = []  # (warp, cycle) of those whose next single tensor op has waited ``aging`` (to ``cap``) cycles
        aging, cap = self.t_aging, self.t_aging_cap
        earliest = self._earliest
        units, smunits, tlast = sp.units, sp.smo.units, sp.tlast
        fresh, switch = self.t_fresh, self.switch_cost
        local = True
        for tw in sp.rotations[sp.rr]:
            w = tw.w
            if w.done:
                continue
            if w.blocked is not None:
                local = False
                if not self._may_defer(tw):
                    continue
            it = tw.c_it
            if tw.si == 0 and tw.c_key == tw.t_next and tw.c_qi == tw.qi and it is not None and it.single:
                t = tw.c_base  # _earliest with the warp's own part kept (inlined: the hot loop of the engine)
                u = (smunits if it.sm_unit else units)[it.uidx]
                if it.tensor and tlast is not tw and tlast is not None and not (fresh and tw.c_opr < u - fresh):
                    u += switch[it.pc]
                if u > t:
                    t = u
                since, loc = tw.c_since, it.local
            else:
                t, since, loc = earliest(tw, sp)
            local = local and loc
            if since is not None and aging and aging <= t - since <= cap:
                aged.append((tw, t))
            if t < bt:
                best, bt = tw, t
            if tw is last:
                t_last = t
        sp.local = local
        if best is None:
            return None, _INF
        ti = sp.t_issue
        if self.greedy and last is not None and (t_last <= bt or t_last <= ti):
            best, bt = last, t_last  # greedy: the warp that issued last goes on while it can issue first
        if aged:
            first = self._aged(aged, bt if bt > ti else ti)
            if first is not None:
                best, bt = first
        return best, (bt if bt > ti else ti)

    def _aged(self, aged, t_pick):
        """Tensor-pipe aging (``tensor_sharing.aging``): of the warps whose next tensor op can take the pipe
        when it frees for ``t_pick`` (the switch to another warp included), those that have waited at least
        ``aging`` cycles for it (``aged``: (warp, cycle), as _pick found them) go first, the highest warp slot
        first. Returns (warp, cycle) or None."""
        pick, slot = None, -1
        limit = t_pick + self.t_switch
        for tw, t in aged:
            if t <= limit and tw.slot > slot:
                pick, slot = (tw, t), tw.slot
        return pick

    def _switch(self, it, opr, u):
        """Extra pipe cycles of a tensor op that follows another warp's op on the pipe (free at ``u``): only
        when one of its operands was written within ``switch_fresh`` cycles before (``opr``: when its last
        operand is ready); ``switch_cost``."""
        if self.t_fresh and opr < u - self.t_fresh:
            return 0.0
        return self.switch_cost[it.pc]

    def _switch_costs(self):
        """Per instruction: the switch cost of a tensor op, in proportion to its accumulator registers
        (``switch`` is the cost of ``switch_regs`` of them; tensor_sharing)."""
        return [self.t_switch * len(it.rs_c) / self.switch_regs if self.switch_regs and it.rs_c else self.t_switch
                for it in self.info]

    def _earliest(self, tw, sp):
        """(the cycle tw's next instruction, or emulated stage, can issue; for a single tensor op the cycle
        it could issue but for the pipe, else None; whether it is ``local``). What depends on the warp alone
        is kept until it issues again or a barrier moves it (both move ``t_next``, which only grows), or
        another warp's tensor op delays its store's register read (``_tensor_issue`` drops it)."""
        if tw.si:
            return self._earliest_stage(tw, sp, tw.cur), None, False
        if tw.c_key != tw.t_next or tw.c_qi != tw.qi:
            self._own(tw)
        it = tw.c_it
        if it is None:
            return tw.t_next, None, False
        if not it.single:
            return self._earliest_stage(tw, sp, it), None, False
        t = tw.c_base
        u = (sp.smo.units if it.sm_unit else sp.units)[it.uidx]
        if it.tensor and sp.tlast is not tw and sp.tlast is not None:
            u += self._switch(it, tw.c_opr, u)
        return (u if u > t else t), tw.c_since, it.local

    def _own(self, tw):
        """The part of _earliest that depends on ``tw`` alone: its next instruction (None: past the end), the
        cycle its operands are ready, the cycle nothing but a unit holds it back, and for a tensor op that
        cycle before the branch rules (the start of its wait for the pipe)."""
        if tw.qi >= len(tw.queue):
            self._next_queue(tw, tw.last_t)
        tw.c_key, tw.c_qi = tw.t_next, tw.qi
        pc = tw.queue[tw.qi]
        it = tw.c_it = self.info[pc] if pc < self.n_ops else None
        if it is None or not it.single:
            return
        opr = _max_ready(tw.ready, it.rs)
        t = tw.t_next if tw.t_next > opr else opr
        if not it.defer and tw.bar_free > t:
            t = tw.bar_free
        tw.c_opr, tw.c_since = opr, (t if it.tensor else None)
        if it.branch:
            if self.drain and tw.tensor_done - self.drain_slack > t:
                t = tw.tensor_done - self.drain_slack
            if it.guard_slot >= 0:
                p = tw.pred_at.get(it.guard_slot, -_INF) + self.pred_branch
                if p > t:
                    t = p
            if it.store_wait and tw.st_read > t:
                t = tw.st_read
        tw.c_base = t

    def _operands(self, tw, it, st):
        """When the operands stage ``st`` waits for are ready (``Stage.after``)."""
        after = st.after
        if after == "all":
            return _max_ready(tw.ready, it.rs)
        if after == "ab":
            return _max_ready(tw.ready, it.rs_ab)
        if after == "prev":
            return tw.prev_done
        if after == "prev+c":
            opr = _max_ready(tw.ready, it.rs_c)
            return tw.prev_done if tw.prev_done > opr else opr
        return 0.0

    def _earliest_stage(self, tw, sp, it):
        st = it.stages[tw.si]
        opr = self._operands(tw, it, st)
        t = tw.t_next if tw.t_next > opr else opr
        if not it.defer and tw.bar_free > t:
            t = tw.bar_free
        u = (sp.smo.units if st.sm else sp.units)[st.uidx]
        if st.unit == "tensor" and sp.tlast is not tw and sp.tlast is not None:
            u += self.t_switch
        if u > t:
            t = u
        if it.branch and self.drain and tw.tensor_done - self.drain_slack > t:
            t = tw.tensor_done - self.drain_slack
        return t


def _max_ready(ready, rs):
    m = 0.0
    for r in rs:
        v = ready[r]
        if v > m:
            m = v
    return m
