"""IEEE add, multiply, fma and divide of f32/f64 with PTX rounding modes, bit-exact, over lanes.

f32: operands are widened to f64, where a product is exact and a sum's rounding error is
recovered exactly (TwoSum); the exact value is then rounded once to f32 in the wanted mode.
f64: round-to-nearest add/mul/div are numpy's own IEEE operations; fma and the directed modes
use exact Python integers per lane, then the same vectorised rounding.
NaN results follow the H100 (``tests/ptx/machine/oracle``): f32 gives the canonical 0x7FFFFFFF,
f64 passes the first NaN operand's payload through (quieted) and makes 0xFFF8000000000000 itself.
"""
from __future__ import annotations

import numpy as np

from isa.numerics.convert import decompose, round_pack

_U64 = np.uint64
F32_NAN = np.uint32(0x7FFFFFFF)
F64_QNAN = _U64(0xFFF8000000000000)


def f32_in(bits, ftz: bool) -> np.ndarray:
    """f32 bits -> exact float64 values (subnormals flushed to signed zero with ``ftz``)."""
    b = np.asarray(bits).astype(np.uint32)
    if ftz:
        b = np.where((b & np.uint32(0x7F800000)) == 0, b & np.uint32(0x80000000), b)
    with np.errstate(invalid="ignore"):
        return b.view(np.float32).astype(np.float64)


def _two_sum(a, b):
    with np.errstate(invalid="ignore", over="ignore"):
        s = a + b
        bb = s - a
        err = (a - (s - bb)) + (b - bb)
    return s, np.where(np.isfinite(err), err, 0.0)


def _zero_sign_rm(s, err, a, b, mode):
    """Under rm an exact zero sum of addends that are not both +0 is -0."""
    if mode != "rm":
        return s
    both_pos_zero = (a == 0) & (b == 0) & ~np.signbit(a) & ~np.signbit(b)
    return np.where((s == 0) & (err == 0) & ~both_pos_zero, -0.0, s)


def f32_round(s, err, mode: str, ftz: bool = False, sat: bool = False) -> np.ndarray:
    """Round the exact value ``s + err`` (float64 pair, |err| <= ulp(s)/2) to f32 bits (uint32)."""
    sign, mant, exp2, special = decompose(s.view(_U64), "f64")
    adj = (err != 0) & (mant != 0)
    same = np.signbit(err) == sign
    m4 = mant << _U64(2)
    m4 = np.where(adj, np.where(same, m4 + _U64(1), m4 - _U64(1)), m4)
    out = round_pack(sign, m4, exp2 - 2, "f32", mode)
    out = np.where(special == 1, _U64(0x7F800000) | (sign.astype(_U64) << _U64(31)), out).astype(np.uint32)
    if ftz:
        out = np.where((out & np.uint32(0x7F800000)) == 0, out & np.uint32(0x80000000), out)
    if sat:
        v = out.view(np.float32)
        out = np.where(np.signbit(v) | (v <= 0), np.uint32(0), np.where(v >= 1, np.uint32(0x3F800000), out))
    return np.where(special == 2, F32_NAN if not sat else np.uint32(0), out).astype(np.uint32)


def add_f32(a, b, mode="rn", ftz=False, sat=False):
    x, y = f32_in(a, ftz), f32_in(b, ftz)
    s, err = _two_sum(x, y)
    return f32_round(_zero_sign_rm(s, err, x, y, mode), err, mode, ftz, sat)


def mul_f32(a, b, mode="rn", ftz=False, sat=False):
    with np.errstate(invalid="ignore"):
        p = f32_in(a, ftz) * f32_in(b, ftz)
    return f32_round(p, np.zeros_like(p), mode, ftz, sat)


def fma_f32(a, b, c, mode="rn", ftz=False, sat=False):
    with np.errstate(invalid="ignore"):
        p = f32_in(a, ftz) * f32_in(b, ftz)
    z = f32_in(c, ftz)
    s, err = _two_sum(p, z)
    return f32_round(_zero_sign_rm(s, err, p, z, mode), err, mode, ftz, sat)


def div_f32(a, b, mode="rn", ftz=False):
    """Exact quotient by integer long division of the normalised significands, rounded once."""
    x, y = f32_in(a, ftz), f32_in(b, ftz)
    sa, ma, ea, _ = decompose(x.astype(np.float32).view(np.uint32), "f32")
    sb, mb, eb, _ = decompose(y.astype(np.float32).view(np.uint32), "f32")
    ma, ea = _normalise(ma, ea, 24)
    mb, eb = _normalise(mb, eb, 24)
    safe = np.where(mb == 0, _U64(1), mb)
    q, r = np.divmod(ma << _U64(39), safe)
    q = (q << _U64(1)) | (r != 0).astype(_U64)
    out = round_pack(sa ^ sb, q, ea - eb - 40, "f32", mode).astype(np.uint32)
    if ftz:
        out = np.where((out & np.uint32(0x7F800000)) == 0, out & np.uint32(0x80000000), out)
    with np.errstate(divide="ignore", invalid="ignore"):
        ref = x / y
    special = ~np.isfinite(ref) | (x == 0) | ~np.isfinite(y)
    with np.errstate(over="ignore", invalid="ignore"):
        sp = np.where(np.isnan(ref), F32_NAN, ref.astype(np.float32).view(np.uint32))
    return np.where(special, sp, out).astype(np.uint32)


