"""isa.numerics.convert / fparith against independent numpy references (exhaustive for f16)."""
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from isa.numerics.convert import convert_float, float_to_int, int_to_float, round_integral
from isa.numerics.fparith import add_f32, div_f32, fma_f32, mul_f32

ALL_F16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
F16_NAN = np.isnan(ALL_F16.view(np.float16))


def _f16_candidates():
    """Every f16 value, and the f32 values half an f16 step away from it, one f32 ulp either side."""
    f = ALL_F16[~F16_NAN].view(np.float16).astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):  # the step past 65504 is infinity, and so is its mid
        nxt = np.nextafter(f.astype(np.float16), np.float16(np.inf)).astype(np.float32)
        mid = ((f.astype(np.float64) + nxt.astype(np.float64)) / 2).astype(np.float32)
    mid = mid[np.isfinite(mid)]
    both = np.concatenate([f, mid, np.nextafter(mid, np.float32(0)), np.nextafter(mid, np.float32(np.inf))])
    return both.view(np.uint32)


def test_f16_to_f32_exhaustive():
    got = convert_float(ALL_F16, "f16", "f32")
    ref = ALL_F16.view(np.float16).astype(np.float32).view(np.uint32)
    assert np.array_equal(got[~F16_NAN], ref[~F16_NAN])
    assert (got[F16_NAN] == 0x7FFFFFFF).all()  # the H100 gives the canonical NaN


def test_f32_to_f16_rn_exhaustive_neighbourhood():
    x = _f16_candidates()
    got = convert_float(x, "f32", "f16", "rn")
    assert np.array_equal(got, x.view(np.float32).astype(np.float16).view(np.uint16))


@pytest.mark.parametrize("mode", ["rz", "rm", "rp"])
def test_f32_to_f16_directed_exhaustive_neighbourhood(mode):
    x = _f16_candidates()
    v = x.view(np.float32).astype(np.float64)
    got = convert_float(x, "f32", "f16", mode).view(np.float16).astype(np.float64)
    rn = x.view(np.float32).astype(np.float16)
    with np.errstate(over="ignore"):  # the f16 step past +-65504 is infinity (clamped below for rz/rm/rp)
        lo = np.where(rn.astype(np.float64) > v, np.nextafter(rn, np.float16(-np.inf)), rn).astype(np.float64)
        hi = np.where(rn.astype(np.float64) < v, np.nextafter(rn, np.float16(np.inf)), rn).astype(np.float64)
    ref = {"rm": lo, "rp": hi, "rz": np.where(v >= 0, lo, hi)}[mode]
    # finite f16 max is 65504: rz/rm/rp keep it instead of overflowing to infinity
    ref = np.where(np.isinf(ref) & ~np.isinf(v) & ((mode == "rz") | ((mode == "rm") & (v > 0)) | ((mode == "rp") & (v < 0))),
                   np.sign(v) * 65504.0, ref)
    both_zero = (got == 0) & (ref == 0)
    assert np.array_equal(got[~both_zero], ref[~both_zero])
    assert np.array_equal(np.signbit(got), np.signbit(v) | (np.signbit(ref) & (ref != 0)))


def test_f32_to_bf16_rn_random():
    x = np.random.default_rng(1).integers(0, 1 << 32, 1 << 20, dtype=np.uint64).astype(np.uint32)
    finite = (x & 0x7F800000) != 0x7F800000
    ref = ((x.astype(np.uint64) + 0x7FFF + ((x >> 16) & 1)) >> 16).astype(np.uint16)
    got = convert_float(x, "f32", "bf16", "rn")
    assert np.array_equal(got[finite], ref[finite])
    assert (got[~finite & ((x & 0x7FFFFF) != 0)] == 0x7FFF).all()


def test_tf32_rna_ties_away():
    x = np.array([0x3F801000, 0x3F803000, 0xBF801000, 0x3F800FFF, 0x7F7FF000], np.uint32)
    got = convert_float(x, "f32", "tf32", "rna")
    assert list(got) == [0x3F802000, 0x3F804000, 0xBF802000, 0x3F800000, 0x7F800000]
    assert list(convert_float(x, "f32", "tf32", "rn")) == [0x3F800000, 0x3F804000, 0xBF800000, 0x3F800000, 0x7F800000]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-(1 << 63), (1 << 63) - 1), min_size=1, max_size=32))
