"""Misuse of Tensor Memory and of tcgen05 ordering through nvcc sm_100a kernels (tests/ptx/tcgen05/misuse.cu,
pair_misuse.cu): each misuse is a located error naming the rule, on the functional and on the timed engine;
under ub_policy="hardware" the ordering hazards run as documented in warpsim.tcgen05_async."""
from pathlib import Path

import numpy as np
import pytest

import warpsim
from isa import formats
from isa.errors import WarpsimError
from isa.tcgen05 import smem_desc as sd
from warpsim.cta import BarrierDeadlock
from warpsim.tcgen05_async import Tcgen05Hazard
from warpsim.tmem import TmemAccessError, TmemAllocError

DIR = Path(__file__).parent / "ptx" / "tcgen05"
rng = np.random.default_rng(7)
A = rng.integers(-4, 5, (128, 16)) / 4.0
B = rng.integers(-4, 5, (64, 16)) / 4.0


def _k_major(vals):
    raw = formats.encode_exact("f16", vals).astype(np.uint64)
    buf = np.zeros(vals.size * 2, np.uint8)
    sd.write_tile(buf, sd.SmemDescriptor(0, 16 * vals.shape[0], 128), "K", raw, 16)
    return buf


def run(mode, timing=False, policy="error"):
    mod = warpsim.RawModule(path=str(DIR / "misuse.ptx"), timing=timing, ub_policy=policy)
    out = np.zeros((128, 64), np.float32)
    mod.get_function("_Z6misusePKhS0_Pfj")((1,), (128,), (_k_major(A), _k_major(B), out, np.uint32(mode)))
    return out


LOC = r"misuse\.ptx:\d+:\d+ \({op}[^)]*\): "
HAZARD = LOC + (r"undefined behaviour: tcgen05 ordering hazard \(PTX ISA 9\.7\.16\.6\): an access to Tensor Memory "
                r"that the program does not order after an unfinished asynchronous operation: ")
MMA = r"tcgen05\.mma\.cta_group::1\.kind::f16 \(at .*misuse\.ptx:\d+:\d+ \(tcgen05\.mma[^)]*\)\)"
CASES = {
    1: (TmemAllocError, LOC.format(op="tcgen05.alloc") + r"tcgen05\.alloc: nCols = 32 does not fit: 0 of 512 columns "
        r"free \(allocated: columns 0\.\.511\); the alloc would block forever"),
    2: (TmemAllocError, LOC.format(op="tcgen05.dealloc") + r"tcgen05\.dealloc: nCols = 64 but the allocation at column 0 "
        r"has 128 columns; dealloc must free exactly what alloc took"),
    3: (TmemAccessError, LOC.format(op="tcgen05.ld") + r"tcgen05\.ld: warp 1 accesses TMEM lanes 0\.\.31, but warp 1 "
        r"\(warp_id % 4 = 1\) may only reach lanes 32\.\.63"),
    4: (Tcgen05Hazard, HAZARD.format(op="tcgen05.ld") + r"tcgen05\.ld\.sync\.aligned\.32x32b\.x8\.b32 reads TMEM lanes "
        r"\d+\.\.\d+, columns 0\.\.7, which " + MMA + r" writes, issued by thread 0 of warp 0; the operation is not known "
        r"complete to this warp: no tcgen05\.commit by the issuing thread tracks it yet"),
    5: (Tcgen05Hazard, HAZARD.format(op="tcgen05.ld") + r".* reads TMEM .*, which " + MMA + r" writes, .*it is committed "
        r"\(tcgen05\.commit at .*misuse\.ptx:\d+:\d+ .*\) but this warp has not waited for that mbarrier phase"),
    6: (Tcgen05Hazard, HAZARD.format(op="tcgen05.ld") + r".* which " + MMA + r" writes, .*this warp observed its "
        r"completion through a thread synchronisation but has not executed tcgen05\.fence::after_thread_sync since"),
    7: (TmemAllocError, r"^CTA \(0, 0, 0\) exits with TMEM still allocated: columns 0\.\.127 \(columns 0\.\.127 allocated "
        r"at .*misuse\.ptx:\d+:\d+ \(tcgen05\.alloc.*\)\); all TMEM a CTA allocates must be deallocated \(tcgen05\.dealloc\) "
        r"before the CTA exits \(PTX ISA 9\.7\.16\.7\.1\) \[its warps ended at: .*misuse\.ptx:\d+:\d+ \(ret;\)\]"),
    8: (Tcgen05Hazard, HAZARD.format(op="tcgen05.mma") + r"tcgen05\.mma\.cta_group::1\.kind::f16 reads TMEM lanes 0\.\.127, "
        r"columns 0\.\.31, which " + MMA + r" writes.* \(an mma -> mma pair is pipelined only on the same accumulator "
        r"address, shape and kind: \[d-tmem\] 0x0 M128 N64 \.kind::f16 vs \[d-tmem\] 0x0 M128 N32 \.kind::f16\)"),
    10: (Tcgen05Hazard, HAZARD.format(op="tcgen05.dealloc") + r"tcgen05\.dealloc\.cta_group::1 frees TMEM lanes 0\.\.127, "
         r"columns 0\.\.63, which " + MMA + r" writes, .*it is committed"),
    12: (Tcgen05Hazard, LOC.format(op="tcgen05.mma") + r"undefined behaviour: tcgen05\.mma\.cta_group::1\.kind::f16 reads "
         r"shared memory through the async proxy \(bytes 0\.\.\d+, e\.g\. 0x0\) that warp 0 wrote through the generic "
         r"proxy \(at .*misuse\.ptx:\d+:\d+ \(st\.shared\.v4\.u32 .*\)\) with no fence\.proxy\.async of that warp after the "
         r"write \(PTX ISA 9\.7\.16\.6\.5\)"),
    11: (Tcgen05Hazard, HAZARD.format(op="tcgen05.ld") + r"tcgen05\.ld\.sync\.aligned\.32x32b\.x1\.b32 reads TMEM lanes "
         r"\d+\.\.\d+, columns 100, which tcgen05\.st\.sync\.aligned\.32x32b\.x1\.b32 \(at .*\) writes, issued by warp \d; "
         r"the operation is not known complete to this warp: this warp has not executed tcgen05\.wait::st since"),
}


