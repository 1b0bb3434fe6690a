"""The timed engine on kernels it was not fitted to, and the chip that measured them.

``traces/h200/spgemm_clock.json``: the tiled sparse GEMM with clock stamps (``prog_spgemm_clock.ptx``) on an H200;
``traces/h200/gmem_rate.json``: the SM's global-memory path under load (``gmem_rate.ptx``);
``traces/h200/timing_again.json``: the H100's timing kernels recorded again on that H200;
``traces/h200/spgemm_phase.json``, ``l2_latency.json``, ``l1_merge.json``, ``record_merge.json``,
``l1_hit.json``: a K step's phases, a load's latency, which warps share a fill, the recorded kernels' loads, and
what an L1 hit costs (see ``warpsim.timing.spgemm_clock``, ``gmem_rate``, ``h200``, ``spgemm_phase``,
``l2_latency``, ``l1_merge``, ``record_merge``, ``l1_hit``)."""
import re

import numpy as np
import pytest

import warpsim
from isa.errors import WarpsimError
from warpsim.timing import (analysis, gmem_rate, h200, l1_dup, l1_hit, l1_merge, l1_order, l2_latency, record_merge,
                            sched, spgemm_clock, spgemm_phase)
from warpsim.timing.params import params_for


@pytest.fixture(scope="module")
def spgemm():
    return spgemm_clock.table()


def test_spgemm_d_is_the_gpus_bit_for_bit(spgemm):
    """The same PTX file on the H200 and in warpsim: D equal bit for bit, in all four kernels and both launch
    conditions."""
    assert len(spgemm) == 8 and all(r["d_bits"] for r in spgemm)


#: warpsim's kernel cycles against the H200's (entry to the last stamp), as measured: ``(low, high)`` of
#: warpsim / H200 - 1 in both launch conditions, warpsim timed as the H200 (its L2, ``params_sm90.TABLE["devices"]``).
#: A change of the model that moves one out fails here.
KERNEL_ERROR = {  # since ptxas's one-instruction pairs were known (analysis._fused); before, in brackets
    "spgemm_clock_k1024": (-0.02, -0.005),    # -1.1 / -1.2 % (+1.5 / +1.4 %; +6.0 % with bar.sync a flat 20)
    "spgemm_clock_k256": (0.03, 0.055),       # +4.2 / +4.3 % (+6.8 / +6.9 %; +10.6 / +10.7 %)
    "spgemm_clock_pf_k1024": (0.05, 0.075),   # +6.6 / +6.7 %: B prefetched into registers (+10.7 / +10.8 %)
    "spgemm_clock_w8_k1024": (-0.075, -0.055),  # -6.5 / -6.6 %: 8 warps (-2.8 %; +0.7 / +0.6 %)
}


def test_spgemm_kernel_cycles_beside_the_h200(spgemm):
    """Out of sample: the 4-warp kernels -1.2 to +6.7 % of the H200 (K steps -2.1 to +8 %), the 8-warp one
    6.6 % short (its K step 1,069 cycles against 1,150-1,152). The 4-warp ones were 1.4-10.8 % long and the 8-warp
    one 2.8 % short while each PTX instruction took an issue cycle (ptxas makes the K step's address arithmetic,
    shr + add, shr + add, mul.wide + add.s64 a load, three instructions: ``analysis.FUSED``); before bar.sync
    was measured (a flat 20 cycles, every warp held at the bar.sync itself; ``issue.barrier``,
    ``barrier_defer``) the 4-warp kernels were 6-15 % long and the 8-warp one within 1 %; before the L1's data
    path took the fills' wavefronts (``memory["miss_wavefronts"]``) the 8-warp kernel was 14 % short and the
    4-warp ones 3-6 %. The D stores (the tail) stay 22-51 % short."""
    for r in spgemm:
        err = {p: r["warpsim"][p] / r["gpu"][p] - 1 for p in ("kernel", "first", "step", "tail")}
        lo, hi = KERNEL_ERROR[r["kernel"]]
        assert lo < err["kernel"] < hi, (r, err)
        if r["kernel"] != "spgemm_clock_w8_k1024":
            assert -0.025 < err["step"] < 0.08 and 0.04 < err["first"] < 0.09 and -0.32 < err["tail"] < -0.2, \
                (r, err)
        else:
            assert -0.075 < err["step"] < -0.065 and -0.52 < err["tail"] < -0.4, (r, err)


def test_spgemm_phases():
    """The GEMM with a clock read at each phase of a K step (``spgemm_phase.ptx``, D bit-exact again): the B
    phase (four loads a warp, each over 2 lines, then the shared stores that wait for them) within 14 % of the
    H200 (357 / 340 / 343 cycles; warpsim 365 / 343 / 367, and 383 / 351 / 385 while the first of a fused address
    pair took an issue cycle, ``analysis._fused``); the clock read after the first barrier 7 cycles after
    the one before it on the H200, 6 in warpsim (it waits for no release: ``issue.barrier_defer``; 21-22 with every
    warp held at the bar.sync); that and the A phase (each warp 4 requests over 8 lines, 8-way conflicts, warps
    2k and 2k + 1 the same lines) within 10 % (465 / 605 / 452; warpsim 484 / 586 / 482: the fills' wavefronts
    through the data path, ``l1_dup``; before that 403 / 476 / 405); the second mma, the barrier after it and the
    loop's stamp and branch (``mma`` + ``loop``, where the release is paid: warpsim at the stamp's store, the
    H200 partly before its clock read) within 22 % (107 / 144 / 109; warpsim 96 / 161 / 96)."""
    doc = spgemm_phase.load()
    got = spgemm_phase.measured(doc)
    for k in spgemm_phase.KERNELS:
        d, t = spgemm_phase.simulate(k)
        assert spgemm_clock.digest(d) == doc["d_sha256"][k]
        sim = spgemm_phase.phases(t)
        for before in ("l1-reset", "none"):
            hw = got[(k, before)]
            assert 0.0 < sim["B"] / hw["B"] - 1 < 0.14, (k, before, hw, sim)
            assert abs(sim["bar1"] - hw["bar1"]) <= 2, (k, before, hw, sim)
            assert abs((sim["bar1"] + sim["A"]) / (hw["bar1"] + hw["A"]) - 1) < 0.10, (k, before, hw, sim)
            assert abs((sim["mma"] + sim["loop"]) / (hw["mma"] + hw["loop"]) - 1) < 0.22, (k, before, hw, sim)


