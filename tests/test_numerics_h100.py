"""The Hopper numerics model against the H100: every recorded instruction and UB trace bit for bit, plus
unit cases of the rounding helpers and of the special-value rules (isa/numerics/models.py documents the
model and its evidence; tests/numerics/fit_h100.py is the exact-arithmetic fit behind it)."""
import glob
import os

import numpy as np
import pytest

from isa import formats, layouts
from isa.forms import BY_KEY
from isa.numerics.dot import fused_terms, pow2_of
from isa.numerics.rounding import f16_rne, f32_rn_add, f32_rz
from warpsim import mma_sp
from warpsim.fragments import to_registers
from warpsim.replay import replay_file

ROOT = os.path.join(os.path.dirname(__file__), "..", "traces", "h100")
TRACES = sorted(glob.glob(os.path.join(ROOT, "instruction", "*.npz")) + glob.glob(os.path.join(ROOT, "ub", "*.npz")))


@pytest.mark.parametrize("path", TRACES, ids=lambda p: os.path.relpath(p, ROOT))
def test_trace_is_bit_exact(path):
    res = replay_file(path)
    bad = [g for g in res.groups if g.error or g.exact != g.instances]
    assert not bad, res.summary()


def test_every_family_is_covered():
    fams = {os.path.basename(p).split("__")[0].replace(".npz", "") for p in TRACES}
    assert {"f16_k16_f16", "f16_k32_f32", "bf16_k32_f32", "tf32_k8_f32", "tf32_k16_f32", "f8_k64_f32",
            "i8_k32", "i4_k128"} <= fams
    assert len(TRACES) == 74


# ----------------------------------------------------------------------------- rounding helpers


def test_f32_rz_cuts_toward_zero_and_overflows_to_inf():
    assert f32_rz(1.0 + 2.0 ** -24) == 0x3F800000
    assert f32_rz(-(1.0 + 2.0 ** -23 + 2.0 ** -30)) == 0xBF800001
    assert f32_rz(2.0 ** 128 - 2.0 ** 100) == 0x7F7FFFFF  # below 2^128: the largest finite
    assert f32_rz(2.0 ** 128) == 0x7F800000  # exponent 128: Inf (the H100, not IEEE RZ)
    assert f32_rz(-3 * 2.0 ** 127) == 0xFF800000
    assert f32_rz(2.0 ** -149 * 3.75) == 0x00000003  # subnormal result kept, cut
    assert f32_rz(2.0 ** -150) == 0 and f32_rz(-0.0) == 0x80000000


def test_f16_rne_ties_to_even_and_overflow():
    assert f16_rne(1.0 + 2.0 ** -11) == 0x3C00  # tie → even
    assert f16_rne(1.0 + 3 * 2.0 ** -11) == 0x3C02
    assert f16_rne(65519.0) == 0x7BFF and f16_rne(65520.0) == 0x7C00
    assert f16_rne(2.0 ** -25) == 0 and f16_rne(3 * 2.0 ** -26) == 0x0001


def test_fadd_is_ieee_round_to_nearest_with_canonical_nan():
    assert f32_rn_add(1.0, 2.0 ** -24) == 0x3F800000 and f32_rn_add(1.0, 3 * 2.0 ** -25) == 0x3F800001
    assert f32_rn_add(np.inf, -np.inf) == 0x7FFFFFFF
    assert f32_rn_add(2.0 ** -149, 2.0 ** -149) == 0x00000002
    assert f32_rn_add(3.0e38, 3.0e38) == 0x7F800000


def test_alignment_powers():
    assert pow2_of(3.0, 2.0 ** -14) == 2.0 and pow2_of(-0.75, 2.0 ** -14) == 0.5
    assert pow2_of(2.0 ** -20, 2.0 ** -14) == 2.0 ** -14  # subnormal f16 at emin
    assert pow2_of(0.0, 2.0 ** -14) == 2.0 ** -126 and pow2_of(-0.0, 1.0) == 2.0 ** -126
    assert pow2_of(np.inf, 1.0) == np.inf and pow2_of(np.nan, 1.0) == np.inf


