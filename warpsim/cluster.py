"""Clusters of CTAs (PTX ISA 2.2.2, 9.7.13.1 barrier.cluster, 9.7.9.23 mapa, 9.7.16.5 CTA pairs).

A launch with cluster dims (``.reqnctapercluster`` in the PTX, or ``cluster=`` at the launch) groups its
CTAs into clusters; every other launch is an implicit 1x1x1 cluster per CTA. The CTAs of one cluster run
*together*: :func:`run_cluster` interleaves all their warps round-robin (the functional engine runs the
clusters of a grid one after another, as it runs lone CTAs). What a cluster's CTAs share lives in
:class:`Cluster`: the ranks, ``barrier.cluster``, the pair rendezvous of ``tcgen05.alloc/dealloc/
relinquish_alloc_permit.cta_group::2`` (the first warp of the pair blocks until its peer's warp arrives,
PTX ISA Table 46), and the asynchronous tensor unit (:mod:`warpsim.tcgen05_async`) that runs the tcgen05
operations of both CTAs of a pair.

Shared::cluster addresses: a ``.shared::cta`` address is also the ``.shared::cluster`` address of the same
byte in the executing CTA (PTX ISA 5.1.5); ``mapa`` names byte ``a`` of the CTA of rank ``r`` as
``a | (r + 1) << 24`` (warpsim's encoding; shared windows are < 16 MiB).
"""
from __future__ import annotations

from collections import deque

import numpy as np

from isa.errors import LocatedUndefinedBehavior, WarpsimError
from warpsim.cta import BarrierDeadlock

RANK_SHIFT = 24
SMEM_MASK = (1 << RANK_SHIFT) - 1


class ClusterDeadlock(BarrierDeadlock):
    """Every live warp of a cluster waits for something that can no longer happen."""


