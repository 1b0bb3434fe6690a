#!/usr/bin/env python3
"""What the sm_90 table's non-tensor classes cost (kernels/op_latency.cu), run on the GPU from its PTX file
(``warpsim.timing.op_latency`` runs the same file): dependent chains of integer, float, conversion, division and
shared-memory steps, bar.sync, and independent streams of the integer and float steps. One CTA of 1-16 warps
(``op_latency.WARPS``); every kernel of ``op_latency.KERNELS``, LAUNCHES launches each after a first (kept,
``repeat`` 0).

    python traces/capture/op_latency.py --build        # here: kernels/op_latency.ptx from the .cu
    python traces/capture/op_latency.py --device OUT   # on the GPU: OUT/op_latency.json
    python traces/capture/op_latency.py --json OUT     # here: traces/<gpu>/op_latency.json from OUT
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from clock_read import stat_rows  # noqa: E402
from spgemm_clock import analysis_module, build_ptx, main_cli, write_device_doc, write_summary  # noqa: E402

SOURCE = HERE / "kernels" / "op_latency.cu"
PTX = HERE / "kernels" / "op_latency.ptx"
LAUNCHES = 4


def device(out: Path) -> int:
    import cupy as cp
    return write_device_doc(cp, out, "op_latency", rows=stat_rows(cp, PTX, analysis_module("op_latency"), LAUNCHES))


def summarise(out: Path) -> int:
    return write_summary(out, "op_latency", "kernels/op_latency.ptx loaded with cupy.RawModule(path=...), one CTA "
                         f"of 1-16 warps, {LAUNCHES + 1} launches of each (kernel, warps) back to back", ("rows",))


if __name__ == "__main__":
    raise SystemExit(main_cli(__doc__, lambda: build_ptx(SOURCE, PTX), device, summarise))
