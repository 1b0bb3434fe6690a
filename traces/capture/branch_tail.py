#!/usr/bin/env python3
"""What a loop's taken branch costs after a tail of work (kernels/branch_tail.cu), run on the GPU from its PTX file
(``warpsim.timing.branch_tail`` runs the same file). One CTA of 1 or 8 warps (``branch_tail.WARPS``); every
kernel of ``branch_tail.KERNELS``, LAUNCHES launches each after a first (kept, ``repeat`` 0).

    python traces/capture/branch_tail.py --build        # here: kernels/branch_tail.ptx from the .cu
    python traces/capture/branch_tail.py --device OUT   # on the GPU: OUT/branch_tail.json
    python traces/capture/branch_tail.py --json OUT     # here: traces/<gpu>/branch_tail.json from OUT
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from clock_read import stat_probe_cli  # noqa: E402

SOURCE = HERE / "kernels" / "branch_tail.cu"
PTX = HERE / "kernels" / "branch_tail.ptx"
LAUNCHES = 4


if __name__ == "__main__":
    raise SystemExit(stat_probe_cli(__doc__, "branch_tail", SOURCE, PTX, LAUNCHES, "one CTA of 1 or 8 warps"))
