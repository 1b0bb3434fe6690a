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
from clock_read import stat_probe_cli  # noqa: E402

SOURCE = HERE / "kernels" / "op_latency.cu"
PTX = HERE / "kernels" / "op_latency.ptx"
LAUNCHES = 4


if __name__ == "__main__":
    raise SystemExit(stat_probe_cli(__doc__, "op_latency", SOURCE, PTX, LAUNCHES, "one CTA of 1-16 warps"))
