"""Inputs of spmma.cu for the debugger tests and the README session: ``python make_inputs.py`` writes
a.npy, b.npy, e.npy here (uint32 lane registers of 2 warps, built with warpsim.fragments).

Warp w: dense sparse A (16x16 f16, 2:4) keeps in row m, chunk c the positions of the ((m + c + w) mod 6)-th
ordered metadata code, with values 1 + (m + k) mod 4; B (16x8 f16) = ((k + 2n + w) mod 5) - 2. Small
integers, so D = iters x A.B is exact in f32.
"""
from pathlib import Path

import numpy as np

from isa import sparsity
from warpsim import fragments
from warpsim.render.figure import resolve_form

FORM = "m16n8k16.f32.f16.f16.f32"
WARPS = 2


def form():
    return resolve_form(FORM)[0]


def dense_a(w: int) -> np.ndarray:
    f = form()
    m, k = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    c = np.arange(4)
    codes = np.asarray(sparsity.ORDERED_CODES)[(np.arange(16)[:, None] + c[None, :] + w) % 6]
    cols = sparsity.dense_columns(f, codes)
    dense = np.zeros((16, 16))
    rows = np.arange(16)[:, None].repeat(cols.shape[1], 1)
    dense[rows, cols] = (1 + (m + k) % 4)[rows, cols]
    return dense


def dense_b(w: int) -> np.ndarray:
    k, n = np.meshgrid(np.arange(16), np.arange(8), indexing="ij")
    return (((k + 2 * n + w) % 5) - 2).astype(float)


def registers():
    """(a (64, 2), b (64, 2), e (64,)) uint32 for lanes of warps 0 and 1 (threads 0..63)."""
    f = form()
    a, e = zip(*(fragments.to_registers(f, "A", dense_a(w), selector=0) for w in range(WARPS)))
    b = [fragments.to_registers(f, "B", dense_b(w)) for w in range(WARPS)]
    return np.concatenate(a), np.concatenate(b), np.concatenate(e)


def main(out: Path = Path(__file__).parent) -> None:
    a, b, e = registers()
    np.save(out / "a.npy", a)
    np.save(out / "b.npy", b)
    np.save(out / "e.npy", e)


if __name__ == "__main__":
    main()


def session(iters: int = 2, grid=1, block=64, e=None, timing=False, **kw):
    """A debugger Session on spmma_loop with these inputs (``e`` replaces the metadata registers); the
    functional engine only unless ``timing``."""
    from warpsim.debug import Session

    a, b, e0 = registers()
    args = (a, b, e0 if e is None else e, np.zeros(256, np.float32), np.int32(iters), np.zeros(64, np.int32))
    return Session(str(Path(__file__).parent / "spmma.ptx"), "spmma_loop", grid, block, args, timing=timing, **kw)
