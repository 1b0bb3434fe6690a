"""The functional engine: runs a grid of CTAs one after another, each warp by ``Warp.step()``."""
from __future__ import annotations

import gc
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable

from isa.errors import WarpsimError
from warpsim.cta import CTA
from warpsim.memory import Flat, Global

MAX_THREADS_PER_CTA = 1024


@dataclass
class Launch:
    """What every CTA of one launch shares."""

    arch: str
    ub_policy: str
    gmem: Global
    params: Flat
    const: Flat
    global_vars: dict  # name -> device address of module .global variables
    dynamic_shared: int = 0
    clock: Callable | None = None  # clock(warp) -> int; default: the warp's retired instructions
    # clusters (PTX ISA 2.2.2): CTAs per cluster; explicit = launched with cluster dims (.reqnctapercluster or
    # cluster=); warpsim.cluster keeps each cluster's shared state in ``clusters`` (cluster id -> Cluster)
    cluster_dims: tuple = (1, 1, 1)
    explicit_cluster: bool = False
    clusters: dict = field(default_factory=dict)
    # the timed engine's current cycle (a callable) and tcgen05 timing model; None in the functional engine
    cycle: Callable | None = None
    tc_timing: object = None


@dataclass
class Stats:
    warp_instructions: int
    ctas: int
    wall_s: float


def dim3(x, what: str) -> tuple[int, int, int]:
    """An int or a tuple of up to 3 ints -> (x, y, z), each >= 1."""
    t = (x,) if isinstance(x, (int,)) or hasattr(x, "__index__") else tuple(x)
    if not 1 <= len(t) <= 3:
        raise WarpsimError(f"{what} must be an int or a tuple of 1 to 3 ints, got {x!r}")
    t = tuple(int(v) for v in t) + (1,) * (3 - len(t))
    if min(t) < 1:
        raise WarpsimError(f"{what} dimensions must be >= 1, got {t}")
    return t


@contextmanager
def young_gc():
    """Run a simulation with the objects that exist before it left out of garbage collection (gc.freeze), and
    put back afterwards (gc.unfreeze). A full collection otherwise walks the whole heap, numba's compiled
    functions and their types included (tens of milliseconds, several times a second while a run keeps its
    records); what the simulation itself allocates is still collected. Nothing is done when the caller has
    frozen objects already."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def run_grid(program, grid, block, launch: Launch, max_steps: int | None = None) -> Stats:
    """Run every CTA of ``grid`` (x fastest) to completion; the CTAs of a cluster (launch.cluster_dims) run
    together, their warps interleaved (warpsim.cluster)."""
    g, b = dim3(grid, "grid"), dim3(block, "block")
    if b[0] * b[1] * b[2] > MAX_THREADS_PER_CTA:
        raise WarpsimError(f"block {b} has {b[0] * b[1] * b[2]} threads; a CTA holds at most {MAX_THREADS_PER_CTA}")
    with young_gc():
        return _run_grid(program, g, b, launch, max_steps)


def _run_grid(program, g, b, launch, max_steps):
    t0, total, n = time.perf_counter(), 0, 0
    if launch.cluster_dims != (1, 1, 1):
        from warpsim.cluster import cluster_ctaids, run_cluster
        for ids in cluster_ctaids(g, launch.cluster_dims):
            total += run_cluster([CTA(program, c, g, b, launch) for c in ids], max_steps)
            n += len(ids)
        return Stats(total, n, time.perf_counter() - t0)
    for z in range(g[2]):
        for y in range(g[1]):
            for x in range(g[0]):
                total += CTA(program, (x, y, z), g, b, launch).run(max_steps)
                n += 1
    return Stats(total, n, time.perf_counter() - t0)
