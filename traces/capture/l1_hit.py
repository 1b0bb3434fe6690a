#!/usr/bin/env python3
"""What an L1 hit costs by the request's shape (kernels/l1_hit.cu), run on the GPU from its PTX file
(``warpsim.timing.l1_hit`` runs the same file). One CTA; every (kernel, stride, warps, groups) of
``l1_hit.configs()``, LAUNCHES launches each after a first (kept, ``repeat`` 0) that brings the lines into the L2.

    python traces/capture/l1_hit.py --build        # here: kernels/l1_hit.ptx from the .cu
    python traces/capture/l1_hit.py --device OUT   # on the GPU: OUT/l1_hit.json
    python traces/capture/l1_hit.py --json OUT     # here: traces/<gpu>/l1_hit.json from OUT
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from spgemm_clock import analysis_module, build_ptx, main_cli, write_device_doc, write_summary  # noqa: E402

SOURCE = HERE / "kernels" / "l1_hit.cu"
PTX = HERE / "kernels" / "l1_hit.ptx"
LAUNCHES = 4


def device(out: Path) -> int:
    import cupy as cp
    lh = analysis_module("l1_hit")
    mod = cp.RawModule(path=str(PTX))
    rows = []
    for kernel, stride, warps, groups in lh.configs():
        fn = mod.get_function(kernel)
        buf, sink, *rest = (cp.asarray(a) if hasattr(a, "shape") and a.shape else a
                            for a in lh.arguments(stride, warps, groups))
        t = cp.zeros((warps, 2), cp.int64)
        for rep in range(LAUNCHES + 1):
            fn((1,), (32 * warps,), (buf, t, sink, *rest))
            cp.cuda.Device().synchronize()
            rows.append({"kernel": kernel, "stride": stride, "warps": warps, "groups": groups, "repeat": rep,
                         "t": t.get().tolist()})
    return write_device_doc(cp, out, "l1_hit", rows=rows)


def summarise(out: Path) -> int:
    return write_summary(out, "l1_hit", "kernels/l1_hit.ptx loaded with cupy.RawModule(path=...), one CTA, "
                         f"{LAUNCHES + 1} launches of each (kernel, stride, warps, groups) back to back", ("rows",))


if __name__ == "__main__":
    raise SystemExit(main_cli(__doc__, lambda: build_ptx(SOURCE, PTX), device, summarise))