@pytest.fixture(scope="module")
def gmem():
    return {(r["kernel"], r["warps"]): r["warpsim"][0] / r["gpu"][0] - 1 for r in gmem_rate.table()}


def test_gmem_rate_the_sms_load_path(gmem):
    """(Every figure of these tests is the CTA's span, its first warp's first clock to its last warp's last; the
    engine ends early warps early, where on the H200 every warp spans nearly the whole run.) The SM's L1 takes
    a line a cycle from the L2 and a wavefront a cycle from its sub-partitions (one every 2 from each): 32 loads
    a warp over 32 lines within 5 % of the H200 from 2 to 16 warps, over 8 lines within 9 % from 8 warps, L1
    hits over 8 lines within 16 %, over 32 lines within 2 % with one warp and 22 % short to 13 % long with 2-16
    (ptxas issues about 21 of the 32 loads before the first reader, which waits behind the other warps' hits in
    the engine's data path, first come first served; 9-19 % long before the first pass's fills took their
    wavefronts there too, 2026-11-29). Without those two rates the 16-warp runs had been 94 % short (L2) and
    78-81 % long (hits: a wavefront every 2 cycles for the whole SM)."""
    assert all(abs(gmem[("gmem_load_p32", w)]) < 0.05 for w in (2, 4, 8, 16))
    assert all(abs(gmem[("gmem_load_p8", w)]) < 0.09 for w in (8, 16))
    assert abs(gmem[("gmem_hit_p32", 1)]) < 0.02
    assert all(-0.23 < gmem[("gmem_hit_p32", w)] < 0.14 for w in (2, 4, 8, 16))
    assert all(abs(gmem[("gmem_hit_p8", w)]) < 0.16 for w in (1, 2, 4, 8, 16))


def test_gmem_rate_the_sms_store_port(gmem):
    """Global stores queue at the SM's store port (2 cycles a line or 1 a sector, whichever is more; no warp
    issues another while 40 wait): 4-16 warps storing over 8 or 32 lines within 5 % of the H200, over one line
    (4 sectors) within 23 %. Without the port the 16-warp runs had been 70-98 % short. And a sub-partition
    issues a global store every 7 cycles at most (``memory["store_ii"]``; the H200's one warp 8.4-8.7): one or
    two warps' 32 stores over one line within 6 % (at the MIO's 4 cycles 32-33 % short), over 8 lines 8-24 %
    short, over 32 lines 18-24 % short (38-45 %; over 8 lines 11-25 % while the first of a fused address pair
    took an issue cycle, ``analysis._fused``)."""
    assert all(abs(gmem[(f"gmem_store_p{p}", w)]) < 0.05 for p in (8, 32) for w in (4, 8, 16))
    assert all(abs(gmem[("gmem_store_p1", w)]) < 0.23 for w in (4, 8, 16))
    assert all(abs(gmem[("gmem_store_p1", w)]) < 0.06 for w in (1, 2))
    assert all(-0.26 < gmem[(f"gmem_store_p{p}", w)] < -0.07 for p in (8, 32) for w in (1, 2))


def test_gmem_rate_what_the_engine_lacks(gmem):
    """Measured, not modelled:

    * one warp's 32 loads, and 4-16 warps' loads of one line a request, take 15-32 % longer on the H200 than in
      the engine (both issue about 21 loads, wait for the first, then the rest: two round trips, as ptxas orders
      them; ``l2_latency``'s bursts show the same);
    * two warps loading the same lines (``gmem_pair``: warps 2k and 2k + 1, as the GEMM's A rows) take as long
      on the H200 as two loading their own. Not because the L1 fetches a line again for each warp, as read
      then: each request's lanes conflict 8 or 32 ways, and its wavefronts pass the SM's data path one a cycle
      when the fill is there (``l1_dup``; ``memory["miss_wavefronts"]``). With that the engine's pairs over 32
      lines are within 2 %, over 8 lines 3-29 % short (39-49 % short with 2-16 warps before, 2026-11-29)."""
    assert all(-0.35 < gmem[(f"gmem_load_p{p}", 1)] < -0.1 for p in (1, 8, 32))
    assert all(-0.3 < gmem[("gmem_load_p1", w)] < -0.15 for w in (4, 8, 16))
    assert all(abs(gmem[("gmem_pair_p32", w)]) < 0.02 for w in (2, 4, 8, 16))
    assert all(-0.3 < gmem[("gmem_pair_p8", w)] < -0.02 for w in (2, 4, 8, 16))


def test_l1_merge_the_same_lines_cost_their_wavefronts():
    """``l1_merge``: 4-16 warps each loading 4 or 16 requests over 8 or 32 lines take as long on the H200 when every
    warp loads the same lines as when each loads its own (within 10 %, at every size). Read first as the L1
    fetching a line again for each warp; ``l1_dup`` says it is the data path (these requests conflict 8 and 32
    ways). The engine, which shares the fill and books each request's wavefronts from its arrival
    (``memory["miss_wavefronts"]``), has the same lines within 2 % of its own lines and both within 9 % of the
    H200 (11-57 % as long for the same lines before 2026-11-29)."""
    got = l1_merge.measured(l1_merge.load())
    for k in ("l1_merge_n4_p32", "l1_merge_n16_p8", "l1_merge_n16_p32"):
        for w in (4, 8, 16):
            own, same = got[(k, w, w)][0], got[(k, w, 1)][0]
            assert abs(same / own - 1) < 0.1, (k, w, own, same)
            sim_own = l1_merge.cycles(l1_merge.simulate(k, w, w))[0]
            sim_same = l1_merge.cycles(l1_merge.simulate(k, w, 1))[0]
            assert abs(sim_same / sim_own - 1) < 0.02, (k, w, sim_own, sim_same)
            assert abs(sim_own / own - 1) < 0.09 and abs(sim_same / same - 1) < 0.09, (k, w, own, sim_own)


@pytest.fixture(scope="module")
def dup():
    return l1_dup.measured(l1_dup.load())


