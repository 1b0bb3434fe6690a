"""The fused multi-term dot of :mod:`isa.numerics.models`, in numba.

Every operand travels with its *alignment exponent* as a power of two (``pow2_of``): 2^e with e the
exponent field's value (subnormals at the format's minimum normal exponent, zero at 2^-126, Inf/NaN
at +Inf). A product's exponent is ``ea + eb`` — the product of the two powers — not the exponent of
the product's value (the significand product lies in [1, 4)). With ``E`` the largest exponent among
the products and C, each term is cut toward zero to a multiple of 2^(E - align_bits) and the cut terms
are added exactly; one rounding gives the result (:mod:`isa.numerics.rounding`).

Exactness in float64: a term is below 2^(E+2), so ``term · 2^(align_bits - E)`` is below 2^27 and is an
exact float64; ``np.trunc`` of it is the cut; the sum of ≤ 65 such integers is exact. Products of two
≤ 16-bit formats (or tf32) are exact in float64, and every power of two used stays a normal float64.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from isa.numerics.rounding import (ABS_MASK, EXP_MASK, F16_INF, F16_NAN, F32_INF, F32_NAN, as_float64, as_int64,
                                   f16_rne, f32_rz_bits, f32_truncate_fraction, ieee_value)

OUT_F32, OUT_F16 = 0, 1
ZERO_POW = 2.0 ** -126  # alignment exponent of a zero operand (MMA-Sim; the H100 traces cannot tell)


@njit(cache=True, inline="always")
def pow2_of(v, emin_pow):
    """2^e of an operand for the alignment: e = its exponent field (subnormals at ``emin_pow`` = 2^emin),
    zero → 2^-126, Inf/NaN → +Inf."""
    b = as_int64(v)
    if (b & ABS_MASK) == 0:
        return ZERO_POW
    return max(as_float64(b & EXP_MASK), emin_pow)


@njit(cache=True)
def finish(s, out_kind, out_frac):
    """An exact finite value → output bits (uint32; f16 in the low half)."""
    if out_kind == OUT_F32:
        b = f32_rz_bits(as_int64(s))
        if out_frac < 23:
            b = f32_truncate_fraction(b, out_frac)
        return b
    return np.uint32(f16_rne(s))


@njit(cache=True)
def special(naive, out_kind):
    """Bits for a non-finite plain sum: canonical NaN, or ±Inf."""
    if math.isnan(naive):
        return np.uint32(F32_NAN) if out_kind == OUT_F32 else np.uint32(F16_NAN)
    if out_kind == OUT_F32:
        return np.uint32(F32_INF) | (np.uint32(0x80000000) if naive < 0 else np.uint32(0))
    return np.uint32(F16_INF) | (np.uint32(0x8000) if naive < 0 else np.uint32(0))


@njit(cache=True)
def zero_result(all_zero_sum, all_zero, out_kind):
    """The bits of an exactly-zero result: IEEE signed-zero sum when every term is zero, else +0."""
    if not all_zero:
        return np.uint32(0)
    neg = math.copysign(1.0, all_zero_sum) < 0
    if out_kind == OUT_F32:
        return np.uint32(0x80000000) if neg else np.uint32(0)
    return np.uint32(0x8000) if neg else np.uint32(0)


@njit(cache=True)
def fused_terms(terms, tpow, nt, c, cpow, scale, out_kind, out_frac):
    """One element: ``c + Σ terms[:nt]`` (exact products, alignment powers ``tpow``) → output bits.

    ``scale`` = 2^align_bits. Non-finite operands make the plain float64 sum non-finite: it then decides
    NaN (0·Inf, Inf−Inf, NaN) or ±Inf."""
    emx = cpow
    naive = c
    for t in range(nt):
        emx = max(emx, tpow[t])
        naive += terms[t]
    if not math.isfinite(naive):
        return special(naive, out_kind)
    inv = scale / emx
    s = np.trunc(c * inv)
    for t in range(nt):
        s += np.trunc(terms[t] * inv)
    if s == 0.0:
        allz = c == 0.0
        for t in range(nt):
            allz = allz and terms[t] == 0.0
        return zero_result(naive, allz, out_kind)
    return finish(s / inv, out_kind, out_frac)


@njit(cache=True)
def fused_row(av, ap, kc, js, nj, bkn, bpk, crow, cpow, scale, out_kind, out_frac, out, emx, inv, s):
    """One row of D for every column: ``out[n] = C[n] + Σ_{j ∈ js[:nj]} a_j · B[kc_j, n]`` (bits).

    ``av``/``ap``: the row's stored A values and their powers; ``kc``: dense column of each; ``bkn``/``bpk``:
    B as (K, N) values and powers; ``crow``/``cpow``: C. The hot loops run over contiguous columns and
    vectorise. A column whose largest power is +Inf met a non-finite operand and is redone exactly."""
    ncol = bkn.shape[1]
    for n in range(ncol):
        emx[n] = cpow[n]
    for t in range(nj):
        j = js[t]
        pa, k = ap[j], kc[j]
        for n in range(ncol):
            emx[n] = max(emx[n], pa * bpk[k, n])
    for n in range(ncol):
        inv[n] = scale / emx[n]
    for n in range(ncol):
        s[n] = np.trunc(crow[n] * inv[n])
    for t in range(nj):
        j = js[t]
        a, k = av[j], kc[j]
        for n in range(ncol):
            s[n] += np.trunc(a * bkn[k, n] * inv[n])
    for n in range(ncol):
        if emx[n] == math.inf or s[n] == 0.0:
            naive, allz = crow[n], crow[n] == 0.0
            for t in range(nj):
                p = av[js[t]] * bkn[kc[js[t]], n]
                naive += p
                allz = allz and p == 0.0
            if not math.isfinite(naive):
                out[n] = special(naive, out_kind)
                continue
            if s[n] == 0.0:
                out[n] = zero_result(naive, allz, out_kind)
                continue
        out[n] = finish(s[n] / inv[n], out_kind, out_frac)


@njit(cache=True)
def decode_out(bits, out_kind):
    if out_kind == OUT_F32:
        return ieee_value(np.int64(bits), 8, 23)
    return ieee_value(np.int64(bits), 5, 10)


@njit(cache=True)
def f32_pow(bits):
    """Alignment power of an f32 result pattern used as the next accumulator."""
    e = (np.int64(bits) >> 23) & 0xFF
    if (bits & np.uint32(0x7FFFFFFF)) == 0:
        return ZERO_POW
    if e == 0xFF:
        return math.inf
    return as_float64(np.int64(max(e, 1) - 127 + 1023) << 52)


@njit(cache=True)
def out_pow(bits, out_kind):
    if out_kind == OUT_F32:
        return f32_pow(bits)
    e = (np.int64(bits) >> 10) & 0x1F
    if (bits & np.uint32(0x7FFF)) == 0:
        return ZERO_POW
    if e == 0x1F:
        return math.inf
    return as_float64(np.int64(max(e, 1) - 15 + 1023) << 52)
