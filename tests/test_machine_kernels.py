"""nvcc-emitted kernels (tests/ptx/machine/kernels.cu) through RawModule, compared with numpy."""
from pathlib import Path

import numpy as np
import pytest

import warpsim

PTX = Path(__file__).parent / "ptx" / "machine" / "kernels.ptx"


@pytest.fixture(scope="module")
def mod():
    return warpsim.RawModule(path=str(PTX))


def test_vadd_partial_last_block(mod):
    n = 1000
    rng = np.random.default_rng(0)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    c = np.full(n, -1, np.float32)
    stats = mod.get_function("vadd")((8,), (128,), (a, b, c, np.int32(n)))
    assert np.array_equal(c, a + b)
    assert stats.ctas == 8 and stats.warp_instructions > 0


def test_reduce_shared_memory_and_barriers(mod):
    a = np.random.default_rng(1).integers(-100, 100, 4 * 256).astype(np.float32)  # exact sums
    out = np.zeros(4, np.float32)
    mod.get_function("reduce")(4, 256, (a, out, np.int32(a.size)), shared_mem=256 * 4)
    assert np.array_equal(out, a.reshape(4, 256).sum(axis=1))


def _divergent_ref(t, n):
    acc = 0
    for k in range(t % 7 + n):
        acc = np.int32(np.int64(acc) * 3 + (k ^ t))
        acc = acc + 5 if acc & 1 else acc - t
        acc = int(np.int64(acc).astype(np.int32))
    return acc if t & 2 else -acc


def test_divergent_loops_and_branches(mod):
    out = np.zeros(64, np.int32)
    mod.get_function("divergent")(1, 64, (out, np.int32(3)))
    assert [int(v) for v in out] == [np.int32(_divergent_ref(t, 3)) for t in range(64)]


def test_2d_grid_and_blocks(mod):
    h, w = 19, 45
    a = np.random.default_rng(2).integers(-4096, 4096, (h, w)) / 1024.0  # a*2.5 + y is exact (nvcc fuses to fma)
    c = np.zeros((h, w))
    stats = mod.get_function("scale2d")((3, 2), (16, 10), (a, c, np.int32(w), np.int32(h), np.float64(2.5)))
    assert stats.ctas == 6
    assert np.array_equal(c, a * 2.5 + np.arange(h)[:, None])


def test_static_shared_transpose_with_f16(mod):
    x = np.random.default_rng(3).standard_normal((32, 32)).astype(np.float32)
    out = np.zeros((32, 32), np.uint16)
    mod.get_function("transpose_h")(1, (32, 32), (x, out))
    ref = x.T.astype(np.float16)  # round-to-nearest; rz differs when it rounded up in magnitude
    got = out.view(np.float16)
    up = np.abs(ref.astype(np.float32)) > np.abs(x.T)
    assert np.array_equal(got[~up], ref[~up])
    assert np.array_equal(got[up], np.nextafter(ref[up], np.float16(0)))


def test_a_run_leaves_the_older_heap_out_of_gc_and_puts_it_back(mod):
    """young_gc: during a run the objects from before it are frozen (a full collection skips them); afterwards
    nothing stays frozen, and a caller's own freeze is left as it was."""
    import gc

    from warpsim.engine import young_gc

    seen = []
    with young_gc():
        seen.append(gc.get_freeze_count())
        cycle = []
        cycle.append(cycle)  # garbage made during the run is still collected
        del cycle
        assert gc.collect() >= 1
    assert seen[0] > 0 and gc.get_freeze_count() == 0
    n = 256
    x, y, out = (np.arange(n, dtype=np.float32), np.ones(n, np.float32), np.zeros(n, np.float32))
    mod.get_function("vadd")((2,), (128,), (x, y, out, np.int32(n)))
    assert gc.get_freeze_count() == 0
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with young_gc():
            assert gc.get_freeze_count() == frozen
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
