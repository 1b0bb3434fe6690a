"""idesc: encode/decode inverse for every kind, reference vectors, one error per illegal field."""
import pytest
from hypothesis import given, settings, strategies as st

from isa.tcgen05.idesc import (BLOCK_SCALED, KINDS, SCALE_TYPE_CODES, TYPE_BITS, TYPE_CODES,
                               DescriptorError, InstrDescriptor, decode, encode, legal_shapes)


@st.composite
def descriptors(draw, kind=None):
    kind = kind or draw(st.sampled_from(KINDS))
    scaled = kind in BLOCK_SCALED
    ws = False if scaled else draw(st.booleans())
    cg = 1 if ws else draw(st.sampled_from((1, 2)))
    sparse = draw(st.booleans())
    ms, ns = legal_shapes(kind, cg, ws, sparse)
    m, n = draw(st.sampled_from(ms)), draw(st.sampled_from(ns))
    types = list(TYPE_CODES[kind].values())
    a = draw(st.sampled_from(types))
    b = a if kind == "f16" else draw(st.sampled_from(types))
    kw = dict(kind=kind, m=m, n=n, a_type=a, b_type=b, sparse=sparse, cta_group=cg, ws=ws)
    if kind != "i8":
        kw.update(negate_a=draw(st.booleans()), negate_b=draw(st.booleans()))
    can_t = kind not in ("mxf4", "mxf4nvf4")
    kw["transpose_a"] = can_t and TYPE_BITS[a] >= 8 and draw(st.booleans())
    kw["transpose_b"] = (can_t and TYPE_BITS[b] >= 8 and draw(st.booleans())
                         and (TYPE_BITS[b] != 8 or n % (16 * cg) == 0))
    if scaled:
        ids = (0, 1, 2, 3) if kind == "mxf8f6f4" else (0, 2)
        kw.update(scale_type=draw(st.sampled_from(list(SCALE_TYPE_CODES[kind].values()))),
                  scale_factor_a_id=draw(st.sampled_from(ids)), scale_factor_b_id=draw(st.sampled_from(ids)))
    else:
        dts = {"f16": ("f16", "f32") if a == "f16" else ("f32",), "tf32": ("f32",), "f8f6f4": ("f16", "f32"),
               "i8": ("s32",)}[kind]
        kw["d_type"] = draw(st.sampled_from(dts))
        if sparse and kind in ("f16", "tf32"):
            kw["sparsity_selector"] = draw(st.integers(0, 3))
        if kind == "i8":
            kw["saturate"] = draw(st.booleans())
        if ws:
            kw["max_shift"] = draw(st.sampled_from((0, 8, 16, 32)))
    return InstrDescriptor(**kw)


@settings(max_examples=600, deadline=None)
@given(descriptors())
def test_round_trip_every_kind(d):
    w = encode(d)
    assert 0 <= w < 1 << 32
    assert decode(w, d.kind, cta_group=d.cta_group, ws=d.ws, sparse=d.sparse) == d


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_round_trip_per_kind(kind, data):
    d = data.draw(descriptors(kind))
    assert decode(encode(d), kind, cta_group=d.cta_group, ws=d.ws) == d


@settings(max_examples=2000, deadline=None)
@given(st.integers(0, (1 << 32) - 1), st.sampled_from(KINDS), st.sampled_from((1, 2)))
def test_random_words_decode_or_raise(word, kind, cg):
    try:
        d = decode(word, kind, cta_group=cg)
    except DescriptorError as e:
        assert "idesc field '" in str(e) and "legal:" in str(e)
    else:
        assert encode(d) == word


@pytest.mark.parametrize("word,kind,cg,expect", [
    # reference ptx-tcgen05.md 2.4 worked examples
    (0x08400494, "f16", 1, dict(a_type="bf16", d_type="f32", m=128, n=256, sparse=True, sparsity_selector=0)),
    (0x08400495, "f16", 1, dict(a_type="bf16", sparsity_selector=1)),
    (0x082004A4, "i8", 1, dict(a_type="s8", b_type="s8", d_type="s32", m=128, n=128, sparse=True)),
    (0x10400014, "f16", 2, dict(a_type="f16", m=256, n=256, sparse=True)),
    (0x08200914, "tf32", 1, dict(a_type="tf32", m=128, n=128, sparse=True)),
])
def test_reference_vectors(word, kind, cg, expect):
    d = decode(word, kind, cta_group=cg)
    for k, v in expect.items():
        assert getattr(d, k) == v, k
    assert d.k == {"f16": 32, "i8": 64, "tf32": 16}[kind]


