#!/usr/bin/env python3
"""The latency of a global load as one warp sees it (kernels/l2_latency.cu), run on the GPU from its PTX file
(``warpsim.timing.l2_latency`` runs the same file and reads what this writes).

One CTA of one warp. Every chase (``chase_ca``, ``chase_cg``) over every chain of ``l2_latency.VARIANTS`` and every
burst is launched once to bring its lines into the L2 (``first``), then LAUNCHES times after the L1 reset of the
timing traces (``l1-reset``) and LAUNCHES times back to back (``none``); every launch is kept.

    python traces/capture/l2_latency.py --build        # here: kernels/l2_latency.ptx from the .cu
    python traces/capture/l2_latency.py --device OUT   # on the GPU: OUT/l2_latency.json
    python traces/capture/l2_latency.py --json OUT     # here: traces/<gpu>/l2_latency.json from OUT
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from spgemm_clock import analysis_module, build_ptx, main_cli, write_device_doc, write_summary  # noqa: E402

SOURCE = HERE / "kernels" / "l2_latency.cu"
PTX = HERE / "kernels" / "l2_latency.ptx"
LAUNCHES = 3


def _launches(run, reset) -> list:
    """``[(before, t), ...]`` of one kernel: the first launch, then the two conditions."""
    got = [("first", run())]
    for before in ("l1-reset", "none"):
        for _ in range(LAUNCHES):
            if before == "l1-reset":
                reset()
            got.append((before, run()))
    return got


def device(out: Path) -> int:
    import cupy as cp
    from capture import l1_resetter
    ll = analysis_module("l2_latency")
    mod = cp.RawModule(path=str(PTX))
    reset = l1_resetter(cp)
    buf = cp.asarray(ll.buffer())
    rows = []
    for kernel in ll.CHASES:
        fn = mod.get_function(kernel)
        for name, v in ll.VARIANTS.items():
            start = ll.chain(name)[2]
            t = cp.zeros(2 * v.links, cp.int64)

            def run():
                fn((1,), (32,), (buf, np.uint32(start), np.int32(v.links), t))
                cp.cuda.Device().synchronize()
                return t.get().reshape(2, v.links).tolist()
            rows += [{"kernel": kernel, "variant": name, "before": b, "t": x} for b, x in _launches(run, reset)]
    burst_buf = buf[ll.BURST_OFFSET // 4:]
    sink = cp.zeros(32, cp.uint32)
    for kernel in ll.BURSTS:
        fn = mod.get_function(kernel)
        t = cp.zeros(2, cp.int64)

        def run():
            fn((1,), (32,), (burst_buf, t, sink))
            cp.cuda.Device().synchronize()
            return t.get().tolist()
        rows += [{"kernel": kernel, "variant": None, "before": b, "t": x} for b, x in _launches(run, reset)]
    return write_device_doc(cp, out, "l2_latency", rows=rows)


def summarise(out: Path) -> int:
    return write_summary(out, "l2_latency", "kernels/l2_latency.ptx loaded with cupy.RawModule(path=...), one warp, "
                         f"each kernel (and chain) launched once into the L2, then {LAUNCHES} times after the L1 reset "
                         f"and {LAUNCHES} back to back", ("rows",))


if __name__ == "__main__":
    raise SystemExit(main_cli(__doc__, lambda: build_ptx(SOURCE, PTX), device, summarise))
