"""Sparse storage: compress/decompress, metadata registers, and undefined behaviour named."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from helpers import sparse_a
from isa import formats, layouts, sparsity
from isa.errors import UndefinedBehavior
from isa.forms import BY_KEY, FORMS

F16 = BY_KEY["m16n8k16.f32.f16.f16.f32"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(FORMS), st.integers(0, 2**31))
def test_compress_then_decompress_is_identity(form, seed):
    dense = sparse_a(form, np.random.default_rng(seed), fmt="s8")
    values, codes = sparsity.compress(form, dense)
    assert values.shape == (form.shape.m, form.shape.k // 2)
    assert np.isin(codes, sparsity.valid_codes(form, "sp::ordered_metadata")).all()
    assert np.array_equal(sparsity.decompress(form, values, codes), dense)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(FORMS), st.integers(0, 2**31), st.data())
def test_metadata_registers_round_trip(form, seed, data):
    sel = data.draw(st.sampled_from(form.selectors))
    _, codes = sparsity.compress(form, sparse_a(form, np.random.default_rng(seed), fmt="s8"))
    e = sparsity.meta_registers(form, codes, sel, fill=0xDEADBEEF)
    assert np.array_equal(sparsity.meta_codes(form, e, sel), codes)
    unused = np.setdiff1d(np.arange(32), layouts.meta_layout(form, sel).lanes)
    assert (e[unused] == 0xDEADBEEF).all()


def test_worked_example_of_the_reference():
    """ptx-mma-sp.md §7: f16 m16n8k16, selector 0 — metadata and A registers of lanes 0, 4, 8."""
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    dense = np.zeros((16, 16))
    for m in range(16):
        for c in range(4):
            for k in pairs[(m + c) % 6]:
                dense[m, 4 * c + k] = 1 + m + (4 * c + k) / 16
    values, codes = sparsity.compress(F16, dense)
    e = sparsity.meta_registers(F16, codes, 0)
    assert [hex(x) for x in e[[0, 4, 8, 12]]] == ["0xed9c9c84", "0x4ed9d9c8", "0x84eded9c", "0xc84e4ed9"]
    a = layouts.a_layout(F16).pack(formats.encode_exact("f16", values))
    assert (a[0] == [0x3C403C00, 0x48984880]).all() and (a[31] == [0x48784868, 0x4C344C30]).all()


def test_too_dense_is_named():
    dense = np.zeros((16, 16))
    dense[3, 4:7] = 1
    with pytest.raises(ValueError, match="row 3 chunk 1 has more than 2 non-zero elements of 4: not 2:4 sparse"):
        sparsity.compress(F16, dense)


def test_equal_index_code_is_undefined_with_its_site():
    codes = np.full((16, 4), 0b0100)
    codes[9, 2] = 0b0101
    with pytest.raises(UndefinedBehavior) as err:
        sparsity.check_codes(F16, "sp", codes, 1)
    msg = str(err.value)
    assert "metadata code 0b0101 names the same column twice" in msg
    assert "lane 5" in msg and "row 9, chunk 2 (bits [27:24] of e)" in msg


def test_unordered_code_only_undefined_for_ordered_metadata():
    codes = np.full((16, 4), 0b0001)
    sparsity.check_codes(F16, "sp", codes, 0)
    with pytest.raises(UndefinedBehavior, match="not increasing .* required by mma.sp::ordered_metadata"):
        sparsity.check_codes(F16, "sp::ordered_metadata", codes, 0)
    sparsity.check_codes(F16, "sp::ordered_metadata", codes, 0, policy="hardware")


def test_tf32_other_codes_are_errors_unless_hardware_mode():
    tf32 = BY_KEY["m16n8k8.f32.tf32.tf32.f32"]
    codes = np.full((16, 4), 0b0100)
    codes[0, 0] = 0b0110
    with pytest.raises(UndefinedBehavior, match="tf32 metadata code 0b0110 is not 0b0100 or 0b1110"):
        sparsity.check_codes(tf32, "sp", codes, 0)
    sparsity.check_codes(tf32, "sp", codes, 0, policy="hardware")  # the H100's half-word gather runs it


@pytest.mark.parametrize("code,hi,lo", [(0b0100, (0, 1), (0, 0)), (0b1110, (1, 1), (1, 0)),
                                        (0b0001, (0, 0), (0, 1)), (0b0101, (0, 1), (0, 1)),
                                        (0b1001, (1, 0), (0, 1)), (0b0000, (0, 0), (0, 0))])
def test_tf32_half_sources_match_the_h100_sweep(code, hi, lo):
    """ptx-mma-sp.md §6.5 sweep (B = identity of 1.0 = 0x3F800000): 0001 → 0x00003F80 (1.15e-41 after tf32
    truncation) at column 0; 0101 → 0x3F803F80 → 1.0009765625; 0000 → 0x00000000."""
    assert sparsity.tf32_half_sources(code) == (hi, lo)
