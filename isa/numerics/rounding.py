"""Rounding an exact (float64) value to the tensor core's output formats, as bit patterns (numba)."""
from __future__ import annotations

import math

import numpy as np
from numba import njit

F32_NAN = np.uint32(0x7FFFFFFF)  # what the H100 writes for every NaN result (ptx-mma-sp.md §7)
F16_NAN = np.uint16(0x7FFF)


@njit(cache=True)
def f32_rz(x):
    """Finite float64 → f32 bits, rounding toward zero (overflow saturates to the largest finite)."""
    sign = np.uint32(0x80000000) if (x < 0 or (x == 0 and math.copysign(1.0, x) < 0)) else np.uint32(0)
    a = abs(x)
    if a == 0.0:
        return sign
    m, e = math.frexp(a)  # a = m * 2**e, 0.5 <= m < 1
    exp = e - 1
    if exp > 127:
        return sign | np.uint32(0x7F7FFFFF)
    if exp >= -126:
        mant = np.uint32(math.floor(m * 16777216.0))  # 24 bits
        return sign | np.uint32((exp + 127) << 23) | (mant & np.uint32(0x7FFFFF))
    return sign | np.uint32(math.floor(a * 2.0 ** 149))


@njit(cache=True)
def f32_truncate_fraction(bits, fraction_bits):
    """Drop the low fraction bits of an f32 pattern (H100 fp8 results keep 13: "e8m13")."""
    drop = 23 - fraction_bits
    return bits & ~np.uint32((1 << drop) - 1)


@njit(cache=True)
def f16_rne(x):
    """Finite float64 → f16 bits, round to nearest even (overflow → ±Inf)."""
    sign = np.uint16(0x8000) if (x < 0 or (x == 0 and math.copysign(1.0, x) < 0)) else np.uint16(0)
    a = abs(x)
    if a == 0.0:
        return sign
    m, e = math.frexp(a)
    exp = e - 1
    if exp >= -14:
        r = np.rint(a * 2.0 ** (10 - exp))
        if r >= 2048.0:
            r /= 2.0
            exp += 1
        if exp > 15:
            return sign | np.uint16(0x7C00)
        return sign | np.uint16((exp + 15) << 10) | (np.uint16(r) & np.uint16(0x3FF))
    r = np.rint(a * 2.0 ** 24)  # subnormal (may round up into the smallest normal: same bits)
    return sign | np.uint16(r)


@njit(cache=True)
def ieee_value(bits, ebits, mbits):
    """An IEEE-style pattern (sign, ebits, mbits; all-ones exponent = Inf/NaN) → float64."""
    bias = (1 << (ebits - 1)) - 1
    man = bits & ((1 << mbits) - 1)
    exp = (bits >> mbits) & ((1 << ebits) - 1)
    neg = (bits >> (ebits + mbits)) & 1
    if exp == (1 << ebits) - 1:
        v = math.inf if man == 0 else math.nan
    elif exp == 0:
        v = math.ldexp(float(man), 1 - bias - mbits)
    else:
        v = math.ldexp(float(man | (1 << mbits)), exp - bias - mbits)
    return -v if neg else v
