"""Which warps' loads of the same lines share the L1's fill (``traces/h200/l1_merge.json``,
``traces/capture/l1_merge.py``, ``traces/capture/kernels/l1_merge.ptx``), run by the GPU and by warpsim's timed
engine (as the H200) from the same PTX file.

Every warp of one CTA issues N independent loads (1, 4 or 16), each request over P lines (1, 8 or 32), from the
lines of group warp % G: :data:`CONFIGS` pairs a CTA's warps W with G (G = W: every warp its own lines; G = 1:
all the same lines; G = 4 with 8 warps: the two warps of each sub-partition the same). Set beside each other,
the same W with G = W and G = 1 say whether a line another warp is already fetching is fetched again.

    python -m warpsim.timing.l1_merge [FILE]    # the GPU's cycles beside warpsim's (default: the H200 file)
"""
from __future__ import annotations

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
PTX = os.path.join(REPO, "traces", "capture", "kernels", "l1_merge.ptx")
PATH = os.path.join(REPO, "traces", "h200", "l1_merge.json")
KERNELS = tuple(f"l1_merge_n{n}_p{p}" for p in (1, 8, 32) for n in (1, 4, 16))
#: (warps, groups)
CONFIGS = ((1, 1), (2, 2), (2, 1), (4, 4), (4, 1), (8, 8), (8, 4), (8, 1), (16, 16), (16, 1))
ROW = 256
WORDS = 16 * 32 * 32 * ROW // 4


def simulate(kernel: str, warps: int, groups: int) -> np.ndarray:
    """The clocks ``[warp][t0, t1]`` of the kernel run by warpsim as the H200."""
    from warpsim.timing import measurement
    t = np.zeros((warps, 2), np.int64)
    fn = measurement.h200_module(PTX).get_function(kernel)
    fn((1, 1, 1), (32 * warps, 1, 1), (np.zeros(WORDS, np.uint32), t, np.zeros(32 * warps, np.uint32),
                                       np.int32(groups)))
    return t


def cycles(t) -> tuple[float, float]:
    """``(CTA, warp)``: the warps' first clock to their last, and the mean of each warp's two clocks apart."""
    t = np.asarray(t, np.int64)
    return float(t[:, 1].max() - t[:, 0].min()), float(np.mean(t[:, 1] - t[:, 0]))


def load(path: str = PATH) -> dict:
    from warpsim.timing import measurement

    def bad(r):
        if r.get("kernel") not in KERNELS or (r.get("warps"), r.get("groups")) not in CONFIGS \
                or measurement.shape(r.get("t")) != (r.get("warps"), 2):
            return (f"a row of kernel {r.get('kernel')!r} is not one of {', '.join(KERNELS)} with warps and groups "
                    "of CONFIGS and two clocks a warp")
    return measurement.load_rows(path, "l1_merge", bad)


def measured(doc: dict) -> dict:
    """``{(kernel, warps, groups): (CTA, warp)}``, medians over the launches."""
    from warpsim.timing import measurement
    return measurement.medians(doc["rows"], ("kernel", "warps", "groups"), cycles, later=False)


def main(argv=None) -> int:
    from warpsim.timing import measurement
    doc = measurement.opened(argv, __doc__, load, PATH)
    if doc is None:
        return 0
    got = measured(doc)
    print(f"{'kernel':16} {'warps':>5} {'groups':>6} {'GPU CTA':>8} {'warpsim':>8} {'GPU warp':>9} {'warpsim':>8}")
    for k in KERNELS:
        for w, g in CONFIGS:
            hw = got.get((k, w, g))
            if hw is None:
                continue
            sim = cycles(simulate(k, w, g))
            print(f"{k:16} {w:5} {g:6} {hw[0]:8.0f} {sim[0]:8.0f} {hw[1]:9.0f} {sim[1]:8.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
