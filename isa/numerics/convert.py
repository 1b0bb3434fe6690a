"""Bit-exact rounding between number formats, vectorised over lanes.

Everything works on raw bit patterns held in unsigned numpy arrays (uint16 for f16/bf16,
uint32 for f32 and tf32, uint64 for f64) and on exact integer arithmetic, never on a float
rounding that numpy would do for us. Rounding modes are PTX's: ``rn`` (nearest, ties to even),
``rna`` (nearest, ties away from zero), ``rz``, ``rm`` (toward -inf), ``rp`` (toward +inf).

NaN results follow what an H100 gives (``tests/ptx/machine/oracle``): ``"canonical"`` is the
all-ones positive NaN (0x7FFF, 0x7FFFFFFF); ``"payload"`` keeps the sign and the top payload
bits and sets the quiet bit, as a widening or narrowing that carries the NaN through.
"""
from __future__ import annotations

import numpy as np

FORMATS = {"f16": (5, 10), "bf16": (8, 7), "tf32": (8, 10), "f32": (8, 23), "f64": (11, 52)}
MODES = ("rn", "rna", "rz", "rm", "rp")
UINT = {16: np.uint16, 32: np.uint32, 64: np.uint64}
_U64 = np.uint64


def width(fmt: str) -> int:
    """Storage width in bits (tf32 is stored in 32 bits, its low 13 bits zero)."""
    return 32 if fmt == "tf32" else 1 + sum(FORMATS[fmt])


def _bitlen(x: np.ndarray) -> np.ndarray:
    """Number of significant bits of each uint64 (0 for 0)."""
    n = np.zeros(x.shape, np.int64)
    for s in (32, 16, 8, 4, 2, 1):
        big = x >= (_U64(1) << _U64(s))
        x = np.where(big, x >> _U64(s), x)
        n += big * s
    return n + (x > 0)


def decompose(bits: np.ndarray, fmt: str):
    """Split ``bits`` of ``fmt`` into (sign bool, mant uint64, exp2 int64, special) with
    value = (-1)^sign * mant * 2^exp2 for finite numbers; ``special`` is 0 finite, 1 inf, 2 NaN."""
    eb, mb = FORMATS[fmt]
    b = bits.astype(_U64)
    if fmt == "tf32":
        b = b >> _U64(13)
    bias = (1 << (eb - 1)) - 1
    ex = ((b >> _U64(mb)) & _U64((1 << eb) - 1)).astype(np.int64)
    fr = b & _U64((1 << mb) - 1)
    sign = ((b >> _U64(eb + mb)) & _U64(1)).astype(bool)
    mant = np.where(ex > 0, fr | _U64(1 << mb), fr)
    exp2 = np.maximum(ex, 1) - bias - mb
    top = ex == (1 << eb) - 1
    special = np.where(top, np.where(fr == 0, 1, 2), 0)
    return sign, mant, exp2, special


