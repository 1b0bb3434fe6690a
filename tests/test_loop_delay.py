"""traces/h100/loop_delay.json (traces/capture/loop_delay.py): two warps of an s4 ILP 1 loop on one sub-partition
started a set number of cycles apart, and where the pair locks (warpsim.timing.loop_delay)."""
from __future__ import annotations

import importlib.util
import json
import os

import numpy as np
import pytest

from warpsim.timing import loop_delay, sass_profile, sass_sim

HERE = os.path.dirname(__file__)


def _capture():
    path = os.path.join(HERE, "..", "traces", "capture", "loop_delay.py")
    spec = importlib.util.spec_from_file_location("loop_delay_capture", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_h100_locks_in_phase_only_with_the_older_warp_ahead():
    """sp_s4_k64 ILP 1, one pair (5 warps): every pair whose younger warp (w + 4) started its loop 10 or more
    cycles first locks out of phase, that warp ~102 cycles ahead; started -9..+22 apart nearly all lock in phase
    with the older warp 8-9 cycles ahead; 64 or more apart, out of phase again. No pair locks in phase with
    the younger warp ahead. sp_s4_k128 alike (its in-phase lock +15, out of phase from 28-51 cycles with the
    younger warp first); dense_s4_k64 in phase from every offset."""
    doc = loop_delay.load()
    k64 = loop_delay.pairs("sp_s4_k64", 5, doc)
    assert len(k64) == 378
    early = [lock for off, _, lock in k64 if off <= -10]
    assert len(early) >= 100 and all(lock <= -95 for lock in early)
    near = [lock for off, _, lock in k64 if -9 <= off <= 22]
    assert len(near) >= 100 and sum(5 <= lock <= 12 for lock in near) >= 0.95 * len(near)
    late = [lock for off, _, lock in k64 if off >= 64]
    assert late and all(lock >= 95 for lock in late)
    assert not [lock for _, _, lock in k64 if -90 < lock < 0]
    locks = loop_delay.locks("sp_s4_k64", 5, doc)
    assert abs(locks[9][1] - 1.529) < 0.003 and abs(locks[-102][1] - 1.394) < 0.003
    assert abs(locks[36][1] - 1.476) < 0.003  # a second lock between, from 23-63 apart
    k128 = loop_delay.pairs("sp_s4_k128", 5, doc)
    assert all(lock <= -75 for off, _, lock in k128 if off <= -51)
    edge = [lock for off, _, lock in k128 if -50 <= off <= -28]
    assert sum(lock <= -75 for lock in edge) >= 0.8 * len(edge)
    assert {loop_delay.rounded(lock) for _, _, lock in k128 if -75 < lock < 75} == {15}
    assert set(loop_delay.locks("dense_s4_k64", 5, doc)) == {9}  # in phase from every offset


def test_the_h100_stays_out_of_phase_to_320_cycles_where_the_replay_comes_back():
    """loop_delay_warm.json (the operands' sectors loaded before the spin: loop starts up to 320 cycles apart
    with one pair): sp_s4_k64's pair locks in phase (+9) up to +64 cycles and 183 apart from 114 to 320 (1.380 x
    one warp), never in phase again; the replay locks in phase again from about 240 (1.50 x). Launches in which
    one warp started its loop only after the other had ended theirs are no pairs."""
    doc = loop_delay.load(loop_delay.WARM)
    k64 = loop_delay.pairs("sp_s4_k64", 5, doc)
    assert 380 <= len(k64) < 402  # a few launches had a warp start after the others ended
    assert all(5 <= lock <= 12 for off, _, lock in k64 if -10 <= off <= 60)
    far = [(lock, ratio) for off, ratio, lock in k64 if 110 <= off <= 320]
    assert len(far) >= 150 and all(lock >= 105 and ratio < 1.41 for lock, ratio in far)
    assert all(lock <= -95 for off, _, lock in k64 if off <= -20)
    model = loop_delay.replayed("sp_s4_k64", (140, 262))
    assert model[140][0] < 1.40 and model[262][0] > 1.45
    n, k = loop_delay.fit("sp_s4_k64", 5, doc)
    assert 240 <= n <= 330 and k == len(k64)


def test_the_same_offset_does_not_always_give_the_same_lock():
    """At +63 cycles some pairs lock in phase and some out, and with four pairs (8 warps) the in-phase lock
    is reached from -21 to +75 cycles: the loop-start offset is not all that sets the lock."""
    at63 = {loop_delay.rounded(lock) for off, _, lock in loop_delay.pairs("sp_s4_k64", 5) if off == 63}
    assert {9, 102} <= at63
    eight = loop_delay.locks("sp_s4_k64", 8)
    assert eight[9][2] <= -20 and eight[9][3] >= 75


def test_the_replay_is_mirrored_where_the_h100_is_not():
    """sass_sim's two warps differ only by their turn: the lock from -d is minus the lock from +d, with the same
    time (33 cycles apart, 1.507 x one warp, in phase up to 72 cycles either way), where the H100 parts the
    pair that the younger warp leads. From each pair's own offset it puts 224 of the 378 within 2 %."""
    got = loop_delay.replayed("sp_s4_k64", (-47, -13, 13, 47))
    for d in (13, 47):
        assert got[-d][1] == -got[d][1] and abs(got[-d][0] - got[d][0]) < 1e-3
        assert abs(got[d][0] - 1.507) < 0.005
    n, k = loop_delay.fit("sp_s4_k64")
    assert k == 378 and 215 <= n <= 300


def test_sass_sim_negative_stagger_starts_the_later_warps_first():
    """``stagger`` -40: the second warp of the sub-partition issues first, the first 40 cycles later, the run
    the mirror of stagger 40."""
    neg = sass_sim.table_loop("sp_s4_k64_ilp1", stagger=-40)
    pos = sass_sim.table_loop("sp_s4_k64_ilp1", stagger=40)
    log = neg.issue_log((2, 0, 0, 0), 1)
    assert log[1, 0] < log[0, 0] and log[0, 0] - log[1, 0] >= 40
    a, b = neg.trip_ends((2, 0, 0, 0), 4), pos.trip_ends((2, 0, 0, 0), 4)
    assert np.array_equal(a[::-1], b)


def test_the_capture_keeps_the_recorded_code_and_the_file_says_so():
    """traces/capture/loop_delay.py: its prologue branches on no warp (a selp picks the spin, the spin's branch
    is bra.uni), the recorded SASS moved down by whole code lines is the recorded SASS to it and one changed
    instruction is not; the measurement file's build found the ILP 1 kernels' code the recorded one."""
    cap = _capture()
    ptx = open(os.path.join(HERE, "..", "traces", "capture", "kernels", "timing_sp_s4_k64.ptx")).read()
    out = cap.patch(ptx, pad=2)
    assert out.count("bar.sync \t0;") == 8 and out.count("nanosleep.u32 \t0;") == 16
    added = "\n".join(cap.prologue(0))
    assert "bra.uni \t$DLY_SPIN" in added and "selp.u32" in added and "@!pw" not in added
    sass = os.path.join(HERE, "..", "traces", "h100", "sass", "timing_sp_s4_k64_ilp1.sass")
    code = sass_profile.parse_sass(open(sass).read())["sp_s4_k64_ilp1"]

    def shifted(by):
        pat = __import__("re").compile(r"(BRA|CALL\.REL\.NOINC|BSSY B\d,|MOV R\d+,) 0x([0-9a-f]+)")
        move = lambda t: pat.sub(lambda m: f"{m.group(1)} {int(m.group(2), 16) + by:#x}", t)  # noqa: E731
        return [(0, "NOP", 0)] * (by // 16) + [(a + by, move(t), c) for a, t, c in code]

    after = shifted(256)
    assert cap.recorded_from(code, after) == (7, 23)
    after[40] = (after[40][0], "IADD3 R1, R1, 0x1, RZ", after[40][2])
    assert cap.recorded_from(code, after) is None
    k128 = open(os.path.join(HERE, "..", "traces", "capture", "kernels", "timing_sp_s4_k128.ptx")).read()
    warm = cap.patch(k128, warm=True)  # 13 words a lane: a word of each of its sectors first, the bar after them
    assert cap.warm_offsets(52) == [0, 32, 48] and cap.warm_offsets(36) == [0, 32]
    assert cap.warm_offsets(40) == [0, 32, 36]
    assert warm.count("ld.global.ca.u32 \twq, [aq+48];") == 8 and warm.count("bar.sync \t0, uq;") == 8
    assert "mul.lo.u32 \tlq, lq, 52;" in warm
    for form in loop_delay.FORMS:
        assert loop_delay.load(loop_delay.WARM)["build"]["kernels"][f"{form}_ilp1"]["shift"] == 384
    build = loop_delay.load()["build"]
    for form in loop_delay.FORMS:
        k = build["kernels"][f"{form}_ilp1"]
        assert k["shift"] % 128 == 0 and f"{form}_ilp1" in k["same_sass_from_first_load"]


def test_loop_delay_file_is_checked(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"rows": [{"form": "sp_s4_k64", "warps": 2, "delay": 0, "repeat": 0, "start": [0],
                                         "end": [1, 2]}], "base": 100, "build": {}}))
    with pytest.raises(ValueError, match="bad.json: a row without"):
        loop_delay.load(str(bad))
    bad.write_text("{")
    with pytest.raises(ValueError, match="bad.json: not JSON"):
        loop_delay.load(str(bad))