def _dup_added(kernel, warps, got=None):
    """What ``kernel``'s requests past the first add to the CTA's span (the kernel less its one-request kernel of
    the same shape; that cancels the parameter loads ptxas sinks below the first clock read, 70-90 cycles of
    some kernels' spans): the H200's if ``got``, else warpsim's."""
    if "_b" in kernel:  # the stride kernels have no one-request "same" kernel
        first = re.sub(r"(same|distinct)_n\d+", "distinct_n1", kernel)
    else:
        first = re.sub(r"_n\d+", "_n1", kernel)
    if got is not None:
        return got[(kernel, warps)][0] - got[(first, warps)][0]
    return l1_dup.cycles(l1_dup.simulate(kernel, warps))[0] - l1_dup.cycles(l1_dup.simulate(first, warps))[0]


def test_l1_dup_a_request_for_a_line_being_filled_waits_for_that_fill(dup):
    """``l1_dup`` on the H200: 16 warps each asking 8 times for the same words (lanes 36-44 bytes apart: 9-11 lines
    a request, 1-2 wavefronts) take 886-896 cycles, 8 requests of other lines 1,644-1,902, so the L1 gives a warp's
    later requests the fill its first brought; where the lanes conflict 8-32 ways the same words cost as much as
    other lines (within 10 %, 8 and 16 warps), each request's wavefronts passing the SM's data path one a cycle."""
    for b in (36, 40, 44):
        same, other = dup[(f"l1_dup_b{b}_same_n8", 16)][0], dup[(f"l1_dup_b{b}_distinct_n8", 16)][0]
        assert same < 0.6 * other, (b, same, other)
    for same, other in (("l1_dup_b128_same_n8", "l1_dup_b128_distinct_n8"),
                        ("l1_dup_b64_same_n8", "l1_dup_b64_distinct_n8"),
                        ("l1_dup_same_n16_p32", "l1_dup_distinct_n16_p32"),
                        ("l1_dup_same_n16_p8_r128", "l1_dup_distinct_n16_p8_r128")):
        for w in (8, 16):
            assert abs(dup[(same, w)][0] / dup[(other, w)][0] - 1) < 0.1, (same, w)


def test_l1_dup_the_engine_books_each_requests_wavefronts(dup):
    """The engine (``memory["miss_wavefronts"]``: a fill's data through the data path, its turns booked at issue):
    what the requests past the first add is within 5 % of the H200's with 16 warps where they conflict 8-32 ways
    or ask for other lines (one warp's, 34-518 cycles, within 45 %); before 2026-11-29 a fill's data skipped the
    data path, and 16 warps' 16 requests of the same words over 32 lines added 8 % of the H200's 7,642 cycles. Not
    modelled: a request that waits for another's fill without a conflict costs the H200 2-3 cycles (16 warps, 8
    requests: stride 36 253 cycles, the records 305; warpsim 49 and 206)."""
    for k in ("l1_dup_b128_same_n8", "l1_dup_b128_distinct_n8", "l1_dup_b36_distinct_n8", "l1_dup_s4_same_n8",
              "l1_dup_same_n16_p32", "l1_dup_same_n16_p8"):
        for w in (1, 16):
            gpu, sim = _dup_added(k, w, dup), _dup_added(k, w)
            assert abs(sim / gpu - 1) < (0.05 if w == 16 else 0.45), (k, w, gpu, sim)
    old = params_for("sm_90a", device="H200")
    old.memory = dict(old.memory, miss_wavefronts=False, tag_all=False)
    added_old = (l1_dup.cycles(l1_dup.simulate("l1_dup_same_n16_p32", 16, old))[0]
                 - l1_dup.cycles(l1_dup.simulate("l1_dup_same_n1_p32", 16, old))[0])
    assert added_old < 0.1 * _dup_added("l1_dup_same_n16_p32", 16, dup)
    assert _dup_added("l1_dup_b36_same_n8", 16) < 0.3 * _dup_added("l1_dup_b36_same_n8", 16, dup)


def test_l2_latency_one_load_and_a_burst():
    """``l2_latency`` on the H200: a lone load from the L2 comes back in one of two times set by its line (the same
    link's cycles correlate 0.97 or more from launch to launch; 280 or 313 cycles with the chase's clock reads,
    55 % far): the engine, timed as the H200 (``l2_hit`` 269, ``l2_far`` 302 for a hash-picked 55 % of the lines),
    within 5 % of the H200's median; bursts of 1-16 loads of 32 lanes within 7 %, and 32 loads two round trips on
    both (ptxas's order: about 21 loads before the first reader)."""
    got = l2_latency.measured(l2_latency.load())
    buf = l2_latency.buffer()
    lat = np.concatenate([got[("chase_cg", v, "l1-reset")][:, 0].ravel() for v in l2_latency.VARIANTS])
    sim = np.concatenate([l2_latency.simulate_chase("chase_cg", v, buf)[0] for v in l2_latency.VARIANTS])
    assert abs(np.median(sim) / np.median(lat) - 1) < 0.05, (np.median(sim), np.median(lat))
    assert 0.5 < np.mean(lat > 293) < 0.6 and 0.5 < np.mean(sim > 296) < 0.6
    for v in l2_latency.VARIANTS:
        links = got[("chase_cg", v, "l1-reset")][:, 0]
        assert np.corrcoef(links[0], links[1])[0, 1] > 0.95, v
    burst = {k: np.median(got[(k, None, "l1-reset")]) for k in l2_latency.BURSTS}
    sim_burst = {k: l2_latency.simulate_burst(k, buf) for k in l2_latency.BURSTS}
    assert all(abs(sim_burst[f"burst_{n}_l32"] / burst[f"burst_{n}_l32"] - 1) < 0.07 for n in (1, 2, 4, 8, 16))
    for got_ in (burst, sim_burst):
        assert got_["burst_32_l32"] > 1.6 * got_["burst_16_l32"], got_


