"""The per-trip clock store of the trips kernels, out of sample: ``traces/h100/trips/store_sharing.json`` (the ILP-1
trips kernels with only the trip's store changed, ``traces/capture/store_sharing.py``) run by the H100 and by
warpsim from the same PTX (``python -m warpsim.timing.store_sharing``). The table's taken-branch redirect and
store read (``branch_taken``, ``store_read``, ``store_read_other``) were fitted to the recorded kernels and these
variants together, the rest of it to the recorded kernels alone. Held here: what the variants show, what the
replay does with them and did before the redirect, an option (off) and what it costs the recorded kernels, and
what the H200's clock_read probe says a clock read and a loop's branches cost (``traces/h200/clock_read.json``)."""
from __future__ import annotations

import os

import numpy as np
import pytest

from warpsim.replay_timing import TimingRunner, measured
from warpsim.timing import store_sharing as S
from warpsim.timing.params import params_for
from warpsim.tracefile import read_trace

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLAIN_TRIP = {"sp_f16_k16_f32": 134.0, "dense_f16_k16_f32": 192.0, "sp_f16_k32_f32": 192.0}  # 8 x the latency


@pytest.fixture(scope="module")
def got():
    return S.measured(S.load())


def _issue(**kw):
    p = params_for("sm_90a")
    p.issue = dict(p.issue, **kw)
    return p


def _errors(got, kind, params=None, group=0):
    return np.array([100 * (S.groups(S.simulate(f, kind, w, params))[group] / got[(f, kind, w)][group] - 1)
                     for f in S.FORMS for w in S.WARPS if not (group and w == 4)])


def test_the_h100s_trip_costs_its_clock_read(got):
    """One warp a sub-partition: every variant's trip is 17-36 cycles longer than the plain loop's 8 x the mma
    latency (the timing kernel without a clock read), the store-free one (``nost``: the clock xor-ed into a
    register) 23-32 of them; ``st.shared`` 5-6 cycles less than none, ``st.global`` 3-7 more. So the trip's
    cost is mostly not the store's."""
    for form in S.FORMS:
        trip = {k: got[(form, k, 4)][0] / S.REPS - PLAIN_TRIP[form] for k in ("base", "nost", "shared")}
        assert all(17 < v < 36 for v in trip.values()), (form, trip)
        assert 22 < trip["nost"] < 32, (form, trip)
        assert trip["shared"] + 4 < trip["nost"] < trip["base"] - 2.5, (form, trip)


def test_a_storing_warp_slows_the_others_on_the_h100(got):
    """``split`` (one ``st.global`` warp a sub-partition, the others store nothing): the store-free warps run 6-12
    cycles a trip slower than in ``nost`` at 2-4 warps a sub-partition, in every form: a global store costs
    the other warps of its sub-partition, not only its own."""
    for form in S.FORMS:
        for w in (8, 12, 16):
            extra = (got[(form, "split", w)][1] - got[(form, "nost", w)][1]) / S.REPS
            assert 6 < extra < 12, (form, w, extra)


def test_the_replay_of_the_store_variants(got):
    """The table (fitted to ``base`` and these variants together: the taken branch's redirect ``branch_taken`` 12,
    overlapping the mma drain, and the store's register read ``store_read`` 17; then, 2026-11-29, the L1's data
    path for the fills' wavefronts and the store holding the tensor pipe, ``store_pipe`` 1.25, refitted on the
    recorded table): base within 7.5 % (k32 with 16 warps -7.1 %, dense +5.5 %), ``st.shared`` within 4.5 %, the
    store predicated off within 9.5 % (dense with 12-16 warps 6.5-9.3 % long: the predicated-off store holds
    the pipe as a real one does), the store-free loop short by 0.4-9 % (k32 with 16 warps 11.3 %). Before the
    data path's refit: base within 6.5 %, predicated off within 5 %, store-free 0.4-6 % short. Without the
    redirect, with the trip's cost on the store's read (28), the store-free loop is 4.4-11.5 % short at every
    form and warp count, a loop without a store not paying it."""
    assert np.abs(_errors(got, "base")).max() < 7.5
    assert np.abs(_errors(got, "shared")).max() < 4.5
    assert np.abs(_errors(got, "predoff")).max() < 9.5
    nost = _errors(got, "nost")
    assert (nost < 0).all() and (nost > -12).all() and (np.sort(nost)[1:] > -9).all(), nost
    old = _issue(drain_at_target=False, branch_taken=0.0, store_read=28.0, store_read_other=10.0)
    nost_old = _errors(got, "nost", old)
    assert (nost_old < -4.3).all() and (nost_old > -12).all(), nost_old


