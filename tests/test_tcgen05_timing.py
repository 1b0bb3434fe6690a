"""The timed engine's queued tcgen05.mma: B200 figures (literature-calibrated, warpsim/timing/params_tcgen05.py)
and their use by the engine, measured with %clock64 in an nvcc kernel (tests/ptx/tcgen05/timing_mma.cu)."""
from pathlib import Path

import numpy as np
import pytest

import warpsim
from warpsim.tcgen05_async import Op
from warpsim.timing import params_tcgen05
from warpsim.timing.tcgen05 import Tcgen05Timing

KERNEL = Path(__file__).parent / "ptx" / "tcgen05" / "timing_mma.ptx"
T = Tcgen05Timing()


def _op(m, n, cg=1, ts=False, sparse=False, kind="f16"):
    return Op(0, "mma", (0, 0, 0), 1, "", (0, 0), {"m": m, "n": n, "ts": ts, "sparse": sparse, "kind": kind}, cg)


def test_labelled_literature_calibrated():
    assert params_tcgen05.TABLE["calibration"].startswith("literature")
    assert "not trace-checked" in T.calibration


@pytest.mark.parametrize("n", [64, 128, 256])
def test_the_published_b200_points(n):
    """Reference §5.2 (SemiAnalysis B200): single-MMA latency and back-to-back II per mode."""
    assert T.cost(_op(128, n, ts=True)) == (n / 2 + 104, n / 2)
    assert T.cost(_op(128, n))[0] == n / 2 + 136
    assert T.cost(_op(128, n))[1] == {64: 48, 128: 64, 256: 128}[n]  # max(N/2, SMEM bytes / 128 B per clock)
    assert T.cost(_op(64, n)) == (n / 2 + 120, n / 2)
    assert T.cost(_op(256, n, cg=2)) == (n / 2 + 170, {64: 43, 128: 64, 256: 128}[n])
    assert T.cost(_op(128, n, cg=2))[0] == n / 4 + 165
    assert abs(T.cost(_op(128, n, cg=2))[1] - {64: 25, 128: 32, 256: 64}[n]) <= 1
    assert T.cost(_op(256, n, cg=2, ts=True)) == (n / 2 + 138, n / 2)
    assert T.cost(_op(128, n, kind="i8"))[0] == n / 2 + 134  # s8 about 2 cycles less
    assert T.cost(_op(128, n, kind="mxf8f6f4"))[0] == n / 2 + 138  # block-scaled about 2 more


def test_sparse_is_the_dense_instruction_with_twice_the_b_fetch():
    """§5.3 inference: the same latency/II as dense, the SS fetch of B doubled (M 128 f16: 32 + N/2)."""
    for n in (64, 128, 256):
        lat, ii = T.cost(_op(128, n, sparse=True))
        assert lat == n / 2 + 136 and ii == max(n / 2, 32 + n / 2)


def _measure(n, count):
    mod = warpsim.RawModule(path=str(KERNEL))
    out = np.zeros(1, np.uint64)
    mod.get_function("_Z10timing_mmaPyjj")((1,), (32,), (out, np.uint32(n), np.uint32(count)))
    return int(out[0])


@pytest.mark.parametrize("n", [64, 256])
def test_engine_completes_mmas_at_the_modelled_cycle(n):
    """clock64 before the first MMA to the mbarrier wait seeing the commit: (count - 1) * II + latency, plus the
    issue, commit and poll overhead of the kernel (one try_wait poll is ~30 cycles on this table)."""
    lat, ii = T.cost(_op(128, n))
    one, four = _measure(n, 1), _measure(n, 4)
    # (the kernel's compare -> branch pairs cost 13 cycles each on the sm_90 issue table that sm_100 borrows:
    # ISETP ... S13, BRA; and a taken branch its redirect, branch_taken: 102-129 cycles here, 80-100 without it)
    assert 0 < one - lat < 140
    assert 0 < four - (3 * ii + lat) < 140
    assert abs((four - one) - 3 * ii) <= 35
