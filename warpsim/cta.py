"""A CTA: up to 1024 threads in up to 32 warps sharing shared memory and 16 named barriers.

Warps run one at a time, round-robin, each for up to ``quantum`` instructions or until it
waits at a barrier or finishes. ``bar.sync``/``barrier.sync`` with no thread count completes
when every warp that has not exited has arrived; with a count ``b`` when ``ceil(b/32)`` warps
have (barriers count whole warps). ``bar.arrive`` arrives without waiting. When no warp can run
and some still wait, the CTA is deadlocked: :class:`BarrierDeadlock` says who waits where.
"""
from __future__ import annotations

import numpy as np

from isa.errors import WarpsimError
from warpsim.memory import Flat
from warpsim.warp import Warp

NUM_BARRIERS = 16


class BarrierDeadlock(WarpsimError):
    """Every live warp of a CTA waits at a barrier that can no longer complete."""


def _async_readers(program) -> bool:
    """Whether ``program`` has instructions that read shared memory through the async proxy (tcgen05.mma/cp)."""
    got = program.__dict__.get("_async_readers")
    if got is None:
        got = program.__dict__["_async_readers"] = any(
            ins.opcode == "tcgen05" and ins.mods and ins.mods[0] in ("mma", "cp") for _, ins, _, _ in program.ops)
    return got


class CTA:
    def __init__(self, program, ctaid, nctaid, ntid, launch, quantum: int = 512):
        self.program, self.launch, self.quantum = program, launch, quantum
        self.ctaid, self.nctaid, self.ntid = tuple(ctaid), tuple(nctaid), tuple(ntid)
        # this CTA's cluster (PTX ISA 2.2.2; a 1x1x1 cluster unless the launch gives cluster dims): rank and
        # the cluster special registers; the Cluster object holds what its CTAs share (warpsim.cluster)
        from warpsim.cluster import join
        self.cluster, self.rank, self.cluster_specials = join(self, launch)
        # Tensor Memory (sm_100a+): created by the first tcgen05 instruction (tensor_memory()), None before
        self.tmem = None
        self._tc_port = None
        self.arch, self.ub_policy = launch.arch, launch.ub_policy
        self.gmem, self.params, self.const = launch.gmem, launch.params, launch.const
        self.global_vars = launch.global_vars
        self.dynamic_shared = launch.dynamic_shared
        size = program.dynamic_shared_offset + launch.dynamic_shared if launch.dynamic_shared else program.static_shared
        self.shared = Flat(size, "shared memory")
        # generic-proxy writes to shared memory that async-proxy readers (tcgen05.mma/cp) may read, for kernels
        # that have such readers (warpsim.tcgen05_async.ProxyTracker); None otherwise
        self.proxy = None
        if _async_readers(program):
            from warpsim.tcgen05_async import ProxyTracker
            self.proxy = ProxyTracker(self.shared.size)
        n = ntid[0] * ntid[1] * ntid[2]
        self.nwarps = (n + 31) // 32
        t = np.arange(self.nwarps * 32)
        tid = np.stack([t % ntid[0], (t // ntid[0]) % ntid[1], t // (ntid[0] * ntid[1])], axis=1)
        self.warps = [Warp(program, w, min(32, n - 32 * w), tid[32 * w: 32 * w + 32], self, launch.clock)
                      for w in range(self.nwarps)]
        self.bars: dict[int, dict] = {}

    # ---------------------------------------------------------------- Tensor Memory and tcgen05
    def tensor_memory(self):
        """This CTA's Tensor Memory (warpsim.tmem.Tmem), created on first use."""
        if self.tmem is None:
            from warpsim.tmem import Tmem
            self.tmem = Tmem(cta=self.rank if self.cluster.size > 1 else int(self.ctaid[0]))
            self.tmem.ctaid, self.tmem.rank_in_cluster = self.ctaid, self.rank
        return self.tmem

    def tcgen05_port(self, warp):
        """What ExecContext.tcgen05() gives a warp of this CTA (warpsim.tcgen05_async.Port)."""
        from warpsim.tcgen05_async import port
        return port(self, warp)

    def finish(self) -> None:
        """Every warp has exited: the CTA's async tcgen05 operations complete, and no TMEM may stay
        allocated (PTX ISA 9.7.16.7.1). The engines call this once per CTA."""
        if self.tmem is not None or self.cluster.unit is not None:
            from warpsim.tcgen05_async import finish_cta
            finish_cta(self)

    # ---------------------------------------------------------------- barriers
    def arrive(self, warp: Warp, bar_id: int, count: int | None, wait: bool) -> None:
        if not 0 <= bar_id < NUM_BARRIERS:
            warp._error(f"barrier id {bar_id} out of range", "0..15")
        if count is not None and (count <= 0 or count % 32):
            warp._error(f"barrier thread count {count} is not a positive multiple of 32")
        b = self.bars.setdefault(bar_id, {"arrived": set(), "waiting": [], "count": count, "where": warp.where()})
        b["arrived"].add(warp.warp_id)
        if count is not None:
            b["count"] = count
        if wait:
            b["waiting"].append(warp)
            warp.blocked = (bar_id, count)
        self._try_release(bar_id)

    def _needed(self, b) -> int:
        if b["count"] is not None:
            return b["count"] // 32
        return sum(1 for w in self.warps if not w.done)

    def _try_release(self, bar_id):
        b = self.bars[bar_id]
        if len(b["arrived"]) >= self._needed(b):
            for w in b["waiting"]:
                w.blocked = None
            if self.cluster.unit is not None:  # tcgen05 fences compose with bar.sync (PTX ISA 9.7.16.6.3)
                self.cluster.unit.thread_sync([(self.rank, i) for i in b["arrived"]],
                                              [(self.rank, w.warp_id) for w in b["waiting"]])
            del self.bars[bar_id]

    # ---------------------------------------------------------------- running
    def run(self, max_steps: int | None = None) -> int:
        """Run every warp to completion; returns the warp instructions executed."""
        quantum = self.quantum
        while True:
            progressed = False
            for w in self.warps:
                k = 0
                while k < quantum and not w.done and w.blocked is None:
                    w.step()
                    k += 1
                    if w.__dict__.pop("spinning", False):  # a failed mbarrier poll: let the others run
                        break
                if k:
                    progressed = True
                    if w.done:
                        for bar_id in list(self.bars):
                            self._try_release(bar_id)
            if all(w.done for w in self.warps):
                self.finish()
                return self.steps
            if max_steps is not None and self.steps > max_steps:
                raise WarpsimError(f"CTA {self.ctaid}: more than {max_steps} warp instructions; stopped "
                                   f"(an endless loop?)")
            if not progressed:
                raise BarrierDeadlock(self._deadlock_message())

    @property
    def steps(self) -> int:
        return sum(w.steps for w in self.warps)

    def _deadlock_message(self) -> str:
        lines = [f"deadlock in CTA {self.ctaid}: no warp can run"]
        for bar_id, b in sorted(self.bars.items()):
            lines.append(f"  barrier {bar_id} (first reached at {b['where']}): warps {sorted(b['arrived'])} "
                         f"arrived, {self._needed(b)} needed")
        done = [w.warp_id for w in self.warps if w.done]
        if done:
            lines.append(f"  warps {done} have exited")
        lines.append("  (a barrier inside divergent code, or a thread count larger than the threads that arrive?)")
        return "\n".join(lines)
