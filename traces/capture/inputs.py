"""Input generators for the capture harness: raw register bit patterns per input class.

Standalone (numpy only). Everything is generated at the element level as bit patterns and then
packed into 32-bit registers (element i of a register at bits ``bits*i``, reference §3).

Classes (``forms.FLOAT_CLASSES`` / ``forms.INT_CLASSES``):

normal      moderate values: A/B exponents within bias±3, C within bias±4 (floats); small integers
randbits    random *finite* bit patterns over the whole exponent range (subnormals and ±0 included);
            integers: uniform bits (C too)
allbits     uniformly random bits everywhere: NaN, ±Inf, subnormals, -0 (floats only)
cancel      big A products that cancel: in each row, lanes t and t^1 (same row, same register and slot)
            hold +X and -X for half of the elements; B column n is one value Bn[n] for 3/4 of its
            entries, so +X*Bn - X*Bn cancels exactly and only the small terms and C survive (floats only)
overflow    C within the top two binades of its type (floats) or within 2*max|A.B| of INT32_MAX/MIN
            (integers); float A/B large enough that products reach (or pass) the largest finite value
            where the accumulator type allows it
intextreme  integers only: A and B from the extremes of their types (-128/127, 255, -8/7, 15) with a
            per-instance sign so that A.B is large in one direction, and C near the INT32 edge in that
            direction: `.satfinite` clamps and plain wraps

Metadata: in the lanes the selector picks, every nibble is a valid code for the form and variant
(ordered: {0100,1000,1100,1001,1101,1110}; legacy: any idx0 != idx1; tf32: 0100/1110); the other
lanes get uniformly random junk (the hardware ignores them). ``ub=True`` draws each nibble of the
picked lanes from the UB codes with probability 1/2.
"""
from __future__ import annotations

import numpy as np

import forms

INT32_MAX = 2**31 - 1
INT32_MIN = -(2**31)
INT_RANGE = {"s8": (-128, 127), "u8": (0, 255), "s4": (-8, 7), "u4": (0, 15)}


# --------------------------------------------------------------------------- packing


def pack(elems: np.ndarray, bits: int) -> np.ndarray:
    """(..., nregs, epr) element bit patterns -> (..., nregs) uint32 registers."""
    elems = elems.astype(np.uint64) & np.uint64((1 << bits) - 1)
    epr = elems.shape[-1]
    assert epr * bits == 32, (epr, bits)
    shifts = (np.arange(epr, dtype=np.uint64) * np.uint64(bits))
    return np.bitwise_or.reduce(elems << shifts, axis=-1).astype(np.uint32)


def unpack(regs: np.ndarray, bits: int) -> np.ndarray:
    """(..., nregs) uint32 -> (..., nregs, 32/bits) element bit patterns (uint32)."""
    epr = 32 // bits
    shifts = (np.arange(epr, dtype=np.uint32) * np.uint32(bits))
    mask = np.uint32((1 << bits) - 1) if bits < 32 else np.uint32(0xFFFFFFFF)
    return (regs[..., None] >> shifts) & mask


# --------------------------------------------------------------------------- floats


def _compose(fmt: str, sign, expf, mant) -> np.ndarray:
    bits, E, Mb, bias, conv = forms.FLOAT_FORMATS[fmt]
    x = (sign.astype(np.uint64) << np.uint64(bits - 1)) | (expf.astype(np.uint64) << np.uint64(Mb)) \
        | mant.astype(np.uint64)
    x = x.astype(np.uint32)
    if conv == "fn":  # e4m3: S.1111.111 is the only NaN; keep generated "finite" classes finite
        nan = (expf == (1 << E) - 1) & (mant == (1 << Mb) - 1)
        x = np.where(nan, x - np.uint32(1), x)
    return x


def max_finite_exp(fmt: str) -> int:
    _bits, E, _Mb, _bias, conv = forms.FLOAT_FORMATS[fmt]
    return (1 << E) - 1 if conv == "fn" else (1 << E) - 2


def float_elems(rng, fmt: str, shape, exp_lo: int, exp_hi: int) -> np.ndarray:
    """Random sign and mantissa, biased exponent field uniform in [exp_lo, exp_hi] (clipped to finite)."""
    bits, E, Mb, bias, conv = forms.FLOAT_FORMATS[fmt]
    lo, hi = max(0, exp_lo), min(max_finite_exp(fmt), exp_hi)
    sign = rng.integers(0, 2, size=shape)
    expf = rng.integers(lo, hi + 1, size=shape)
    mant = rng.integers(0, 1 << Mb, size=shape)
    return _compose(fmt, sign, expf, mant)


def float_rel(rng, fmt: str, shape, lo: int, hi: int) -> np.ndarray:
    """Exponent relative to the bias: magnitudes in [2^lo, 2^(hi+1))."""
    bias = forms.FLOAT_FORMATS[fmt][3]
    return float_elems(rng, fmt, shape, bias + lo, bias + hi)


