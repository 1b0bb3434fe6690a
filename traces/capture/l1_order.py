#!/usr/bin/env python3
"""In what order the L1 serves several warps' hits (kernels/l1_order.cu), run on the GPU from its PTX file
(``warpsim.timing.l1_order`` runs the same file). One CTA; every (stride, warps) of ``l1_order``, LAUNCHES
launches each after a first (kept, ``repeat`` 0) that brings the lines into the L2.

    python traces/capture/l1_order.py --build        # here: kernels/l1_order.ptx from the .cu
    python traces/capture/l1_order.py --device OUT   # on the GPU: OUT/l1_order.json
    python traces/capture/l1_order.py --json OUT     # here: traces/<gpu>/l1_order.json from OUT
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from spgemm_clock import analysis_module, build_ptx, main_cli, write_device_doc, write_summary  # noqa: E402

SOURCE = HERE / "kernels" / "l1_order.cu"
PTX = HERE / "kernels" / "l1_order.ptx"
LAUNCHES = 4


def device(out: Path) -> int:
    import cupy as cp
    lo = analysis_module("l1_order")
    fn = cp.RawModule(path=str(PTX)).get_function("l1_order")
    buf, sink = cp.zeros(lo.WORDS, cp.uint32), cp.zeros(2048, cp.uint32)
    rows = []
    for stride in lo.STRIDES:
        for warps in lo.WARPS:
            t = cp.zeros((warps, lo.N + 1), cp.int64)
            for rep in range(LAUNCHES + 1):
                fn((1,), (32 * warps,), (buf, t, sink, np.int32(stride), np.int32(lo.region(stride))))
                cp.cuda.Device().synchronize()
                rows.append({"stride": stride, "warps": warps, "repeat": rep, "t": t.get().tolist()})
    return write_device_doc(cp, out, "l1_order", rows=rows)


def summarise(out: Path) -> int:
    return write_summary(out, "l1_order", "kernels/l1_order.ptx loaded with cupy.RawModule(path=...), one CTA, "
                         f"{LAUNCHES + 1} launches of each (stride, warps) back to back", ("rows",))


if __name__ == "__main__":
    raise SystemExit(main_cli(__doc__, lambda: build_ptx(SOURCE, PTX), device, summarise))