def test_the_h200_device_changes_only_the_l2():
    """``params_for(arch, device="H200")``: the sm_90 table with the H200's L2 merged over its memory section."""
    h100, h200 = params_for("sm_90a"), params_for("sm_90a", device="H200")
    assert h100.memory["l2_hit"] == 335.0 and "l2_far" not in h100.memory
    assert h200.memory["l2_hit"] == 269.0 and h200.memory["l2_far"] == {"latency": 302.0, "share": 0.55}
    assert {k: v for k, v in h200.memory.items() if k not in ("l2_hit", "l2_far")} == \
        {k: v for k, v in h100.memory.items() if k != "l2_hit"}
    assert h200.issue == h100.issue and h200.classes == h100.classes and h200.name == "sm_90-H200"
    with pytest.raises(WarpsimError, match="no device 'B200' .*H200"):
        params_for("sm_90a", device="B200")


def _order(code: str):
    program = warpsim.RawModule(code=code).get_function("k").program
    order = analysis.issue_order(program, params_for("sm_90a"))
    return [program.instructions[pc] for pc in order.entry[0]]


STAGE = """.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p)
{{
    .reg .b32 %r<9>;
    .reg .b64 %rd<9>;
    .shared .align 4 .b8 s[256];
    ld.param.u64 %rd1, [p];
    ld.global.u32 %r1, [%rd1];
    {store} [%r5], %r1;
    add.s64 %rd2, %rd1, 4;
    {load} %r2, [%rd2];
    st.global.u32 [%rd1+8], %r2;
    ret;
}}
"""


@pytest.mark.parametrize("store, load, hoisted, address", [
    ("st.shared.u32", "ld.global.u32", True, True),    # another state space: the load and its address move up
    ("st.shared.u32", "ld.shared.u32", False, True),   # the same space may alias; the address still goes ahead
    ("st.global.u32", "ld.global.u32", False, True),
    ("st.u32", "ld.global.u32", False, False),         # a generic address may be any space: nothing passes it
    ("st.volatile.shared.u32", "ld.global.u32", False, False),
])
def test_a_load_moves_up_past_a_store_to_another_space(store, load, hoisted, address):
    """sched rules 3 and 5, as ptxas orders the GEMM's B staging: an ``ld.global`` after an ``st.shared`` issues
    before it, with the ``add`` that computes its address; a store that may alias it keeps it below, but not the
    address arithmetic (ptxas computes a stretch's addresses ahead); a generic or volatile store keeps both."""
    got = [f"{i.opcode}.{'.'.join(i.mods)}" for i in _order(STAGE.format(store=store, load=load))]
    first_store = got.index(store)
    second = max(k for k, x in enumerate(got) if x == load)  # the load after the store in program order
    assert (second < first_store) is hoisted, got
    assert (got.index("add.s64") < first_store) is address, got


def test_the_gemms_b_loads_issue_back_to_back_as_ptxas_puts_them():
    """In the GEMM's K step ptxas issues the four B loads (``LDG``) before the four ``STS`` (0x5a0-0x7b0 of
    spgemm_clock_k256's SASS); so does the engine's order."""
    program = warpsim.RawModule(path=spgemm_clock.PTX).get_function("spgemm_clock_k256").program
    order = analysis.issue_order(program, params_for("sm_90a"))
    ins = program.instructions
    step = next(seq for seq in order.entry.values() if sum(ins[pc].opcode == "bar" for pc in seq) == 2)
    kinds = [f"{ins[pc].opcode}.{ins[pc].mods[0]}" for pc in step if ins[pc].opcode in ("ld", "st", "bar")]
    assert kinds[:9] == ["ld.global"] * 4 + ["st.shared"] * 4 + ["bar.sync"], kinds


def test_the_h200_runs_the_h100s_timing_kernels_in_its_cycles():
    """1,104 configurations of the 24 timing traces recorded again on an H200: median |H200 / H100 - 1| 0.13 %,
    985 within 1 %, all but one within 5 % (sp_f16_k16_f16 one warp at 4 trips, -5.7 %: the one-warp 4-trip
    runs, mostly the prologue's global loads, are where the chips differ, up to 6 %)."""
    d = h200.compare()
    assert len(d) == 24 and sum(len(v) for v in d.values()) == 1104
    e = np.abs([x for v in d.values() for x in v.values()])
    assert np.median(e) < 0.002 and np.sum(e <= 0.01) >= 980 and e.max() < 0.06
    off = [(n, k) for n, v in d.items() for k, x in v.items() if abs(x) > 0.03]
    assert all(k.endswith(",1,4") for _, k in off), off