def test_the_h100s_trip_end_is_the_same_for_every_form(got):
    """One warp a sub-partition: from the trip's last mma to the next trip's first, 8 x the latency less 7 of them,
    the store-free trip takes 47-50 cycles in all three forms (mma latency 16.75 or 24), ``st.global`` 50-56,
    ``st.shared`` 41-45: the loop's tail after the last mma (the clock read, its use, the count and the branch:
    about 29 cycles of ptxas's stall counts) and more, whatever the mma's latency."""
    lat = {"sp_f16_k16_f32": 16.75, "dense_f16_k16_f32": 24.0, "sp_f16_k32_f32": 24.0}
    for form in S.FORMS:
        end = {k: got[(form, k, 4)][0] / S.REPS - 7 * lat[form] for k in ("nost", "base", "shared")}
        assert 46 < end["nost"] < 50.5 and 49 < end["base"] < 56.5 and 41 < end["shared"] < 45.5, (form, end)


def test_the_clock_read_waits_for_no_mma():
    """The H200 (``traces/h200/clock_read.json``, ``python -m warpsim.timing.clock_read``; one warp, the same PTX
    file in warpsim): a clock read issues 2 cycles after a lone dense or sparse k16 mma, as after another clock
    read, and 10 after a sparse k32 one; 2 and 4 dependent mma add 17 / 24 / 25 cycles each (sparse k16 / dense /
    sparse k32); the read's value is used 6 cycles after it (8 from read to read with one xor between, ptxas's
    stall count). So the trip's cost above is not the clock read waiting for the mma. warpsim: the dense form
    exactly (2 / 26 / 74), the sparse k16 read 5 cycles late (7) and the k32 one 3 early (7)."""
    from warpsim.timing import clock_read as C
    got = C.measured(C.load())
    least = {k: got[(k, 1)][0] for k in C.KERNELS}
    assert least["clock_none"] == least["clock_sp_k16_1"] == least["clock_k16_1"] == 2
    assert least["clock_sp_k32_1"] == 10 and least["clock_use_1"] == least["clock_use_2"] == 8
    for name, per in (("sp_k16", 17), ("k16", 24), ("sp_k32", 25)):
        assert abs((least[f"clock_{name}_4"] - least[f"clock_{name}_2"]) / 2 - per) <= 0.5, name
    sim = {k: C.stats(C.simulate(k, 1))[0] for k in ("clock_k16_1", "clock_k16_2", "clock_k16_4", "clock_sp_k16_1",
                                                       "clock_sp_k32_1")}
    assert (sim["clock_k16_1"], sim["clock_k16_2"], sim["clock_k16_4"]) == (2, 26, 74)
    assert sim["clock_sp_k16_1"] == 7 and sim["clock_sp_k32_1"] == 7


def test_the_store_on_the_pipe_keeps_the_trips_out_of_step():
    """With the L1's data path taking the fills' wavefronts (``memory["miss_wavefronts"]``, ``tag_all``) the
    16-warp trips kernels leave their first trip out of step, as the H100's do, and the other warps fill the
    tensor pipe while one stores: without ``issue["store_pipe"]`` (a global store holds its sub-partition's
    tensor pipe, 1.25 times the ii of the op there) the sparse k32 trips with 16 warps at ILP 1 run 10 % short;
    with it both sparse forms are within 5 %."""
    off = _issue(store_pipe=0.0)
    for name in ("trips_sp_f16_k16_f32", "trips_sp_f16_k32_f32"):
        tr = read_trace(os.path.join(ROOT, "traces", "h100", "timing", name + ".npz"))
        hw = measured(tr, 1, 16, 32, "mean")
        table = TimingRunner(tr, params=params_for("sm_90a")).run(1, 16, 32).mean() / hw - 1
        without = TimingRunner(tr, params=off).run(1, 16, 32).mean() / hw - 1
        assert abs(table) < 0.05, (name, table)
        if "k32" in name:
            assert without < -0.08, (name, without)


def test_a_loops_taken_branch_costs_its_redirect():
    """The H200's clock loops (one clock read a trip, its xor, the count and two branches, one taken; 0, 1 or 8
    sparse k16 mma a trip) take 60 / 69 / 191 cycles a trip on average (39 / 50 / 167 at least): warpsim with
    the taken branch's redirect (``branch_taken`` 12) 56 / 61 / 180, within 12 %; without it 44 / 49 / 168,
    21-30 % short for the mma-free and one-mma loops."""
    from warpsim.timing import clock_read as C
    got = C.measured(C.load())
    old = params_for("sm_90a", device="H200")
    old.issue = dict(old.issue, drain_at_target=False, branch_taken=0.0, store_read=28.0, store_read_other=10.0)
    for k in ("clock_loop_0", "clock_loop_sp_k16_1", "clock_loop_sp_k16_8"):
        mean = got[(k, 1)][2]
        assert -0.12 < C.stats(C.simulate(k, 1))[2] / mean - 1 < 0, (k, mean)
        without = C.stats(C.simulate(k, 1, old))[2] / mean - 1
        assert without < -0.2 or k.endswith("_8"), (k, without)


