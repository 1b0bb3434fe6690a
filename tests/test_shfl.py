"""shfl.sync (PTX ISA 9.7.8.6): every mode against a lane-by-lane reference, the segment mask and clamp, the
in-range predicate, and the undefined cases named."""
import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import warpsim
from isa.errors import UndefinedBehavior
from isa.semantics.shfl import source_lanes

ROOT = Path(__file__).resolve().parent.parent
PTX = ROOT / "traces" / "capture" / "kernels" / "shfl.ptx"
H200 = ROOT / "traces" / "h200" / "shfl.json"
MODULES = {p: warpsim.RawModule(path=str(PTX), timing=False, ub_policy=p) for p in ("error", "hardware")}


def _run(mode, b, c, mask=0xFFFFFFFF, live=32, policy="error"):
    """kernels/shfl.ptx's kernel of ``mode`` in warpsim: each lane's (value, predicate)."""
    out = np.zeros(64, np.uint32)
    MODULES[policy].get_function(f"shfl_{mode}")((1,), (32,), (out, np.uint32(b), np.uint32(c), np.uint32(mask),
                                                      np.uint32(live)))
    return out.reshape(32, 2)


def test_every_launch_the_h200_ran():
    """464 launches of kernels/shfl.ptx on the H200 (traces/capture/shfl_check.py): every mode with b and c over
    the lane offsets, clamps and segment masks of the CUDA idioms, 40 random 32-bit pairs, half a warp shuffling
    within itself (a lane reading from one that does not run it gets 0: undefined in PTX, an error by default, the
    H200's 0 with ``ub_policy="hardware"``); warpsim stores the same 64 words in each."""
    doc = json.loads(H200.read_text())
    assert "NVIDIA H200" in doc["how"] and len(doc["rows"]) == 464
    lost = 0
    for r in doc["rows"]:
        got = _run(r["kernel"][5:], r["b"], r["c"], r["mask"], r["live"], policy="hardware").ravel()
        assert list(got) == r["out"], r
        try:
            _run(r["kernel"][5:], r["b"], r["c"], r["mask"], r["live"])
        except UndefinedBehavior:
            lost += 1
    assert lost == 2  # down 1 and 3 with c 0x1f: lanes 13-15 read lanes 16-18


def _reference(mode, b, c):
    """Lane by lane, as PTX ISA 9.7.8.6 writes it."""
    d, p = [], []
    for lane in range(32):
        bval, cval, seg = b & 31, c & 31, (c >> 8) & 31
        max_lane = (lane & seg) | (cval & ~seg)
        min_lane = lane & seg
        j, ok = {"up": (lane - bval, lane - bval >= max_lane), "down": (lane + bval, lane + bval <= max_lane),
                 "bfly": (lane ^ bval, (lane ^ bval) <= max_lane),
                 "idx": (min_lane | (bval & ~seg), (min_lane | (bval & ~seg)) <= max_lane)}[mode]
        j = j if ok else lane
        d.append(j * 1000 + 7)
        p.append(int(ok))
    return np.array([d, p], np.uint32).T


@pytest.mark.parametrize("mode", ["up", "down", "bfly", "idx"])
@pytest.mark.parametrize("b,c", [(1, 0x1F), (3, 0), (5, 0x1F), (17, 0x1F), (2, 0x181F), (9, 0x1C1F), (1, 0x1007),
                                 (31, 0x1F), (0, 0x1F)])
def test_every_mode_matches_the_isa_rule(mode, b, c):
    assert np.array_equal(_run(mode, b, c), _reference(mode, b, c))


@settings(max_examples=60, deadline=None)
@given(mode=st.sampled_from(["up", "down", "bfly", "idx"]), b=st.integers(0, 2**32 - 1),
       c=st.integers(0, 2**32 - 1))
def test_source_lanes_match_the_isa_rule_for_any_operands(mode, b, c):
    j, pval = source_lanes(mode, np.full(32, b, np.int64), np.full(32, c, np.int64))
    ref = _reference(mode, b, c)
    assert np.array_equal(pval.astype(np.uint32), ref[:, 1])
    assert np.array_equal((j * 1000 + 7).astype(np.uint32), ref[:, 0])


def test_the_usual_idioms():
    """A butterfly reduction's step, a width-8 broadcast of each group's lane 2, a shift down with the last lanes
    keeping their own value."""
    lanes = np.arange(32)
    assert list(_run("bfly", 16, 0x1F)[:, 0]) == list((lanes ^ 16) * 1000 + 7)
    assert list(_run("idx", 2, 0x181F)[:, 0]) == list(((lanes & 24) | 2) * 1000 + 7)
    got = _run("down", 4, 0x1F)
    assert list(got[:, 0]) == [(i + 4 if i < 28 else i) * 1000 + 7 for i in lanes]
    assert list(got[:, 1]) == [int(i < 28) for i in lanes]


@pytest.mark.parametrize("mask,live,message", [
    (0x0000FFFF, 32, "executed by a lane outside its membermask"),
    (0xFFFFFFFF, 16, "a lane of membermask does not execute it"),
    (0x0000FFFF, 16, "reads a from a lane that does not execute it"),
])
def test_undefined_uses_are_named(mask, live, message):
    with pytest.raises(UndefinedBehavior, match=message) as e:
        _run("bfly", 16, 0x1F, mask=mask, live=live)
    assert "shfl.sync.bfly.b32" in str(e.value) and "PTX ISA 9.7.8.6" in str(e.value)


def test_a_shuffle_within_its_executing_lanes_is_defined():
    got = _run("bfly", 1, 0x1F, mask=0x0000FFFF, live=16)
    assert list(got[:16, 0]) == [(i ^ 1) * 1000 + 7 for i in range(16)]


def test_the_deprecated_form_is_named_with_its_place():
    """``shfl.bfly.b32`` (no .sync; not on sm_70 and later): the error names the file, line and column and says
    what is expected."""
    ptx = PTX.read_text().replace("shfl.sync.bfly.b32", "shfl.bfly.b32")
    with pytest.raises(Exception) as e:
        warpsim.RawModule(code=ptx, timing=False).get_function("shfl_bfly")(
            (1,), (32,), (np.zeros(64, np.uint32), np.uint32(1), np.uint32(31), np.uint32(0xFFFFFFFF), np.uint32(32)))
    msg = str(e.value)
    assert re.match(r"<code>:\d+:\d+: error: 'shfl.bfly.b32': is not shfl.sync with a mode and .b32", msg), msg
    assert msg.rstrip().endswith("expected shfl.sync.{up,down,bfly,idx}.b32")