@pytest.mark.parametrize("module, text, message", [
    ("spgemm_clock", '{"how": "x", "rows": []}', r"other\.json: not the spgemm_clock measurement \(no 'how' and "
                                                 r"'inputs' and 'd_sha256' and 'rows'\)"),
    ("spgemm_clock", '{"how": "x", "inputs": {}, "d_sha256": {}, "rows": []}', r"other\.json: no launches"),
    ("spgemm_clock", '{"how": "x", "inputs": {}, "d_sha256": {}, "rows": [{"kernel": "spgemm_k8", "t": []}]}',
     r"other\.json: a row of kernel 'spgemm_k8' is not one of"),
    ("spgemm_clock", '{"how": "x", "inputs": {"spgemm_clock_k256": "00"}, "d_sha256": {}, "rows": [{"kernel": '
                     '"spgemm_clock_k256", "repeat": 0, "before": "none", "t": ' + str([[[0] * 10] * 4] * 4) + '}]}',
     r"other\.json: kernel spgemm_clock_k256's inputs are not those inputs\(\) makes here"),
    ("gmem_rate", '{"how": "x", "rows": [{"kernel": "gmem_load_p1", "warps": 2, "t": [[0, 1], [2]]}]}',
     r"other\.json: a row of kernel 'gmem_load_p1' is not one of"),
    ("gmem_rate", '{"how": "x", "rows": [{"kernel": "gmem_load_p1", "warps": 2, "t": [[0, 1]]}]}',
     r"other\.json: a row of kernel 'gmem_load_p1' is not one of .* with two clocks a warp"),
    ("l2_latency", '{"how": "x", "rows": [{"kernel": "chase_cg", "variant": "s128_n64", "before": "none", '
                   '"t": [[1, 2]]}]}', r"other\.json: a row \('chase_cg', 's128_n64', 'none'\) is not a chase"),
    ("l2_latency", '{"how": "x", "rows": [{"kernel": "burst_1_l32", "variant": null, "before": "later", '
                   '"t": [1, 2]}]}', r"other\.json: a row \('burst_1_l32', None, 'later'\)"),
    ("l1_merge", '{"how": "x", "rows": [{"kernel": "l1_merge_n1_p1", "warps": 3, "groups": 1, "t": [[0, 1]]}]}',
     r"other\.json: a row of kernel 'l1_merge_n1_p1' is not one of .* CONFIGS"),
    ("spgemm_phase", '{"how": "x", "inputs": {}, "d_sha256": {}, "rows": [{"kernel": "spgemm_phase_k256", '
                     '"t": [[[0, 1]]]}]}', r"other\.json: a row of kernel 'spgemm_phase_k256' is not one of .* and stamps"),
    ("spgemm_phase", '{"how": "x", "rows": []}', r"other\.json: not the spgemm_phase measurement"),
    ("h200", '{"how": "x", "traces": {}}', r"other\.json: no traces, or a trace without runs"),
    ("h200", '[1]', r"other\.json: not the timing_again measurement"),
    ("record_merge", '{"how": "x", "rows": [{"warps": 3, "own": 0, "before": "none", "t": [[0, 1]]}]}',
     r"other\.json: a row \(3 warps, own 0, before 'none'\) is not of WARPS"),
    ("l1_hit", '{"how": "x", "rows": [{"kernel": "l1_hit_n4", "stride": 40, "warps": 8, "groups": 8, "t": '
               + str([[0, 1]] * 8) + '}]}', r"other\.json: a row \('l1_hit_n4', 40, 8, 8\) is not one of"),
    ("l1_hit", '{"how": "x", "rows": []}', r"other\.json: no launches"),
    ("l1_order", '{"how": "x", "rows": [{"stride": 36, "warps": 4, "t": []}]}',
     r"other\.json: a row \(stride 36, 4 warps\) is not of STRIDES and WARPS"),
    ("clock_read", '{"how": "x", "rows": [{"kernel": "clock_k16_1", "warps": 5, "t": [[1, 2, 3]]}]}',
     r"other\.json: a row \('clock_k16_1', 5 warps\) is not of KERNELS and WARPS"),
    ("clock_read", '{"how": "x", "rows": []}', r"other\.json: no launches"),
    ("store_sharing", '{"how": "x", "sp_f16_k16_f32": {}, "dense_f16_k16_f32": {}, "sp_f16_k32_f32": {}}',
     r"other\.json: sp_f16_k16_f32 base with 4 warps has no start and end clocks"),
    ("store_sharing", '{"how": "x"}', r"other\.json: not the store_sharing measurement"),
    ("branch_tail", '{"how": "x", "rows": [{"kernel": "branch_tail_k2_t0", "warps": 1, "t": [[1, 1, 1]]}]}',
     r"other\.json: a row \('branch_tail_k2_t0', 1 warps\) is not of KERNELS and WARPS"),
    ("branch_tail", '{"how": "x", "rows": []}', r"other\.json: no launches"),
    ("l1_dup", '{"how": "x", "rows": [{"kernel": "l1_dup_same_n3_p8", "warps": 1, "t": [[0, 1]]}]}',
     r"other\.json: a row of kernel 'l1_dup_same_n3_p8', not one of the 150 kernels of l1_dup\.ptx"),
    ("l1_dup", '{"how": "x", "rows": [{"kernel": "l1_dup_same_n2_p8", "warps": 3, "t": [[0, 1], [0, 1], [0, 1]]}]}',
     r"other\.json: a row of kernel 'l1_dup_same_n2_p8' with 3 warps, not one of \(1, 2, 4, 8, 16\)"),
    ("l1_dup", '{"how": "x", "rows": [{"kernel": "l1_dup_same_n2_p8", "warps": 2, "t": [[0, 1]]}]}',
     r"other\.json: a row of kernel 'l1_dup_same_n2_p8' with 2 warps has not two clocks a warp"),
    ("l1_dup", '{"how": "x", "rows": []}', r"other\.json: no launches"),
    ("op_latency", '{"how": "x", "rows": [{"kernel": "chain_fma", "warps": 3, "t": [[1, 2, 3, 4, 5]]}]}',
     r"other\.json: a row \('chain_fma', 3 warps\) is not of KERNELS and WARPS"),
    ("op_latency", '{"how": "x", "rows": [{"kernel": "chain_fma", "warps": 1, "t": [[1, 2, 3]]}]}',
     r"other\.json: a row \('chain_fma', 1 warps\) .* with 5 clocks a warp"),
    ("op_latency", '{"how": "x", "rows": []}', r"other\.json: no launches"),
    ("bar_defer", '{"how": "x", "rows": [{"kernel": "bar_lds_7", "warps": 4, "t": [[1, 2, 3, 4, 5]]}]}',
     r"other\.json: a row \('bar_lds_7', 4 warps\) is not of KERNELS and WARPS"),
    ("bar_defer", '{"rows": []}', r"other\.json: not the bar_defer measurement"),
])
def test_measurement_files_are_checked_when_read(tmp_path, module, text, message):
    """A file that is not what the analysis reads is named, with what it lacks."""
    import importlib
    path = tmp_path / "other.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        importlib.import_module(f"warpsim.timing.{module}").load(str(path))


def test_the_h200_analysis_prints_its_table(capsys):
    assert h200.main([]) == 0
    out = capsys.readouterr().out
    assert "NVIDIA H200" in out and "all: 1104 configurations, 985 within 1 %" in out


PORT = """.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 t)
{{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<12>;
    .shared .align 4 .b8 s[128];
    ld.param.u64 %rd1, [p];
    ld.param.u64 %rd9, [t];
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, {lane};
    mul.wide.u32 %rd2, %r1, {spread};
    add.s64 %rd3, %rd1, %rd2;
    mov.u32 %r2, s;
    mul.wide.u32 %rd8, %r1, {move};
    mov.u64 %rd5, %clock64;
{body}
    mov.u64 %rd6, %clock64;
    sub.s64 %rd7, %rd6, %rd5;
    st.global.u64 [%rd9], %rd7;
    ret;
}}
"""


