"""What a loop's taken branch costs after a tail of work (``traces/h200/branch_tail.json``,
``traces/capture/branch_tail.py``, ``traces/capture/kernels/branch_tail.ptx``), run by the GPU and by warpsim's
timed engine from the same PTX file.

One warp, or 8 (two on each sub-partition). Each trip runs K sparse m16n8k16 f32 mma (each on the last one's
accumulator), reads the clock, then T dependent integer multiply-adds on the clock's value (``mad.lo.u32 y, y,
y, t``: nothing ptxas can fold), then the loop's count, compare and branch; one trip first, then 32 between two
clock reads. With K = 8 the trip is the mma chain's (8 x 16.75 cycles) while the tail and the branch's redirect
end before the last mma's result; from some T on it grows with T. The clock read waits for no mma
(``clock_read``), so the tail starts at the last mma's issue; where the trip starts to grow says what the branch
costs after the tail.

    python -m warpsim.timing.branch_tail [FILE]    # the GPU's cycles beside warpsim's (default: the H200 file)
"""
from __future__ import annotations

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
PTX = os.path.join(REPO, "traces", "capture", "kernels", "branch_tail.ptx")
PATH = os.path.join(REPO, "traces", "h200", "branch_tail.json")
#: kernel -> (K mma, T multiply-adds) a trip
KERNELS = {f"branch_tail_k{k}_t{t}": (k, t) for k in (1, 8) for t in (0, 1, 2, 3, 4, 6, 8, 12)}
WARPS = (1, 8)  #: one warp, or two on each sub-partition
TRIPS = 32  #: the trips between the two clock reads (the kernel runs one more first)


def inputs() -> np.ndarray:
    """The operands' words: 8 a lane (A, then B), each two f16 ones (as clock_read's)."""
    return np.full(256, 0x3C003C00, np.uint32)


def trip(t) -> float:
    """The cycles of one trip, the warps' mean: the two clock reads' difference over TRIPS (each slot of a warp's
    row of ``t`` holds it)."""
    return float(np.asarray(t, np.int64)[:, 0].mean()) / TRIPS


def load(path: str = PATH) -> dict:
    from warpsim.timing import measurement
    return measurement.load_warp_rows(path, "branch_tail", KERNELS, WARPS, 3, "the two clocks' difference three times")


def measured(doc: dict) -> dict:
    """``{(kernel, warps): (median trip, least trip)}`` over the launches after the first."""
    trips: dict = {}
    for r in doc["rows"]:
        if r["repeat"] > 0:
            trips.setdefault((r["kernel"], r["warps"]), []).append(trip(r["t"]))
    return {k: (float(np.median(v)), min(v)) for k, v in trips.items()}


def simulate(kernel: str, warps: int = 1, params=None) -> float:
    """The kernel's trip with ``warps`` warps run by warpsim (the H200's table, or ``params``)."""
    from warpsim.timing import clock_read
    return trip(clock_read.simulate(kernel, warps, params, PTX))


def table(doc: dict | None = None, params=None) -> list[dict]:
    got = measured(doc or load())
    return [{"kernel": k, "warps": w, "k": KERNELS[k][0], "t": KERNELS[k][1], "gpu": got[(k, w)],
             "warpsim": simulate(k, w, params)} for w in WARPS for k in KERNELS if (k, w) in got]


def main(argv=None) -> int:
    from warpsim.timing import measurement
    doc = measurement.opened(argv, __doc__, load, PATH)
    if doc is None:
        return 0
    print(f"{'kernel':20} {'warps':>5} {'K':>2} {'T':>3} {'GPU trip':>9} {'least':>7} {'warpsim':>8} {'error':>7}")
    for r in table(doc):
        print(f"{r['kernel']:20} {r['warps']:5} {r['k']:2} {r['t']:3} {r['gpu'][0]:9.2f} {r['gpu'][1]:7.2f} "
              f"{r['warpsim']:8.2f} {100 * (r['warpsim'] / r['gpu'][0] - 1):+6.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
