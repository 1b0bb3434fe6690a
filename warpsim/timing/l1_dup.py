"""Whether a warp's requests for sectors it is already fetching are fetched again (``traces/h200/l1_dup.json``,
``traces/capture/l1_dup.py``, ``traces/capture/kernels/l1_dup.ptx``), run by the GPU and by warpsim's timed engine
(as the H200) from the same PTX file. They are not: a request for a line being filled waits for that fill, and
what it costs past that is its wavefronts through the SM's data path (``memory["miss_wavefronts"]``).

Every warp of one CTA issues N independent loads (1-16), each request over P lines (1, 8 or 32, 256 bytes apart;
``_r128``: side by side), lines of its own: ``distinct`` each request other lines, ``same`` every request the same
words, ``sector`` the same lines, sector j % 4 of each; ``record`` the recorded timing kernels' loads (a lane's
record 40 bytes on from the last lane's, request j its word j; ``record_same``: every request word 0); ``s{S}``
S sectors of each of 8 lines (``shared``: every warp warp 0's words); ``b{B}`` lane l at B * l bytes. Set beside
each other, ``same`` and ``distinct`` say whether the L1 gives a warp's later request the fill its earlier one is
bringing (``same`` as fast as one request) or fetches the sectors again (as slow as ``distinct``), and, by the
lanes' bank conflicts, what each request costs; ``sector`` whether a miss brings the line's other sectors.

    python -m warpsim.timing.l1_dup [FILE]    # the GPU's cycles beside warpsim's (default: the H200 file)
"""
from __future__ import annotations

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
PTX = os.path.join(REPO, "traces", "capture", "kernels", "l1_dup.ptx")
PATH = os.path.join(REPO, "traces", "h200", "l1_dup.json")
COUNTS = (1, 2, 4, 8, 16)
STRIDES = (32, 36, 40, 44, 48, 64, 128)
SHAPES = (("distinct", (1, 8, 32)), ("same", (1, 8, 32)), ("sector", (8, 32)))
KERNELS = tuple(f"l1_dup_{mode}_n{n}_p{p}" for mode, ps in SHAPES for p in ps for n in COUNTS) \
    + tuple(f"l1_dup_{mode}_n{n}_p{p}_r128" for mode in ("distinct", "same") for p in (8, 32) for n in COUNTS) \
    + tuple(f"l1_dup_record_n{n}_p10" for n in (1, 2, 4, 8)) \
    + tuple(f"l1_dup_record_same_n{n}_p10" for n in (2, 4, 8)) \
    + tuple(f"l1_dup_s{s}_{mode}_n{n}" for mode in ("distinct", "same", "shared") for s in (1, 2, 3, 4)
            for n in (1, 2, 4, 8)) \
    + tuple(f"l1_dup_b{b}_{mode}_n{n}" for b in STRIDES for mode, ns in (("distinct", (1, 2, 8)), ("same", (2, 8)))
            for n in ns)
WARPS = (1, 2, 4, 8, 16)
ROW = 256
WORDS = 16 * 32 * 32 * ROW // 4


def simulate(kernel: str, warps: int, params=None) -> np.ndarray:
    """The clocks ``[warp][t0, t1]`` of the kernel run by warpsim as the H200 (or with ``params``)."""
    from warpsim.timing import measurement
    t = np.zeros((warps, 2), np.int64)
    mod = measurement.h200_module(PTX, params=params)
    fn = mod.get_function(kernel)
    fn((1, 1, 1), (32 * warps, 1, 1), (np.zeros(WORDS, np.uint32), t, np.zeros(32 * warps, np.uint32), np.int32(0)))
    return t


def cycles(t) -> tuple[float, float]:
    """``(CTA, warp)``, as :func:`warpsim.timing.gmem_rate.cycles`."""
    from warpsim.timing import gmem_rate
    return gmem_rate.cycles(t)


def load(path: str = PATH) -> dict:
    from warpsim.timing import measurement

    def bad(r):
        k, w = r.get("kernel"), r.get("warps")
        if k not in KERNELS:
            return f"a row of kernel {k!r}, not one of the {len(KERNELS)} kernels of l1_dup.ptx (KERNELS)"
        if w not in WARPS:
            return f"a row of kernel {k!r} with {w!r} warps, not one of {WARPS}"
        if measurement.shape(r.get("t")) != (w, 2):
            return f"a row of kernel {k!r} with {w} warps has not two clocks a warp"
    return measurement.load_rows(path, "l1_dup", bad)


def measured(doc: dict) -> dict:
    """``{(kernel, warps): (CTA, warp)}``, medians over the launches."""
    from warpsim.timing import measurement
    return measurement.medians(doc["rows"], ("kernel", "warps"), cycles, later=False)


def main(argv=None) -> int:
    from warpsim.timing import measurement
    doc = measurement.opened(argv, __doc__, load, PATH)
    if doc is None:
        return 0
    got = measured(doc)
    print(f"{'kernel':24} {'warps':>5} {'GPU CTA':>8} {'warpsim':>8} {'GPU warp':>9} {'warpsim':>8}")
    for k in KERNELS:
        for w in WARPS:
            hw = got.get((k, w))
            if hw is None:
                continue
            sim = cycles(simulate(k, w))
            print(f"{k:24} {w:5} {hw[0]:8.0f} {sim[0]:8.0f} {hw[1]:9.0f} {sim[1]:8.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