def test_block_scaled_fields():
    d = InstrDescriptor("mxf8f6f4", 256, 128, "e4m3", "e2m1", scale_type="ue8m0", scale_factor_a_id=3,
                        scale_factor_b_id=1, sparse=True, cta_group=2)
    w = encode(d)
    assert (w >> 29) & 3 == 3 and (w >> 4) & 3 == 1 and (w >> 27) & 3 == 2 and (w >> 23) & 1 == 1
    assert (w >> 7) & 7 == 0 and (w >> 10) & 7 == 5 and d.k == 64
    d4 = InstrDescriptor("mxf4nvf4", 128, 64, "e2m1", "e2m1", scale_type="ue4m3")
    assert (encode(d4) >> 23) & 1 == 0 and (encode(d4) >> 7) & 7 == 1 and d4.k == 64


F16 = 0x08400494  # bf16 sparse M128 N256


@pytest.mark.parametrize("word,kind,cg,msg", [
    (F16 | 1 << 6, "f16", 1, "field 'reserved6' (bits 6) = 1 is illegal (reserved, must be 0); legal: {0}"),
    (F16 | 1 << 23, "f16", 1, "field 'reserved23' (bits 23) = 1 is illegal"),
    (F16 | 1 << 29, "f16", 1, "field 'reserved29' (bits 29) = 1"),
    (F16 & ~(7 << 7) | 3 << 7, "f16", 1, "field 'a_type' (bits 9:7) = 3 is illegal for .kind::f16; legal: {0 (f16), 1 (bf16)}"),
    (F16 & ~(7 << 10), "f16", 1, "field 'b_type' (bits 12:10) = 0 is illegal (.kind::f16 needs a_type == b_type); legal: {1 (bf16)}"),
    (F16 | 3 << 4, "f16", 1, "field 'd_type' (bits 5:4) = 3 is illegal for .kind::f16; legal: {0 (f16), 1 (f32)}"),
    (F16 & ~(3 << 4), "f16", 1, "field 'd_type' (bits 5:4) = 0 is illegal (an f16 accumulator needs f16 inputs, not bf16)"),
    (F16 | 1 << 3, "f16", 1, "field 'saturate' (bits 3) = 1 is illegal for .kind::f16; legal: {0}"),
    (F16 | 1 << 30, "f16", 1, "field 'max_shift' (bits 31:30) = 1 is illegal (max shift is a .ws field)"),
    (F16 & ~(0x3F << 17), "f16", 1, "field 'n' (bits 22:17) = 0 is illegal for .kind::f16.sp cta_group::1; legal: {8, 16"),
    (F16 & ~(0x3F << 17) | 1 << 17, "f16", 2, "field 'n' (bits 22:17) = 8 is illegal for .kind::f16.sp cta_group::2; legal: {16, 32"),
    (F16 & ~(0x1F << 24) | 16 << 24, "f16", 1, "field 'm' (bits 28:24) = 256 is illegal for .kind::f16.sp cta_group::1; legal: {64, 128}"),
    ((F16 & ~4) | 2, "f16", 1, "field 'sparsity_selector' (bits 1:0) = 2 is illegal for .kind::f16 dense; legal: {0}"),
    (0x082004A4 | 1, "i8", 1, "field 'sparsity_selector' (bits 1:0) = 1 is illegal for .kind::i8; legal: {0}"),
    (0x082004A4 | 1 << 13, "i8", 1, "field 'negate_a' (bits 13) = 1 is illegal for .kind::i8; legal: {0}"),
    (0x082004A4 | 1 << 14, "i8", 1, "field 'negate_b' (bits 14) = 1 is illegal for .kind::i8"),
    (0x082004A4 & ~(0x3F << 17) | 3 << 17, "i8", 2, "field 'n' (bits 22:17) = 24 is illegal for .kind::i8.sp cta_group::2; legal: {32, 64"),
    (0x08200914 & ~(7 << 7), "tf32", 1, "field 'a_type' (bits 9:7) = 0 is illegal for .kind::tf32; legal: {2 (tf32)}"),
    (0x08200914 & ~(3 << 4), "tf32", 1, "field 'd_type' (bits 5:4) = 0 is illegal for .kind::tf32; legal: {1 (f32)}"),
])
def test_error_per_field(word, kind, cg, msg):
    with pytest.raises(DescriptorError) as e:
        decode(word, kind, cta_group=cg)
    assert msg in str(e.value)
    assert str(e.value).startswith("idesc field")


def _mx(kind="mxf8f6f4", **kw):
    base = dict(kind=kind, m=128, n=64, a_type="e4m3" if kind == "mxf8f6f4" else "e2m1", b_type=None,
                scale_type="ue8m0")
    base["b_type"] = base["a_type"]
    return encode(InstrDescriptor(**{**base, **kw}))


