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


@njit(cache=True)
def fused_row_f32(av, kc, bval, crow, align_bits, out, big, inv, acc, iacc):
    """One row of D for every column at once — the hot path (finite inputs, f32 out, whole K fused).

    The same model as :func:`fused_sum` + :func:`finish`, written over columns so it vectorises:
    the largest exponent comes from the bits of the largest magnitude, the alignment is a
    multiplication by a power of two, and f32 round-toward-zero is a shift of the float64 bits.
    """
    ncol, kh = bval.shape[0], av.shape[0]
    for n in range(ncol):
        big[n] = abs(crow[n])
    for j in range(kh):
        a, k = av[j], kc[j]
        for n in range(ncol):
            big[n] = max(big[n], abs(a * bval[n, k]))
    bb, ib = big.view(np.int64), inv.view(np.int64)
    for n in range(ncol):
        ib[n] = (2046 + align_bits - ((bb[n] >> 52) & 0x7FF)) << 52  # 2^(align - E_max)
    for n in range(ncol):  # int64 conversion truncates toward zero: |term · inv| < 2^(align+2)
        iacc[n] = np.int64(crow[n] * inv[n])
    for j in range(kh):
        a, k = av[j], kc[j]
        for n in range(ncol):
            iacc[n] += np.int64(a * bval[n, k] * inv[n])
    for n in range(ncol):
        acc[n] = iacc[n] / inv[n]
    rb = acc.view(np.int64)
    for n in range(ncol):
        out[n] = f32_rz_bits(rb[n])
    for n in range(ncol):
        if big[n] == 0.0:  # all terms zero: the plain sum keeps IEEE's sign of zero
            s = crow[n]
            for j in range(kh):
                s += av[j] * bval[n, kc[j]]
            out[n] = f32_rz(s)


@njit(cache=True, inline="always")
def f32_rz_bits(b):
    """The bits ``b`` of a finite float64 → f32 bits toward zero, by shifting (zero keeps its sign)."""
    sign = np.uint32((b >> 63) & 1) << np.uint32(31)
    e = ((b >> 52) & 0x7FF) - 1023
    mant = b & 0xFFFFFFFFFFFFF
    if e > 127:
        return sign | np.uint32(0x7F7FFFFF)
    if e >= -126:
        return sign | np.uint32(((e + 127) << 23) | (mant >> 29))
    shift = -97 - e
    if shift >= 53 or e == -1023:
        return sign
    return sign | np.uint32((mant | (1 << 52)) >> shift)
