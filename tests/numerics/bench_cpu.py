"""CPU-time speed of ``warpsim.mma_sp`` on the ``warpsim bench`` inputs (random register bits, valid ordered
metadata, ``ub_policy="hardware"``), one core. CPU time (``time.process_time``) rather than wall time, so that
a loaded machine does not hide the figure; ``warpsim bench`` reports wall time.

    python tests/numerics/bench_cpu.py [FORM_KEY ...]
"""
import os
import sys
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from isa.forms import BY_KEY  # noqa: E402
from warpsim import mma_sp  # noqa: E402
from warpsim.cmd_bench import random_instances  # noqa: E402

KEYS = ["m16n8k16.f32.f16.f16.f32", "m16n8k16.f16.f16.f16.f16", "m16n8k16.f32.bf16.bf16.f32",
        "m16n8k32.f32.bf16.bf16.f32", "m16n8k8.f32.tf32.tf32.f32", "m16n8k64.f32.e4m3.e4m3.f32"]

if __name__ == "__main__":
    for key in sys.argv[1:] or KEYS:
        form, n = BY_KEY[key], 20000
        a, b, c, e, _ = random_instances(form, n, np.random.default_rng(0))
        mma_sp(form, a[:2], b[:2], c[:2], e[:2], ub_policy="hardware")  # compile
        best = float("inf")
        for _ in range(3):
            t = time.process_time()
            mma_sp(form, a, b, c, e, ub_policy="hardware")
            best = min(best, time.process_time() - t)
        print(f"{key:34} {n / best:12,.0f} instances/s (CPU time, one core)")
