"""The recorded timing kernels' loads, with and without the warps sharing them (``traces/h200/record_merge.json``,
``traces/capture/record_merge.py``, ``traces/capture/kernels/record_merge.ptx``), run by the GPU and by warpsim's
timed engine (as the H200) from the same PTX file.

Each lane reads a record of 10 words as the timing kernels read their fragments (``in + lane * 10``): the last 4
before the first clock read (waited for), the first 6 between the two reads. ``own`` 0: every warp the same
records, as recorded; 1: each warp its own. One CTA of 1-16 warps, after the L1 reset and back to back. The
figures are a warp's cycles between its two clock reads (the mean over the warps, then the median over the
launches).

    python -m warpsim.timing.record_merge [FILE]    # the GPU's cycles beside warpsim's (default: the H200 file)
"""
from __future__ import annotations

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
PTX = os.path.join(REPO, "traces", "capture", "kernels", "record_merge.ptx")
PATH = os.path.join(REPO, "traces", "h200", "record_merge.json")
WARPS = (1, 2, 4, 8, 12, 16)
BEFORE = ("l1-reset", "none")
WORDS = 16 * 32 * 10


def inputs() -> np.ndarray:
    return np.arange(WORDS, dtype=np.uint32) * np.uint32(2654435761)


def simulate(warps: int, own: int, params=None) -> np.ndarray:
    """The clocks ``[warp][t0, t1]`` of the kernel run by warpsim (as the H200 unless ``params`` is given)."""
    from warpsim.timing import measurement
    t = np.zeros((warps, 2), np.int64)
    mod = measurement.h200_module(PTX, params=params)
    mod.get_function("record_merge")((1, 1, 1), (32 * warps, 1, 1),
                                     (inputs(), t, np.zeros(2048, np.uint32), np.int32(own)))
    return t


def cycles(t) -> float:
    """A warp's cycles between its two clock reads, the mean over the warps."""
    from warpsim.timing import measurement
    return measurement.warp_cycles(t)


def load(path: str = PATH) -> dict:
    from warpsim.timing import measurement

    def bad(r):
        if r.get("warps") not in WARPS or r.get("own") not in (0, 1) or r.get("before") not in BEFORE \
                or measurement.shape(r.get("t")) != (r.get("warps"), 2):
            return (f"a row ({r.get('warps')!r} warps, own {r.get('own')!r}, before {r.get('before')!r}) is not "
                    "of WARPS, own 0/1 and BEFORE with two clocks a warp")
    return measurement.load_rows(path, "record_merge", bad)


def measured(doc: dict) -> dict:
    """``{(warps, own, before): cycles}``, the median over the launches after the first."""
    from warpsim.timing import measurement
    return measurement.medians(doc["rows"], ("warps", "own", "before"))


def main(argv=None) -> int:
    from warpsim.timing import measurement
    doc = measurement.opened(argv, __doc__, load, PATH)
    if doc is None:
        return 0
    got = measured(doc)
    print(f"{'warps':>5} {'own':>4} {'GPU l1-reset':>13} {'GPU none':>9} {'warpsim':>8}")
    for w in WARPS:
        for own in (0, 1):
            print(f"{w:5} {own:4} {got.get((w, own, 'l1-reset'), float('nan')):13.0f} "
                  f"{got.get((w, own, 'none'), float('nan')):9.0f} {cycles(simulate(w, own)):8.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