def test_product_exponent_is_ea_plus_eb():
    """1.5·1.5 = 2.25 has value exponent 1 but ea+eb = 0: the LSB kept is 2^-25, not 2^-24."""
    t = np.array([2.25, 2.0 ** -25])
    p = np.array([1.0, 2.0 ** -25])  # powers: 2^0·2^0 and 2^-25
    bits = fused_terms(t, p, 2, 0.0, 2.0 ** -126, 2.0 ** 25, 0, 23)
    assert bits == f32_rz(2.25)  # 2.25 + 2^-25 → RZ f32 (ulp 2^-22) = 2.25
    # with value exponent 1 the 2^-25 term would be cut away before the sum; here it survives the cut:
    t = np.array([2.25, -2.0 ** -25])
    assert fused_terms(t, p, 2, 0.0, 2.0 ** -126, 2.0 ** 25, 0, 23) == 0x400FFFFF  # 2.25 − 2^-25, cut


# ----------------------------------------------------------------------------- specials through mma_sp

F16F32 = BY_KEY["m16n8k16.f32.f16.f16.f32"]
F16F16 = BY_KEY["m16n8k16.f16.f16.f16.f16"]


def _run(form, A, B, C_bits=None, variant="sp::ordered_metadata"):
    a, e = to_registers(form, "A", A)
    b = layouts.b_layout(form).pack(formats.encode_exact(form.btype, B) if B.dtype != np.uint32 else B)
    if C_bits is None:
        C_bits = np.zeros((16, 8), dtype=np.uint32)
    c = layouts.cd_layout(form).pack(C_bits)
    return layouts.cd_layout(form, "D").unpack(mma_sp((form, variant), a, b, c, e))


def _a_two_per_chunk(v0, v1):
    A = np.zeros((16, 16))
    A[:, 0], A[:, 1] = v0, v1
    return A


def test_nan_is_canonical_and_inf_minus_inf_is_nan():
    B = np.zeros((16, 8), dtype=np.uint32)
    B[0, :] = 0x7C00  # +Inf
    B[1, :] = 0xFC00  # -Inf
    B[1, 1] = 0x3C00  # column 1: Inf + 1·1 → Inf
    B[0, 2] = 0x7E01  # column 2: NaN with payload
    d = _run(F16F32, _a_two_per_chunk(1.0, 1.0), B)
    assert (d[:, 0] == 0x7FFFFFFF).all() and (d[:, 1] == 0x7F800000).all() and (d[:, 2] == 0x7FFFFFFF).all()
    h = _run(F16F16, _a_two_per_chunk(1.0, 1.0), B)
    assert (h[:, 0] == 0x7FFF).all() and (h[:, 1] == 0x7C00).all()


def test_zero_times_inf_is_nan_only_when_stored():
    B = np.zeros((16, 8), dtype=np.uint32)
    B[0, :] = 0x7C00
    d = _run(F16F32, _a_two_per_chunk(0.0, 1.0), B)  # stored zero at column 0 meets Inf
    assert (d == 0x7FFFFFFF).all()


def test_signed_zero_rules():
    B = np.full((16, 8), 0x8000, dtype=np.uint32)  # -0
    d = _run(F16F32, _a_two_per_chunk(1.0, 1.0), B, np.full((16, 8), 0x80000000, np.uint32))
    assert (d == 0x80000000).all()  # every term −0: −0
    d = _run(F16F32, _a_two_per_chunk(1.0, 1.0), B)  # C = +0: +0
    assert (d == 0).all()
    Bv = np.ones((16, 8))
    d = _run(F16F32, _a_two_per_chunk(2.0, -2.0), Bv)  # exact cancellation: +0
    assert (d == 0).all()


def test_subnormal_inputs_and_outputs():
    B = np.full((16, 8), 2.0 ** -24)  # smallest f16 subnormal
    d = _run(F16F32, _a_two_per_chunk(2.0 ** -24, 2.0 ** -24), B)  # 2·2^-48: exact, normal f32
    assert (d == formats.f32_bits(2.0 ** -47)).all()
    C = np.full((16, 8), 0x00000003, np.uint32)  # f32 subnormal C: 3·2^-149, kept
    d = _run(F16F32, _a_two_per_chunk(0.0, 0.0), np.zeros((16, 8)), C)
    assert (d == 3).all()


