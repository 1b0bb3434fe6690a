"""Where a K step of the tiled sparse GEMM goes (``traces/h200/spgemm_phase.json``, ``traces/capture/spgemm_phase.py``,
``traces/capture/kernels/spgemm_phase.ptx``), run by the GPU and by warpsim's timed engine from the same PTX file.

The GEMM of :mod:`warpsim.timing.spgemm_clock` (no prefetch) with five reads of ``%clock`` every K step, each
stored by the whole warp to one shared word: at the top of the step, after the shared stores of B (which wait for
its global loads), after the first ``bar.sync``, after the first mma (which waits for A and the metadata), after
the second ``bar.sync``. So a step splits into :data:`PHASES`: ``B`` (its global loads), ``bar1``, ``A`` (the A
and metadata loads), ``mma`` (the second mma and the barrier after) and ``loop`` (the stamp and the loop's
branch to the next step's top). The figures are medians over the warps and steps 2 to the last.

    python -m warpsim.timing.spgemm_phase [FILE]    # the GPU's cycles beside warpsim's (default: the H200 file)
"""
from __future__ import annotations

import importlib.util
import os
import sys

import numpy as np

try:
    from warpsim.timing import spgemm_clock
except ImportError:  # loaded by path by the capture script on a GPU machine without warpsim's packages
    _spec = importlib.util.spec_from_file_location("spgemm_clock_analysis", os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "spgemm_clock.py"))
    spgemm_clock = sys.modules[_spec.name] = importlib.util.module_from_spec(_spec)  # its dataclasses look it up
    _spec.loader.exec_module(spgemm_clock)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
PTX = os.path.join(REPO, "traces", "capture", "kernels", "spgemm_phase.ptx")
PATH = os.path.join(REPO, "traces", "h200", "spgemm_phase.json")
#: the kernels of the PTX file, each the spgemm_clock kernel of the same shape
KERNELS = {"spgemm_phase_k1024": spgemm_clock.Kernel(1024), "spgemm_phase_w8_k1024": spgemm_clock.Kernel(1024, 8),
           "spgemm_phase_k256": spgemm_clock.Kernel(256)}
STAMPS = 5
PHASES = ("B", "bar1", "A", "mma", "loop")


def shape(kernel: str) -> tuple:
    """The shape of a kernel's stamps: (CTAs, warps, K steps, 5)."""
    kn = KERNELS[kernel]
    return (kn.ctas, kn.warps, spgemm_clock.steps(kn.k), STAMPS)


def simulate(kernel: str) -> tuple[np.ndarray, np.ndarray]:
    """``(D, T)`` of the kernel run by warpsim's timed engine."""
    from warpsim.timing import measurement
    kn = KERNELS[kernel]
    ins = spgemm_clock.inputs(kn.k)
    d = np.full((spgemm_clock.M, spgemm_clock.N), np.nan, np.float32)
    t = np.zeros(shape(kernel), np.uint32)
    fn = measurement.h200_module(PTX).get_function(kernel)
    fn(kn.grid, kn.block, (ins["Ac"], ins["Em"], ins["Bt"], ins["C"], d, t))
    return d, t


def phases(t) -> dict:
    """Each phase's cycles (the median over the CTAs' warps and steps 2 to the last) and the ``step``'s."""
    t = np.asarray(t, np.int64).reshape(-1, np.shape(t)[-2], STAMPS)  # [warp][step][stamp]
    flat = t.reshape(t.shape[0], -1)
    d = np.diff(flat, axis=1) % (1 << 32)  # u32 clocks
    d = np.concatenate([d, np.zeros((d.shape[0], 1))], axis=1).reshape(t.shape)[:, 1:-1]
    got = {p: float(np.median(d[:, :, i])) for i, p in enumerate(PHASES)}
    got["step"] = float(np.median(d.sum(axis=2)))
    return got


def load(path: str = PATH) -> dict:
    from warpsim.timing import measurement

    def bad(r):
        k = r.get("kernel")
        if k not in KERNELS or "repeat" not in r or "before" not in r or measurement.shape(r.get("t")) != shape(k):
            return (f"a row of kernel {k!r} is not one of {', '.join(KERNELS)} with its repeat, launch condition "
                    "and stamps")
    doc = measurement.load_rows(path, "spgemm_phase", bad, ("how", "inputs", "d_sha256", "rows"))
    spgemm_clock.check_inputs(doc, path, KERNELS)
    return doc


def measured(doc: dict) -> dict:
    """``{(kernel, before): phases}``, each the median over the launches after the first."""
    got: dict = {}
    for r in doc["rows"]:
        if r["repeat"] > 0:
            got.setdefault((r["kernel"], r["before"]), []).append(phases(r["t"]))
    return {key: {p: float(np.median([x[p] for x in v])) for p in v[0]} for key, v in got.items()}


def main(argv=None) -> int:
    from warpsim.timing import measurement
    doc = measurement.opened(argv, __doc__, load, PATH)
    if doc is None:
        return 0
    print(f"{'kernel':22} {'before':9} " + " ".join(f"{p:>11}" for p in PHASES + ("step",)))
    for (kernel, before), hw in sorted(measured(doc).items()):
        d, t = simulate(kernel)
        sim = phases(t)
        exact = spgemm_clock.digest(d) == doc["d_sha256"][kernel]
        print(f"{kernel:22} {before:9} " + " ".join(f"{hw[p]:5.0f} {sim[p]:5.0f}" for p in PHASES + ("step",))
              + ("" if exact else "   D NOT bit-exact"))
    print("(each phase: the GPU's cycles, then warpsim's)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
