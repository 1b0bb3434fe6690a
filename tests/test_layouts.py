"""Layouts: bijections, the PTX manual's notation, and facts measured on the H100 (ptx-mma-sp.md)."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from isa import layouts
from isa.forms import BY_KEY, FORMS

OPERANDS = ("A", "B", "C", "D")


@pytest.mark.parametrize("form", FORMS, ids=str)
@pytest.mark.parametrize("operand", OPERANDS)
def test_fragment_layout_is_a_bijection(form, operand):
    lay = layouts.layout(form, operand)
    rows, cols = lay.tables
    flat = rows.astype(np.int64) * lay.ncols + cols
    assert sorted(flat.ravel()) == list(range(lay.nrows * lay.ncols))
    inv = lay.inverse()
    for lane, reg, elem in np.ndindex(rows.shape):
        assert tuple(inv[rows[lane, reg, elem], cols[lane, reg, elem]]) == (lane, reg, elem)


@given(st.sampled_from(FORMS), st.sampled_from(OPERANDS), st.data())
def test_pack_unpack_round_trip(form, operand, data):
    lay = layouts.layout(form, operand)
    seed = data.draw(st.integers(0, 2**32 - 1))
    pat = np.random.default_rng(seed).integers(0, 1 << lay.bits, size=(3, lay.nrows, lay.ncols))
    regs = lay.pack(pat)
    assert regs.shape == (3, 32, lay.nregs) and regs.dtype == np.uint32
    assert np.array_equal(lay.unpack(regs), pat)


@pytest.mark.parametrize("form", FORMS, ids=str)
def test_metadata_layout_covers_every_row_and_chunk_once(form):
    chunks = form.shape.k // form.chunk[1]
    for s in form.selectors:
        ml = layouts.meta_layout(form, s)
        used = ml.row >= 0
        assert used.sum() == form.shape.m * chunks
        pairs = set(zip(ml.row[used], ml.chunk[used]))
        assert len(pairs) == form.shape.m * chunks


@pytest.mark.parametrize("form", FORMS, ids=str)
def test_a_layout_agrees_with_the_manual_formulas(form):
    """The manual's per-element form (ptx-mma-sp.md §4.1): row g + 8·(r mod 2), window 2·epr·t + (K/2)·(r div 2)."""
    lay = layouts.a_layout(form)
    epr, k = form.epr, form.shape.k
    for lane, reg, j in np.ndindex(32, lay.nregs, epr):
        g, t = lane >> 2, lane % 4
        window = 2 * epr * t + (k // 2) * (reg // 2)
        assert lay(lane, reg, j) == (g + 8 * (reg % 2), window // 2 + j)


SELECTED_LANES = {  # ptx-mma-sp.md §5.2 explicit per-variant map, quad of group g = 0
    ("m16n8k16.f32.f16.f16.f32", 2): (2,),
    ("m16n8k32.f32.bf16.bf16.f32", 1): (2, 3),
    ("m16n8k32.s32.s8.s8.s32", 1): (2, 3),
    ("m16n8k64.s32.s8.s8.s32", 0): (0, 1, 2, 3),
}


@pytest.mark.parametrize("key,sel", sorted(SELECTED_LANES))
def test_selector_picks_the_documented_lanes(key, sel):
    ml = layouts.meta_layout(BY_KEY[key], sel)
    assert tuple(lane for lane in ml.lanes if lane < 4) == SELECTED_LANES[key, sel]


def test_class_ii_splits_by_k_half_and_class_iii_by_row():
    """The main trap [HW]: f16 k32 lane 4g+2s+1 holds rows g and g+8 for K 16..31; s8 k32's holds row g+8, all K."""
    f16 = layouts.meta_layout(BY_KEY["m16n8k32.f32.f16.f16.f32"], 0)
    assert f16(1, 0) == (0, 4) and f16(1, 4) == (8, 4)  # lane 1, bits [3:0] row 0 chunk 4; [19:16] row 8
    s8 = layouts.meta_layout(BY_KEY["m16n8k32.s32.s8.s8.s32"], 0)
    assert s8(1, 0) == (8, 0) and s8(1, 7) == (8, 7) and s8(0, 7) == (0, 7)


def test_class_iv_lane_order():
    ml = layouts.meta_layout(BY_KEY["m16n8k64.s32.s8.s8.s32"], 0)
    assert [ml(lane, 0) for lane in range(4)] == [(0, 0), (8, 0), (0, 8), (8, 8)]


def test_b_and_cd_layouts_documented_points():
    f = BY_KEY["m16n8k64.s32.s8.s8.s32"]
    assert layouts.b_layout(f)(5, 3, 2) == (4 * 1 + 2 + 16 * 3, 1)  # k = 4t + (i&3) + 16(i>>2), n = g
    f16 = BY_KEY["m16n8k16.f16.f16.f16.f16"]
    assert layouts.cd_layout(f16)(6, 1, 1) == (1 + 8, 2 * 2 + 1)  # d3 of lane 6: m = g+8, n = 2t+1


def test_undefined_selector_is_rejected():
    with pytest.raises(ValueError, match="selector 2 is not defined"):
        layouts.meta_layout(BY_KEY["m16n8k32.f32.f16.f16.f32"], 2)