def test_overflow_goes_to_inf_for_f32_and_f16_results():
    bf = BY_KEY["m16n8k16.f32.bf16.bf16.f32"]
    big = 2.0 ** 127
    d = _run(bf, _a_two_per_chunk(big, big), np.full((16, 8), 2.0))  # 2·2^128
    assert (d == 0x7F800000).all()
    h = _run(F16F16, _a_two_per_chunk(60000.0, 60000.0), np.ones((16, 8)))
    assert (h == 0x7C00).all()


def test_fp8_runs_as_two_f16_hmma_and_an_fadd():
    """e4m3 m16n8k64 on sm_90: the even 4-column chunks first (C = +0), then the odd ones, then C + D2 in RN.
    One fused sum with C would cut 1 + 3·2^-18 to 1 below 2^24 (LSB 2^-1) and give 2^24; the FADD rounds
    2^24 + 1.0000114 to nearest: 2^24 + 2."""
    f8 = BY_KEY["m16n8k64.f32.e4m3.e4m3.f32"]
    A = np.zeros((16, 64))
    A[:, 0] = 1.0  # chunk 0 (HMMA 1)
    A[:, 4] = 2.0 ** -9  # chunk 1 (HMMA 2), e4m3 subnormal
    B = np.zeros((64, 8))
    B[0, :] = 1.0
    B[4, :] = 3 * 2.0 ** -9  # product 3·2^-18 (e4m3 subnormals are normal f16 values)
    C = np.full((16, 8), formats.f32_bits(2.0 ** 24)[()], np.uint32)
    d = _run(f8, A, B, C)
    # HMMA2 = 1 + 3·2^-18 exactly (f32); FADD 2^24 + (1 + 3·2^-18) rounds to nearest: 2^24 + 2
    assert (d == formats.f32_bits(2.0 ** 24 + 2)).all()


def test_vector_row_kernel_equals_the_scalar_reference():
    """isa.numerics.dot: the 8-wide LLVM vector code (fused_row) against plain loops (fused_row_any), on
    random bits with NaN/Inf/zeros/subnormals, f32, f16 and e8m13 results, whole and partial K."""
    from isa.numerics.dot import fused_row, fused_row_any, pow2_of
    rng = np.random.default_rng(5)

    def vals(n, fmt):
        v = formats.decode(fmt, rng.integers(0, 1 << 16, n))
        v[rng.random(n) < 0.2] = 0.0
        return v

    for trial in range(300):
        kh, k = 8, 16
        av, bkn = vals(16 * kh, "bf16" if trial % 2 else "f16").reshape(16, kh), vals(k * 8, "bf16").reshape(k, 8)
        cv = formats.decode("f32", rng.integers(0, 1 << 32, 16 * 8, dtype=np.uint64)).reshape(16, 8)
        if trial % 3 == 0:  # mostly finite rows
            av, bkn, cv = (np.where(np.isfinite(x), x, 1.0) for x in (av, bkn, cv))
        emin = 2.0 ** -14
        ap, bpk, cp = (np.vectorize(lambda x: pow2_of(x, emin))(x) for x in (av, bkn, cv))
        kc = np.sort(rng.integers(0, k, (16, kh)), axis=1)
        js = (np.arange(kh), np.arange(0, kh, 2), np.arange(0, kh, 3), np.arange(1))[trial % 4]  # odd counts too
        for out_kind, frac in ((0, 23), (1, 23), (0, 13)):
            for m in range(16):
                got, want = np.empty(8, np.uint32), np.empty(8, np.uint32)
                fused_row(av, ap, kc, m, js, len(js), bkn, bpk, cv, cp, m, 2.0 ** 25, out_kind, frac, got,
                          np.empty(8), np.empty(8))
                fused_row_any(av, ap, kc, m, js, len(js), bkn, bpk, cv, cp, m, 2.0 ** 25, out_kind, frac, want,
                              np.empty(8), np.empty(8))
                assert np.array_equal(got, want), (trial, m, out_kind, got, want)
