#!/usr/bin/env python3
"""The tiled sparse GEMM with clock stamps (kernels/prog_spgemm_clock.cu), run on the GPU from its PTX file:
the cycles of a realistic kernel for ``warpsim.timing.spgemm_clock`` to set beside warpsim's, and its D, which
warpsim must give bit for bit.

Each kernel (``warpsim.timing.spgemm_clock.KERNELS``: K = 256 and 1,024, CTAs of 4 and 8 warps, B prefetched or
not) is launched on its grid (2 x 2 CTAs of 4 warps, 2 x 1 of 8), LAUNCHES times in a row
under each launch condition: after the L1 reset of the timing traces (capture.py's ``l1-reset``: a kernel asking
for 200 KB of shared memory on every SM) and back to back. The first launch of each is kept but marked
(``repeat`` 0); the analysis uses the others.

    python traces/capture/spgemm_clock.py --build        # here: kernels/prog_spgemm_clock.ptx from the .cu
    python traces/capture/spgemm_clock.py --device OUT   # on the GPU: OUT/spgemm_clock.json
    python traces/capture/spgemm_clock.py --json OUT     # here: traces/<gpu>/spgemm_clock.json from OUT
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
SOURCE = HERE / "kernels" / "prog_spgemm_clock.cu"
PTX = HERE / "kernels" / "prog_spgemm_clock.ptx"
LAUNCHES = 6
BEFORE = ("l1-reset", "none")


def analysis_module(name: str):
    """warpsim/timing/<name>.py loaded by path (numpy only: warpsim need not be installed on the GPU machine)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "warpsim" / "timing" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def build_ptx(source: Path, ptx: Path) -> int:
    """Here: ``ptx`` from the CUDA ``source`` (nvcc -ptx, sm_90a)."""
    subprocess.run(["nvcc", "-ptx", "-arch=sm_90a", "-o", str(ptx), str(source)], check=True)
    print(f"wrote {ptx}")
    return 0


def write_summary(out: Path, name: str, how: str, keys: tuple) -> int:
    """``traces/<gpu>/<name>.json`` (written atomically) from ``OUT/<name>.json``: ``how`` it was measured after the
    script, device, CuPy and date, and the raw file's ``keys``."""
    from trips import write_atomic
    raw = json.loads((out / f"{name}.json").read_text())
    gpu = raw["device"].split()[1].lower()  # "NVIDIA H200" -> h200
    doc = {"how": f"traces/capture/{name}.py --device, {raw['device']} ({raw['clock_khz'] // 1000} MHz), CuPy "
                  f"{raw['cupy']}, {raw['created']}: {how}", **{k: raw[k] for k in keys}}
    dest = REPO / "traces" / gpu / f"{name}.json"
    dest.parent.mkdir(exist_ok=True)
    write_atomic(dest, json.dumps(doc, indent=0) + "\n")
    print(f"wrote {dest}")
    return 0


def main_cli(doc: str, build, device, summarise, argv=None) -> int:
    """The command line of these scripts: ``--build``, ``--device OUT``, ``--json OUT``."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--build", action="store_true")
    g.add_argument("--device", type=Path)
    g.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    return build() if a.build else device(a.device) if a.device else summarise(a.json)


def gemm_rows(cp, ptx: Path, kernels: dict, shape, tdtype) -> tuple[list, dict, dict]:
    """``(rows, inputs' sha256, D's sha256)`` of the GEMM kernels of ``ptx`` (``kernels``: name -> spgemm_clock.Kernel;
    ``shape(name)``: its stamps' shape, of ``tdtype``), LAUNCHES launches each under each of BEFORE, D checked against
    the float64 reference and from launch to launch."""
    from capture import l1_resetter
    sc = analysis_module("spgemm_clock")
    mod = cp.RawModule(path=str(ptx))
    reset = l1_resetter(cp)
    rows, d_sha, in_sha = [], {}, {}
    for kernel, kn in kernels.items():
        ins = sc.inputs(kn.k)
        in_sha[kernel] = sc.digest(ins["Ac"], ins["Em"], ins["Bt"], ins["C"])
        ref = sc.reference(ins)
        args = [cp.asarray(ins[n]) for n in ("Ac", "Em", "Bt", "C")]
        fn = mod.get_function(kernel)
        for before in BEFORE:
            for rep in range(LAUNCHES):
                d = cp.full((sc.M, sc.N), np.nan, cp.float32)
                t = cp.zeros(shape(kernel), tdtype)
                if before == "l1-reset":
                    reset()
                fn(kn.grid, kn.block, (*args, d, t))
                cp.cuda.Device().synchronize()
                dh = d.get()
                err = float(np.max(np.abs(dh - ref)) / np.max(np.abs(ref)))
                if err > 1e-5:
                    raise RuntimeError(f"{kernel}: D off the float64 reference by {err:.3g}")
                sha = d_sha.setdefault(kernel, sc.digest(dh))
                if sc.digest(dh) != sha:
                    raise RuntimeError(f"{kernel}: D differs between launches")
                rows.append({"kernel": kernel, "before": before, "repeat": rep, "t": t.get().tolist()})
    return rows, in_sha, d_sha


def write_device_doc(cp, out: Path, name: str, **fields) -> int:
    """``OUT/<name>.json``: the device, CuPy, clock and date, and ``fields``."""
    dev = cp.cuda.runtime.getDeviceProperties(0)
    doc = {"device": dev["name"].decode(), "cupy": cp.__version__, "clock_khz": dev["clockRate"],
           "created": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), **fields}
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(doc))
    print(f"{len(doc.get('rows', ()))} launches on {doc['device']} written to {out / (name + '.json')}")
    return 0


def device(out: Path) -> int:
    import cupy as cp
    sc = analysis_module("spgemm_clock")
    rows, in_sha, d_sha = gemm_rows(cp, PTX, sc.KERNELS, sc.shape, cp.int64)
    return write_device_doc(cp, out, "spgemm_clock", inputs=in_sha, d_sha256=d_sha, rows=rows)


def summarise(out: Path) -> int:
    return write_summary(out, "spgemm_clock", "kernels/prog_spgemm_clock.ptx loaded with cupy.RawModule(path=...), "
                         f"each on its grid, {LAUNCHES} launches a kernel after the L1 reset and {LAUNCHES} back to "
                         "back", ("inputs", "d_sha256", "rows"))


if __name__ == "__main__":
    raise SystemExit(main_cli(__doc__, lambda: build_ptx(SOURCE, PTX), device, summarise))
