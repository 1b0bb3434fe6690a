"""A realistic kernel, not a microbenchmark: the tiled sparse GEMM with clock stamps
(``traces/capture/kernels/prog_spgemm_clock.ptx``, ``traces/capture/spgemm_clock.py``), run by the GPU and by
warpsim's timed engine from the same PTX file.

D[64][64] = A[64][K] B[K][64] + C, A 2:4-sparse f16 (ordered metadata), f32 accumulators; CTAs of 4 warps (a
grid of 2 x 2) or 8 (2 x 1), each warp a 16 x 16 tile; each K step of 32 stages a 32 x 32 B tile in shared
memory between two ``bar.sync``, loads every lane's A fragment and metadata from global memory and issues two
``mma.sp::ordered_metadata.m16n8k32``; one kernel (``pf``) loads the next step's B tile into registers during
this one. Lane 0 of each warp stores ``%clock64`` at entry, after every K step and after D is stored. Launched
after the L1 reset of the timing traces (``before`` "l1-reset": the L1 empty, the data in the L2 from the
launch before) and back to back (``before`` "none").

None of the timing table was fitted to this kernel, and the native model runs the PTX itself (ptxas's
schedule is not in it), so it is an out-of-sample check of the whole timed engine: global and shared memory,
barriers, integer address arithmetic and the tensor pipe together. The numbers are the GPU's and the
replay's cycles for the kernel (entry to the last stamp, the CTAs' warps' mean), its first K step and a later
one (the median of steps 2 to the last).

    python -m warpsim.timing.spgemm_clock [FILE]    # the GPU's cycles beside warpsim's (default: the H200 file)
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
PTX = os.path.join(REPO, "traces", "capture", "kernels", "prog_spgemm_clock.ptx")
PATH = os.path.join(REPO, "traces", "h200", "spgemm_clock.json")
M = N = 64


@dataclass(frozen=True)
class Kernel:
    k: int
    warps: int = 4          #: a CTA's
    prefetch: bool = False  #: the next step's B tile loaded into registers during this one

    @property
    def grid(self) -> tuple:
        return (2, 8 // self.warps, 1)

    @property
    def block(self) -> tuple:
        return (32 * self.warps, 1, 1)

    @property
    def ctas(self) -> int:
        return self.grid[0] * self.grid[1]


#: the kernels of the PTX file
KERNELS = {"spgemm_clock_k256": Kernel(256), "spgemm_clock_k1024": Kernel(1024),
           "spgemm_clock_w8_k1024": Kernel(1024, warps=8), "spgemm_clock_pf_k1024": Kernel(1024, prefetch=True)}
SEED = 20261129
#: the ordered metadata codes (two kept columns of a chunk of 4, first < second): PTX ISA 9.7.14.5.1
CODES = (0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b1110)


def steps(k: int) -> int:
    return k // 32


def stamps(k: int) -> int:
    """Clock stamps a warp stores: entry, one after every K step, one after D."""
    return steps(k) + 2


def inputs(k: int, seed: int = SEED) -> dict:
    """``{"Ac", "Em", "Bt", "C"}`` of the kernel with K = ``k``: Ac[64][k/2] f16 bits (the kept values), Em[64][k/16]
    u16 (chunk c of a 16-column group at bits 4c), Bt[64][k] f16 bits (B transposed), C[64][64] f32. numpy only (the
    capture script loads this file by path on the GPU machine)."""
    rng = np.random.default_rng([seed, k])
    q = np.array(CODES, np.uint16)[rng.integers(0, len(CODES), size=(M, k // 4))]
    em = np.zeros((M, k // 16), np.uint16)
    for c in range(4):
        em |= q[:, c::4] << np.uint16(4 * c)
    ac = rng.standard_normal((M, k // 2)).astype(np.float16).view(np.uint16)
    bt = rng.standard_normal((N, k)).astype(np.float16).view(np.uint16)
    return {"Ac": ac, "Em": em, "Bt": bt, "C": rng.standard_normal((M, N)).astype(np.float32)}


def digest(*arrays) -> str:
    """sha256 of the arrays' bytes, in order."""
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def dense_a(ins: dict) -> np.ndarray:
    """A (64 x K, float64) from its compressed values and metadata."""
    ac, em = ins["Ac"].view(np.float16).astype(np.float64), ins["Em"]
    k = ac.shape[1] * 2
    a = np.zeros((M, k))
    for c in range(k // 4):
        code = (em[:, c // 4] >> np.uint16(4 * (c % 4))) & 0xF
        a[np.arange(M), 4 * c + (code & 3)] += ac[:, 2 * c]
        a[np.arange(M), 4 * c + (code >> 2)] += ac[:, 2 * c + 1]
    return a


def reference(ins: dict) -> np.ndarray:
    """D in float64."""
    return dense_a(ins) @ ins["Bt"].view(np.float16).astype(np.float64).T + ins["C"]


def simulate(kernel: str, timing: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``(D, T)`` of the kernel run by warpsim from the PTX file: D f32 [64][64], T the clock stamps int64
    [cta][warp][stamp] (CTA y * 2 + x)."""
    from warpsim.timing import measurement
    kn = KERNELS[kernel]
    ins = inputs(kn.k)
    d = np.full((M, N), np.nan, np.float32)
    t = np.zeros(shape(kernel), np.int64)
    fn = measurement.h200_module(PTX, timing).get_function(kernel)
    fn(kn.grid, kn.block, (ins["Ac"], ins["Em"], ins["Bt"], ins["C"], d, t))
    return d, t


def shape(kernel: str) -> tuple:
    """The shape of a kernel's clock stamps: (CTAs, warps, stamps)."""
    kn = KERNELS[kernel]
    return (kn.ctas, kn.warps, stamps(kn.k))


def load(path: str = PATH) -> dict:
    from warpsim.timing import measurement

    def bad(r):
        name = r.get("kernel")
        if name not in KERNELS or "repeat" not in r or "before" not in r or \
                measurement.shape(r.get("t")) != shape(name):
            return (f"a row of kernel {name!r} is not one of {sorted(KERNELS)} with its repeat, launch condition "
                    "and CTAs x warps x stamps clocks")
    doc = measurement.load_rows(path, "spgemm_clock", bad, ("how", "inputs", "d_sha256", "rows"))
    check_inputs(doc, path, KERNELS)
    return doc


def check_inputs(doc: dict, path: str, kernels: dict) -> None:
    """A ValueError naming ``path`` unless every kernel of its rows ran on the inputs :func:`inputs` makes here (their
    sha256) and has its D's sha256 (``kernels``: name -> :class:`Kernel`)."""
    for name in {r["kernel"] for r in doc["rows"]}:
        if doc["inputs"].get(name) != digest(*inputs(kernels[name].k).values()) or name not in doc["d_sha256"]:
            raise ValueError(f"{path}: kernel {name}'s inputs are not those inputs() makes here (their sha256 "
                             "differs), or the file has no D for it")


def phases(t) -> dict:
    """The cycles of one launch (T as :func:`simulate` gives it), the mean over its CTAs' warps: ``kernel``
    (entry to the last stamp), ``first`` (entry to the end of K step 1), ``step`` (the median of steps 2 to the
    last) and ``tail`` (the last step's end to D stored)."""
    t = np.asarray(t, np.int64).reshape(-1, np.shape(t)[-1])
    d = np.diff(t, axis=1).astype(float)
    return {"kernel": float(np.mean(t[:, -1] - t[:, 0])), "first": float(np.mean(d[:, 0])),
            "step": float(np.median(d[:, 1:-1])) if d.shape[1] > 2 else float("nan"),
            "tail": float(np.mean(d[:, -1]))}


def measured(doc: dict) -> dict:
    """``{(kernel, before): phases}``, each the median over the launches after the first."""
    got: dict = {}
    for r in doc["rows"]:
        if r["repeat"] > 0:
            got.setdefault((r["kernel"], r["before"]), []).append(phases(r["t"]))
    return {key: {p: float(np.median([x[p] for x in v])) for p in v[0]} for key, v in got.items()}


def table(doc: dict | None = None) -> list[dict]:
    """Per kernel and launch condition: the GPU's phases, warpsim's, and whether warpsim's D is the GPU's bit
    for bit."""
    doc = doc or load()
    sims = {k: simulate(k) for k in sorted({r["kernel"] for r in doc["rows"]})}
    rows = []
    for (kernel, before), hw in sorted(measured(doc).items()):
        d, t = sims[kernel]
        rows.append({"kernel": kernel, "before": before, "gpu": hw, "warpsim": phases(t),
                     "d_bits": digest(d) == doc["d_sha256"][kernel]})
    return rows


def main(argv=None) -> int:
    from warpsim.timing import measurement
    doc = measurement.opened(argv, __doc__, load, PATH)
    if doc is None:
        return 0
    print(f"{'kernel':20} {'before':9} {'phase':7} {'GPU':>10} {'warpsim':>10} {'error':>8}")
    for r in table(doc):
        for p in ("kernel", "first", "step", "tail"):
            g, w = r["gpu"][p], r["warpsim"][p]
            print(f"{r['kernel']:20} {r['before']:9} {p:7} {g:10.1f} {w:10.1f} {100 * (w / g - 1):+7.1f}%")
        print(f"{'':20} {'':9} D {'bit-exact' if r['d_bits'] else 'DIFFERS'} against the GPU's")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