def raw_bits(rng, bits: int, shape) -> np.ndarray:
    return rng.integers(0, 1 << bits, size=shape, dtype=np.uint64).astype(np.uint32)


# overflow class: (A/B exponent range relative to bias) per (input type, accumulator type)
_OVERFLOW_AB = {
    ("f16", "f16"): (5, 8),      # products 2^10..2^18 > f16 max 65504
    ("f16", "f32"): (12, 15),    # products up to 2^32: cannot overflow f32, large terms near C
    ("bf16", "f32"): (58, 66),   # products 2^116..2^134: overflow f32
    ("tf32", "f32"): (58, 66),
    ("e4m3", "f32"): (5, 8),     # up to 448
    ("e5m2", "f32"): (11, 15),   # up to 57344
}
# cancel class: (big exponent range, small exponent range) relative to bias, for A
_CANCEL_A = {
    ("f16", "f16"): ((6, 9), (-6, -2)),
    ("f16", "f32"): ((10, 14), (-6, -2)),
    ("bf16", "f32"): ((20, 40), (-6, -2)),
    ("tf32", "f32"): ((20, 40), (-6, -2)),
    ("e4m3", "f32"): ((4, 7), (-5, -2)),
    ("e5m2", "f32"): ((7, 13), (-6, -2)),
}


def float_operand(rng, cls: str, fmt: str, ctype: str, role: str, shape) -> np.ndarray:
    """A, B (role 'ab') or C (role 'c') element bit patterns for one float input class."""
    bits = forms.FLOAT_FORMATS[fmt][0]
    if cls == "allbits":
        return raw_bits(rng, bits, shape)
    if cls == "randbits":
        return float_elems(rng, fmt, shape, 0, max_finite_exp(fmt))
    if cls == "normal":
        return float_rel(rng, fmt, shape, -3, 3) if role == "ab" else float_rel(rng, fmt, shape, -4, 4)
    if cls == "overflow":
        if role == "c":
            top = max_finite_exp(fmt)
            return float_elems(rng, fmt, shape, top - 1, top)
        lo, hi = _OVERFLOW_AB[(fmt, ctype)]
        return float_rel(rng, fmt, shape, lo, hi)
    if cls == "cancel" and role == "c":
        return float_rel(rng, fmt, shape, -4, 0)
    raise ValueError(f"float_operand: class {cls!r} role {role!r}")


def cancel_a(rng, fmt: str, ctype: str, n: int, na: int, epr: int) -> np.ndarray:
    """A elements (n, 32, na, epr): +X/-X pairs between lanes t and t^1 for half the elements."""
    (blo, bhi), (slo, shi) = _CANCEL_A[(fmt, ctype)]
    bits = forms.FLOAT_FORMATS[fmt][0]
    big = float_rel(rng, fmt, (n, 32, na, epr), blo, bhi)
    small = float_rel(rng, fmt, (n, 32, na, epr), slo, shi)
    lanes = np.arange(32)
    even = lanes[(lanes & 1) == 0]
    is_big_pair = rng.random((n, 16, na, epr)) < 0.5
    out = small.copy()
    sign = np.uint32(1 << (bits - 1))
    out[:, even] = np.where(is_big_pair, big[:, even], small[:, even])
    out[:, even + 1] = np.where(is_big_pair, big[:, even] ^ sign, small[:, even + 1])
    return out


def cancel_b(rng, fmt: str, n: int, nb: int, epr: int) -> np.ndarray:
    """B elements (n, 32, nb, epr): column n = g (lane 4g+t) mostly one value Bn[g]."""
    col = float_rel(rng, fmt, (n, 8), -1, 2)
    colv = np.repeat(col, 4, axis=1)[:, :, None, None]
    other = float_rel(rng, fmt, (n, 32, nb, epr), -3, 3)
    return np.where(rng.random((n, 32, nb, epr)) < 0.75, colv, other).astype(np.uint32)


# --------------------------------------------------------------------------- integers


def int_to_bits(v: np.ndarray, bits: int) -> np.ndarray:
    return (v.astype(np.int64) & ((1 << bits) - 1)).astype(np.uint32)