def test_a_branch_after_a_tail_on_the_h200():
    """``traces/h200/branch_tail.json`` (``python -m warpsim.timing.branch_tail``, the same PTX file in warpsim): one
    warp's loop of K sparse k16 mma, a 32-bit clock read and T dependent multiply-adds on its value. What the H200
    says: with no tail, 8 mma take 8 x 16.75 cycles and 2.5 (ptxas's ISETP sits among the mma, its BRA right after
    the last: the branch and its redirect hide behind the chain), one mma 27.3 (the ISETP after it, 13 cycles to
    the BRA, then the redirect: about 11); a tail adds 45 cycles whatever T is up to 4 (ptxas reads the clock
    with S2UR for the multiply-adds, which wait ~34 cycles for it, and puts the ISETP after the first of them),
    then 4-4.5 a multiply-add. warpsim, with the read's latency (``classes["clock32"]`` 34) and the redirect: the
    tails of 6-12 within 2.5 %; with no tail, where ptxas drops the unused clock read and so does warpsim's order
    (it kept it as a fence, the loop's count behind it: 8 mma 10 % long), 8 mma within 1.5 %, one 14 % long.
    Not modelled: ptxas's ISETP after the first multiply-add (T = 1-3: 4-22 % short). Without the read's
    latency the tails of 6-12 were 12-36 % short."""
    from warpsim.timing import branch_tail as B
    got = {k: v[0] for (k, w), v in B.measured(B.load()).items() if w == 1}
    assert abs(got["branch_tail_k8_t0"] - 8 * 16.75 - 2.5) < 0.5 and abs(got["branch_tail_k1_t0"] - 27.3) < 0.5
    for k in (1, 8):
        flat = [got[f"branch_tail_k{k}_t{t}"] for t in (1, 2, 3, 4)]
        assert max(flat) - min(flat) < 2.5 and 34 < flat[0] - got[f"branch_tail_k{k}_t0"] < 46, (k, flat)
        assert 3.9 <= (got[f"branch_tail_k{k}_t12"] - got[f"branch_tail_k{k}_t6"]) / 6 <= 4.5
    sim = {k: B.simulate(k) / got[k] - 1 for k in B.KERNELS}
    no_clock32 = params_for("sm_90a", device="H200")
    no_clock32.classes = {c: v for c, v in no_clock32.classes.items() if c != "clock32"}
    assert abs(sim["branch_tail_k8_t0"]) < 0.015 and 0.1 < sim["branch_tail_k1_t0"] < 0.16
    for k in (1, 8):
        for t in (6, 8, 12):
            name = f"branch_tail_k{k}_t{t}"
            assert abs(sim[name]) < 0.025 and B.simulate(name, 1, no_clock32) / got[name] - 1 < -0.12, name
        assert all(-0.22 < sim[f"branch_tail_k{k}_t{t}"] < -0.035 for t in (1, 2, 3)), k


def test_a_branch_after_a_tail_with_two_warps_a_sub_partition():
    """The same kernels with 8 warps (two on each sub-partition): the loop of one mma and no tail takes each warp
    about what it takes one alone (28.1 cycles against 27.3; warpsim 31.1 and 31.0): the redirect is the warp's
    own, the other warp issues in it. Not modelled: with 8 mma and a tail the pairs take the H200 1-19 cycles a
    trip more than one warp alone (212.8 against 194.2 with 8 multiply-adds), warpsim 5 (6-9 % short)."""
    from warpsim.timing import branch_tail as B
    got = {k: v[0] for k, v in B.measured(B.load()).items()}
    assert got[("branch_tail_k1_t0", 8)] - got[("branch_tail_k1_t0", 1)] < 1.5
    assert abs(B.simulate("branch_tail_k1_t0", 8) - B.simulate("branch_tail_k1_t0", 1)) < 0.5
    assert abs(B.simulate("branch_tail_k8_t0", 8) / got[("branch_tail_k8_t0", 8)] - 1) < 0.02
    assert all(-0.095 < B.simulate(f"branch_tail_k8_t{t}", 8) / got[(f"branch_tail_k8_t{t}", 8)] - 1 < -0.05
               for t in (1, 2, 3, 8, 12))


def test_drain_at_target_only_moves_the_drain():
    """``drain_at_target`` moves the drain of ``drain_tensor_at_branch`` from the branch to its target; with no
    drain it adds none, and with the redirect at 0 it is the drain at the branch (the same cycles)."""
    tr = read_trace(os.path.join(ROOT, "traces", "h100", "timing", "sp_f16_k16_f32.npz"))

    def run(**kw):
        return TimingRunner(tr, params=_issue(**kw)).run(4, 1, 4).mean()

    assert run(drain_tensor_at_branch=False, drain_at_target=True) == run(drain_tensor_at_branch=False,
                                                                          drain_at_target=False)
    assert run(branch_taken=0.0, drain_at_target=True) == run(branch_taken=0.0, drain_at_target=False)
    assert run(drain_tensor_at_branch=False) < run()
