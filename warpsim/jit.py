"""numba kernels of the tensor core: gather fragments from lane registers, multiply-add, scatter D.

Everything a kernel needs about a form comes from :class:`warpsim.tensorcore.Plan`, whose index
tables are derived from :mod:`isa.layouts` (the inverse maps of the fragment layouts), so no index
arithmetic of a layout is written here. One call runs N instances with no Python per instance.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from isa.numerics.dot import OUT_F32, dot_element, fused_element, fused_row_f32
from isa.numerics.rounding import ieee_value

PAT_2_4, PAT_1_2, PAT_4_8, PAT_DENSE = 0, 1, 2, 3


@njit(cache=True, inline="always")
def _value(bits, lut, low_mask):
    """Decode one element: through a lookup table (formats up to 16 bits), as f32/tf32 (the low
    ``low_mask`` bits ignored), or as s32 when ``low_mask`` is -1."""
    if lut.size > 0:
        return lut[bits]
    if low_mask == -1:
        return float(bits - (1 << 32) if bits >= (1 << 31) else bits)
    return ieee_value(np.int64(bits & ~low_mask), 8, 23)


@njit(cache=True, inline="always")
def _field(regs, i, lane, reg, shift, mask):
    return (np.int64(regs[i, lane, reg]) >> shift) & mask


@njit(cache=True)
def _dense_col(pattern, chunk, code, slot):
    if pattern == PAT_2_4:
        return 4 * chunk + ((code >> (2 * slot)) & 3)
    if pattern == PAT_DENSE:
        return chunk
    if pattern == PAT_4_8:
        return 8 * chunk + 2 * ((code >> (2 * (slot // 2))) & 3) + slot % 2
    return 2 * chunk + (1 if code == 0b1110 else 0)


@njit(cache=True)
def gather_a(a, e, i, ta, tm, a_lut, a_low, amask, pattern, z, aval, kcol):
    """Stored A values (M, K/2) and the dense column each one multiplies."""
    m_rows, kh = aval.shape
    for m in range(m_rows):
        for j in range(kh):
            aval[m, j] = _value(_field(a, i, ta[0, m, j], ta[1, m, j], ta[2, m, j], amask), a_lut, a_low)
            ch = j // z
            code = (np.int64(e[i, tm[0, m, ch]]) >> tm[1, m, ch]) & 0xF
            kcol[m, j] = _dense_col(pattern, ch, code, j % z)


@njit(cache=True)
def gather_mat(x, i, t, lut, low, mask, out):
    """A whole operand (B as N × K, transposed; or C as M × N) from its (lane, reg, shift) table."""
    r, c = out.shape
    for p in range(r):
        for q in range(c):
            out[p, q] = _value(_field(x, i, t[0, p, q], t[1, p, q], t[2, p, q], mask), lut, low)


@njit(cache=True)
def mma_batch(a, b, c, e, ta, tm, tb, tc, a_lut, b_lut, c_lut, a_low, b_low, c_low, amask, bmask, cmask,
              pattern, z, kdense, is_int, satfinite, align_bits, group, out_kind, fp8_out_bits,
              sa, sb, scale_blk, d):
    """D for N instances. ``tb`` indexes B as (N, K); ``tc`` is the C/D table (M, N)."""
    n_inst = a.shape[0]
    m_rows, n_cols = tc.shape[1], tc.shape[2]
    kh = ta.shape[2]
    aval = np.empty((m_rows, kh))
    kcol = np.empty((m_rows, kh), dtype=np.int64)
    bval = np.empty((n_cols, kdense))
    cval = np.empty((m_rows, n_cols))
    terms = np.empty(kh)
    scaled = np.empty(kh)
    big, inv, acc = np.empty(n_cols), np.empty(n_cols), np.empty(n_cols)
    iacc = np.empty(n_cols, dtype=np.int64)
    row_bits = np.empty(n_cols, dtype=np.uint32)
    hot = not is_int and scale_blk == 0 and group == 0 and out_kind == OUT_F32 and fp8_out_bits == 0
    for i in range(n_inst):
        gather_a(a, e, i, ta, tm, a_lut, a_low, amask, pattern, z, aval, kcol)
        gather_mat(b, i, tb, b_lut, b_low, bmask, bval)
        gather_mat(c, i, tc, c_lut, c_low, cmask, cval)
        for col in range(c.shape[2]):
            for lane in range(32):
                d[i, lane, col] = 0
        if hot and _all_finite(aval) and _all_finite(bval) and _all_finite(cval):
            for m in range(m_rows):
                fused_row_f32(aval[m], kcol[m], bval, cval[m], align_bits, row_bits, big, inv, acc, iacc)
                for n in range(n_cols):
                    d[i, tc[0, m, n], tc[1, m, n]] = row_bits[n]
            continue
        for m in range(m_rows):
            for n in range(n_cols):
                if is_int:
                    bits = _int_element(aval[m], kcol[m], bval[n], cval[m, n], satfinite)
                elif scale_blk == 0 and group == 0:  # the common case, inlined for speed
                    for j in range(kh):
                        terms[j] = aval[m, j] * bval[n, kcol[m, j]]
                    bits = fused_element(terms, kh, cval[m, n], align_bits, out_kind, fp8_out_bits)
                else:
                    av = aval[m]
                    if scale_blk > 0:
                        for j in range(kh):
                            blk = kcol[m, j] // scale_blk
                            scaled[j] = av[j] * sa[i, m, blk] * sb[i, n, blk]
                        av = scaled
                    bits = dot_element(av, kcol[m], bval[n], kh, cval[m, n], align_bits, group,
                                       out_kind, fp8_out_bits, terms)
                lane, reg, shift = tc[0, m, n], tc[1, m, n], tc[2, m, n]
                d[i, lane, reg] |= np.uint32(bits) << np.uint32(shift)


@njit(cache=True)
def _all_finite(x):
    for v in x.ravel():
        if not math.isfinite(v):
            return False
    return True


@njit(cache=True)
def _int_element(av, kc, bcol, acc, satfinite):
    s = np.int64(acc)
    for j in range(av.shape[0]):
        s += np.int64(av[j]) * np.int64(bcol[kc[j]])
    if satfinite:
        s = min(max(s, -2147483648), 2147483647)
    return np.uint32(s & 0xFFFFFFFF)
