"""In what order the L1 serves several warps' hits (``traces/h200/l1_order.json``, ``traces/capture/l1_order.py``,
``traces/capture/kernels/l1_order.ptx``), run by the GPU and by warpsim's timed engine (as the H200) from the same
PTX file.

Every warp of one CTA loads the same 16 requests (lanes ``stride`` bytes apart: 4 one line, 40 ten lines 2 ways,
132 32 lines, 128 32 lines 32 ways), once into the L1 and once timed: the 16 loads issue, then the warp takes
their words in order and reads the clock after each. If the L1 serves the warps' requests in turn, request by
request, every warp's last request comes back near the end and the warps' last reads fall close together; if
warp by warp, they spread over the run. The figures: the spread of the warps' last reads (the last less the
first) and the CTA's run (its first warp's start to its last warp's last read). (The first reads are no
measure here: ptxas issues the first-read word's load first, where the PTX, and so warpsim, has it last.)

    python -m warpsim.timing.l1_order [FILE]    # the GPU's cycles beside warpsim's (default: the H200 file)
"""
from __future__ import annotations

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
PTX = os.path.join(REPO, "traces", "capture", "kernels", "l1_order.ptx")
PATH = os.path.join(REPO, "traces", "h200", "l1_order.json")
N = 16
STRIDES = (4, 40, 128, 132)
WARPS = (1, 4, 8, 16)
WORDS = N * 5632 // 4


def region(stride: int) -> int:
    """Bytes between a lane's requests: the lines a request spans and one more."""
    return 256 * (-(-(32 * stride + 4) // 256)) + 256


def simulate(stride: int, warps: int) -> np.ndarray:
    """The clocks ``[warp][17]`` of the kernel run by warpsim as the H200."""
    from warpsim.timing import measurement
    t = np.zeros(warps * (N + 1), np.int64)
    measurement.h200_module(PTX).get_function("l1_order")(
        (1, 1, 1), (32 * warps, 1, 1),
        (np.zeros(WORDS, np.uint32), t, np.zeros(2048, np.uint32), np.int32(stride), np.int32(region(stride))))
    return t.reshape(warps, N + 1)


def spans(t) -> tuple[float, float]:
    """``(the spread of the warps' last reads, the CTA's run)`` of one launch's clocks ``[warp][17]``."""
    t = np.asarray(t, np.int64)
    return float(np.ptp(t[:, N])), float(t[:, N].max() - t[:, 0].min())


def load(path: str = PATH) -> dict:
    from warpsim.timing import measurement

    def bad(r):
        if r.get("stride") not in STRIDES or r.get("warps") not in WARPS \
                or measurement.shape(r.get("t")) != (r.get("warps"), N + 1):
            return (f"a row (stride {r.get('stride')!r}, {r.get('warps')!r} warps) is not of STRIDES and WARPS with "
                    f"{N + 1} clocks a warp")
    return measurement.load_rows(path, "l1_order", bad)


def measured(doc: dict) -> dict:
    """``{(stride, warps): (last reads' spread, run)}``, medians over the launches after the first."""
    from warpsim.timing import measurement
    return measurement.medians(doc["rows"], ("stride", "warps"), spans)


def main(argv=None) -> int:
    from warpsim.timing import measurement
    doc = measurement.opened(argv, __doc__, load, PATH)
    if doc is None:
        return 0
    got = measured(doc)
    print(f"{'stride':>6} {'warps':>5} {'GPU ends':>9} {'run':>6} {'ends/run':>8} {'warpsim ends':>13} {'run':>6} "
          f"{'ends/run':>8}")
    for s in STRIDES:
        for w in WARPS:
            if (s, w) in got:
                hs, hr = got[(s, w)]
                ss, sr = spans(simulate(s, w))
                print(f"{s:6} {w:5} {hs:9.0f} {hr:6.0f} {hs / hr:8.2f} {ss:13.0f} {sr:6.0f} {ss / sr:8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
