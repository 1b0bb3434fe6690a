"""A block reduction with clock stamps (``traces/h200/reduce_clock.json``, ``traces/capture/reduce_clock.py``,
``traces/capture/kernels/reduce_clock.ptx``), run by the GPU and by warpsim's timed engine from the same PTX file.

Not a microbenchmark: the kind of kernel a user steps through. One CTA of 4, 8 or 16 warps; each thread makes N
(8 or 32) values from its index and a word it loads (an integer hash, I2F) and sums them with FMA; the warp sums
its lanes with five ``shfl.sync.bfly``; lane 0 puts the warp's sum in shared memory; ``bar.sync``; warp 0 reads
the sums and adds them with ``shfl.sync.down``, and stores the CTA's sum. Lane 0 of each warp stamps the clock at
entry, after its own sum, after the warp's, after the barrier (warp 0: after reading the sums) and at the end.
None of the timing table was fitted to it. The sum must be bit-exact.

    python -m warpsim.timing.reduce_clock [FILE]    # the GPU's cycles beside warpsim's (default: the H200 file)
"""
from __future__ import annotations

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
PTX = os.path.join(REPO, "traces", "capture", "kernels", "reduce_clock.ptx")
PATH = os.path.join(REPO, "traces", "h200", "reduce_clock.json")
KERNELS = {"reduce_n8": 8, "reduce_n32": 32}  #: kernel -> values a thread sums
WARPS = (4, 8, 16)
STAMPS = 5
#: the phases between the stamps: the thread's own sum (with its one load), the warp's shuffles, the barrier (and
#: warp 0's reads of the sums), the end (warp 0's shuffles and store)
PHASES = ("own", "warp", "barrier", "end")


def inputs() -> np.ndarray:
    """The word each lane loads (the hash's seed)."""
    return ((np.arange(32, dtype=np.uint64) * 2654435761) % 2**32).astype(np.uint32)


def load(path: str = PATH) -> dict:
    from warpsim.timing import measurement
    return measurement.load_warp_rows(path, "reduce_clock", KERNELS, WARPS, STAMPS, f"{STAMPS} stamps")


def phases(t) -> tuple:
    """A launch's cycles of each phase (:data:`PHASES`), the median over its warps, and of the kernel (the first
    warp's entry to the last warp's end)."""
    t = np.asarray(t, np.int64)
    return tuple(float(x) for x in np.median(np.diff(t, axis=1), axis=0)) + (float(t[:, -1].max() - t[:, 0].min()),)


def measured(doc: dict) -> dict:
    """``{(kernel, warps): phases}``, the medians over the launches after the first."""
    from warpsim.timing import measurement
    return measurement.medians(doc["rows"], ("kernel", "warps"), phases)


def sums(doc: dict) -> dict:
    """``{(kernel, warps): the bits of the CTA's sum}``; a ValueError if two launches differ."""
    got: dict = {}
    for r in doc["rows"]:
        if got.setdefault((r["kernel"], r["warps"]), r["sum"]) != r["sum"]:
            raise ValueError(f"{r['kernel']} with {r['warps']} warps: launches give different sums")
    return got


def simulate(kernel: str, warps: int, params=None, ptx: str = PTX) -> tuple[int, np.ndarray]:
    """(the bits of the CTA's sum, the stamps [warp][5]) of the kernel run by warpsim (the H200's table, or
    ``params``)."""
    from warpsim.timing import measurement
    mod = measurement.h200_module(ptx, params=params)
    t = np.zeros(STAMPS * warps, np.int64)
    d = np.zeros(1, np.float32)
    mod.get_function(kernel)((1,), (32 * warps,), (inputs(), d, t))
    return int(d.view(np.uint32)[0]), t.reshape(warps, STAMPS)


def table(doc: dict | None = None, params=None) -> list[dict]:
    doc = doc or load()
    got, want = measured(doc), sums(doc)
    rows = []
    for (k, w), hw in sorted(got.items(), key=lambda x: (list(KERNELS).index(x[0][0]), x[0][1])):
        bits, t = simulate(k, w, params)
        rows.append({"kernel": k, "warps": w, "gpu": hw, "warpsim": phases(t), "exact": bits == want[(k, w)]})
    return rows


def main(argv=None) -> int:
    from warpsim.timing import measurement
    doc = measurement.opened(argv, __doc__, load, PATH)
    if doc is None:
        return 0
    print("cycles (GPU / warpsim): " + ", ".join(PHASES) + " (each the warps' median), the kernel")
    for r in table(doc):
        cells = "  ".join(f"{g:7.1f} /{s:7.1f}" for g, s in zip(r["gpu"], r["warpsim"]))
        err = r["warpsim"][-1] / r["gpu"][-1] - 1
        print(f"{r['kernel']:11} {r['warps']:2}  {cells}  {100 * err:+5.1f} %  sum {'bit-exact' if r['exact'] else 'DIFFERS'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
