"""The timed engine's tcgen05 parts: when queued tcgen05 operations complete, and clusters of CTAs.

* :class:`Tcgen05Timing` turns a queued operation (warpsim.tcgen05_async.Op) into (latency, II) cycles from
  ``params_tcgen05.TABLE`` (B200, literature-calibrated). The tensor unit starts an operation when the
  CTA's tensor pipe is free (``cta_group::2``: both CTAs' pipes), keeps it busy II cycles and completes it
  ``latency`` cycles after its start; ``tcgen05.commit`` arrives on its mbarrier when the operations it
  tracks have completed, and a ``try_wait`` loop sees the phase complete from that cycle on.
* :func:`attach` gives the launch the engine's clock and that model (called by ``TimedEngine``).
* :class:`ClusterTimedEngine`: for launches with clusters, the CTAs of one cluster start together on
  consecutive SMs and are scheduled as one unit (``barrier.cluster``, the cta_group::2 pair rendezvous and
  deadlocks span the cluster).
"""
from __future__ import annotations

import copy
import time

from warpsim.cta import CTA, BarrierDeadlock
from warpsim.engine import Stats, dim3
from warpsim.timing import params_tcgen05
from warpsim.timing.model import _SM, TimedEngine


class Tcgen05Timing:
    def __init__(self, table=None):
        self.t = table or params_tcgen05.TABLE
        self.calibration = self.t["calibration"]

    def cost(self, op) -> tuple[float, float]:
        t, i = self.t, op.info
        if op.kind == "cp":
            rows, nbytes = {"128x256b": (128, 32), "128x128b": (128, 16), "4x256b": (4, 32), "64x128b": (64, 16),
                            "32x128b": (32, 16)}.get(i.get("shape"), (128, 16))
            ii = rows * nbytes / t["smem_bytes_per_clk"]
            return t["cp_latency"] + ii, ii
        if op.kind == "shift":
            return t["shift"]
        cg, m, n = op.cta_group, i["m"], i["n"]
        mode = "TS" if i.get("ts") else "SS"
        slope, icpt = t["mma_latency"].get((mode, cg, m), t["mma_latency"][(mode, cg, 128 * cg)])
        lat = slope * n + icpt + t["latency_extra"].get(i.get("kind"), 0.0)
        cols = n / 2 if (cg == 2 and m == 128 and not i.get("sparse")) else n  # layout B: N over two lane halves
        ii = cols * t["ii_per_lane_column"]
        if mode == "SS":
            kb = t["smem_k_bytes_per_row"]
            fetch = (m // cg * kb + (n // cg) * kb * (2 if i.get("sparse") else 1)) / t["smem_bytes_per_clk"]
            ii = max(ii, fetch + (t["ss_extra_2cta"].get(m, 0.0) if cg == 2 else 0.0))
        return lat, ii


def attach(engine) -> None:
    """Give ``engine.launch`` the timed engine's clock (``launch.cycle``) and the tcgen05 timing model."""
    engine.launch.cycle = lambda: engine.now_issue
    engine.launch.tc_timing = Tcgen05Timing()


class _ClusterView:
    """What the scheduler's deadlock report asks of ``state['cta']``."""

    def __init__(self, cluster):
        self.cluster = cluster

    def _deadlock_message(self) -> str:
        return self.cluster.deadlock_message()


class _Slot:
    """Consecutive SMs that run one cluster at a time, and the clusters still to run there."""

    def __init__(self, sms, clusters):
        self.sms, self.clusters = sms, list(clusters)


class ClusterTimedEngine(TimedEngine):
    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        # a tcgen05 instruction may release a warp of the other CTA (the cta_group::2 pair rendezvous): never on
        # the engine's sub-partition-local fast paths, so that _issue below sees it (a copy: analyse() caches)
        self.info = [copy.copy(it) if it.opcode == "tcgen05" else it for it in self.info]
        for it in self.info:
            if it.opcode == "tcgen05":
                it.fast = it.local = False
        self.started: list = []

    def run_grid(self, grid, block) -> Stats:
        from warpsim.cluster import cluster_ctaids
        g, b = dim3(grid, "grid"), dim3(block, "block")
        t0 = time.perf_counter()
        dims = self.launch.cluster_dims
        size = dims[0] * dims[1] * dims[2]
        nsm = int(self.params.issue.get("sms", 1))
        slots = max(1, nsm // size)
        per_slot: dict[int, list] = {}
        index = 0
        for i, ids in enumerate(cluster_ctaids(g, dims)):
            per_slot.setdefault(i % slots, []).append((index, ids))
            index += len(ids)
        self.g, self.b = g, b
        for slot in sorted(per_slot):
            sms = [_SM(slot * size + j, (), self.nunits) for j in range(size)]
            self._start_next(_Slot(sms, per_slot[slot]), 0.0)
        self._run_env()
        for ctas in self.started:  # nothing left to issue, yet a cluster has warps that never finished
            if not all(w.done for c in ctas for w in c.warps):
                raise BarrierDeadlock(ctas[0].cluster.deadlock_message())
        self._finish_records()
        return Stats(self.steps, index, time.perf_counter() - t0)

    def _start_next(self, owner, start):
        if not owner.clusters:
            return
        index0, ids = owner.clusters.pop(0)
        ctas = [CTA(self.program, c, self.g, self.b, self.launch) for c in ids]
        self.started.append(ctas)
        members = [(index0 + j, cta, owner.sms[j]) for j, cta in enumerate(ctas)]
        self._start_group(owner, members, _ClusterView(ctas[0].cluster), start)

    def _group_done(self, state, t):
        ctas = state["ctas"]
        cl = ctas[0].cluster
        for cta in ctas:
            if cta.rank not in cl.finished:
                cta.finish()
                cl.finished.add(cta.rank)
        self.launch.clusters.pop(cl.cid, None)
        self.tl.cycles = max(self.tl.cycles, t)
        self._start_next(state["owner"], t)

    def _issue(self, tw, sp, t):
        super()._issue(tw, sp, t)
        if not tw.w.done:
            self._after_barrier(tw, t)  # a pair rendezvous or barrier.cluster may have released other warps
        st = tw.state  # every live warp of the cluster now waits (barrier.cluster, pair rendezvous, bar.sync):
        if st["live"] > 0 and all(o.w.done or o.w.blocked is not None for s in st["sps"] for o in s.warps):
            raise BarrierDeadlock(st["cta"]._deadlock_message())  # only an issue could release them

    def _after_barrier(self, tw, t):
        cta = tw.w.cta
        if tw.w.done:
            cta.cluster.try_release()
            if all(w.done for w in cta.warps) and cta.rank not in cta.cluster.finished:
                cta.finish()
                cta.cluster.finished.add(cta.rank)
        super()._after_barrier(tw, t)
