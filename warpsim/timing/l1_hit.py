"""What an L1 hit costs by the request's shape (``traces/h200/l1_hit.json``, ``traces/capture/l1_hit.py``,
``traces/capture/kernels/l1_hit.ptx``), run by the GPU and by warpsim's timed engine (as the H200) from the same
PTX file.

Each lane loads 4-byte words ``stride`` bytes apart, so the stride sets a request's lines, sectors and bank
conflicts (:func:`shape`): 0 one word for all, 4 one line, 36 / 132 ten / 32 lines without a conflict, 40 / 136
the same lines 2 ways, 128 / 160 32 lines 32 / 8 ways. A first pass loads the words and waits for them; the
second, between two clock reads, loads them again from the L1: N independent requests (``l1_hit_n{N}``) or 8
each waiting for the last (``l1_chain_n8``). One CTA, one warp for every stride, 2-16 warps for some, every warp
the same lines (``groups`` 1) or its own.

    python -m warpsim.timing.l1_hit [FILE]    # the GPU's cycles beside warpsim's (default: the H200 file)
"""
from __future__ import annotations

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
PTX = os.path.join(REPO, "traces", "capture", "kernels", "l1_hit.ptx")
PATH = os.path.join(REPO, "traces", "h200", "l1_hit.json")
KERNELS = {"l1_hit_n1": 1, "l1_hit_n4": 4, "l1_hit_n16": 16, "l1_chain_n8": 8}
STRIDES = (0, 4, 8, 16, 32, 36, 40, 64, 68, 128, 132, 136, 160)
WARPS = (2, 4, 8, 16)
MANY = (("l1_hit_n16", "l1_chain_n8"), (4, 40, 128, 132))  #: the kernels and strides run with several warps
OWN_BYTES = 128 * 1024  #: the most the warps' own lines may span (the L1 holds them all)
WORDS = 16 * 16 * 5632 // 4


def region(stride: int) -> int:
    """Bytes between a lane's requests: the lines a request spans and one more."""
    return 256 * (-(-(32 * stride + 4) // 256)) + 256


def configs() -> list[tuple]:
    """``(kernel, stride, warps, groups)`` of every run: one warp of every kernel and stride; 2-16 warps of the
    kernels and strides of :data:`MANY`, all the same lines and, where the L1 holds them, each warp its own."""
    out = [(k, s, 1, 1) for k in KERNELS for s in STRIDES]
    for k in MANY[0]:
        for s in MANY[1]:
            for w in WARPS:
                out.append((k, s, w, 1))
                if w * KERNELS[k] * region(s) <= OWN_BYTES:
                    out.append((k, s, w, w))
    return out


def shape(stride: int) -> tuple[int, int, int]:
    """``(lines, sectors, wavefronts)`` of one request of the stride: 128-byte lines, 32-byte sectors, and the most
    distinct words in one of the 32 banks."""
    a = np.arange(32, dtype=np.int64) * stride
    words = np.unique(a >> 2)
    return len(np.unique(a >> 7)), len(np.unique(a >> 5)), int(np.bincount(words & 31).max())


def arguments(stride: int, warps: int, groups: int):
    """The kernel's arguments but the clocks: ``(buf, sink, stride, region, groups)``."""
    return (np.zeros(WORDS, np.uint32), np.zeros(2048, np.uint32), np.int32(stride), np.int32(region(stride)),
            np.int32(groups))


def simulate(kernel: str, stride: int, warps: int, groups: int, params=None) -> np.ndarray:
    """The clocks ``[warp][t0, t1]`` of the kernel run by warpsim (as the H200 unless ``params`` is given)."""
    from warpsim.timing import measurement
    t = np.zeros((warps, 2), np.int64)
    buf, sink, *rest = arguments(stride, warps, groups)
    mod = measurement.h200_module(PTX, params=params)
    mod.get_function(kernel)((1, 1, 1), (32 * warps, 1, 1), (buf, t, sink, *rest))
    return t


def cycles(t) -> float:
    """A warp's cycles between its two clock reads, the mean over the warps."""
    from warpsim.timing import measurement
    return measurement.warp_cycles(t)


def load(path: str = PATH) -> dict:
    from warpsim.timing import measurement
    known = set(configs())

    def bad(r):
        key = (r.get("kernel"), r.get("stride"), r.get("warps"), r.get("groups"))
        if key not in known or measurement.shape(r.get("t")) != (r.get("warps"), 2):
            return f"a row ({', '.join(map(repr, key))}) is not one of l1_hit.configs() with two clocks a warp"
    return measurement.load_rows(path, "l1_hit", bad)


def measured(doc: dict) -> dict:
    """``{(kernel, stride, warps, groups): cycles}``, the median over the launches after the first."""
    from warpsim.timing import measurement
    return measurement.medians(doc["rows"], ("kernel", "stride", "warps", "groups"))


def main(argv=None) -> int:
    from warpsim.timing import measurement
    doc = measurement.opened(argv, __doc__, load, PATH)
    if doc is None:
        return 0
    got = measured(doc)
    print(f"{'kernel':12} {'stride':>6} {'lines':>5} {'sect':>4} {'wf':>3} {'warps':>5} {'groups':>6} "
          f"{'GPU':>7} {'warpsim':>8}")
    for k, s, w, g in configs():
        if (k, s, w, g) in got:
            lines, sectors, wf = shape(s)
            print(f"{k:12} {s:6} {lines:5} {sectors:4} {wf:3} {w:5} {g:6} {got[(k, s, w, g)]:7.1f} "
                  f"{cycles(simulate(k, s, w, g)):8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