def test_the_correct_program_runs_on_both_engines():
    for timing in (False, True):
        assert (run(0, timing) == A @ B.T).all()


@pytest.mark.parametrize("timing", [False, True], ids=["functional", "timed"])
@pytest.mark.parametrize("mode", sorted(CASES))
def test_misuse_is_a_located_error(mode, timing):
    err, pattern = CASES[mode]
    with pytest.raises(err, match=pattern):
        run(mode, timing)


@pytest.mark.parametrize("timing", [False, True], ids=["functional", "timed"])
def test_st_racing_the_mma_is_a_hazard_whichever_lands_second(timing):
    """Mode 9: every warp stores into D column 0 while the MMA may write it. Which instruction reports it depends
    on the order the engine runs them in; both orders are the same race."""
    with pytest.raises(Tcgen05Hazard, match=r"undefined behaviour: tcgen05 ordering hazard .*(tcgen05\.st\.sync.* writes TMEM"
                                            r" lanes \d+\.\.\d+, columns 0, which tcgen05\.mma|tcgen05\.mma\.cta_group::1"
                                            r"\.kind::f16 writes TMEM lanes \d+\.\.\d+, columns 0, which tcgen05\.st)"):
        run(9, timing)


def test_hardware_policy_reads_what_is_there():
    """ub_policy="hardware": a hazard is not an error; the access happens at that moment. Reading D with no wait
    on the timed engine: the first columns are read before the MMA's writes land (the poison of a fresh
    allocation: NaN), the last ones after (the MMA completed while the warps were reading); two unordered MMAs
    on the same columns both accumulate; reading D without the fence after a completed wait sees the result."""
    ref = A @ B.T
    early = run(4, timing=True, policy="hardware")
    assert np.isnan(early[:, :8]).all() and (early[:, -8:] == ref[:, -8:]).all()
    both = run(8, policy="hardware")
    assert (both[:, :32] == 2 * ref[:, :32]).all() and (both[:, 32:] == ref[:, 32:]).all()
    assert (run(6, policy="hardware") == ref).all()


def test_an_mma_completes_later_than_it_is_issued():
    """On the timed engine the MMA is still in flight when a warp reads D right after the commit (mode 5), so
    the hazard names the commit; the same program with the wait is correct."""
    with pytest.raises(Tcgen05Hazard, match=r"it is committed"):
        run(5, timing=True)
    assert (run(0, timing=True) == A @ B.T).all()


def _pair(mode, timing=False):
    mod = warpsim.RawModule(path=str(DIR / "pair_misuse.ptx"), timing=timing)
    out = np.full(64, 0xDEAD, np.uint32)
    stats = mod.get_function("_Z11pair_misusePjj")((2,), (32,), (out, np.uint32(mode)))
    return out, stats


@pytest.mark.parametrize("timing", [False, True], ids=["functional", "timed"])
def test_cta_pair_allocation(timing):
    out, stats = _pair(0, timing)
    assert (out == 0).all()  # both CTAs of the pair got the same columns (every thread stored it)
    assert stats.warp_instructions == 52  # both warps ran to the end (the same count on both engines)
    with pytest.raises(BarrierDeadlock, match=r"(?s)deadlock in cluster \(0, 0, 0\).*barrier\.cluster .*CTA 0 warp 0 wait; "
                                              r"missing: CTA 1 warp 0.*tcgen05\.dealloc\.cta_group::2 at .*: warp 0 of CTA "
                                              r"rank 1 waits for a warp of its peer CTA \(rank 0\).*Tables 46 and 48"):
        _pair(1, timing)
    with pytest.raises(WarpsimError, match=r"pair_misuse\.ptx:\d+:\d+ \(tcgen05\.alloc\.cta_group::2[^)]*\): undefined "
                                           r"behaviour: tcgen05\.alloc\.cta_group::2: the two warps of the pair ask for "
                                           r"different nCols \(32 at .*, 64 here"):
        _pair(2, timing)


def test_cta_group_2_without_a_cluster():
    mod = warpsim.RawModule(path=str(DIR / "pair_misuse.ptx"), timing=False)
    k = mod.get_function("_Z11pair_misusePjj")
    with pytest.raises(WarpsimError, match="cannot launch it with cluster=\\(1, 1, 1\\)"):
        k((2,), (32,), (np.zeros(64, np.uint32), np.uint32(0)), cluster=(1, 1, 1))
