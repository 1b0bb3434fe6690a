"""What the sm_90 table's non-tensor classes cost (``traces/h200/op_latency.json``, ``traces/capture/op_latency.py``,
``traces/capture/kernels/op_latency.ptx``), run by the GPU and by warpsim's timed engine from the same PTX file.

Each warp runs 33 trips of: a clock read, 16 steps of one kind, a clock read; it keeps the least, the greatest and
the sum of the trips after the first, and the clocks its second trip starts and its last one ends. A ``chain_*``
kernel's steps each read the last one's result, so a step is the latency of its instructions; a ``stream_*``
kernel's steps are 8 independent chains side by side, so with enough warps a step is the issue rate of its pipes;
``bar_sync``'s steps are ``bar.sync 0`` for every warp of the CTA; ``op_none`` is the two clock reads alone. One
CTA of 1, 2, 4, 8 or 16 warps.

    python -m warpsim.timing.op_latency [FILE]    # the GPU's cycles beside warpsim's (default: the H200 file)
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
PTX = os.path.join(REPO, "traces", "capture", "kernels", "op_latency.ptx")
PATH = os.path.join(REPO, "traces", "h200", "op_latency.json")


@dataclass(frozen=True)
class Kernel:
    what: str      #: a step, in PTX (and the SASS ptxas makes of it)
    ops: int       #: PTX instructions a step
    steps: int     #: steps a trip


#: kernel -> what its trips run
KERNELS = {
    "op_none": Kernel("nothing: the two clock reads", 0, 0),
    "chain_xor_add": Kernel("xor.b32 + add.u32 on the last result (LOP3.LUT + IMAD.IADD)", 2, 16),
    "chain_mad": Kernel("mad.lo.u32 on the last result (IMAD)", 1, 16),
    "chain_lop3": Kernel("two lop3.b32 on the last result and other words (LOP3.LUT, the ALU pipe alone)", 2, 16),
    "chain_add": Kernel("two add.u32 on the last result (ptxas fuses them: one IADD3)", 2, 16),
    "chain_setp_selp": Kernel("setp.lt.u32 + selp.b32 on the last result (ISETP + SEL)", 2, 16),
    "chain_fma": Kernel("fma.rn.f32 on the last result (FFMA)", 1, 16),
    "chain_div": Kernel("div.rn.f32 of the last result (MUFU.RCP, FCHK, 5 FFMA, a branch)", 1, 16),
    "chain_cvt_int": Kernel("cvt.rn.f32.s32 + cvt.rzi.s32.f32 (I2FP + F2I)", 2, 16),
    "chain_cvt_half": Kernel("cvt.rn.f16.f32 + cvt.f32.f16 (F2FP + HADD2.F32)", 2, 16),
    "chain_ld_shared": Kernel("ld.shared.u32 of the address it loaded (LDS), lanes on their own banks", 1, 16),
    "bar_sync": Kernel("bar.sync 0 (BAR.SYNC.DEFER_BLOCKING), every warp of the CTA", 1, 16),
    "stream_xor_add": Kernel("8 independent xor.b32 + add.u32 chains (LOP3.LUT + IMAD.IADD)", 16, 16),
    "stream_mad": Kernel("8 independent mad.lo.u32 chains (IMAD)", 8, 16),
    "stream_fma": Kernel("8 independent fma.rn.f32 chains (FFMA)", 8, 16),
    # pairs ptxas makes one instruction of (warpsim.timing.analysis.FUSED)
    "chain_lea": Kernel("shl.b32 + add.u32 on the last result (IMAD, now and then LEA)", 2, 16),
    "chain_lea_hi": Kernel("shr.u32 + add.u32 on the last result (LEA.HI)", 2, 16),
    "chain_lea_hi_sx": Kernel("shr.s32 + add.s32 on the last result (LEA.HI.SX32)", 2, 16),
    "chain_mul_add": Kernel("mul.lo.u32 + add.u32 on the last result (IMAD)", 2, 16),
    "chain_and_xor_add": Kernel("and.b32 + xor.b32 + add.u32 on the last result (LOP3.LUT + IMAD.IADD)", 3, 16),
    "chain_wide_add": Kernel("mul.wide.u32 of the low word + add.s64 on the last result (IMAD.WIDE.U32)", 2, 16),
    "chain_add64": Kernel("add.s64 on the last result (two of them: IADD3 + IADD3.X)", 1, 16),
    "stream_lea_hi": Kernel("8 independent shr.u32 + add.u32 chains (LEA.HI)", 16, 16),
    "stream_mul_add": Kernel("8 independent mul.lo.u32 + add.u32 chains (IMAD)", 16, 16),
    "stream_and_xor_add": Kernel("8 independent and.b32 + xor.b32 + add.u32 chains (LOP3.LUT + IMAD.IADD)", 24, 16),
    "stream_wide_add": Kernel("8 independent mul.wide.u32 + add.s64 chains (IMAD.WIDE.U32)", 16, 16),
    "stream_add64": Kernel("8 independent add.s64 chains (IADD3 + IADD3.X a pair of them)", 8, 16),
    "chase_global_wide": Kernel("and.b32 + mul.wide.u32 + add.s64 + ld.global.u32 of the address (LOP3.LUT, "
                                "IMAD.WIDE.U32, LDG: an L1 hit)", 4, 16),
    "chase_global_add64": Kernel("and.b32 + cvt.u64.u32 + add.s64 + ld.global.u32 of the address (LOP3.LUT, "
                                 "IADD3, IMAD.X, LDG: an L1 hit)", 4, 16),
}
WARPS = (1, 2, 4, 8, 16)
TRIPS = 32   #: the trips measured (the kernel runs one more first)
CLOCKS = 5   #: a warp's clocks: (least, greatest, sum) of its trips, its second trip's start, its last one's end


def inputs() -> np.ndarray:
    """The kernels' argument words: 32 integers, 32 more, every chain's start value (1.5 as an f32), then 64 more
    integers (lop3's other operands)."""
    lane = np.arange(32, dtype=np.uint32)
    return np.concatenate([lane * 7 + 3, lane * 13, np.full(32, 0x3FC00000, np.uint32), lane * 5 + 11,
                           lane * 29 + 1]).astype(np.uint32)


def load(path: str = PATH) -> dict:
    from warpsim.timing import measurement
    return measurement.load_warp_rows(path, "op_latency", KERNELS, WARPS, CLOCKS, f"{CLOCKS} clocks")


def stats(t) -> tuple[float, float]:
    """A launch's (cycles a trip, the mean over its warps; cycles a trip of the CTA, from the first warp's
    second trip to the last warp's end)."""
    t = np.asarray(t, np.int64)
    return float(np.mean(t[:, 2])) / TRIPS, float(t[:, 4].max() - t[:, 3].min()) / TRIPS


def measured(doc: dict) -> dict:
    """``{(kernel, warps): (trip, CTA trip)}``, the medians over the launches after the first."""
    from warpsim.timing import measurement
    return measurement.medians(doc["rows"], ("kernel", "warps"), stats)


def step_cycles(got: dict, kernel: str, warps: int, which: int = 0) -> float:
    """Cycles a step of ``kernel`` with ``warps`` warps (``got``: :func:`measured` or :func:`simulated`): its trip
    (``which`` 0) or the CTA's trip (1), less ``op_none``'s, over its steps."""
    return (got[(kernel, warps)][which] - got[("op_none", warps)][which]) / KERNELS[kernel].steps


def latency(got: dict, kernel: str, warps: int = 1) -> float:
    """The cycles from one PTX instruction of a chain kernel to the next, from its trip with ``warps`` warps: the
    trip less ``op_none``'s over the instructions of a trip but one (the second clock read waits neither for
    the last result nor, after a bar.sync, for the release: ``issue.barrier_defer``)."""
    k = KERNELS[kernel]
    return (got[(kernel, warps)][0] - got[("op_none", warps)][0]) / (k.ops * k.steps - 1)


def barrier_fit(got: dict) -> tuple[float, float]:
    """``(release, per_warp)``: the least-squares line of the cycles from one of ``bar_sync``'s barriers to the
    next (:func:`latency`) over the CTA's warps, as the table's ``issue.barrier`` reads it: a barrier unit that
    takes one arrival each ``per_warp`` cycles and releases the warps ``release`` cycles after it took the
    last."""
    w = np.array(WARPS, np.float64)
    y = np.array([latency(got, "bar_sync", n) for n in WARPS])
    per_warp, at0 = np.polyfit(w, y, 1)
    return float(at0), float(per_warp)


def simulate(kernel: str, warps: int, params=None, ptx: str = PTX) -> np.ndarray:
    """The kernel's clocks ([warp][least, greatest, sum, begin, end]) of the PTX file ``ptx`` run by warpsim (the
    H200's table, or ``params``)."""
    from warpsim.timing import measurement
    mod = measurement.h200_module(ptx, params=params)
    t = np.zeros(CLOCKS * warps, np.int64)
    mod.get_function(kernel)((1,), (32 * warps,), (inputs(), t, np.zeros(32 * warps, np.uint32)))
    return t.reshape(warps, CLOCKS)


def simulated(params=None, kernels=KERNELS, warps=WARPS) -> dict:
    """:func:`measured`'s keys of ``kernels`` (with op_none) from warpsim."""
    names = dict.fromkeys(["op_none", *kernels])
    return {(k, w): stats(simulate(k, w, params)) for k in names for w in warps}


def table(doc: dict | None = None, params=None) -> list[dict]:
    """A row a (kernel, warps): cycles a step on the GPU and in warpsim, of a warp's trip and of the CTA's."""
    got = measured(doc or load())
    sim = simulated(params)
    return [{"kernel": k, "warps": w,
             "gpu": (step_cycles(got, k, w), step_cycles(got, k, w, 1)),
             "warpsim": (step_cycles(sim, k, w), step_cycles(sim, k, w, 1))}
            for k in KERNELS if k != "op_none" for w in WARPS]


def main(argv=None) -> int:
    from warpsim.timing import measurement
    doc = measurement.opened(argv, __doc__, load, PATH)
    if doc is None:
        return 0
    got = measured(doc)
    print("latency of a chain's PTX instruction (one warp): "
          + ", ".join(f"{k[6:]} {latency(got, k):.2f}" for k in KERNELS if k.startswith("chain_")))
    print("bar.sync: release %.2f cycles after the last arrival is taken, %.3f cycles an arrival" % barrier_fit(got))
    print("cycles a step (a warp's trip / the CTA's trip, less op_none's, over 16 steps)")
    print(f"{'kernel':16} {'warps':>5} {'GPU warp':>9} {'CTA':>7} {'warpsim warp':>13} {'CTA':>7}")
    for r in table(doc):
        print(f"{r['kernel']:16} {r['warps']:5} {r['gpu'][0]:9.2f} {r['gpu'][1]:7.2f} {r['warpsim'][0]:13.2f} "
              f"{r['warpsim'][1]:7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
