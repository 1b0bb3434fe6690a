#!/usr/bin/env python3
"""A block reduction with clock stamps (kernels/reduce_clock.cu), run on the GPU from its PTX file
(``warpsim.timing.reduce_clock`` runs the same file). One CTA of 4, 8 or 16 warps (``reduce_clock.WARPS``); every
kernel of ``reduce_clock.KERNELS``, LAUNCHES launches each after a first (kept, ``repeat`` 0), back to back. A row
a launch: its stamps ([warp][5]) and the bits of the CTA's sum.

    python traces/capture/reduce_clock.py --build        # here: kernels/reduce_clock.ptx from the .cu
    python traces/capture/reduce_clock.py --device OUT   # on the GPU: OUT/reduce_clock.json
    python traces/capture/reduce_clock.py --json OUT     # here: traces/<gpu>/reduce_clock.json from OUT
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from spgemm_clock import analysis_module, build_ptx, main_cli, write_device_doc, write_summary  # noqa: E402

SOURCE = HERE / "kernels" / "reduce_clock.cu"
PTX = HERE / "kernels" / "reduce_clock.ptx"
LAUNCHES = 4


def device(out: Path) -> int:
    import cupy as cp
    rc = analysis_module("reduce_clock")
    mod = cp.RawModule(path=str(PTX))
    d_in = cp.asarray(rc.inputs())
    rows = []
    for kernel in rc.KERNELS:
        fn = mod.get_function(kernel)
        for warps in rc.WARPS:
            t = cp.zeros(rc.STAMPS * warps, cp.int64)
            d = cp.zeros(1, cp.float32)
            for rep in range(LAUNCHES + 1):
                fn((1,), (32 * warps,), (d_in, d, t))
                cp.cuda.Device().synchronize()
                rows.append({"kernel": kernel, "warps": warps, "repeat": rep,
                             "t": t.get().reshape(warps, rc.STAMPS).tolist(), "sum": int(d.view(cp.uint32).get()[0])})
    return write_device_doc(cp, out, "reduce_clock", rows=rows)


def summarise(out: Path) -> int:
    return write_summary(out, "reduce_clock", "kernels/reduce_clock.ptx loaded with cupy.RawModule(path=...), one "
                         f"CTA of 4, 8 or 16 warps, {LAUNCHES + 1} launches of each (kernel, warps) back to back",
                         ("rows",))


if __name__ == "__main__":
    raise SystemExit(main_cli(__doc__, lambda: build_ptx(SOURCE, PTX), device, summarise))
