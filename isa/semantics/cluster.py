"""Cluster instructions (PTX ISA 9.7.13.1 barrier.cluster, 9.7.9.23 mapa): what a cluster of CTAs needs to
synchronise and to name a peer CTA's shared memory (the CTA pair of tcgen05 cta_group::2).

``barrier.cluster.arrive`` marks the warp's arrival for the current phase; ``barrier.cluster.wait``
blocks until every non-exited thread of the cluster has arrived (warps count as wholes; ``.aligned``
forms need the whole warp). ``mapa.shared::cluster`` maps a shared::cta address of the executing CTA to
the same variable in the CTA of rank ``b`` (warpsim.cluster explains the address encoding).
"""
from __future__ import annotations

import numpy as np

from isa.semantics.common import bad, decoded, nops, unsupported
from isa.semantics.registry import semantics


def _decode_barrier(ins):
    mods = list(ins.mods)
    if mods[:1] != ["cluster"] or len(mods) < 2 or mods[1] not in ("arrive", "wait"):
        unsupported(ins, None, expected="barrier.cluster.arrive{.release|.relaxed}{.aligned} or "
                                        "barrier.cluster.wait{.acquire}{.aligned}")
    op = mods[1]
    legal = ("aligned", "release", "relaxed") if op == "arrive" else ("aligned", "acquire")
    extra = [m for m in mods[2:] if m not in legal]
    if extra:
        unsupported(ins, "qualifier ." + " .".join(extra))
    nops(ins, 0)
    return op


@semantics("barrier", syntax="barrier.cluster.arrive{.release|.relaxed}{.aligned};  barrier.cluster.wait{.acquire}"
                             "{.aligned};", timing="barrier", when=lambda ins: "cluster" in ins.mods)
@decoded(_decode_barrier)
def barrier_cluster(ctx, ins, op):
    live = getattr(ctx, "live", None)
    if "aligned" in ins.modset and live is not None and (live & ~ctx.active).any():
        ctx.undefined(f"barrier.cluster.{op}.aligned executed by part of the warp (PTX ISA 9.7.13.1)",
                      lanes=live & ~ctx.active)
    cl = ctx.tcgen05().cluster
    if op == "arrive":
        cl.cluster_arrive(ctx)
    else:
        cl.cluster_wait(ctx)


def _decode_mapa(ins):
    mods = list(ins.mods)
    types = [m for m in mods if m in ("u32", "u64")]
    if "shared::cluster" not in mods or len(types) != 1 or len(mods) != 2:
        unsupported(ins, None, expected="mapa.shared::cluster.u32/.u64 d, a, b (generic mapa is not modelled)")
    nops(ins, 3)
    return types[0]


@semantics("mapa", syntax="mapa.shared::cluster.type d, a, b;  (.u32 .u64)", timing="alu")
@decoded(_decode_mapa)
def mapa(ctx, ins, t):
    o = ins.operands
    if getattr(o[1], "name", None) is not None and ctx.symbol(o[1].name) is not None:
        a = np.full(32, ctx.symbol(o[1].name)[1], np.uint64)
    else:
        a = ctx.read(o[1], t).astype(np.uint64)
    rank = ctx.read(o[2], "u32").astype(np.uint64)
    cl = ctx.tcgen05().cluster
    bad_rank = ctx.active & (rank >= cl.size)
    if bad_rank.any():
        ctx.undefined(f"mapa: CTA rank outside the cluster (ranks 0..{cl.size - 1}, PTX ISA 9.7.9.23)",
                      lanes=bad_rank, value=rank)
    from_rank = a >> np.uint64(24)
    if (ctx.active & (from_rank != 0) & (from_rank - np.uint64(1) != np.uint64(ctx.tcgen05().cta.rank))).any():
        bad(ins, "operand a must be a shared::cta address (or a shared::cluster address of this CTA)")
    off = a & np.uint64((1 << 24) - 1)
    ctx.write(o[0], (off | ((rank + np.uint64(1)) << np.uint64(24))).astype(np.uint64), t)
