"""The debugger over a tcgen05 kernel: stepping back restores the asynchronous tcgen05 state too (the queued
MMA, each warp's ordering knowledge, mbarrier phases, the generic-proxy write tracker), at every instruction."""
from pathlib import Path

import numpy as np

import warpsim
from isa import formats
from isa.tcgen05 import smem_desc as sd
from warpsim.debug import Session

PTX = Path(__file__).parent / "ptx" / "tcgen05" / "mma_f16.ptx"


def _k_major(vals):
    raw = formats.encode_exact("f16", vals).astype(np.uint64)
    buf = np.zeros(vals.size * 2, np.uint8)
    sd.write_tile(buf, sd.SmemDescriptor(0, 16 * vals.shape[0], 128), "K", raw, 16)
    return buf


def test_reverse_stepi_is_exact_through_a_tcgen05_mma_kernel():
    rng = np.random.default_rng(3)
    a, b = rng.integers(-4, 5, (128, 16)) / 4.0, rng.integers(-4, 5, (64, 16)) / 4.0
    mod = warpsim.RawModule(path=str(PTX))
    entry = next(f.name for f in mod.module.functions if f.kind == "entry")
    out = np.zeros((128, 64), np.float32)
    s = Session(mod, entry, 1, 128, (_k_major(a), _k_major(b), out), timing=False)
    before = s.full_state(focus=False)
    n = 0
    while not s.finished:
        s.stepi(scheduler=True)
        after = s.full_state(focus=False)
        s.reverse_stepi()
        assert s.full_state(focus=False) == before, f"instruction {n}"
        s.stepi(scheduler=True)
        assert s.full_state(focus=False) == after
        before, n = after, n + 1
    assert (s.args[2] == a @ b.T).all() and n > 500
