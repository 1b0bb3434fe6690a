#!/usr/bin/env python3
"""Whether a warp's requests for sectors it is already fetching are fetched again (kernels/l1_dup.cu), run on the
GPU from its PTX file (``warpsim.timing.l1_dup`` runs the same file). One CTA; every kernel with every warp count
of ``l1_dup.WARPS``: one launch to bring the lines into the L2, then LAUNCHES launches after the L1 reset.

    python traces/capture/l1_dup.py --build        # here: kernels/l1_dup.ptx from the .cu
    python traces/capture/l1_dup.py --device OUT   # on the GPU: OUT/l1_dup.json
    python traces/capture/l1_dup.py --json OUT     # here: traces/<gpu>/l1_dup.json from OUT
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from spgemm_clock import analysis_module, build_ptx, main_cli, write_device_doc, write_summary  # noqa: E402

SOURCE = HERE / "kernels" / "l1_dup.cu"
PTX = HERE / "kernels" / "l1_dup.ptx"
LAUNCHES = 3


def device(out: Path) -> int:
    import cupy as cp
    from capture import l1_resetter, reset_launches
    lm = analysis_module("l1_dup")
    mod = cp.RawModule(path=str(PTX))
    reset = l1_resetter(cp)
    buf = cp.zeros(lm.WORDS, cp.uint32)
    rows = []
    for kernel in lm.KERNELS:
        fn = mod.get_function(kernel)
        for warps in lm.WARPS:
            clocks = reset_launches(cp, fn, warps, lambda t, sink: (buf, t, sink, np.int32(0)), LAUNCHES, reset)
            rows += [{"kernel": kernel, "warps": warps, "repeat": rep, "t": t} for rep, t in enumerate(clocks)]
    return write_device_doc(cp, out, "l1_dup", rows=rows)


def summarise(out: Path) -> int:
    return write_summary(out, "l1_dup", "kernels/l1_dup.ptx loaded with cupy.RawModule(path=...), one CTA, a "
                         f"launch into the L2 and then {LAUNCHES} launches after the L1 reset, per kernel and warps",
                         ("rows",))


if __name__ == "__main__":
    raise SystemExit(main_cli(__doc__, lambda: build_ptx(SOURCE, PTX), device, summarise))
