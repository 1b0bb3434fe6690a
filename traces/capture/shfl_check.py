#!/usr/bin/env python3
"""shfl.sync on the GPU, lane by lane (kernels/shfl.ptx: one kernel a mode), for tests/test_shfl.py to hold warpsim
to: each mode with b and c over the lane offsets, clamps and segment masks the CUDA idioms use, 40 random 32-bit
pairs (seed 7), and half the warp shuffling within itself (membermask 0xffff). A row a launch: its kernel, b, c,
membermask, the lanes that run it (lane < live) and the 64 words it stored (each lane's value and predicate).

    python traces/capture/shfl_check.py --device OUT   # on the GPU: OUT/shfl.json
    python traces/capture/shfl_check.py --json OUT     # here: traces/<gpu>/shfl.json from OUT
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from spgemm_clock import main_cli, write_device_doc, write_summary  # noqa: E402

PTX = HERE / "kernels" / "shfl.ptx"
MODES = ("up", "down", "bfly", "idx")
FIXED = [(b, c) for b in (0, 1, 2, 3, 4, 5, 8, 16, 17, 31, 32, 33) for c in (0, 0x1F, 0x181F, 0x1C1F, 0x1007, 0x1E00)]


def cases() -> list[tuple]:
    """``(mode, b, c, membermask, live)`` of every launch."""
    rng = np.random.default_rng(7)
    rand = [(int(b), int(c)) for b, c in rng.integers(0, 2**32, size=(40, 2), dtype=np.uint64)]
    full = [(m, b, c, 0xFFFFFFFF, 32) for m in MODES for b, c in FIXED + rand]
    half = [(m, b, c, 0x0000FFFF, 16) for m in MODES for b, c in ((1, 0x1F), (3, 0x1F), (2, 0x181F), (5, 0x0F))]
    return full + half


def device(out: Path) -> int:
    import cupy as cp
    mod = cp.RawModule(path=str(PTX))
    rows = []
    for mode, b, c, mask, live in cases():
        d = cp.zeros(64, cp.uint32)
        mod.get_function(f"shfl_{mode}")((1,), (32,), (d, np.uint32(b), np.uint32(c), np.uint32(mask), np.uint32(live)))
        cp.cuda.Device().synchronize()
        rows.append({"kernel": f"shfl_{mode}", "b": b, "c": c, "mask": mask, "live": live, "out": d.get().tolist()})
    return write_device_doc(cp, out, "shfl", rows=rows)


def summarise(out: Path) -> int:
    return write_summary(out, "shfl", "kernels/shfl.ptx loaded with cupy.RawModule(path=...), one warp a launch",
                         ("rows",))


if __name__ == "__main__":
    raise SystemExit(main_cli(__doc__, lambda: print("kernels/shfl.ptx is PTX written by hand: nothing to build") or 0,
                              device, summarise))