def _normalise(m, e, bits):
    """Shift nonzero significands up to ``bits`` bits (for subnormal inputs)."""
    for s in (16, 8, 4, 2, 1):
        small = (m != 0) & (m < (_U64(1) << _U64(bits - s)))
        m = np.where(small, m << _U64(s), m)
        e = np.where(small, e - s, e)
    return m, e


# ---------------------------------------------------------------- f64

def _f64_nan(out, *ops):
    """H100: a NaN operand passes through quieted (first one wins); an invalid operation gives 0xFFF8..."""
    res = np.where(np.isnan(out.view(np.float64)), F64_QNAN, out)
    for o in reversed(ops):
        o = o.view(_U64)
        res = np.where(np.isnan(o.view(np.float64)), o | _U64(1 << 51), res)
    return res


def _exact_round(terms, mode: str) -> np.ndarray:
    """Per lane, round the exact sum of products ``terms`` (tuples of float64 arrays) to f64 bits."""
    n = len(terms[0][0])
    sign = np.zeros(n, bool)
    mant = np.zeros(n, _U64)
    exp2 = np.zeros(n, np.int64)
    for i in range(n):
        parts, negs = [], []
        for t in terms:
            m, e, neg = 1, 0, False
            for f in t:
                fm, fe = _as_int(float(f[i]))
                m, e, neg = m * fm, e + fe, neg ^ bool(np.signbit(f[i]))
            parts.append((m, e))
            negs.append(neg)
        e_min = min(e for _, e in parts)
        total = sum(m << (e - e_min) for m, e in parts)
        if total == 0:  # IEEE 754 6.3: the sign of an exact zero sum
            sign[i] = all(negs) or (mode == "rm" and len(terms) > 1 and not all(not x for x in negs))
            continue
        sign[i] = total < 0
        mag = abs(total)
        extra = max(mag.bit_length() - 62, 0)
        if extra:
            mag = (mag >> extra) | int(mag & ((1 << extra) - 1) != 0)
        mant[i], exp2[i] = mag, e_min + extra
    return round_pack(sign, mant, exp2, "f64", mode)


def _as_int(x: float):
    """x == m * 2**e with integer m (signed)."""
    if x == 0:
        return 0, 0
    m, e = np.frexp(x)
    return int(m * (1 << 53)), int(e) - 53


def _div_f64(a, b, mode):
    n = len(a)
    sign = np.zeros(n, bool)
    mant = np.zeros(n, _U64)
    exp2 = np.zeros(n, np.int64)
    for i in range(n):
        (ma, ea), (mb, eb) = _as_int(float(a[i])), _as_int(float(b[i]))
        q, r = divmod(abs(ma) << 120, abs(mb))
        extra = max(q.bit_length() - 62, 0)
        q = (q >> extra) | int((q & ((1 << extra) - 1)) != 0 or r != 0)
        sign[i] = bool(np.signbit(a[i])) != bool(np.signbit(b[i]))
        mant[i], exp2[i] = q, ea - eb - 120 + extra
    return round_pack(sign, mant, exp2, "f64", mode)


def f64_op(op: str, a, b, c=None, mode="rn") -> np.ndarray:
    """``op`` in add, mul, fma, div on float64 arrays; returns uint64 bits."""
    with np.errstate(all="ignore"):
        ref = {"add": lambda: a + b, "mul": lambda: a * b, "div": lambda: a / b,
               "fma": lambda: a * b + c}[op]()
    ops = (a, b) if c is None else (a, b, c)
    out = ref.view(_U64)
    if op == "fma" or mode != "rn":
        fin = np.logical_and.reduce([np.isfinite(o) for o in ops])
        if op == "div":
            fin &= b != 0
        idx = np.nonzero(fin)[0]
        if len(idx):
            if op == "div":
                exact = _div_f64(a[idx], b[idx], mode)
            else:
                terms = [(a[idx], b[idx])] if op == "mul" else [(a[idx],), (b[idx],)]
                if op == "fma":
                    terms = [(a[idx], b[idx]), (c[idx],)]
                exact = _exact_round(terms, mode)
            out = out.copy()
            out[idx] = exact
    return _f64_nan(out, *ops)
