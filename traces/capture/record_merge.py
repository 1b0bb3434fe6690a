#!/usr/bin/env python3
"""The recorded timing kernels' loads, with and without the warps sharing them (kernels/record_merge.cu), run on
the GPU from its PTX file (``warpsim.timing.record_merge`` runs the same file). One CTA of each of
``record_merge.WARPS`` warps, every warp the same records or its own, after the L1 reset and back to back: a
first launch, then LAUNCHES, all kept (``repeat``).

    python traces/capture/record_merge.py --build        # here: kernels/record_merge.ptx from the .cu
    python traces/capture/record_merge.py --device OUT   # on the GPU: OUT/record_merge.json
    python traces/capture/record_merge.py --json OUT     # here: traces/<gpu>/record_merge.json from OUT
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from spgemm_clock import analysis_module, build_ptx, main_cli, write_device_doc, write_summary  # noqa: E402

SOURCE = HERE / "kernels" / "record_merge.cu"
PTX = HERE / "kernels" / "record_merge.ptx"
LAUNCHES = 4


def device(out: Path) -> int:
    import cupy as cp
    from capture import l1_resetter
    rm = analysis_module("record_merge")
    fn = cp.RawModule(path=str(PTX)).get_function("record_merge")
    reset = l1_resetter(cp)
    buf = cp.asarray(rm.inputs())
    sink = cp.zeros(2048, cp.uint32)
    rows = []
    for warps in rm.WARPS:
        for own in (0, 1):
            for before in rm.BEFORE:
                t = cp.zeros((warps, 2), cp.int64)
                for rep in range(LAUNCHES + 1):
                    if before == "l1-reset":
                        reset()
                    fn((1,), (32 * warps,), (buf, t, sink, np.int32(own)))
                    cp.cuda.Device().synchronize()
                    rows.append({"warps": warps, "own": own, "before": before, "repeat": rep, "t": t.get().tolist()})
    return write_device_doc(cp, out, "record_merge", rows=rows)


def summarise(out: Path) -> int:
    return write_summary(out, "record_merge", "kernels/record_merge.ptx loaded with cupy.RawModule(path=...), one "
                         f"CTA, {LAUNCHES + 1} launches of each (warps, own) after the L1 reset and back to back",
                         ("rows",))


if __name__ == "__main__":
    raise SystemExit(main_cli(__doc__, lambda: build_ptx(SOURCE, PTX), device, summarise))
