"""Replay of the L1-carveout runs (``traces/h100/l1_carveout.json``, ``traces/capture/l1_carveout.py``).

The recorded sp_e4m3_k64_f32 kernels (ILP 2 and 4 with 1-4 warps, one per sub-partition, ILP 8 with one warp,
32 loop trips) were re-run on the H100 with a dynamic shared-memory request that shrinks the L1 to 224, 124,
92, 60 or 28 KB (the carveout the driver picks for S KB, measured with the same launch shape by
``traces/h100/l1_probe.json`` (``warpsim.timing.l1_probe``): with no shared memory these kernels, 32 registers
and 32-128 threads, get 224 KB, not the whole 256). Here ptxas's loop of each kernel runs in
:mod:`warpsim.timing.sass_sim` with ``l1["lines"]`` set to that size (128-byte lines), everything else as
``params_sm90`` has it (or as ``l1`` overrides), and the loop time ``first trip + 31 later trips`` of the
slowest warp is set beside the median of the H100's three launches. The ratio to the same configuration with
no shared memory (224 KB) is what the carveout tells about the L1 (the absolute error also holds the
prologue, which the replay leaves out).

    python -m warpsim.timing.l1_carveout              # the table
    python -m warpsim.timing.l1_carveout --json       # rows as JSON
"""
from __future__ import annotations

import json
import os
import sys
from collections import defaultdict

import numpy as np

from warpsim.timing import measurement

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "traces", "h100", "l1_carveout.json")
FORM = "sp_e4m3_k64_f32"
#: L1 KB left by each shared-memory request (KB): 256 - the carveout of {32, 132, 164, 196, 228} KB (the
#: capture script's docstring; the sizes measured by traces/h100/l1_probe.json: a sequential pass keeps
#: L1 - 64 lines, 1,728 / 928 / 672 / 416 / 160 lines at S = 0 / 128 / 80 / 48 / 16)
L1_KB = {0: 224, 128: 124, 80: 92, 144: 92, 160: 92, 48: 60, 64: 60, 96: 60, 176: 60, 192: 60,
         16: 28, 32: 28, 112: 28, 208: 28, 224: 28}
REPS = 32
FULL = L1_KB[0]  #: the L1 of the recorded runs (no shared memory)


def measured(path: str = DATA) -> dict:
    """``{(ilp, warps, L1 KB): median over launches of the slowest warp's cycles}``."""
    with open(path) as fh:
        doc = json.load(fh)
    got = defaultdict(list)
    for r in doc["runs"]:
        got[(r["ilp"], r["warps"], L1_KB[r["smem_kb"]])].append(max(r["cycles"]))
    return {k: float(np.median(v)) for k, v in got.items()}


def replay(l1: dict | None = None, keys=None) -> list[dict]:
    """One row per recorded (ilp, warps, L1 KB): H100 and replay cycles, the error, and both ratios to the
    224 KB run (no shared memory). ``l1`` overrides entries of ``params_sm90``'s ``emulated["sass"]["l1"]``."""
    from warpsim.timing import sass_sim
    hw = measured()
    runs = [(ilp, w, kb) for ilp, w, kb in sorted(hw)
            if keys is None or (ilp, w, kb) in keys or (ilp, w, FULL) in keys]
    loops = {(ilp, kb): sass_sim.table_loop(f"{FORM}_ilp{ilp}", dict(l1 or {}, lines=kb * 8))
             for ilp, _w, kb in runs}
    sass_sim.prefetch([(loops[(ilp, kb)], tuple([1] * w + [0] * (4 - w))) for ilp, w, kb in runs])
    sim = {}
    for ilp, w, kb in runs:
        per_sp = loops[(ilp, kb)].cycles(tuple([1] * w + [0] * (4 - w)))
        sim[(ilp, w, kb)] = max(f + (REPS - 1) * later for f, later in per_sp[:w])
    rows = []
    for k in sorted(sim):
        ilp, w, kb = k
        b = (ilp, w, FULL)
        rows.append({"ilp": ilp, "warps": w, "l1_kb": kb, "h100": hw[k], "sim": sim[k],
                     "error_pct": 100 * (sim[k] / hw[k] - 1), "h100_ratio": hw[k] / hw[b],
                     "sim_ratio": sim[k] / sim[b] if b in sim else float("nan")})
    return rows


def table(rows) -> str:
    out = [f"{'ilp':>3} {'warps':>5} {'L1 KB':>5} {'H100':>9} {'replay':>9} {'err %':>7} "
           f"{'H100 x224':>9} {'replay x224':>11}"]
    for r in rows:
        out.append(f"{r['ilp']:3d} {r['warps']:5d} {r['l1_kb']:5d} {r['h100']:9.0f} {r['sim']:9.0f} "
                   f"{r['error_pct']:+7.1f} {r['h100_ratio']:9.2f} {r['sim_ratio']:11.2f}")
    return "\n".join(out)


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    rows = replay()
    if "--json" in argv:
        json.dump(rows, sys.stdout, indent=1)
        print()
    else:
        print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
