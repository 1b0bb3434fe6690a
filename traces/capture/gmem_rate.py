#!/usr/bin/env python3
"""The SM's global-memory path under load (kernels/gmem_rate.cu): one CTA of 1-16 warps, each issuing 32
independent global loads or stores spread over 1, 8 or 32 lines a request, timed with %clock64, run from the PTX
file (``warpsim.timing.gmem_rate`` runs the same file). Each kernel and warp count: one untimed launch (the lines
into the L2), then LAUNCHES launches, each after the L1 reset of the timing traces.

    python traces/capture/gmem_rate.py --build        # here: kernels/gmem_rate.ptx from the .cu
    python traces/capture/gmem_rate.py --device OUT   # on the GPU: OUT/gmem_rate.json
    python traces/capture/gmem_rate.py --json OUT     # here: traces/<gpu>/gmem_rate.json from OUT
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from spgemm_clock import analysis_module, build_ptx, main_cli, write_device_doc, write_summary  # noqa: E402

SOURCE = HERE / "kernels" / "gmem_rate.cu"
PTX = HERE / "kernels" / "gmem_rate.ptx"
LAUNCHES = 3


def device(out: Path) -> int:
    import cupy as cp
    from capture import l1_resetter, reset_launches
    gr = analysis_module("gmem_rate")
    mod = cp.RawModule(path=str(PTX))
    reset = l1_resetter(cp)
    buf = cp.zeros(gr.WORDS, cp.uint32)
    rows = []
    for kernel in gr.KERNELS:
        fn = mod.get_function(kernel)
        for warps in gr.WARPS:
            clocks = reset_launches(cp, fn, warps, lambda t, sink: (buf, t, sink), LAUNCHES, reset)
            rows += [{"kernel": kernel, "warps": warps, "repeat": rep, "t": t} for rep, t in enumerate(clocks)]
    return write_device_doc(cp, out, "gmem_rate", rows=rows)


def summarise(out: Path) -> int:
    return write_summary(out, "gmem_rate", "kernels/gmem_rate.ptx loaded with cupy.RawModule(path=...), one CTA, "
                         f"a launch into the L2 and then {LAUNCHES} launches after the L1 reset, per kernel and "
                         "warp count", ("rows",))


if __name__ == "__main__":
    raise SystemExit(main_cli(__doc__, lambda: build_ptx(SOURCE, PTX), device, summarise))
