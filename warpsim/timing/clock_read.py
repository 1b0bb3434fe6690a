"""How long a clock read waits after a tensor op (``traces/h200/clock_read.json``, ``traces/capture/clock_read.py``,
``traces/capture/kernels/clock_read.ptx``), run by the GPU and by warpsim's timed engine from the same PTX file.

Each trip of a warp's loop reads the clock, runs K mma of one form (each on the last one's accumulator) and
reads the clock again; the kernel keeps the least, the greatest and the mean of the two reads' difference over
32 trips (``clock_none``: K = 0). ``clock_use_U``: U dependent xor of the first read's value between the reads.
``clock_loop_*``: one read a trip, after K mma, its value xor-ed into a register; the difference is the trip.
One warp, or five (warps 0 and 4 on one sub-partition).

    python -m warpsim.timing.clock_read [FILE]    # the GPU's cycles beside warpsim's (default: the H200 file)
"""
from __future__ import annotations

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
PTX = os.path.join(REPO, "traces", "capture", "kernels", "clock_read.ptx")
PATH = os.path.join(REPO, "traces", "h200", "clock_read.json")
#: kernel -> (form, K): the mma each trip runs, and how many
KERNELS = {"clock_none": ("", 0),
           **{f"clock_sp_k16_{k}": ("sparse m16n8k16 f32", k) for k in (1, 2, 4)},
           **{f"clock_sp_k32_{k}": ("sparse m16n8k32 f32", k) for k in (1, 2, 4)},
           **{f"clock_k16_{k}": ("dense m16n8k16 f32", k) for k in (1, 2, 4)},
           **{f"clock_use_{u}": (f"{u} xor of the first read's value between", 0) for u in (1, 2)},
           **{f"clock_loop_{n}": ("one read a trip, after K sparse m16n8k16 f32", k)
              for n, k in (("0", 0), ("sp_k16_1", 1), ("sp_k16_8", 8))}}
WARPS = (1, 5)
TRIPS = 32  #: the trips measured (the kernel runs one more first)


def inputs() -> np.ndarray:
    """The operands' words: 8 a lane (A, then B), each two f16 ones."""
    return np.full(256, 0x3C003C00, np.uint32)


def load(path: str = PATH) -> dict:
    from warpsim.timing import measurement
    return measurement.load_warp_rows(path, "clock_read", KERNELS, WARPS, 3, "(least, greatest, sum)")


def stats(t) -> tuple[float, float, float]:
    """Warp 0's (least, greatest, mean) cycles between the two clock reads of a trip."""
    lo, hi, total = np.asarray(t, np.int64)[0]
    return float(lo), float(hi), float(total) / TRIPS


def measured(doc: dict) -> dict:
    """``{(kernel, warps): (least, greatest, mean)}``, the medians over the launches after the first."""
    from warpsim.timing import measurement
    return measurement.medians(doc["rows"], ("kernel", "warps"), stats)


def simulate(kernel: str, warps: int, params=None, ptx: str = PTX) -> np.ndarray:
    """The kernel's ``T`` ([warp][least, greatest, sum]) of the PTX file ``ptx`` run by warpsim (the H200's table,
    or ``params``)."""
    from warpsim.timing import measurement
    mod = measurement.h200_module(ptx, params=params)
    t = np.zeros(3 * warps, np.int64)
    mod.get_function(kernel)((1,), (32 * warps,), (inputs(), t, np.zeros(32 * warps, np.float32)))
    return t.reshape(warps, 3)


def table(doc: dict | None = None, params=None) -> list[dict]:
    got = measured(doc or load())
    return [{"kernel": k, "warps": w, "gpu": hw, "warpsim": stats(simulate(k, w, params))}
            for (k, w), hw in sorted(got.items(), key=lambda x: (list(KERNELS).index(x[0][0]), x[0][1]))]


def main(argv=None) -> int:
    from warpsim.timing import measurement
    doc = measurement.opened(argv, __doc__, load, PATH)
    if doc is None:
        return 0
    print(f"{'kernel':16} {'warps':>5} {'GPU least':>10} {'mean':>7} {'warpsim least':>14} {'mean':>7}")
    for r in table(doc):
        print(f"{r['kernel']:16} {r['warps']:5} {r['gpu'][0]:10.0f} {r['gpu'][2]:7.1f} {r['warpsim'][0]:14.0f} "
              f"{r['warpsim'][2]:7.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