def _port_cycles(lane: int, spread: int, moves: bool, move: int = 256) -> int:
    """Cycles of 60 global stores by one warp: each predicated on ``lane`` (32: every lane), its lanes
    ``spread`` bytes apart; with ``moves`` the address moves on by ``move`` bytes a lane after each store and
    a shared load after it is hoisted above the store, then comes back."""
    one = "    @%p1 st.global.u32 [%rd3], %r1;\n" if lane < 32 else "    st.global.u32 [%rd3], %r1;\n"
    if moves:
        one += "    add.s64 %rd3, %rd3, %rd8;\n    ld.shared.u32 %r3, [%r2];\n    sub.s64 %rd3, %rd3, %rd8;\n"
    code = PORT.format(lane=lane, spread=spread, move=move, body=one * 60)
    t = np.zeros(1, np.int64)
    warpsim.RawModule(code=code).get_function("k")(1, 32, (np.zeros(32 * 1024 * 64, np.uint32), t))
    return int(t[0])


def test_the_store_port_charges_the_lanes_that_stored():
    """A store whose guard leaves one lane costs the port that lane's line, not the warp's 32: 60 such
    stores with lanes 256 bytes apart issue at the sub-partition's rate (``store_ii``, 7 cycles) and queue
    nothing; the same stores from every lane (32 lines each, 64 cycles) fill the 40-store queue and hold the
    warp."""
    one, every = _port_cycles(0, 256, False), _port_cycles(32, 256, False)
    assert one < 60 * 7 + 40 < 1000 < every, (one, every)


def test_the_store_port_takes_the_address_the_store_used():
    """A store's lines are those of the address it stored to, even when an instruction after it moves the
    address register before the store is timed (a shared load hoisted above the store runs it and the
    instructions up to itself, the address moved 256 bytes a lane until the instruction after the load
    moves it back): 60 one-line stores cost as 60 one-line stores, not as 60 over 32 lines."""
    moved, still = _port_cycles(32, 4, True), _port_cycles(32, 4, True, move=0)
    assert moved < 1.1 * still, (moved, still)  # taken after the move: 1,352 against 603


CHAINS = """.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p)
{{
    .reg .b32 %r<40>;
    .reg .b64 %rd<40>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
{body}
    st.global.u32 [%rd1], %r39;
    ret;
}}
"""


def _chain(i: int) -> str:
    """A load whose address takes three dependent steps, as the GEMM's (shr, add, mul.wide, add.s64)."""
    return (f"    shr.u32 %r{10 + i}, %r1, {i + 1};\n    add.s32 %r{20 + i}, %r{10 + i}, {i};\n"
            f"    mul.wide.u32 %rd{10 + i}, %r{20 + i}, 4;\n    add.s64 %rd{20 + i}, %rd1, %rd{10 + i};\n"
            f"    ld.global.u32 %r{30 + i}, [%rd{20 + i}];\n")


def test_independent_address_chains_interleave():
    """sched rule 5, as ptxas schedules a stretch (the GEMM's four B loads: the ``LEA.HI`` of each chain, then
    the next step of each, the ``LDG`` right behind its ``IMAD.WIDE``): four loads whose addresses take four
    dependent steps (two SASS instructions: ``analysis.FUSED``) each issue as rounds of one SASS instruction from
    every chain, not one chain after another."""
    body = "".join(_chain(i) for i in range(4)) + "    xor.b32 %r38, %r30, %r31;\n    xor.b32 %r39, %r32, %r33;\n"
    got = [i.opcode for i in _order(CHAINS.format(body=body))]
    assert got[2:18] == ["shr", "add"] * 4 + ["mul", "add"] * 4, got
    assert got[18:22] == ["ld"] * 4, got


def test_at_most_21_loads_issue_before_the_first_reader():
    """ptxas issues about 21 of a stretch's independent loads before the first instruction that reads one
    (gmem_load_p1: 20, p8 / p32 and l2_latency's burst_32_l32: 21, burst_32_l1: 22; each 32 loads xor-ed
    together): so does rule 5 (``sched.LOADS_AHEAD``), and a burst of 32 takes two round trips on the H200 and
    in the engine (:func:`test_l2_latency_one_load_and_a_burst`)."""
    loads = "".join(f"    ld.global.u32 %r{i + 2}, [%rd1+{256 * i}];\n" for i in range(32))
    xors = "    xor.b32 %r34, %r2, %r3;\n" + "".join(f"    xor.b32 %r{35 + (i % 2)}, %r{34 + (i % 2 == 0)}, "
                                                   f"%r{i + 4};\n" for i in range(28)) + "    mov.b32 %r39, %r35;\n"
    src = CHAINS.format(body=loads + xors).replace("%r<40>", "%r<64>")
    got = [i.opcode for i in _order(src)]
    first_reader = next(k for k, op in enumerate(got) if op == "xor")
    assert got[:first_reader].count("ld") == sched.LOADS_AHEAD + 1, got  # the parameter load and 21 global ones
    assert got.count("ld") == 33


def test_a_diverged_warp_issues_in_ptxas_order():
    """Lane 0 alone (``if (lane >= LANES) return;``) issues the block it runs in ptxas's order too: one lane's 32
    loads take two round trips like the whole warp's (the H200 852 and 812 cycles), where the engine had run
    them in PTX order, one round trip each (10,906 cycles)."""
    buf = l2_latency.buffer()
    one, warp = l2_latency.simulate_burst("burst_32_l1", buf), l2_latency.simulate_burst("burst_32_l32", buf)
    assert 0.9 < one / warp < 1.1, (one, warp)


def test_record_merge_the_recorded_kernels_loads():
    """``record_merge``: the recorded timing kernels' loads (each lane's record of 10 words, 4 before the clock
    read and 6 after) on the H200: with every warp the same records, as recorded, 12-16 warps take 139-170 cycles
    between the clock reads, more than with records of their own (123-138 with 16 warps). The engine: the shared
    records 13-22 % long with 8-16 warps (its hits queue in the SM's tag stage, 4 lines a cycle, behind the
    other warps'), its own within 10 % (39-48 % long and 7-21 % short before the fills' wavefronts and the tag
    stage took the misses too, 2026-11-29)."""
    got = record_merge.measured(record_merge.load())
    for w in (8, 12, 16):
        for before in ("l1-reset", "none"):
            assert got[(w, 0, before)] >= got[(w, 1, before)] * 0.99, (w, before)
        shared = record_merge.cycles(record_merge.simulate(w, 0))
        assert 0.12 < shared / got[(w, 0, "l1-reset")] - 1 < 0.23, (w, shared)
        assert abs(record_merge.cycles(record_merge.simulate(w, 1)) / got[(w, 1, "l1-reset")] - 1) < 0.11, w


