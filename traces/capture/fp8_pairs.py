#!/usr/bin/env python3
"""What sets the mode of two sparse fp8 ILP 1 warps on one sub-partition: the recorded kernel launched after
different launches, on the H100.

In the timing traces two warps of ``sp_e4m3_k64_f32_ilp1`` / ``sp_e5m2_k64_f32_ilp1`` on one sub-partition run
1.30 x or 1.40 x one warp's time, nothing between (``python -m warpsim.timing.pair_modes``). This launches the
recorded kernel (the trace's PTX and input, 6 and 8 warps, 32 trips) :data:`LAUNCHES` times under each of
:data:`BEFORE`, and keeps every warp's start and end clock:

* ``reset``: each launch right after ``capture.py``'s L1 reset (as the traces were recorded);
* ``again``: launches back to back;
* ``ilp4``: each after a one-warp launch of the ILP 4 kernel of the same form (other code, a spilling frame);
* ``s4``: each after a one-warp launch of ``dense_s4_k64_ilp4`` (other code, no local memory).

    python traces/capture/fp8_pairs.py --device OUT   # on the GPU: OUT/fp8_pairs_raw.json
    python traces/capture/fp8_pairs.py --json OUT     # here: traces/h100/fp8_pairs.json
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from probe import cli, save_raw, summarise_raw  # noqa: E402
from stall_reasons import REPS, Recorded  # noqa: E402  (the recorded timing kernels, launched as their traces)

FORM = "sp_e4m3_k64_f32"
WARPS = (6, 8)
BEFORE = ("reset", "again", "ilp4", "s4")
LAUNCHES = 12


def device(out: Path) -> int:
    import cupy as cp
    from capture import l1_resetter
    kernels = Recorded(cp)
    before = {"reset": l1_resetter(cp), "again": lambda: None, "ilp4": lambda: kernels.launch(FORM, 4, 1),
              "s4": lambda: kernels.launch("dense_s4_k64", 4, 1)}
    rows = []
    kernels.module("dense_s4_k64")
    kernels.launch(FORM, 1, 1)  # load the module
    for how in BEFORE:
        for warps in WARPS:
            for k in range(LAUNCHES):
                before[how]()
                rows.append({"before": how, "warps": warps, "launch": k, **kernels.launch(FORM, 1, warps)})
            one = [kernels.launch(FORM, 1, 1) for _ in range(3)]
            rows.append({"before": how, "warps": 1, "launch": 0, **one[-1]})
    save_raw(out, "fp8_pairs", rows)
    return 0


def summarise(out: Path) -> int:
    how = (f"the recorded {FORM}_ilp1 (trace PTX and input, {REPS} trips) "
           f"with 6 and 8 warps, {LAUNCHES} launches under each way of launching before it ({', '.join(BEFORE)}), "
           "then 3 one-warp launches (the last kept); every warp's start and end clock")
    return summarise_raw(out, "fp8_pairs", how, "", {})


def main(argv=None) -> int:
    return cli(argv, __doc__, None, None, device, summarise)


if __name__ == "__main__":
    sys.exit(main())
