#!/usr/bin/env python3
"""The tiled sparse GEMM with a clock read at each phase of a K step (kernels/spgemm_phase.cu), run on the GPU from
its PTX file: where a step's cycles go, for ``warpsim.timing.spgemm_phase`` to set beside warpsim's; D checked as
spgemm_clock.py checks it. Each kernel LAUNCHES times after the L1 reset and LAUNCHES back to back.

    python traces/capture/spgemm_phase.py --build        # here: kernels/spgemm_phase.ptx from the .cu
    python traces/capture/spgemm_phase.py --device OUT   # on the GPU: OUT/spgemm_phase.json
    python traces/capture/spgemm_phase.py --json OUT     # here: traces/<gpu>/spgemm_phase.json from OUT
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from spgemm_clock import (LAUNCHES, analysis_module, build_ptx, gemm_rows, main_cli,  # noqa: E402
                          write_device_doc, write_summary)

SOURCE = HERE / "kernels" / "spgemm_phase.cu"
PTX = HERE / "kernels" / "spgemm_phase.ptx"


def device(out: Path) -> int:
    import cupy as cp
    sp = analysis_module("spgemm_phase")
    rows, in_sha, d_sha = gemm_rows(cp, PTX, sp.KERNELS, sp.shape, cp.uint32)
    return write_device_doc(cp, out, "spgemm_phase", inputs=in_sha, d_sha256=d_sha, rows=rows)


def summarise(out: Path) -> int:
    return write_summary(out, "spgemm_phase", "kernels/spgemm_phase.ptx loaded with cupy.RawModule(path=...), each "
                         f"on its grid, {LAUNCHES} launches a kernel after the L1 reset and {LAUNCHES} back to back",
                         ("inputs", "d_sha256", "rows"))


if __name__ == "__main__":
    raise SystemExit(main_cli(__doc__, lambda: build_ptx(SOURCE, PTX), device, summarise))
