"""Rounding an exact (float64) value to the tensor core's output formats, as bit patterns (numba).

The H100 rules these helpers implement (evidence in :mod:`isa.numerics.models`):

* f32 result: the fraction is cut toward zero (RZ), but a result whose exponent passes 127 becomes
  ±Inf — not the largest finite value IEEE RZ would give (traces/h100 ``overflow`` classes).
  Subnormal results are kept (gradual underflow), cut toward zero.
* f16 result: round to nearest even; overflow gives ±Inf.
* every NaN result is the canonical positive NaN 0x7FFFFFFF / 0x7FFF.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

F32_NAN = np.uint32(0x7FFFFFFF)  # what the H100 writes for every NaN result (ptx-mma-sp.md §7)
F16_NAN = np.uint16(0x7FFF)
F32_INF = np.uint32(0x7F800000)
F16_INF = np.uint16(0x7C00)
EXP_MASK = np.int64(0x7FF0000000000000)
ABS_MASK = np.int64(0x7FFFFFFFFFFFFFFF)


def _bitcast(src, dst):
    @intrinsic
    def cast(typingctx, x):
        if x != src:
            return None

        def codegen(context, builder, signature, args):
            return builder.bitcast(args[0], context.get_value_type(dst))

        return dst(x), codegen

    return cast


as_int64 = _bitcast(types.float64, types.int64)  # the IEEE bits of a float64, no allocation
as_float64 = _bitcast(types.int64, types.float64)
f32_as_uint32 = _bitcast(types.float32, types.uint32)
uint32_as_f32 = _bitcast(types.uint32, types.float32)


@njit(cache=True, inline="always", error_model="numpy")
def f32_rz_bits(b):
    """The bits ``b`` (int64) of a finite float64 → f32 bits: fraction cut toward zero, subnormals kept,
    a result with exponent > 127 → ±Inf (H100), zero keeps its sign."""
    sign = np.uint32((b >> 63) & 1) << np.uint32(31)
    e = ((b >> 52) & 0x7FF) - 1023
    mant = b & 0xFFFFFFFFFFFFF
    if e > 127:
        return sign | F32_INF
    if e >= -126:
        return sign | np.uint32(((e + 127) << 23) | (mant >> 29))
    shift = -97 - e
    if shift >= 53 or e == -1023:
        return sign
    return sign | np.uint32((mant | (1 << 52)) >> shift)


@njit(cache=True, error_model="numpy")
def f32_rz(x):
    """Finite float64 → f32 bits, H100 rule: toward zero, exponent overflow → ±Inf."""
    return f32_rz_bits(as_int64(x))


@njit(cache=True, error_model="numpy")
def f32_truncate_fraction(bits, fraction_bits):
    """Drop the low fraction bits of an f32 pattern (literature fp8 results keep 13: "e8m13")."""
    drop = 23 - fraction_bits
    if (bits & np.uint32(0x7F800000)) == np.uint32(0x7F800000):
        return bits
    return bits & ~np.uint32((1 << drop) - 1)


@njit(cache=True, error_model="numpy")
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
            return sign | F16_INF
        return sign | np.uint16((exp + 15) << 10) | (np.uint16(r) & np.uint16(0x3FF))
    r = np.rint(a * 2.0 ** 24)  # subnormal (may round up into the smallest normal: same bits)
    return sign | np.uint16(r)


@njit(cache=True, inline="always", error_model="numpy")
def f32_rn_add(x, y):
    """IEEE f32 addition, round to nearest even, subnormals kept (the SASS ``FADD``); canonical NaN.
    ``x`` and ``y`` are f32 values held in float64. Returns f32 bits."""
    r = np.float32(x) + np.float32(y)
    if math.isnan(r):
        return F32_NAN
    return f32_as_uint32(r)


@njit(cache=True, error_model="numpy")
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
