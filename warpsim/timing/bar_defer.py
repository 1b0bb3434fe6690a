"""What a warp issues after ``bar.sync`` before the barrier releases it (``traces/h200/bar_defer.json``,
``traces/capture/bar_defer.py``, ``traces/capture/kernels/bar_defer.ptx``), run by the GPU and by warpsim's timed
engine from the same PTX file.

ptxas makes ``bar.sync`` a ``BAR.SYNC.DEFER_BLOCKING``. Each trip, warp w runs w x SKEW dependent ``mad.lo.u32``
(SKEW 0 or 32: the warps arrive together, or about 128 cycles apart, warp 0 first), then reads the clock, runs
``bar.sync 0`` and one kind of work (:data:`KERNELS`), and reads the clock again; the ``pre_*`` kernels put a
shared store or a global load between the first clock read and the barrier. A warp keeps the least, the
greatest and the sum of the two reads' difference over 16 trips (after a first). One CTA of 1, 4 or 8 warps.

    python -m warpsim.timing.bar_defer [FILE]    # the GPU's cycles beside warpsim's (default: the H200 file)
"""
from __future__ import annotations

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
PTX = os.path.join(REPO, "traces", "capture", "kernels", "bar_defer.ptx")
PATH = os.path.join(REPO, "traces", "h200", "bar_defer.json")
#: what follows the bar.sync before the second clock read
AFTER = {"none": "nothing", "alu": "4 dependent xor.b32 + add.u32", "lds": "an ld.shared (its value not waited for)",
         "sts": "an st.shared", "ldg": "an ld.global (an L1 hit; its value not waited for)",
         "bar": "a second bar.sync (barrier 1)", "bra": "a taken branch over 32 instructions",
         "shfl": "a shfl.sync (its value not waited for)", "mma": "an mma.sp m16n8k16 (its result not waited for)"}
SKEWS = (0, 32)
#: kernel -> (what follows the bar.sync: a key of AFTER, SKEW, what precedes it: a key of AFTER)
KERNELS = {**{f"bar_{a}_{s}": (a, s, "none") for a in AFTER for s in SKEWS},
           "pre_sts_none": ("none", 0, "sts"), "pre_sts_lds": ("lds", 0, "sts"), "pre_ldg_lds": ("lds", 0, "ldg")}
WARPS = (1, 4, 8)
TRIPS = 16   #: the trips measured (the kernel runs one more first)
CLOCKS = 5   #: a warp's clocks: (least, greatest, sum) of its trips, its second trip's start, its last one's end


def inputs() -> np.ndarray:
    """The kernels' argument words: 32 integers, 32 more, then 32 words the global loads read."""
    lane = np.arange(32, dtype=np.uint32)
    return np.concatenate([lane * 7 + 3, lane * 13, lane + 1]).astype(np.uint32)


def load(path: str = PATH) -> dict:
    from warpsim.timing import measurement
    return measurement.load_warp_rows(path, "bar_defer", KERNELS, WARPS, CLOCKS, f"{CLOCKS} clocks")


def stats(t) -> tuple:
    """A launch's mean cycles from the clock read before the bar.sync to the one after, each warp's."""
    return tuple(float(x) / TRIPS for x in np.asarray(t, np.int64)[:, 2])


def measured(doc: dict) -> dict:
    """``{(kernel, warps): (warp 0's cycles, warp 1's, ...)}``, the medians over the launches after the first."""
    from warpsim.timing import measurement
    got = measurement.medians(doc["rows"], ("kernel", "warps"), stats)
    return {k: v if isinstance(v, tuple) else (v,) for k, v in got.items()}


def simulate(kernel: str, warps: int, params=None, ptx: str = PTX) -> tuple:
    """:func:`stats` of the kernel run by warpsim from the PTX file ``ptx`` (the H200's table, or ``params``)."""
    from warpsim.timing import measurement
    mod = measurement.h200_module(ptx, params=params)
    t = np.zeros(CLOCKS * warps, np.int64)
    mod.get_function(kernel)((1,), (32 * warps,), (inputs(), t, np.zeros(32 * warps, np.uint32)))
    return stats(t.reshape(warps, CLOCKS))


def table(doc: dict | None = None, params=None) -> list[dict]:
    """A row a (kernel, warps): each warp's cycles from before the bar.sync to after its work, GPU and warpsim."""
    got = measured(doc or load())
    return [{"kernel": k, "warps": w, "gpu": got[(k, w)], "warpsim": simulate(k, w, params)}
            for k in KERNELS for w in WARPS if (k, w) in got]


def main(argv=None) -> int:
    from warpsim.timing import measurement
    doc = measurement.opened(argv, __doc__, load, PATH)
    if doc is None:
        return 0
    print("cycles from the clock read before bar.sync to the one after its work, by warp: GPU | warpsim")
    for r in table(doc):
        print(f"{r['kernel']:12} {r['warps']:2}  " + " ".join(f"{x:6.1f}" for x in r["gpu"]) + "  |  "
              + " ".join(f"{x:6.1f}" for x in r["warpsim"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
