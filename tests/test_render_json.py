"""The JSON output against the layout tables (every form) and against the hardware-verified facts of
ptx-mma-sp.md: §4 fragment formulas, §5.2 metadata classes II vs III vs IV, §5.3 selector lanes,
§7 worked example (lane 0: e = 0xED9C9C84, a_reg0 = 0x3C403C00)."""
from __future__ import annotations

import json

import pytest

from isa import layouts
from isa.forms import BY_KEY, DENSE_FORMS, FORMS
from warpsim.render import json_out, render

F16_K16 = BY_KEY["m16n8k16.f32.f16.f16.f32"]


def doc(form, op, sel=None, **kw):
    return json.loads(render(form, op, "json", selector=sel, **kw))


@pytest.mark.parametrize("form", FORMS + DENSE_FORMS, ids=[f.key for f in FORMS + DENSE_FORMS])
def test_fragment_records_equal_the_tables(form):
    for op in "ABCD":
        d = doc(form, op)
        lay = layouts.layout(form, op)
        rows, cols = lay.tables
        want = {(lane, r, j, int(rows[lane, r, j]), int(cols[lane, r, j]))
                for lane in range(32) for r in range(lay.nregs) for j in range(lay.epr)}
        got = [(e["lane"], e["register"], e["element"], e["row"], e["col"]) for e in d["elements"]]
        assert len(got) == len(want) == lay.nrows * lay.ncols and set(got) == want
        assert d["shape"] == [lay.nrows, lay.ncols] and d["layout"].endswith(lay.signature)


