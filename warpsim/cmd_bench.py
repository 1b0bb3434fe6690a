"""``warpsim bench``: speed figures on this machine, printed and written as JSON.

Speed goals are measured here, never asserted in tests. Every figure is for one core, timed in the CPU time
of this process (``time.process_time``), so that other work on a shared machine moves it less.
"""
from __future__ import annotations

import json
import os
import platform
import time

import numpy as np

from isa import sparsity
from isa.forms import FORMS, runs_on
from warpsim.tensorcore import mma_sp


def random_instances(form, n: int, rng) -> tuple:
    """Random register contents with valid ordered metadata (finite-ish random bits in A, B, C)."""
    regs = form.regs
    a = rng.integers(0, 2**32, (n, 32, regs["a"]), dtype=np.uint32)
    b = rng.integers(0, 2**32, (n, 32, regs["b"]), dtype=np.uint32)
    c = rng.integers(0, 2**32, (n, 32, regs["c"]), dtype=np.uint32)
    codes = rng.choice(sparsity.valid_codes(form, "sp::ordered_metadata"),
                       size=(n, form.shape.m, form.shape.k // form.chunk[1]))
    e = sparsity.meta_registers(form, codes, 0)
    scales = {}
    if form.block_scaled:
        word = np.full((n, 32), 0x7F7F7F7F if form.stype == "ue8m0" else 0x38383838, np.uint32)
        scales = dict(scale_a=word, scale_b=word)
    return a, b, c, e, scales


def bench_form(form, n: int, arch: str, repeat: int = 3) -> float:
    a, b, c, e, scales = random_instances(form, n, np.random.default_rng(0))
    mma_sp(form, a[:2], b[:2], c[:2], e[:2], arch=arch, ub_policy="hardware",
           **{k: v[:2] for k, v in scales.items()})  # compile
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        mma_sp(form, a, b, c, e, arch=arch, ub_policy="hardware", **scales)
        best = min(best, time.process_time() - t)
    return n / best


def machine() -> dict:
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), cpu)
    except OSError:
        pass
    import numba
    return {"cpu": cpu, "python": platform.python_version(), "numpy": np.__version__,
            "numba": numba.__version__, "cores_used": 1}


def run(args) -> int:
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    n = 2000 if args.quick else 20000
    out = {"machine": machine(), "mma_sp_instances_per_s": {}, "engines": {}}
    print(f"batched mma_sp, {n} instances per form, best of 3, one core, CPU time ({out['machine']['cpu']})")
    for form in FORMS:
        if args.filter and args.filter not in form.key:
            continue
        arch = "sm_90a" if runs_on(form, "sm_90a") else "sm_120a"
        rate = bench_form(form, n, arch)
        out["mma_sp_instances_per_s"][form.key] = rate
        print(f"  {form.key:48} {rate:12,.0f} instances/s  ({arch})")
    from warpsim.bench_engine import ENGINE_BENCHES
    for name, fn in ENGINE_BENCHES:
        rate = fn()
        out["engines"][name] = rate
        print(f"  {name:48} {rate:12,.0f} warp-instructions/s")
    with open(args.out, "w") as fh:
        json.dump(out, fh, indent=1)
    print(f"wrote {args.out}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("bench", help="measure simulation speed (one core) and write the figures as JSON")
    p.add_argument("--out", default="bench.json", help="JSON file to write (default bench.json)")
    p.add_argument("--quick", action="store_true", help="fewer instances per form")
    p.add_argument("--filter", default="", help="only forms whose key contains this text")
    p.set_defaults(func=run)
