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
from clock_read import stat_rows  # noqa: E402
from spgemm_clock import analysis_module, build_ptx, main_cli, write_device_doc, write_summary  # noqa: E402

SOURCE = HERE / "kernels" / "branch_tail.cu"
PTX = HERE / "kernels" / "branch_tail.ptx"
LAUNCHES = 4


def device(out: Path) -> int:
    import cupy as cp
    return write_device_doc(cp, out, "branch_tail", rows=stat_rows(cp, PTX, analysis_module("branch_tail"), LAUNCHES))


def summarise(out: Path) -> int:
    return write_summary(out, "branch_tail", "kernels/branch_tail.ptx loaded with cupy.RawModule(path=...), one CTA "
                         f"of 1 or 8 warps, {LAUNCHES + 1} launches of each (kernel, warps) back to back", ("rows",))


if __name__ == "__main__":
    raise SystemExit(main_cli(__doc__, lambda: build_ptx(SOURCE, PTX), device, summarise))