@pytest.mark.parametrize("word,kind,cg,msg", [
    (_mx() | 1, "mxf8f6f4", 1, "field 'reserved0' (bits 1:0) = 1 is illegal (reserved, must be 0)"),
    (_mx() | 1 << 3, "mxf8f6f4", 1, "field 'reserved3' (bits 3) = 1"),
    (_mx() | 1 << 24, "mxf8f6f4", 1, "field 'reserved24' (bits 26:24) = 1"),
    (_mx() | 1 << 31, "mxf8f6f4", 1, "field 'reserved31' (bits 31) = 1"),
    (_mx() & ~(1 << 23), "mxf8f6f4", 1, "field 'scale_type' (bits 23) = 0 is illegal for .kind::mxf8f6f4; legal: {1 (ue8m0)}"),
    (_mx() & ~(7 << 7) | 2 << 7, "mxf8f6f4", 1, "field 'a_type' (bits 9:7) = 2 is illegal for .kind::mxf8f6f4; legal: {0 (e4m3), 1 (e5m2), 3 (e2m3), 4 (e3m2), 5 (e2m1)}"),
    (_mx() & ~(3 << 27) | 2 << 27, "mxf8f6f4", 1, "field 'm' (bits 28:27) = 256 is illegal for .kind::mxf8f6f4 cta_group::1; legal: {128}"),
    (_mx(sparse=True, m=256, cta_group=2) & ~(3 << 27) | 1 << 27, "mxf8f6f4", 2, "field 'm' (bits 28:27) = 128 is illegal for .kind::mxf8f6f4.sp cta_group::2; legal: {256}"),
    (_mx("mxf4") | 1 << 12, "mxf4", 1, "field 'reserved12' (bits 12) = 1"),
    (_mx("mxf4") | 1 << 31, "mxf4", 1, "field 'k96' (bits 31) = 1 is illegal (K = 96 exists only on sm_103a, dense); legal: {0}"),
    (_mx("mxf4") | 1 << 29, "mxf4", 1, "field 'scale_factor_a_id' (bits 30:29) = 1 is illegal for .kind::mxf4; legal: {0, 2}"),
    (_mx("mxf4") | 1 << 4, "mxf4", 1, "field 'scale_factor_b_id' (bits 5:4) = 1 is illegal for .kind::mxf4; legal: {0, 2}"),
    (_mx("mxf4") | 1 << 15, "mxf4", 1, "field 'transpose_a' (bits 15) = 1 is illegal for .kind::mxf4 with e2m1 (K-major only)"),
    (_mx("mxf4") & ~(1 << 23), "mxf4", 1, "field 'scale_type' (bits 23) = 0 is illegal for .kind::mxf4; legal: {1 (ue8m0)}"),
    (_mx("mxf4nvf4") & ~(3 << 10) | 2 << 10, "mxf4nvf4", 1, "field 'b_type' (bits 11:10) = 2 is illegal for .kind::mxf4nvf4; legal: {1 (e2m1)}"),
])
def test_error_per_block_scaled_field(word, kind, cg, msg):
    with pytest.raises(DescriptorError) as e:
        decode(word, kind, cta_group=cg)
    assert msg in str(e.value)


def test_errors_from_constructor_and_opcode():
    with pytest.raises(DescriptorError, match=r"'transpose_a' \(bits 15\) = 1 is illegal for .kind::f8f6f4 with e2m3 \(K-major only\)"):
        InstrDescriptor("f8f6f4", 128, 64, "e2m3", "e4m3", transpose_a=True)
    with pytest.raises(DescriptorError, match=r"'n' \(bits 22:17\) = 8 is illegal \(8-bit transposed B\)"):
        InstrDescriptor("i8", 128, 8, "s8", "s8", "s32", transpose_b=True)
    with pytest.raises(DescriptorError, match=r"'b_type' \(bits 12:10\) = 'f8' is illegal for .kind::f8f6f4"):
        InstrDescriptor("f8f6f4", 128, 64, "e4m3", "f8")
    with pytest.raises(DescriptorError, match=r"'sparse' \(bits 2\) = 0 is illegal \(must match the opcode: tcgen05.mma.sp\)"):
        decode(0x08400490, "f16", sparse=True)
    with pytest.raises(DescriptorError, match=r"'kind' \(bits opcode\) = 'f64' is illegal; legal: \{f16, tf32"):
        decode(0, "f64")
    with pytest.raises(DescriptorError, match=r"'ws' .* \(.ws needs cta_group::1 and a non-block-scaled kind"):
        InstrDescriptor("mxf8f6f4", 128, 64, "e4m3", "e4m3", scale_type="ue8m0", ws=True)
    with pytest.raises(DescriptorError, match=r"'m' \(bits 28:24\) = 32 is illegal for .kind::f16 cta_group::1"):
        InstrDescriptor("f16", 32, 64, "f16", "f16")
    assert InstrDescriptor("f16", 32, 64, "f16", "f16", ws=True, max_shift=16).k == 16