def max_abs_dot(fam: forms.Family, at: str, bt: str) -> int:
    amax = max(abs(x) for x in INT_RANGE[at])
    bmax = max(abs(x) for x in INT_RANGE[bt])
    return (fam.k // 2) * amax * bmax


def int_inputs(rng, fam: forms.Family, cls: str, at: str, bt: str, n: int):
    """(A elements, B elements, C int64 values) for one integer class and type mix."""
    bits = fam.elem_bits
    epr = fam.epr
    ash, bsh, csh = (n, 32, fam.n_a, epr), (n, 32, fam.n_b, epr), (n, 32, fam.n_c)
    (alo, ahi), (blo, bhi) = INT_RANGE[at], INT_RANGE[bt]
    if cls == "normal":
        small = {"s8": (-16, 16), "u8": (0, 32), "s4": (-8, 7), "u4": (0, 15)}
        a = rng.integers(*small[at], endpoint=True, size=ash)
        b = rng.integers(*small[bt], endpoint=True, size=bsh)
        c = rng.integers(-(1 << 16), 1 << 16, endpoint=True, size=csh)
    elif cls in ("randbits", "overflow"):
        a = rng.integers(alo, ahi, endpoint=True, size=ash)
        b = rng.integers(blo, bhi, endpoint=True, size=bsh)
        if cls == "randbits":
            c = rng.integers(INT32_MIN, INT32_MAX, endpoint=True, size=csh)
        else:
            r = rng.integers(0, 2 * max_abs_dot(fam, at, bt), size=csh)
            up = rng.random(csh) < 0.5
            c = np.where(up, INT32_MAX - r, INT32_MIN + r)
    elif cls == "intextreme":
        signed_a, signed_b = alo < 0, blo < 0
        direction = np.where(rng.random(n) < 0.5, 1, -1)
        if not signed_a and not signed_b:
            direction[:] = 1
        sb = np.where(rng.random(n) < 0.5, 1, -1) if signed_b else np.ones(n, int)
        if not signed_a:
            sb = direction.copy() if signed_b else sb
            sa = np.ones(n, int)
        else:
            sa = direction * sb

        def ext(sgn, lo, hi, shape):
            follow = rng.random(shape) < 0.8
            want = np.where(sgn.reshape((-1,) + (1,) * (len(shape) - 1)) > 0, hi, lo if lo < 0 else hi)
            anyv = np.where(rng.random(shape) < 0.5, lo, hi)
            return np.where(follow, want, anyv)

        a = ext(sa, alo, ahi, ash)
        b = ext(sb, blo, bhi, bsh)
        r = rng.integers(0, max_abs_dot(fam, at, bt), size=csh)
        d = direction.reshape(-1, 1, 1)
        c = np.where(d > 0, INT32_MAX - r, INT32_MIN + r)
    else:
        raise ValueError(f"integer class {cls!r}")
    return int_to_bits(a, bits), int_to_bits(b, bits), c.astype(np.int64)


# --------------------------------------------------------------------------- metadata


def metadata(rng, fam: forms.Family, variant: str, selector: int, n: int, ub: bool = False) -> np.ndarray:
    """(n, 32, 1) uint32: valid (or UB-mixed) codes in the selected lanes, junk elsewhere."""
    codes = np.array(forms.valid_codes(fam, variant), dtype=np.uint32)
    nib = codes[rng.integers(0, len(codes), size=(n, 32, 8))]
    if ub:
        bad = np.array(forms.ub_codes(fam, variant), dtype=np.uint32)
        nib = np.where(rng.random((n, 32, 8)) < 0.5, bad[rng.integers(0, len(bad), size=(n, 32, 8))], nib)
    e = np.bitwise_or.reduce(nib << (np.arange(8, dtype=np.uint32) * 4), axis=-1).astype(np.uint32)
    junk = raw_bits(rng, 32, (n, 32))
    sel = np.zeros(32, bool)
    sel[fam.selected_lanes(selector)] = True
    return np.where(sel[None, :], e, junk)[..., None]


# --------------------------------------------------------------------------- one kernel's instances


def kernel_inputs(rng, fam: forms.Family, kernel: dict, cls: str, n: int, ub: bool = False):
    """Registers a (n,32,nA), b (n,32,nB), c (n,32,nC), e (n,32,1) for n instances of one kernel."""
    at, bt = kernel["atype"], kernel["btype"]
    if fam.integer:
        ae, be, cv = int_inputs(rng, fam, cls, at, bt, n)
        a, b = pack(ae, fam.elem_bits), pack(be, fam.elem_bits)
        c = (cv & 0xFFFFFFFF).astype(np.uint32)
    else:
        abits = forms.FLOAT_FORMATS[at][0]
        bbits = forms.FLOAT_FORMATS[bt][0]
        epr = 32 // abits
        if cls == "cancel":
            ae = cancel_a(rng, at, fam.ctype, n, fam.n_a, epr)
            be = cancel_b(rng, bt, n, fam.n_b, 32 // bbits)
        else:
            ae = float_operand(rng, cls, at, fam.ctype, "ab", (n, 32, fam.n_a, epr))
            be = float_operand(rng, cls, bt, fam.ctype, "ab", (n, 32, fam.n_b, 32 // bbits))
        ce = float_operand(rng, cls, fam.ctype, fam.ctype, "c", (n, 32, fam.n_c, fam.c_epr))
        a, b = pack(ae, abits), pack(be, bbits)
        c = pack(ce, 32 // fam.c_epr)
    e = metadata(rng, fam, kernel["variant"], kernel["selector"], n, ub=ub)
    return a, b, c, e
