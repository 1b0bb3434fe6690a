"""Element formats of the tensor-core operands (PTX ISA §5.2.3 "Alternate floating point data formats").

Each format is one row: sign/exponent/mantissa widths, bias, and how it spells Inf and NaN.
``decode(fmt, bits)`` turns raw bit patterns (any integer array) into float64, exactly (every
value of every format here is a float64). Integer formats decode to their integer value.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Format:
    name: str
    bits: int  # width in the register (container width for f8f6f4 sub-byte types is separate)
    ebits: int = 0
    mbits: int = 0
    bias: int = 0
    signed: bool = True
    inf: bool = True  # IEEE-style: all-ones exponent with zero mantissa is ±Inf
    nan: str = "ieee"  # "ieee" | "e4m3" (S.1111.111 only) | "none" | "ue8m0" (0xFF) | "ue4m3" (0x7F)
    integer: bool = False
    low_ignored: int = 0  # tf32: the low 13 bits of the 32-bit pattern are ignored (truncated) [HW]

    @property
    def is_float(self) -> bool:
        return not self.integer


FORMATS = {f.name: f for f in (
    Format("f16", 16, 5, 10, 15),
    Format("bf16", 16, 8, 7, 127),
    Format("f32", 32, 8, 23, 127),
    Format("tf32", 32, 8, 23, 127, low_ignored=13),
    Format("f64", 64, 11, 52, 1023),
    Format("e4m3", 8, 4, 3, 7, inf=False, nan="e4m3"),
    Format("e5m2", 8, 5, 2, 15),
    Format("e3m2", 6, 3, 2, 3, inf=False, nan="none"),
    Format("e2m3", 6, 2, 3, 1, inf=False, nan="none"),
    Format("e2m1", 4, 2, 1, 1, inf=False, nan="none"),
    Format("ue8m0", 8, 8, 0, 127, signed=False, inf=False, nan="ue8m0"),
    Format("ue4m3", 8, 4, 3, 7, signed=False, inf=False, nan="ue4m3"),
    Format("s8", 8, integer=True),
    Format("u8", 8, signed=False, integer=True),
    Format("s4", 4, integer=True),
    Format("u4", 4, signed=False, integer=True),
    Format("s32", 32, integer=True),
)}


def get(name: str) -> Format:
    return FORMATS[name]


def decode(fmt: Format | str, bits) -> np.ndarray:
    """Raw patterns (low ``fmt.bits`` bits used) → float64 values (ints for integer formats)."""
    f = get(fmt) if isinstance(fmt, str) else fmt
    b = np.asarray(bits).astype(np.int64) & ((1 << f.bits) - 1)
    if f.integer:
        if f.signed:
            b = np.where(b >= (1 << (f.bits - 1)), b - (1 << f.bits), b)
        return b.astype(np.float64)
    if f.name == "f64":
        return b.astype(np.uint64).view(np.float64)
    if f.low_ignored:
        b = b & ~((1 << f.low_ignored) - 1)
    return _decode_minifloat(f, b)


def _decode_minifloat(f: Format, b: np.ndarray) -> np.ndarray:
    mmask, emask = (1 << f.mbits) - 1, (1 << f.ebits) - 1
    sign = ((b >> (f.bits - 1)) & 1) if f.signed else np.zeros_like(b)
    exp = (b >> f.mbits) & emask
    man = b & mmask
    normal = np.ldexp(1.0 + man / float(1 << f.mbits), (exp - f.bias).astype(np.int64))
    sub = np.ldexp(man / float(1 << f.mbits), 1 - f.bias)
    val = np.where(exp == 0, sub, normal) if f.mbits else np.ldexp(1.0, (exp - f.bias).astype(np.int64))
    if f.inf:
        val = np.where((exp == emask) & (man == 0), np.inf, val)
    if f.nan == "ieee":
        val = np.where((exp == emask) & (man != 0), np.nan, val)
    elif f.nan == "e4m3":
        val = np.where((exp == emask) & (man == mmask), np.nan, val)
    elif f.nan == "ue8m0":
        val = np.where(b == 0xFF, np.nan, val)
    elif f.nan == "ue4m3":
        val = np.where(b == 0x7F, np.nan, val)
    return np.where(sign == 1, -val, val)


def f32_bits(x) -> np.ndarray:
    """float32 values → uint32 bit patterns."""
    return np.asarray(x, dtype=np.float32).view(np.uint32)


def f16_bits(x) -> np.ndarray:
    """float16 values → uint16 bit patterns."""
    return np.asarray(x, dtype=np.float16).view(np.uint16)


def encode_exact(fmt: Format | str, values) -> np.ndarray:
    """Values that are exactly representable in ``fmt`` → bit patterns (raises if any is not).

    Used to build test inputs and fragments from small numbers; not a rounding conversion.
    """
    f = get(fmt) if isinstance(fmt, str) else fmt
    v = np.asarray(values, dtype=np.float64)
    if f.integer:
        lo, hi = (-(1 << (f.bits - 1)), (1 << (f.bits - 1)) - 1) if f.signed else (0, (1 << f.bits) - 1)
        if (v != np.round(v)).any() or (v < lo).any() or (v > hi).any():
            raise ValueError(f"a value is not an integer in [{lo}, {hi}] ({f.name})")
        return v.astype(np.int64) & ((1 << f.bits) - 1)
    table = _value_table(f.name)
    out = np.empty(v.shape, dtype=np.int64)
    flat, res = v.reshape(-1), out.reshape(-1)
    for i, x in enumerate(flat):
        key = float(x)
        if key not in table:
            raise ValueError(f"{x!r} is not exactly representable in {f.name}")
        res[i] = table[key]
    return out


_TABLES: dict = {}


def _value_table(name: str) -> dict:
    """value → a canonical bit pattern (+0 for zero), for formats up to 16 bits wide and f32/tf32 on demand."""
    if name in _TABLES:
        return _TABLES[name]
    f = get(name)
    if f.bits <= 16:
        pats = np.arange(1 << f.bits, dtype=np.int64)
        vals = decode(f, pats)
        table = {}
        for p, x in zip(pats[::-1], vals[::-1]):  # lowest pattern wins (e.g. +0 over -0)
            if not np.isnan(x):
                table[float(x)] = int(p)
        _TABLES[name] = table
        return table
    return _F32Table(f)


class _F32Table(dict):
    """Exact f32/tf32 encode without a 2^32 table."""

    def __init__(self, f: Format):
        super().__init__()
        self.f = f

    def __contains__(self, x) -> bool:
        y = np.float32(x)
        if float(y) != x:
            return False
        return not (self.f.low_ignored and int(f32_bits(y)) & ((1 << self.f.low_ignored) - 1))

    def __getitem__(self, x) -> int:
        return int(f32_bits(np.float32(x)))
