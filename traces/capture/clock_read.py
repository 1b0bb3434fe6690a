#!/usr/bin/env python3
"""How long a clock read waits after a tensor op (kernels/clock_read.cu), run on the GPU from its PTX file
(``warpsim.timing.clock_read`` runs the same file). One CTA of 1 warp, or of 5 (warps 0 and 4 share a
sub-partition); every kernel of ``clock_read.KERNELS``, LAUNCHES launches each after a first (kept, ``repeat`` 0).

    python traces/capture/clock_read.py --build        # here: kernels/clock_read.ptx from the .cu
    python traces/capture/clock_read.py --device OUT   # on the GPU: OUT/clock_read.json
    python traces/capture/clock_read.py --json OUT     # here: traces/<gpu>/clock_read.json from OUT
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from spgemm_clock import analysis_module, build_ptx, main_cli, write_device_doc, write_summary  # noqa: E402

SOURCE = HERE / "kernels" / "clock_read.cu"
PTX = HERE / "kernels" / "clock_read.ptx"
LAUNCHES = 4


def stat_rows(cp, ptx: Path, cr, launches: int) -> list:
    """Every kernel of ``cr.KERNELS`` (``cr``: an analysis module of this kind of probe: ``inputs()``, ``WARPS``, and
    ``CLOCKS`` if a warp keeps other than 3 clocks) of ``ptx``, ``launches`` + 1 launches each with each warp count:
    a row of each launch's clocks a warp ((least, greatest, sum) of its trips, or its ``CLOCKS``)."""
    mod = cp.RawModule(path=str(ptx))
    d_in = cp.asarray(cr.inputs())
    rows, clocks = [], getattr(cr, "CLOCKS", 3)
    for kernel in cr.KERNELS:
        fn = mod.get_function(kernel)
        for warps in cr.WARPS:
            t = cp.zeros(clocks * warps, cp.int64)
            sink = cp.zeros(32 * warps, cp.float32)
            for rep in range(launches + 1):
                fn((1,), (32 * warps,), (d_in, t, sink))
                cp.cuda.Device().synchronize()
                rows.append({"kernel": kernel, "warps": warps, "repeat": rep,
                             "t": t.get().reshape(warps, clocks).tolist()})
    return rows


def stat_probe_cli(doc: str, name: str, source: Path, ptx: Path, launches: int, ctas: str) -> int:
    """The command line of a probe of this kind (``name``: clock_read, branch_tail, op_latency, bar_defer): its
    analysis module's KERNELS and WARPS, one CTA (``ctas``: of how many warps, for the file's ``how``), ``launches``
    + 1 launches of each (kernel, warps) back to back, the clocks of each launch a row."""
    def device(out: Path) -> int:
        import cupy as cp
        return write_device_doc(cp, out, name, rows=stat_rows(cp, ptx, analysis_module(name), launches))

    def summarise(out: Path) -> int:
        return write_summary(out, name, f"kernels/{ptx.name} loaded with cupy.RawModule(path=...), {ctas}, "
                             f"{launches + 1} launches of each (kernel, warps) back to back", ("rows",))
    return main_cli(doc, lambda: build_ptx(source, ptx), device, summarise)


if __name__ == "__main__":
    raise SystemExit(stat_probe_cli(__doc__, "clock_read", SOURCE, PTX, LAUNCHES, "one CTA"))
