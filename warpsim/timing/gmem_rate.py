"""The SM's global-memory path under load (``traces/h200/gmem_rate.json``, ``traces/capture/gmem_rate.py``,
``traces/capture/kernels/gmem_rate.ptx``), run by the GPU and by warpsim's timed engine from the same PTX file.

Every warp of one CTA (1-16 warps) issues 32 independent 4-byte global loads or stores between two clock reads,
its own addresses, each request spread over P lines: P = 1 (the warp's 128 bytes in one line, 4 sectors), 8 (16
bytes in each of 8 lines, as the sparse GEMM's A fragments), 32 (4 bytes in each of 32 lines). ``load``: from the
L2 (the L1 reset before every launch); ``hit``: the same loads twice, the second pass timed (L1 hits);
``store``: the second clock reads when the last store has issued; ``pair``: loads from the L2 with warps 2k and
2k + 1 loading the same lines (the H200 takes as long as for lines of their own; the engine does not: see
tests/test_timing_realistic.py). Per kernel and warp count the cycles of the
CTA (its warps' first clock to their last) and of a warp (the mean), GPU beside warpsim.

    python -m warpsim.timing.gmem_rate [FILE]    # the GPU's cycles beside warpsim's (default: the H200 file)
"""
from __future__ import annotations

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
PTX = os.path.join(REPO, "traces", "capture", "kernels", "gmem_rate.ptx")
PATH = os.path.join(REPO, "traces", "h200", "gmem_rate.json")
KERNELS = tuple(f"gmem_{op}_p{p}" for op in ("load", "store", "hit") for p in (1, 8, 32)) + ("gmem_pair_p8",
                                                                                          "gmem_pair_p32")
WARPS = (1, 2, 4, 8, 16)
ROW = 256
WORDS = 16 * 32 * 32 * ROW // 4  # the buffer: 16 warps' lines


def simulate(kernel: str, warps: int) -> np.ndarray:
    """The clocks ``[warp][t0, t1]`` of the kernel run by warpsim (one CTA of ``warps`` warps)."""
    from warpsim.timing import measurement
    t = np.zeros((warps, 2), np.int64)
    fn = measurement.h200_module(PTX).get_function(kernel)
    fn((1, 1, 1), (32 * warps, 1, 1), (np.zeros(WORDS, np.uint32), t, np.zeros(32 * warps, np.uint32)))
    return t


def cycles(t) -> tuple[float, float]:
    """``(CTA, warp)``: the warps' first clock to their last, and the mean of each warp's two clocks apart."""
    t = np.asarray(t, np.int64)
    return float(t[:, 1].max() - t[:, 0].min()), float(np.mean(t[:, 1] - t[:, 0]))


def load(path: str = PATH) -> dict:
    from warpsim.timing import measurement

    def bad(r):
        if r.get("kernel") not in KERNELS or measurement.shape(r.get("t")) != (r.get("warps"), 2):
            return f"a row of kernel {r.get('kernel')!r} is not one of {', '.join(KERNELS)} with two clocks a warp"
    return measurement.load_rows(path, "gmem_rate", bad)


def measured(doc: dict) -> dict:
    """``{(kernel, warps): (CTA, warp)}``, medians over the launches."""
    from warpsim.timing import measurement
    return measurement.medians(doc["rows"], ("kernel", "warps"), cycles, later=False)


def table(doc: dict | None = None) -> list[dict]:
    doc = doc or load()
    return [{"kernel": k, "warps": w, "gpu": hw, "warpsim": cycles(simulate(k, w))}
            for (k, w), hw in sorted(measured(doc).items(), key=lambda x: (KERNELS.index(x[0][0]), x[0][1]))]


def main(argv=None) -> int:
    from warpsim.timing import measurement
    doc = measurement.opened(argv, __doc__, load, PATH)
    if doc is None:
        return 0
    print(f"{'kernel':16} {'warps':>5} {'GPU CTA':>9} {'warpsim':>9} {'GPU warp':>9} {'warpsim':>9}")
    for r in table(doc):
        print(f"{r['kernel']:16} {r['warps']:5} {r['gpu'][0]:9.0f} {r['warpsim'][0]:9.0f} {r['gpu'][1]:9.0f} "
              f"{r['warpsim'][1]:9.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