def cluster_ctaids(grid, dims):
    """CTA ids of each cluster of ``grid`` (clusters in x-fastest order; inside one, rank order)."""
    for d, (g, c) in enumerate(zip(grid, dims)):
        if g % c:
            raise WarpsimError(f"grid {grid} is not a whole number of clusters of {dims}: dimension "
                               f"{'xyz'[d]} is {g}, not a multiple of {c}")
    n = [g // c for g, c in zip(grid, dims)]
    for cz in range(n[2]):
        for cy in range(n[1]):
            for cx in range(n[0]):
                yield [(cx * dims[0] + x, cy * dims[1] + y, cz * dims[2] + z)
                       for z in range(dims[2]) for y in range(dims[1]) for x in range(dims[0])]


class Cluster:
    def __init__(self, cid, dims, explicit: bool):
        self.cid, self.dims, self.explicit = cid, dims, explicit
        self.size = dims[0] * dims[1] * dims[2]
        self.ctas: dict[int, object] = {}
        self.unit = None  # warpsim.tcgen05_async.TensorUnit, created by the first tcgen05 instruction
        self.cbar_phase = 0
        self.cbar_arrived: dict[tuple, int] = {}  # (rank, warp) -> phase it arrived in
        self.cbar_waiting: list = []
        self.cbar_where = ""
        self.rendezvous: dict[tuple, deque] = {}  # (op, pair, rank) -> pending entries
        self.finished: set[int] = set()

    # ------------------------------------------------------------------ ranks and peers
    def cta(self, rank: int, where: str = "", what: str = "a CTA"):
        if not 0 <= rank < self.size:
            raise LocatedUndefinedBehavior.at(where, f"{what}: CTA rank {rank} is outside the cluster "
                                                     f"(ranks 0..{self.size - 1})")
        c = self.ctas.get(rank)
        if c is None or rank in self.finished:
            state = "has exited" if rank in self.finished else "is not running"
            raise LocatedUndefinedBehavior.at(where, f"{what}: CTA rank {rank} of cluster {self.cid} {state} (the peer "
                                                     "CTA must be active and must not have exited, PTX ISA 9.7.16.5)")
        return c

    def peer(self, cta, where: str = "", what: str = "cta_group::2"):
        if self.size < 2:
            raise LocatedUndefinedBehavior.at(where, f"{what} needs the CTA pair of a cluster (PTX ISA 9.7.16.5.1), "
                                                     "but this launch has no clusters: declare .reqnctapercluster 2, "
                                                     "1, 1 (__cluster_dims__(2, 1, 1)) or launch with "
                                                     "cluster=(2, 1, 1)")
        return self.cta(cta.rank ^ 1, where, what)

    def pair(self, cta) -> list:
        """[even CTA, odd CTA] of ``cta``'s pair."""
        even = cta.rank & ~1
        return [self.cta(even), self.cta(even + 1)]

    def warps(self):
        for r in sorted(self.ctas):
            yield from self.ctas[r].warps

    def smem(self, addr: int, cta, where: str = ""):
        """(CTA, byte offset) of a .shared::cluster address issued in ``cta``."""
        r = (int(addr) >> RANK_SHIFT) - 1
        return (cta if r < 0 else self.cta(r, where, "a .shared::cluster address")), int(addr) & SMEM_MASK

    # ------------------------------------------------------------------ barrier.cluster (9.7.13.1)
    def cluster_arrive(self, warp) -> None:
        key = (warp.cta.rank, warp.warp_id)
        if key in self.cbar_arrived:
            warp.undefined("barrier.cluster.arrive twice without a barrier.cluster.wait in between (PTX ISA 9.7.13.1)",
                           lanes=warp.active)
        self.cbar_arrived[key] = self.cbar_phase
        self.cbar_where = self.cbar_where or warp.where()
        if self.unit is not None:
            self.unit.cluster_arrive(key)
        self.try_release()

    def cluster_wait(self, warp) -> None:
        key = (warp.cta.rank, warp.warp_id)
        phase = self.cbar_arrived.get(key)
        if phase is None:
            warp.undefined("barrier.cluster.wait without a barrier.cluster.arrive before it (PTX ISA 9.7.13.1)",
                           lanes=warp.active)
        if phase < self.cbar_phase:  # its phase completed already
            del self.cbar_arrived[key]
            if self.unit is not None:
                self.unit.cluster_acquire(key, phase)
            return
        warp.blocked = ("barrier.cluster", None)
        self.cbar_waiting.append(warp)

    def try_release(self) -> None:
        live = [(c.rank, w.warp_id) for c in self.ctas.values() for w in c.warps if not w.done]
        if not live or any(self.cbar_arrived.get(k) != self.cbar_phase for k in live):
            return
        phase = self.cbar_phase
        self.cbar_phase += 1
        self.cbar_where = ""
        if self.unit is not None:
            self.unit.cluster_phase_done(phase)
        for w in self.cbar_waiting:
            w.blocked = None
            key = (w.cta.rank, w.warp_id)
            self.cbar_arrived.pop(key, None)
            if self.unit is not None:
                self.unit.cluster_acquire(key, phase)
        self.cbar_waiting = []

    # ------------------------------------------------------------------ cta_group::2 pair collectives
    def pair_collective(self, warp, op: str, payload: dict, perform) -> None:
        """A warp of one CTA of the pair executes the collective ``op``; the first of the two blocks until the
        other arrives, then ``perform(first, second)`` runs once (entries: dict with warp, cta, payload)."""
        cta = warp.cta
        if self.size < 2:
            self.peer(cta, warp.where(), f"{op}.cta_group::2")
        pair = cta.rank >> 1
        mine = {"warp": warp, "cta": cta, "where": warp.where(), **payload}
        theirs = self.rendezvous.setdefault((op, pair, cta.rank ^ 1), deque())
        if theirs:
            other = theirs.popleft()
            other["warp"].blocked = None
            first, second = (other, mine)
            perform(first, second)
            return
        self.peer(cta, warp.where(), f"{op}.cta_group::2")  # the peer must be running to ever arrive
        self.rendezvous.setdefault((op, pair, cta.rank), deque()).append(mine)
        warp.blocked = (f"{op}.cta_group::2", None)

    # ------------------------------------------------------------------ diagnostics
    def deadlock_message(self) -> str:
        lines = [f"deadlock in cluster {self.cid}: no warp of its CTAs can run"]
        for r in sorted(self.ctas):
            c = self.ctas[r]
            for bar_id, b in sorted(c.bars.items()):
                lines.append(f"  CTA rank {r}: bar.sync {bar_id} (first reached at {b['where']}): warps "
                             f"{sorted(b['arrived'])} arrived, {c._needed(b)} needed")
        if self.cbar_waiting:
            lines.append(f"  barrier.cluster (first arrival at {self.cbar_where}): "
                         + ", ".join(f"CTA {w.cta.rank} warp {w.warp_id}" for w in self.cbar_waiting) + " wait; "
                         "missing: " + ", ".join(f"CTA {c.rank} warp {w.warp_id}" for c in self.ctas.values()
                                                 for w in c.warps if not w.done
                                                 and self.cbar_arrived.get((c.rank, w.warp_id)) != self.cbar_phase))
        for (op, pair, rank), q in sorted(self.rendezvous.items(), key=lambda kv: kv[0][1:]):
            for e in q:
                lines.append(f"  {op}.cta_group::2 at {e['where']}: warp {e['warp'].warp_id} of CTA rank {rank} waits "
                             f"for a warp of its peer CTA (rank {rank ^ 1}) to execute the same instruction")
        if any(self.rendezvous.values()):
            lines.append("  (the first warp of a cta_group::2 alloc/dealloc/relinquish_alloc_permit blocks until the "
                         "peer CTA's warp executes it too: PTX ISA 9.7.16.5, Tables 46 and 48)")
        done = [(c.rank, w.warp_id) for c in self.ctas.values() for w in c.warps if w.done]
        if done:
            lines.append(f"  exited (CTA rank, warp): {done}")
        return "\n".join(lines)


def join(cta, launch):
    """Register ``cta`` with its cluster: (Cluster, rank, special registers)."""
    dims = tuple(getattr(launch, "cluster_dims", (1, 1, 1)))
    cid = tuple(c // d for c, d in zip(cta.ctaid, dims))
    pos = tuple(c % d for c, d in zip(cta.ctaid, dims))
    rank = pos[0] + dims[0] * (pos[1] + dims[1] * pos[2])
    explicit = bool(getattr(launch, "explicit_cluster", False))
    if dims == (1, 1, 1):  # an implicit (or 1x1x1) cluster: nothing to share, nothing kept in the launch
        cl = Cluster(cid, dims, explicit)
    else:
        clusters = launch.clusters
        cl = clusters.get(cid)
        if cl is None or rank in cl.ctas:  # a fresh cluster (the same id again: start over)
            cl = clusters[cid] = Cluster(cid, dims, explicit)
    cl.ctas[rank] = cta
    ncl = tuple(n // d for n, d in zip(cta.nctaid, dims))
    regs = {"%cluster_ctarank": rank, "%cluster_nctarank": cl.size, "%is_explicit_cluster": int(cl.explicit)}
    for i, ax in enumerate("xyz"):
        regs[f"%cluster_ctaid.{ax}"] = pos[i]
        regs[f"%cluster_nctaid.{ax}"] = dims[i]
        regs[f"%clusterid.{ax}"] = cid[i]
        regs[f"%nclusterid.{ax}"] = ncl[i]
    return cl, rank, regs


def run_cluster(ctas, max_steps: int | None = None) -> int:
    """Run the CTAs of one cluster to completion, their warps interleaved round-robin (each for up to its CTA's
    ``quantum`` instructions or until it blocks); returns the warp instructions executed."""
    cl = ctas[0].cluster
    order = [w for c in ctas for w in c.warps]
    while True:
        progressed = False
        for w in order:
            quantum, k = w.cta.quantum, 0
            while k < quantum and not w.done and w.blocked is None:
                w.step()
                k += 1
                if w.__dict__.pop("spinning", False):  # a failed mbarrier poll: let the others run
                    break
            if k:
                progressed = True
                if w.done:
                    for bar_id in list(w.cta.bars):
                        w.cta._try_release(bar_id)
                    cl.try_release()
        for c in ctas:
            if c.rank not in cl.finished and all(w.done for w in c.warps):
                c.finish()
                cl.finished.add(c.rank)
        steps = sum(c.steps for c in ctas)
        if all(w.done for w in order):
            ctas[0].launch.clusters.pop(cl.cid, None)
            return steps
        if max_steps is not None and steps > max_steps:
            raise WarpsimError(f"cluster {cl.cid}: more than {max_steps} warp instructions; stopped (an endless loop?)")
        if not progressed:
            raise ClusterDeadlock(cl.deadlock_message())


def shared_bytes(cta) -> np.ndarray:
    """The CTA's shared memory as a uint8 array indexed by shared address (no copy)."""
    return cta.shared.buf[:cta.shared.size]
