"""The batched tensor core: every form × selector × variant exact on exactly-summable inputs; UB policies."""
import numpy as np
import pytest

from helpers import arch_for, small_values, sparse_a, unit_scales
from isa import sparsity
from isa.errors import HardwareTrap, UndefinedBehavior
from isa.forms import BY_KEY, FORMS, FormError, variants_of
from warpsim import mma_sp
from warpsim.fragments import from_registers, to_registers

CASES = [(f, v, s) for f in FORMS for v in variants_of(f) for s in f.selectors]


def _operands(form, rng, selector, n=4):
    A = np.stack([sparse_a(form, rng) for _ in range(n)])
    B = small_values(form.btype, rng, (n, form.shape.k, form.shape.n))
    C = small_values(form.ctype, rng, (n, form.shape.m, form.shape.n))
    a, e = to_registers(form, "A", A, selector=selector, fill=0xFFFFFFFF)  # junk in ignored lanes
    return A, B, C, a, to_registers(form, "B", B), to_registers(form, "C", C), e


@pytest.mark.parametrize("form,variant,selector", CASES, ids=lambda x: str(x))
def test_every_form_selector_and_variant_is_exact(form, variant, selector):
    rng = np.random.default_rng(hash((form.key, variant, selector)) % 2**32)
    A, B, C, a, b, c, e = _operands(form, rng, selector)
    d = mma_sp((form, variant), a, b, c, e, selector=selector, arch=arch_for(form), **_scales(form, 4))
    ref = A @ B + C
    if form.satfinite:
        ref = np.clip(ref, -2**31, 2**31 - 1)
    assert np.array_equal(from_registers(form, "D", d), ref)


def _scales(form, n):
    return {k: np.broadcast_to(v, (n, 32)) for k, v in unit_scales(form).items()}


def test_integer_wraps_without_satfinite_and_clamps_with_it():
    rng = np.random.default_rng(0)
    for sat in (False, True):
        form = BY_KEY["m16n8k32.s32.s8.s8.s32" + (".satfinite" if sat else "")]
        A, B = sparse_a(form, rng), small_values("s8", rng, (32, 8))
        C = np.full((16, 8), 2**31 - 1 - 5)
        a, e = to_registers(form, "A", A)
        d = mma_sp(form, a, to_registers(form, "B", B), to_registers(form, "C", C), e)
        exact = A @ B + C
        want = np.clip(exact, -2**31, 2**31 - 1) if sat else (exact + 2**31) % 2**32 - 2**31
        assert np.array_equal(from_registers(form, "D", d), want)


def test_block_scales_multiply_per_k_block():
    form = BY_KEY["m16n8k128.mxf4nvf4.x4X.ue8m0.f32.e2m1.e2m1.f32"]
    rng = np.random.default_rng(3)
    A, B = sparse_a(form, rng), small_values("e2m1", rng, (128, 8))
    a, e = to_registers(form, "A", A)
    # every scale byte 128 = 2^1: D = 4 · A·B
    two = np.full(32, 0x80808080, np.uint32)
    d = mma_sp(form, a, to_registers(form, "B", B), np.zeros((32, 4), np.uint32), e,
               arch="sm_120a", scale_a=two, scale_b=two)
    assert np.array_equal(from_registers(form, "D", d), 4 * (A @ B))


F16 = BY_KEY["m16n8k16.f32.f16.f16.f32"]


def _codes_case(code):
    """A row-0 chunk-0 with stored values 1 and 2 and the given code; B = identity-like one-hot."""
    values = np.zeros((16, 8))
    values[0, :2] = [1, 2]
    codes = np.full((16, 4), 0b0100)
    codes[0, 0] = code
    from isa import formats, layouts
    a = layouts.a_layout(F16).pack(formats.encode_exact("f16", values))
    e = sparsity.meta_registers(F16, codes, 0)
    B = np.zeros((16, 8))
    B[np.arange(8), np.arange(8)] = 1
    return a, to_registers(F16, "B", B), np.zeros((32, 4), np.uint32), e


@pytest.mark.parametrize("code,row0", [
    (0b0000, [3, 0, 0, 0]), (0b0001, [2, 1, 0, 0]), (0b0101, [0, 3, 0, 0]), (0b0110, [0, 2, 1, 0]),
    (0b1111, [0, 0, 0, 3]), (0b1110, [0, 0, 1, 2]),
])
def test_hardware_policy_reproduces_the_h100_code_sweep(code, row0):
    """ptx-mma-sp.md §6.5: equal indices add, unordered codes are placed literally."""
    d = mma_sp((F16, "sp"), *_codes_case(code), ub_policy="hardware")
    assert list(from_registers(F16, "D", d)[0, :4]) == row0