def round_pack(sign, mant, exp2, fmt: str, mode: str, satfinite: bool = False) -> np.ndarray:
    """Round the exact value (-1)^sign * mant * 2^exp2 into ``fmt`` bits (uint64 array)."""
    eb, mb = FORMATS[fmt]
    bias = (1 << (eb - 1)) - 1
    mant = np.asarray(mant, _U64)
    exp2 = np.asarray(exp2, np.int64)
    sign = np.asarray(sign, bool)
    e = exp2 + _bitlen(mant) - 1
    q = np.maximum(e, 1 - bias) - mb  # exponent of the result's last place
    shift = q - exp2
    kept = mant << np.clip(-shift, 0, 63).astype(_U64)
    rs = np.clip(shift, 0, 64)
    rs63 = np.minimum(rs, 63).astype(_U64)
    kept = np.where(shift > 0, np.where(rs >= 64, _U64(0), mant >> rs63), kept)
    rem = np.where(shift > 0, mant - (kept << rs63), _U64(0))
    half = np.where((rs >= 1) & (rs <= 64), _U64(1) << np.maximum(rs - 1, 0).astype(_U64), _U64(0))
    gt = (half > 0) & (rem > half)
    eq = (half > 0) & (rem == half)
    inexact = rem != 0
    if mode == "rn":
        inc = gt | (eq & ((kept & _U64(1)) == 1))
    elif mode == "rna":
        inc = gt | eq
    elif mode == "rz":
        inc = np.zeros_like(gt)
    elif mode == "rm":
        inc = sign & inexact
    elif mode == "rp":
        inc = ~sign & inexact
    else:
        raise ValueError(f"unknown rounding mode {mode!r}")
    kept = kept + inc.astype(_U64)
    be = np.minimum(q + mb + bias - 1, 1 << eb).astype(_U64)
    out = (be << _U64(mb)) + kept
    inf = _U64(((1 << eb) - 1) << mb)
    if satfinite or mode == "rz":
        away = np.zeros_like(sign)
    elif mode == "rm":
        away = sign
    elif mode == "rp":
        away = ~sign
    else:
        away = np.ones_like(sign)
    out = np.where(out >= inf, np.where(away, inf, inf - _U64(1)), out)
    out = np.where(mant == 0, _U64(0), out)
    return out | (sign.astype(_U64) << _U64(eb + mb))


def nan_bits(fmt: str, sign=None, payload=None) -> np.ndarray:
    """NaN of ``fmt``: canonical (payload None) or quiet with the given top-aligned payload."""
    eb, mb = FORMATS[fmt]
    if payload is None:
        return _U64((1 << (eb + mb)) - 1)
    quiet = _U64(((1 << eb) - 1) << mb | 1 << (mb - 1))
    return quiet | payload | (np.asarray(sign, _U64) << _U64(eb + mb))


def _payload(bits, src: str, dst: str) -> np.ndarray:
    """The NaN payload of ``src`` bits re-aligned to ``dst``'s fraction field (top bits kept)."""
    ms, md = FORMATS[src][1], FORMATS[dst][1]
    fr = bits.astype(_U64) & _U64((1 << ms) - 1)
    return fr << _U64(md - ms) if md >= ms else fr >> _U64(ms - md)


def convert_float(bits, src: str, dst: str, mode: str = "rn", *, ftz: bool = False, relu: bool = False,
                  satfinite: bool = False, nan: str = "canonical") -> np.ndarray:
    """Convert float bits ``src`` -> ``dst`` with rounding ``mode``; returns dst bits (uint16/32/64).

    ``ftz`` flushes f32 subnormal inputs and results to signed zero; ``relu`` turns negative results
    (-0 included) into +0; ``satfinite`` clamps infinities and overflow to the largest finite value.
    """
    sign, mant, exp2, special = decompose(bits, src)
    eb, mb = FORMATS[dst]
    if ftz and src == "f32":
        mant = np.where((bits.astype(_U64) & _U64(0x7F800000)) == 0, _U64(0), mant)
    out = round_pack(sign, mant, exp2, dst, mode, satfinite)
    if ftz and dst == "f32":
        out = np.where((out & _U64(0x7F800000)) == 0, out & _U64(0x80000000), out)
    inf = _U64(((1 << eb) - 1) << mb) | (sign.astype(_U64) << _U64(eb + mb))
    out = np.where(special == 1, (inf - _U64(1)) if satfinite else inf, out)
    if relu:
        out = np.where(sign, _U64(0), out)
    if nan == "canonical":
        nanv = nan_bits(dst)
    else:
        nanv = nan_bits(dst, sign, _payload(bits, src, dst))
    out = np.where(special == 2, nanv, out)
    if dst == "tf32":
        out = out << _U64(13)
        if mode == "rna":  # H100: Inf/NaN inputs lose their low 13 bits (.satfinite: one tf32 step less)
            trunc = (bits.astype(_U64) & _U64(0xFFFFE000)) - _U64(0x2000 if satfinite else 0)
            out = np.where(special > 0, trunc, out)
    return out.astype(UINT[width(dst)])