def test_record_merge_the_warps_leave_the_first_loads_apart():
    """Where the 16 warps' first clock reads fall says how their 4 loads before it were served: on the H200 228-260
    cycles apart with the records shared (311-360 with their own). The engine puts them 100 apart with the
    records shared and 243 with their own: each request's lines pass the SM's tag stage and its wavefronts the
    data path (``memory["tag_all"]``, ``miss_wavefronts``); before 2026-11-29 the shared ones fell 8 apart.
    (A line fetched again for each warp, ``own_fill``, had put the shared ones 242 apart, but ``l1_dup`` found
    no second fetch, so that option is gone.)"""
    doc = record_merge.load()
    spread = [np.ptp(np.asarray(r["t"])[:, 0]) for r in doc["rows"]
              if (r["warps"], r["own"], r["before"]) == (16, 0, "l1-reset") and r["repeat"] > 0]
    assert 220 < min(spread) and max(spread) < 270, spread
    assert 80 < np.ptp(record_merge.simulate(16, 0)[:, 0]) < 120
    assert 220 < np.ptp(record_merge.simulate(16, 1)[:, 0]) < 270


IF_ELSE = """.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .pred %p<3>;
    .reg .b32 %r<9>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    and.b32 %r3, %r1, 1;
    setp.eq.u32 %p1, %r3, 0;
    ld.global.u32 %r2, [%rd1];
    @%p1 bra ELSE;
    add.u32 %r4, %r1, 3;
    st.global.u32 [%rd1+128], %r4;
    bra JOIN;
ELSE:
    add.u32 %r4, %r2, 1;
    st.global.u32 [%rd1+256], %r4;
JOIN:
    ret;
}
"""


def test_a_load_sunk_into_the_arm_diverged_lanes_run_later_is_still_timed():
    """A load whose value only one arm of a diverged branch reads (sched rule 1 sinks it into that arm): the other
    lanes run their arm first, and the load is timed then, so the reading arm waits its round trip (a review
    found it dropped: 82 cycles, the ``add`` reading a value never loaded)."""
    mod = warpsim.RawModule(code=IF_ELSE)
    fn = mod.get_function("k")
    fn((1, 1, 1), (32, 1, 1), (np.zeros(128, np.uint32),))
    tl = fn.last_timeline
    assert tl.cycles > 350, tl.cycles
    add = next(r for r in tl.records if r[3].startswith("add.u32 %r4, %r2"))
    load = next(r for r in tl.records if r[3].startswith("ld.global"))
    assert add[4] >= load[6] > load[4] + 300, (load, add)


def test_a_device_entry_merges_key_by_key():
    """``params_for(arch, device=...)`` merges a device's entry into the table at every depth: a class's latency
    alone keeps its unit and interval, a number replaces a number, a section the table lacks is added."""
    from warpsim.timing import params_sm90
    params_sm90.TABLE["devices"]["test-chip"] = {"classes": {"mem_global": {"latency": 500.0}}, "clock_mhz": 1.0,
                                                 "memory": {"l2_far": {"share": 0.5}}}
    try:
        p = params_for("sm_90a", device="test-chip")
    finally:
        del params_sm90.TABLE["devices"]["test-chip"]
    base = params_for("sm_90a")
    assert p.classes["mem_global"] == dict(base.classes["mem_global"], latency=500.0) and p.clock_mhz == 1.0
    assert p.memory["l2_far"] == {"share": 0.5} and base.classes["mem_global"]["latency"] == 350.0


def test_run_times_as_the_device_asked_for(capsys):
    """``warpsim run/timeline/debug --device H200`` (``RawModule(device=...)``) time with the H200's entry of the
    target's table: one warp's one load from the L2 comes back sooner than on the H100's table; a chip the table
    does not have is named with the ones it has."""
    from warpsim import cli
    argv = ["run", l2_latency.PTX, "--kernel", "burst_1_l32", "--arg", "zeros:1024:u32", "--arg", "zeros:2:i64",
            "--arg", "zeros:32:u32"]
    cycles = {}
    for device in ("H200", None):
        assert cli.main(argv + (["--device", device] if device else [])) == 0
        last = capsys.readouterr().out.strip().splitlines()[-1]
        cycles[device] = int(last.split()[0])
        assert last.endswith("(sm_90-H200)" if device else "(sm_90)"), last
    assert cycles["H200"] < cycles[None] - 30, cycles
    assert cli.main(argv + ["--device", "B200"]) != 0
    assert "no device 'B200' (it has: H200)" in capsys.readouterr().err
    with pytest.raises(WarpsimError, match="timing_params= or device="):
        warpsim.RawModule(path=l2_latency.PTX, device="H200", timing_params=params_for("sm_90a"))


@pytest.fixture(scope="module")
def hit():
    """``{(kernel, stride, warps, groups): (H200, warpsim)}`` of every ``l1_hit`` run."""
    got = l1_hit.measured(l1_hit.load())
    return {k: (got[k], l1_hit.cycles(l1_hit.simulate(*k))) for k in l1_hit.configs()}


def test_l1_hit_the_shapes_cost(hit):
    """``l1_hit``, measured: one warp's 8 dependent hits take 2 cycles more a step for each wavefront past the first
    (a bank conflict: stride 8, 2 ways, +16 over the 8 steps; stride 128, 32 ways, +552) and about a quarter of a
    cycle more for each line past the first (strides 36 and 68, 9 and 17 lines without a conflict: +16 and +32;
    132, 32 lines: +56). The engine's steps differ as the H200's do, within 16 cycles, and every one-warp chain is
    within 8 %: its hit path is a hit latency, then the wavefronts, after the SM's tag stage has looked up 4 of
    the request's lines a cycle (``memory["tag_lines"]``)."""
    chain = {s: hit[("l1_chain_n8", s, 1, 1)] for s in l1_hit.STRIDES}
    for s, extra in ((8, 16), (36, 16), (68, 32), (132, 56), (128, 552)):
        assert abs(chain[s][0] - chain[4][0] - extra) <= 8, (s, chain[s], chain[4])
    for s in l1_hit.STRIDES:
        assert abs((chain[s][1] - chain[4][1]) - (chain[s][0] - chain[4][0])) <= 16, (s, chain[s])
        assert abs(chain[s][1] / chain[s][0] - 1) < 0.08, (s, chain[s])


