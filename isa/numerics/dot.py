"""The fused multi-term dot of :mod:`isa.numerics.models`, in numba (one output element at a time)."""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from isa.numerics.rounding import F16_NAN, F32_NAN, f16_rne, f32_rz, f32_truncate_fraction, ieee_value

OUT_F32, OUT_F16 = 0, 1


@njit(cache=True)
def fused_sum(terms, n, acc, align_bits):
    """acc + Σ terms[:n], each term aligned to the largest exponent and truncated to ``align_bits``
    fraction bits below it (toward zero, no sticky bit); exact for finite inputs. Returns float64."""
    big = abs(acc)
    for i in range(n):
        big = max(big, abs(terms[i]))
    if big == 0.0:  # every term is zero: IEEE sign rules of the plain sum
        s = acc
        for i in range(n):
            s += terms[i]
        return s
    emax = math.frexp(big)[1]  # the largest exponent is the exponent of the largest magnitude
    inv = math.ldexp(1.0, align_bits + 1 - emax)  # 1 / weight of the last kept fraction bit
    s = math.trunc(acc * inv)
    for i in range(n):
        s += math.trunc(terms[i] * inv)
    return s / inv


@njit(cache=True)
def finish(s, out_kind, fp8_out_bits):
    """Round an exact sum to the output format's bit pattern (uint32; f16 in the low half)."""
    if math.isnan(s):
        return np.uint32(F32_NAN) if out_kind == OUT_F32 else np.uint32(F16_NAN)
    if math.isinf(s):
        if out_kind == OUT_F32:
            return np.uint32(0xFF800000) if s < 0 else np.uint32(0x7F800000)
        return np.uint32(0xFC00) if s < 0 else np.uint32(0x7C00)
    if out_kind == OUT_F32:
        b = f32_rz(s)
        if fp8_out_bits > 0:
            b = f32_truncate_fraction(b, fp8_out_bits)
        return b
    return np.uint32(f16_rne(s))


@njit(cache=True)
def special_sum(terms, n, acc):
    """The plain float64 sum: NaN/Inf if any product or the accumulator is NaN/Inf or 0·Inf, else finite."""
    s = acc
    for i in range(n):
        s += terms[i]
    return s


@njit(cache=True, inline="always")
def fused_element(terms, n, acc, align_bits, out_kind, fp8_out_bits):
    """One fused group: specials first (the plain float64 sum carries NaN/Inf and 0·Inf), then the model."""
    naive = special_sum(terms, n, acc)
    if not math.isfinite(naive):
        return finish(naive, out_kind, fp8_out_bits)
    return finish(fused_sum(terms, n, acc, align_bits), out_kind, fp8_out_bits)


@njit(cache=True)
def dot_element(avals, kcols, brow_vals, nstored, acc, align_bits, group, out_kind, fp8_out_bits, terms):
    """One D element: C + Σ a_j · B[k_j] over the stored products, group by group (dense K order)."""
    for j in range(nstored):
        terms[j] = avals[j] * brow_vals[kcols[j]]
    naive = special_sum(terms, nstored, acc)
    if not math.isfinite(naive):
        return finish(naive, out_kind, fp8_out_bits)
    if group <= 0:
        return finish(fused_sum(terms, nstored, acc, align_bits), out_kind, fp8_out_bits)
    # sequential groups over dense K: gather each group's terms, fuse with the rounded accumulator
    kmax = 0
    for j in range(nstored):
        kmax = max(kmax, kcols[j])
    sub = np.empty(nstored)
    lo = 0
    while lo <= kmax:
        cnt = 0
        for j in range(nstored):
            if lo <= kcols[j] < lo + group:
                sub[cnt] = terms[j]
                cnt += 1
        bits = finish(fused_sum(sub, cnt, acc, align_bits), out_kind, 0)
        acc = decode_out(bits, out_kind)
        lo += group
    return finish(acc, out_kind, fp8_out_bits)


@njit(cache=True)
def decode_out(bits, out_kind):
    if out_kind == OUT_F32:
        return ieee_value(np.int64(bits), 8, 23)
    return ieee_value(np.int64(bits), 5, 10)
