#!/usr/bin/env python3
"""What a warp issues after bar.sync before the barrier releases it (kernels/bar_defer.cu), run on the GPU from its
PTX file (``warpsim.timing.bar_defer`` runs the same file). One CTA of 1, 4 or 8 warps (``bar_defer.WARPS``);
every kernel of ``bar_defer.KERNELS``, LAUNCHES launches each after a first (kept, ``repeat`` 0).

    python traces/capture/bar_defer.py --build        # here: kernels/bar_defer.ptx from the .cu
    python traces/capture/bar_defer.py --device OUT   # on the GPU: OUT/bar_defer.json
    python traces/capture/bar_defer.py --json OUT     # here: traces/<gpu>/bar_defer.json from OUT
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from clock_read import stat_probe_cli  # noqa: E402

SOURCE = HERE / "kernels" / "bar_defer.cu"
PTX = HERE / "kernels" / "bar_defer.ptx"
LAUNCHES = 4


if __name__ == "__main__":
    raise SystemExit(stat_probe_cli(__doc__, "bar_defer", SOURCE, PTX, LAUNCHES, "one CTA of 1, 4 or 8 warps"))