def test_l1_hit_the_tag_stage_is_the_sms(hit):
    """Requests over 32 lines without a conflict (stride 132) are bound by the SM's tag stage, 4 lines a cycle for
    all the sub-partitions: one warp's 16 take 199 cycles on the H200 (16 over one line: 132), 2 / 4 / 8 / 16
    warps sharing the lines 315 / 531 / 900 / 1,649 (8 cycles a request for the SM). Without the tag stage the
    engine took 138-249 at every warp count; with it within 19 % (1-8 warps within 10 %). Over 10 lines 2 ways
    (stride 40, the timing kernels' records) 3 cycles a request: 16 warps 728 (the engine 538: its warps run
    their requests first-come, the H200's all span the run, ``gmem_rate``)."""
    for w in (1, 2, 4, 8, 16):
        gpu, sim = hit[("l1_hit_n16", 132, w, 1)]
        assert abs(sim / gpu - 1) < (0.1 if w < 16 else 0.2), (w, gpu, sim)
    assert hit[("l1_hit_n16", 132, 16, 1)][0] > 8 * hit[("l1_hit_n16", 132, 1, 1)][0]
    assert hit[("l1_hit_n16", 40, 16, 1)][0] > 5 * hit[("l1_hit_n16", 40, 1, 1)][0]
    assert -0.3 < hit[("l1_hit_n16", 40, 16, 1)][1] / hit[("l1_hit_n16", 40, 16, 1)][0] - 1 < -0.2


def test_l1_hit_what_the_engine_lacks(hit):
    """Measured, not modelled: a lone hit's if-converted store after it (ptxas's ``ISETP`` waits 13 cycles for its
    predicated ``STG``; the engine runs PTX's branch, whose redirect, ``branch_taken`` 12, now brings one hit to
    the H200's cycles at every stride, 0-2 short: the same time by another path; 12-21 % short without the
    redirect), and the miss path's order: 8-16 warps loading 32 lines a request first (stride 128, 32-way
    conflicts) reach their clock read 1,700-5,000 cycles apart on the H200, in the engine 864 apart (the fills'
    wavefronts through the data path; together before 2026-11-29), so their hits overlap more there (8 warps'
    dependent hits 87 % long)."""
    for s in l1_hit.STRIDES:
        gpu, sim = hit[("l1_hit_n1", s, 1, 1)]
        assert -2 <= sim - gpu <= 0, (s, gpu, sim)
    doc = l1_hit.load()
    spread = [np.ptp(np.asarray(r["t"])[:, 0]) for r in doc["rows"]
              if (r["kernel"], r["stride"], r["warps"], r["groups"]) == ("l1_chain_n8", 128, 16, 1) and r["repeat"]]
    assert min(spread) > 3000, spread
    assert 500 < np.ptp(l1_hit.simulate("l1_chain_n8", 128, 16, 1)[:, 0]) < 1000
    gpu, sim = hit[("l1_chain_n8", 128, 8, 1)]
    assert 0.7 < sim / gpu - 1 < 1.0, (gpu, sim)


def test_l1_hit_shapes():
    """The strides' lines, sectors and bank conflicts as the probe's doc says."""
    assert [l1_hit.shape(s) for s in (0, 4, 36, 40, 128, 132, 136, 160)] == [
        (1, 1, 1), (1, 4, 1), (9, 32, 1), (10, 32, 2), (32, 32, 32), (32, 32, 1), (32, 32, 2), (32, 32, 8)]
    assert all(w * l1_hit.KERNELS[k] * l1_hit.region(s) <= l1_hit.OWN_BYTES
               for k, s, w, g in l1_hit.configs() if g > 1)


def test_l1_hit_the_tag_stage_times_hits_more_than_misses():
    """The tag stage times every request (``memory["tag_all"]``), but a miss's time is mostly the miss path's
    (one line a cycle, ``gmem_rate``): the first pass of 32 lines a request reaches the clock read within 10
    cycles of where it does without the stage, while the hits after it take more than 3x as long with it."""
    params = params_for("sm_90a", device="H200")
    params.memory = dict(params.memory, tag_lines=0)
    with_tags = l1_hit.simulate("l1_hit_n16", 132, 4, 1)
    without = l1_hit.simulate("l1_hit_n16", 132, 4, 1, params)
    assert (abs(with_tags[:, 0] - without[:, 0]) <= 10).all()
    assert l1_hit.cycles(with_tags) > 3 * l1_hit.cycles(without)


def test_l1_order_the_l1_serves_the_warps_in_turn():
    """``l1_order``: 16 warps each issue 16 hits over the same lines, then read the clock after each word. On the
    H200 their last words come back close together (the last reads within 6-28 % of the run over 1, 10 or 32
    lines: the L1 serves the warps' requests in turn), where the engine, first-come, spreads them over 22-76 %
    of it (the warps of each sub-partition one after another), 1.4-13x the H200's share. Measured, not
    modelled: the order of service. The readout (ptxas's if-converted store, 30 cycles a word on the H200) takes
    32 in the engine: PTX's branch and its redirect."""
    got = l1_order.measured(l1_order.load())
    for stride in (4, 40, 128, 132):
        ends, run = got[(stride, 16)]
        sim_ends, sim_run = l1_order.spans(l1_order.simulate(stride, 16))
        assert ends / run < 0.3 and sim_ends / sim_run > ends / run + 0.1, (
            stride, ends, run, sim_ends, sim_run)
    one = [np.median(np.diff(np.asarray(r["t"])[0, 1:])) for r in l1_order.load()["rows"]
           if (r["stride"], r["warps"]) == (4, 1) and r["repeat"]]
    assert all(28 <= d <= 32 for d in one), one
    assert np.median(np.diff(l1_order.simulate(4, 1)[0, 1:])) == 32