def int_to_float(values, signed: bool, dst: str, mode: str = "rn") -> np.ndarray:
    """Convert integers (any numpy int dtype) to ``dst`` bits with rounding ``mode``."""
    v = np.asarray(values)
    if signed:
        v64 = v.astype(np.int64)
        sign = v64 < 0
        mag = np.where(sign, (~v64.view(_U64)) + _U64(1), v64.view(_U64))
    else:
        mag = v.astype(_U64)
        sign = np.zeros(mag.shape, bool)
    out = round_pack(sign, mag, np.zeros(mag.shape, np.int64), dst, mode)
    return out.astype(UINT[width(dst)])


_IROUND = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}
INT_RANGE = {f"{k}{n}": ((-(1 << (n - 1)), (1 << (n - 1)) - 1) if k == "s" else (0, (1 << n) - 1))
             for k in "su" for n in (8, 16, 32, 64)}


def to_float64(bits, src: str) -> np.ndarray:
    """Exact float64 value of f16/bf16/tf32/f32/f64 bits (NaN for NaN)."""
    if src == "f64":
        return bits.astype(_U64).view(np.float64)
    if src == "f16":
        return bits.astype(np.uint16).view(np.float16).astype(np.float64)
    if src == "bf16":
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def float_to_int(bits, src: str, dst: str, mode: str = "rzi", ftz: bool = False) -> np.ndarray:
    """Float bits -> integer type ``dst`` (``s32``, ``u8`` ...), rounded by ``mode`` (rni rzi rmi rpi),
    saturated to the destination range; NaN gives 0 (0x8000000000000000 for 64-bit types, as on
    the H100). Returns int64 (s) or uint64 (u) values."""
    with np.errstate(invalid="ignore"):
        x = to_float64(bits, src)
    if ftz and src == "f32":
        x = np.where((bits.astype(np.uint32) & np.uint32(0x7F800000)) == 0, 0.0, x)
    with np.errstate(invalid="ignore"):
        r = _IROUND[mode](x)
    lo, hi = INT_RANGE[dst]
    nanm = np.isnan(r)
    r = np.where(nanm, 0.0, r)
    big = r >= float(hi + 1)
    small = r < float(lo)
    safe = np.where(big | small, 0.0, r)
    if dst[0] == "u":
        top = safe >= 2.0 ** 63
        out = np.where(top, safe - 2.0 ** 63, safe).astype(np.int64).astype(_U64) + (top.astype(_U64) << _U64(63))
        out = np.where(big, _U64(hi), np.where(small, _U64(0), out))
        return np.where(nanm, _U64(1 << 63) if dst == "u64" else _U64(0), out)
    out = np.where(big, hi, np.where(small, lo, safe.astype(np.int64))).astype(np.int64)
    return np.where(nanm, np.int64(-(1 << 63)) if dst == "s64" else np.int64(0), out)


def round_integral(bits, fmt: str, mode: str, ftz: bool = False) -> np.ndarray:
    """Round a float to an integral value in the same format (``cvt.rni.f32.f32``)."""
    dt = {"f32": np.float32, "f64": np.float64}[fmt]
    x = bits.view(dt) if bits.dtype == UINT[width(fmt)] else bits.astype(UINT[width(fmt)]).view(dt)
    if ftz and fmt == "f32":
        x = np.where((x.view(np.uint32) & np.uint32(0x7F800000)) == 0, np.copysign(dt(0), x), x)
    with np.errstate(invalid="ignore"):
        r = _IROUND[mode](x).astype(dt)
    canon = nan_bits(fmt).astype(UINT[width(fmt)])
    return np.where(np.isnan(r), canon, r.view(UINT[width(fmt)]))