def test_int_to_float_rn_matches_numpy(vals):
    v = np.array(vals, np.int64)
    assert np.array_equal(int_to_float(v, True, "f64", "rn").view(np.float64), v.astype(np.float64))
    assert np.array_equal(int_to_float(v, True, "f32", "rn").view(np.float32), v.astype(np.float32))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=True, width=32), min_size=1, max_size=32))
def test_float_to_int_saturates(vals):
    x = np.array(vals, np.float32)
    got = float_to_int(x.view(np.uint32), "f32", "s32", "rzi")
    with np.errstate(invalid="ignore"):
        ref = np.clip(np.nan_to_num(np.trunc(x.astype(np.float64)), nan=0.0), -2.0 ** 31, 2.0 ** 31 - 1)
    assert np.array_equal(got, ref.astype(np.int64))
    got_u8 = float_to_int(x.view(np.uint32), "f32", "u8", "rni")
    with np.errstate(invalid="ignore"):
        ref_u8 = np.clip(np.nan_to_num(np.rint(x.astype(np.float64)), nan=0.0), 0, 255)
    assert np.array_equal(got_u8, ref_u8.astype(np.uint64))


def test_round_integral_and_nan():
    x = np.array([1.5, 2.5, -1.5, -0.4, np.nan], np.float32).view(np.uint32)
    assert list(round_integral(x, "f32", "rni").view(np.float32)[:4]) == [2.0, 2.0, -2.0, -0.0]
    assert round_integral(x, "f32", "rmi")[4] == 0x7FFFFFFF


def _f32_rn_exact(x: Fraction) -> np.float32:
    """A rational rounded once to the nearest f32 (ties to even), overflow to ±Inf."""
    if x == 0:
        return np.float32(0.0)
    e = max(math.floor(math.log2(abs(x))), -126)
    while abs(x) >= Fraction(2) ** (e + 1):
        e += 1
    while e > -126 and abs(x) < Fraction(2) ** e:
        e -= 1
    q = round(x / Fraction(2) ** (e - 23))  # Fraction.__round__ rounds half to even
    with np.errstate(over="ignore"):
        return np.float32(float(q) * 2.0 ** (e - 23)) if e < 128 else np.float32(math.copysign(np.inf, x))


def _fma_reference(a, b, c):
    """a·b + c rounded once (float64 a·b + c would round twice: 1.5 × -7081783669555200 + 1)."""
    out = np.empty(a.shape, np.float32)
    with np.errstate(all="ignore"):
        plain = (a.astype(np.float64) * b + c).astype(np.float32)  # NaN/Inf cases
    for i, (x, y, z) in enumerate(zip(a, b, c)):
        finite = all(math.isfinite(float(v)) for v in (x, y, z))
        out[i] = _f32_rn_exact(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))) if finite else plain[i]
        if finite and out[i] == 0 and plain[i] == 0:
            out[i] = plain[i]  # exact zero: keep IEEE's sign rules for the sum
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.floats(width=32), st.floats(width=32), st.floats(width=32)), min_size=1, max_size=32))
@example([(1.5, -7081783669555200.0, 1.0)])  # a·b + c rounds twice in float64
def test_f32_arith_rn_matches_numpy(triples):
    a, b, c = (np.array(t, np.float32) for t in zip(*triples))
    with np.errstate(all="ignore"):
        for got, ref in ((add_f32(a.view(np.uint32), b.view(np.uint32)), a + b),
                         (mul_f32(a.view(np.uint32), b.view(np.uint32)), a * b),
                         (div_f32(a.view(np.uint32), b.view(np.uint32)), a / b),
                         (fma_f32(a.view(np.uint32), b.view(np.uint32), c.view(np.uint32)),
                          _fma_reference(a, b, c))):
            ok = np.isnan(ref)
            assert np.array_equal(got[~ok], ref.view(np.uint32)[~ok])
            assert (got[ok] == 0x7FFFFFFF).all()


def test_f32_add_directed_rounding_small():
    one, tiny = np.float32(1.0), np.float32(2.0 ** -40)
    a, b = np.array([one, -one]).view(np.uint32), np.array([tiny, -tiny], np.float32).view(np.uint32)
    assert list(add_f32(a, b, "rz").view(np.float32)) == [1.0, -1.0]
    assert list(add_f32(a, b, "rp").view(np.float32)) == [np.nextafter(one, 2), -1.0]
    assert list(add_f32(a, b, "rm").view(np.float32)) == [1.0, np.nextafter(-one, -2)]
    z = np.array([one], np.float32).view(np.uint32)
    assert add_f32(z, z ^ np.uint32(0x80000000), "rm")[0] == 0x80000000  # x + (-x) = -0 under rm