def test_error_policy_names_the_equal_index_code():
    with pytest.raises(UndefinedBehavior, match=r"0b0000 names the same column twice.*lane 0.*row 0, chunk 0"):
        mma_sp((F16, "sp"), *_codes_case(0b0000))


def test_f16_k32_selector_2_traps_like_the_h100():
    form = BY_KEY["m16n8k32.f32.f16.f16.f32"]
    regs = (np.zeros((32, 4), np.uint32),) * 3 + (np.zeros(32, np.uint32),)
    with pytest.raises(HardwareTrap, match="cudaErrorIllegalInstruction"):
        mma_sp(form, *regs, selector=2, ub_policy="hardware")
    with pytest.raises(UndefinedBehavior, match="sparsity selector 2 is outside \\[0, 1\\]"):
        mma_sp(form, *regs, selector=2)
    with pytest.raises(FormError, match="selector 2 is not accepted"):
        mma_sp(BY_KEY["m16n8k32.f32.bf16.bf16.f32"], *regs, selector=2)


def test_pruned_zero_never_meets_inf():
    """The hardware forms only the stored products: Inf in a pruned row of B gives no NaN [HW §7]."""
    A = np.zeros((16, 16))
    A[:, 0] = A[:, 1] = 1
    B = np.ones((16, 8))
    a, e = to_registers(F16, "A", A)
    b = to_registers(F16, "B", B)
    from isa import layouts
    bits = layouts.b_layout(F16).unpack(b)
    bits[7, :] = 0x7C00  # +Inf in dense row k = 7: compress keeps columns 4, 5 of chunk 1, so 7 is pruned
    d = mma_sp(F16, a, layouts.b_layout(F16).pack(bits), np.zeros((32, 4), np.uint32), e)
    assert (from_registers(F16, "D", d) == 2).all()


def test_f32_result_truncates_and_f16_result_rounds_to_nearest():
    """1 + 2^-24 + 2^-24 ... : f32 output rounds toward zero (Hopper model), f16 output to nearest."""
    A = np.zeros((16, 16))
    A[:, 0], A[:, 1] = 1.0, 2.0**-12
    B = np.zeros((16, 8))
    B[0, :], B[1, :] = 1.0, 2.0**-12 * 1.5  # product 1.5·2^-24: below f32 ulp of 1
    a, e = to_registers(F16, "A", A)
    d = mma_sp(F16, a, to_registers(F16, "B", B), np.zeros((32, 4), np.uint32), e)
    assert (from_registers(F16, "D", d) == 1.0).all()  # RZ drops it
    h = BY_KEY["m16n8k16.f16.f16.f16.f16"]
    A[:, 1], B[1, :] = 1.0, 2.0**-11 * 1.5  # 1 + 1.5·2^-11 → nearest f16 (ulp 2^-10) is 1 + 2^-10
    a, e = to_registers(h, "A", A)
    d = mma_sp(h, a, to_registers(h, "B", B), np.zeros((32, 2), np.uint32), e)
    assert (from_registers(h, "D", d) == 1 + 2.0**-10).all()


@pytest.mark.parametrize("form", __import__("isa.forms").forms.DENSE_FORMS, ids=str)
def test_dense_mma_sync_is_exact(form):
    rng = np.random.default_rng(7)
    A = small_values(form.atype, rng, (3, form.shape.m, form.shape.k))
    B = small_values(form.btype, rng, (3, form.shape.k, form.shape.n))
    C = small_values(form.ctype, rng, (3, form.shape.m, form.shape.n))
    from isa import layouts, formats
    a = layouts.a_layout(form).pack(formats.encode_exact(form.atype, A))
    d = mma_sp((form, "dense"), a, to_registers(form, "B", B), to_registers(form, "C", C))
    ref = A @ B + C
    assert np.array_equal(from_registers(form, "D", d), np.clip(ref, -2**31, 2**31 - 1) if form.satfinite else ref)


def test_dense_a_layout_is_the_ptx_manual_m16n8k16():
    """PTX ISA §9.7.14.5.8: a0,a1 row g cols 2t,2t+1; a2,a3 row g+8; a4..a7 cols +8."""
    from isa import layouts
    lay = layouts.a_layout(BY_KEY["m16n8k16.f32.f16.f16.f32.dense"])
    assert [lay(6, r, j) for r in range(4) for j in range(2)] == [
        (1, 4), (1, 5), (9, 4), (9, 5), (1, 12), (1, 13), (9, 12), (9, 13)]