@pytest.mark.parametrize("form", FORMS, ids=[f.key for f in FORMS])
def test_meta_records_equal_the_tables(form):
    for sel in form.selectors:
        d = doc(form, "E", sel)
        ml = layouts.meta_layout(form, sel)
        assert d["lanes"] == list(ml.lanes)
        assert len(d["elements"]) == form.shape.m * (form.shape.k // form.chunk[1])
        for rec in d["elements"]:
            hi, lo = rec["bits"]
            assert hi == lo + 3 and lo % 4 == 0 and rec["register"] == 0
            site = rec["row"], rec["chunk"]
            assert (ml.lane_of[site], ml.nibble_of[site]) == (rec["lane"], lo // 4)


# ----------------------------------------------------------------------------- ptx-mma-sp.md §4 (A)


@pytest.mark.parametrize("form", FORMS, ids=[f.key for f in FORMS])
def test_a_chunk_follows_the_documented_window(form):
    """§4.1: register r of lane (g, t) holds row g + 8(r mod 2) from the dense window starting at
    2·epr·t + (K/2)(r div 2); element j belongs to chunk window_start/W + j div Z."""
    z, w = form.chunk
    k, epr = form.shape.k, form.epr
    for rec in doc(form, "A")["elements"]:
        g, t, r, j = rec["lane"] >> 2, rec["lane"] % 4, rec["register"], rec["element"]
        assert rec["row"] == g + 8 * (r % 2)
        assert rec["chunk"] == (2 * epr * t + (k // 2) * (r // 2)) // w + j // z


# ----------------------------------------------------------------------------- §5.2 / §5.3 (E)


def _expected_site(klass: str, m: int, c: int, s: int) -> tuple[int, int]:
    """(lane, bit offset) from the explicit per-variant table of §5.2 (written out again, independently)."""
    g, h = m % 8, m // 8
    return {"I": (4 * g + s, 4 * c + 16 * h),
            "II": (4 * g + 2 * s + c // 4, 4 * (c % 4) + 16 * h),
            "III": (4 * g + 2 * s + h, 4 * c),
            "IV": (4 * g + h + 2 * (c // 8), 4 * (c % 8))}[klass]


@pytest.mark.parametrize("key,klass", [
    ("m16n8k16.f32.f16.f16.f32", "I"), ("m16n8k8.f32.tf32.tf32.f32", "I"),
    ("m16n8k32.f32.f16.f16.f32", "II"), ("m16n8k32.f32.bf16.bf16.f32", "II"), ("m16n8k16.f32.tf32.tf32.f32", "II"),
    ("m16n8k32.s32.s8.s8.s32", "III"), ("m16n8k64.s32.u4.u4.s32", "III"),
    ("m16n8k64.s32.s8.s8.s32", "IV"), ("m16n8k64.f32.e4m3.e4m3.f32", "IV"), ("m16n8k128.s32.s4.s4.s32", "IV"),
    ("m16n8k64.f8f6f4.f32.e2m1.e3m2.f32", "IV"), ("m16n8k128.mxf4.x2X.ue8m0.f32.e2m1.e2m1.f32", "IV")])
def test_metadata_class_maps(key, klass):
    form = BY_KEY[key]
    assert form.meta_class == klass
    for sel in form.selectors:
        d = doc(form, "E", sel)
        assert d["meta_class"] == klass
        for rec in d["elements"]:
            assert (rec["lane"], rec["bits"][1]) == _expected_site(klass, rec["row"], rec["chunk"], sel), rec


def test_class_ii_splits_by_k_half_and_class_iii_by_row():
    """The §5.2 trap: the lane pair of f16 k32 splits K (rows g / g+8 in the low / high half-word);
    the lane pair of s8 k32 splits rows (each lane's 32 bits = one row's 8 chunks)."""
    ii = doc(BY_KEY["m16n8k32.f32.f16.f16.f32"], "E", 0)["elements"]
    iii = doc(BY_KEY["m16n8k32.s32.s8.s8.s32"], "E", 0)["elements"]
    lane1_ii = {(r["row"], r["chunk"]) for r in ii if r["lane"] == 1}
    lane1_iii = {(r["row"], r["chunk"]) for r in iii if r["lane"] == 1}
    assert lane1_ii == {(m, c) for m in (0, 8) for c in range(4, 8)}  # dense columns 16..31 of rows 0 and 8
    assert lane1_iii == {(8, c) for c in range(8)}  # all of row 8
    high = {tuple(r["bits"]) for r in ii if r["lane"] == 1 and r["row"] == 8}
    assert high == {(19, 16), (23, 20), (27, 24), (31, 28)}


@pytest.mark.parametrize("form", FORMS, ids=[f.key for f in FORMS])
def test_selector_picks_the_documented_lanes(form):
    """§5.3: class I lane 4g+s; classes II/III the pair 4g+2s, 4g+2s+1; class IV all lanes (selector 0 only)."""
    want = {"I": lambda s: [4 * g + s for g in range(8)],
            "II": lambda s: sorted(4 * g + 2 * s + i for g in range(8) for i in (0, 1)),
            "IV": lambda s: list(range(32))}
    want["III"] = want["II"]
    assert form.selectors == {"I": (0, 1, 2, 3), "II": (0, 1), "III": (0, 1), "IV": (0,)}[form.meta_class]
    for sel in form.selectors:
        assert doc(form, "E", sel)["lanes"] == want[form.meta_class](sel)


# ----------------------------------------------------------------------------- §7 worked example

WORKED = {0: (0x3C403C00, 0x48984880, 0xED9C9C84), 4: (0x40404000, 0x49104908, 0x4ED9D9C8),
          5: (0x40E04080, 0x49384928, None), 8: (0x42604200, 0x49984988, 0x84EDED9C),
          12: (0x44204410, 0x4A184A10, 0xC84E4ED9), 16: (0x45304510, 0x4A884A80, 0x9C8484ED),
          20: (0x46304620, 0x4B104B00, 0xD9C8C84E), 27: (0x47E047D0, 0x4BF84BF0, None),
          31: (0x48784868, 0x4C344C30, None)}


def test_worked_example_registers():
    ex = doc(F16_K16, "A")["example"]
    assert ex["source"] == "sample"
    for lane, (a0, a1, e) in WORKED.items():
        assert ex["a"][lane] == [a0, a1], f"lane {lane}"
        assert ex["e"][lane] == (e if e is not None else 0), f"lane {lane}"
    assert [f"{q:04b}" for q in ex["codes"][0]] == ["0100", "1000", "1100", "1001"]
    assert [f"{q:04b}" for q in ex["codes"][5]] == ["1110", "0100", "1000", "1100"]


@pytest.mark.parametrize("sel", [0, 1, 2, 3])
def test_worked_example_e_moves_with_the_selector(sel):
    """§7: for selector s the same e value must be in lane 4g+s; the other lanes are ignored."""
    e = doc(F16_K16, "E", sel)["example"]["e"]
    for g, value in enumerate([0xED9C9C84, 0x4ED9D9C8, 0x84EDED9C, 0xC84E4ED9, 0x9C8484ED, 0xD9C8C84E]):
        assert e[4 * g + sel] == value


def test_e_option_decodes_the_given_registers():
    d = doc(F16_K16, "E", 0, e=[0xED9C9C84])
    assert d["example"]["source"] == "e"
    assert [f"{q:04b}" for q in d["example"]["codes"][0]] == ["0100", "1000", "1100", "1001"]
    assert [f"{q:04b}" for q in d["example"]["codes"][8]] == ["1100", "1001", "1101", "1110"]


def test_codes_option_is_tiled_and_packed():
    d = json_out.document(F16_K16, "E", 1, codes=[0b1110])
    assert d["example"]["codes"] == [[0b1110] * 4] * 16
    assert d["example"]["e"][1] == 0xEEEEEEEE and d["example"]["e"][0] == 0


def test_json_rejects_a_selector_the_form_lacks():
    with pytest.raises(ValueError, match="defined: 0, 1"):
        render(BY_KEY["m16n8k32.f32.f16.f16.f32"], "E", "json", selector=2)
