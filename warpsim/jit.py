"""numba kernels of the tensor core: gather fragments from lane registers, multiply-add, scatter D.

Everything a kernel needs about a form comes from :class:`warpsim.tensorcore.Plan`, whose index
tables are derived from :mod:`isa.layouts` (the inverse maps of the fragment layouts, flattened to
``lane · nregs + reg`` and a bit shift), so no index arithmetic of a layout is written here. One call
runs N instances with no Python per instance. The float arithmetic is :mod:`isa.numerics.dot`.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, typeof, types
from numba.experimental import structref

from isa.numerics.dot import _MAX_TERMS, OUT_F32, ZERO_POW, _sum8, decode_out, finish_row, fused_terms, out_pow, pow2_of
from isa.numerics.rounding import ABS_MASK, EXP_MASK, as_float64, as_int64, f32_rn_add, uint32_as_f32

PAT_2_4, PAT_1_2, PAT_4_8, PAT_DENSE = 0, 1, 2, 3
DEC_LUT, DEC_F16, DEC_BF16, DEC_F32, DEC_S32 = 0, 1, 2, 3, 4
TF32_LOW = np.int64(0x1FFF)  # tf32: the low 13 bits of the register are ignored [HW]
F32_EMIN_POW = 2.0 ** -126  # alignment power of f32 subnormals


@njit(cache=True, inline="always", error_model="numpy")
def _value(bits, dec, lut, low_mask):
    """Decode one element's bits (int64) to float64 — exactly, specials included (scalar; the batch kernel
    uses :func:`decode_all`)."""
    if dec == DEC_F16:
        em = bits & 0x7FFF
        if em >= 0x7C00:
            v = math.inf if em == 0x7C00 else math.nan
        else:
            v = as_float64(em << 42) * 2.0 ** 1008  # normal and subnormal alike
        return -v if bits & 0x8000 else v
    if dec == DEC_BF16:
        return np.float64(uint32_as_f32(np.uint32(bits << 16)))
    if dec == DEC_F32:
        return np.float64(uint32_as_f32(np.uint32(bits & ~low_mask)))
    if dec == DEC_S32:
        return float(bits - (1 << 32) if bits >= (1 << 31) else bits)
    return lut[bits]


@njit(cache=True, inline="always", error_model="numpy")
def load_bits(x2, i, f, sh, mask, raw):
    """``raw[p]`` = the bits of element p: word ``f[p]`` of instance i's flat registers, shifted and masked."""
    for p in range(f.shape[0]):
        raw[p] = (np.int64(x2[i, f[p]]) >> sh[p]) & mask


@njit(cache=True, inline="always", error_model="numpy")
def decode_all(raw, dec, lut, low, emin_pow, out, pw):
    """Values and alignment powers (:func:`isa.numerics.dot.pow2_of`) of ``raw[:len(out)]``. One branch-free
    loop per format, so that LLVM vectorises it."""
    n = out.shape[0]
    if dec == DEC_F16:
        for p in range(n):
            h = raw[p]
            em = h & 0x7FFF
            v = as_float64(em << 42) * 2.0 ** 1008  # normal and subnormal alike
            v = math.inf if em == 0x7C00 else v
            v = math.nan if em > 0x7C00 else v
            out[p] = as_float64(as_int64(v) | ((h & 0x8000) << 48))
    elif dec == DEC_BF16:
        for p in range(n):
            out[p] = np.float64(uint32_as_f32(np.uint32(raw[p] << 16)))
    elif dec == DEC_F32:
        for p in range(n):
            out[p] = np.float64(uint32_as_f32(np.uint32(raw[p] & ~low)))
    elif dec == DEC_S32:
        for p in range(n):
            out[p] = float(raw[p] - (1 << 32) if raw[p] >= (1 << 31) else raw[p])
    else:
        for p in range(n):
            out[p] = lut[raw[p]]
    for p in range(n):
        b = as_int64(out[p])
        q = max(as_float64(b & EXP_MASK), emin_pow)
        pw[p] = ZERO_POW if (b & ABS_MASK) == 0 else q


@njit(cache=True, error_model="numpy")
def codes_valid(e, tm, valid_mask):
    """Whether every metadata code the selector reads is in ``valid_mask`` (bit q set = code q valid)."""
    tm0, tm1 = tm[0], tm[1]
    for i in range(e.shape[0]):
        for m in range(tm0.shape[0]):
            for ch in range(tm0.shape[1]):
                if not (valid_mask >> ((np.int64(e[i, tm0[m, ch]]) >> tm1[m, ch]) & 0xF)) & 1:
                    return False
    return True


@njit(cache=True, error_model="numpy")
def _dense_col(pattern, chunk, code, slot):
    if pattern == PAT_2_4:
        return 4 * chunk + ((code >> (2 * slot)) & 3)
    if pattern == PAT_DENSE:
        return chunk
    if pattern == PAT_4_8:
        return 8 * chunk + 2 * ((code >> (2 * (slot // 2))) & 3) + slot % 2
    return 2 * chunk + (1 if code == 0b1110 else 0)


@njit(cache=True, inline="always", error_model="numpy")
def gather_codes(e, i, tm0, tm1, pattern, z, codes, kcol):
    """The metadata code of every (row, chunk) and the dense column of every stored A value. Returns True
    when a tf32 code other than 0100/1110 occurs."""
    m_rows, nch = codes.shape
    kh = kcol.shape[1]
    for m in range(m_rows):
        for ch in range(nch):
            codes[m, ch] = (np.int64(e[i, tm0[m, ch]]) >> tm1[m, ch]) & 0xF
    mixed = False
    if pattern == PAT_2_4 and z == 2:
        for m in range(m_rows):
            for j in range(kh):
                kcol[m, j] = 4 * (j >> 1) + ((codes[m, j >> 1] >> (2 * (j & 1))) & 3)
    else:
        for m in range(m_rows):
            for j in range(kh):
                kcol[m, j] = _dense_col(pattern, j // z, codes[m, j // z], j % z)
        if pattern == PAT_1_2:
            for m in range(m_rows):
                for ch in range(nch):
                    mixed = mixed or (codes[m, ch] != 0b0100 and codes[m, ch] != 0b1110)
    return mixed


@njit(cache=True, error_model="numpy")
def mma_batch(a2, b2, c2, e, fa, sa, tm, fb, sb, fc, sc, dsrc, dpos,
              decs, luts_a, luts_b, luts_c, lows, masks, emin_pows,
              pattern, z, kdense, is_int, satfinite, align_bits, group, out_kind, out_frac, fp8_hmma_pair,
              sca, scb, scale_blk, valid_mask, d2):
    """D for N instances (flat register views ``x2 = x.reshape(N, 32 * nregs)``). With ``valid_mask`` (bit q set:
    metadata code q is valid) nonzero, nothing is computed or written when a code is invalid: returns False.

    Tables: ``fa/sa`` (M, K/2) flat word and shift of each stored A value; ``tm`` (2, M, chunks) lane and
    shift of each metadata code; ``fb/sb`` (K, N) for B; ``fc/sc`` (M, N) for C; ``dsrc`` (D words, values
    per word) the flat (M, N) index of each value of each D register, ``dpos`` the word of ``d2[i]`` it goes to
    (d2 may be the register bank that a2..e are: each instance reads all its operands before it writes D).
    ``decs``, ``lows``, ``masks``, ``emin_pows``: per operand A, B, C. ``fp8_hmma_pair``: the sm_90 ptxas
    emulation of fp8 ``mma.sp`` (two f16 HMMA over the even / odd chunks, then an f32 FADD of C).
    """
    if valid_mask and not codes_valid(e, tm, valid_mask):
        return False
    m_rows, n_cols = fc.shape
    kh, nchunks = fa.shape[1], tm.shape[2]
    nf, ni, nu = work_sizes(m_rows, kh, nchunks, kdense, n_cols)
    wf, wi, wu = np.empty(nf), np.empty(ni, dtype=np.int64), np.empty(nu, dtype=np.uint32)
    prepare_work(wf, wi, wu, tm, pattern, z, kh, kdense, n_cols)
    work = _carve(wf, wi, wu, m_rows, kh, nchunks, kdense, n_cols)
    flats = (fa.reshape(-1), sa.reshape(-1), fb.reshape(-1), sb.reshape(-1), fc.reshape(-1), sc.reshape(-1))
    return _mma_work(a2, b2, c2, e, fa, sa, tm, fb, sb, fc, sc, dsrc, dpos, decs, luts_a, luts_b, luts_c, lows,
                     masks, emin_pows, pattern, z, kdense, is_int, satfinite, align_bits, group, out_kind, out_frac,
                     fp8_hmma_pair, sca, scb, scale_blk, d2, work, flats, wi[wi.shape[0] - 2], wi[wi.shape[0] - 1])


# mma_batch's workspace: three flat buffers (float64, int64, uint32) carved into its arrays by _carve. The
# per-instruction part (the index lists and the metadata lanes and shifts) is filled once by prepare_work, so
# that an in-place mma (mma_in_place) allocates nothing and repeats no setup.
@njit(cache=True, error_model="numpy")
def work_sizes(m_rows, kh, nchunks, kdense, n_cols):
    """Words of the (float64, int64, uint32) workspace of one form."""
    nf = 2 * m_rows * kh + 2 * kdense * n_cols + 2 * m_rows * n_cols + 8 * n_cols + 2 * kh
    ni = 4 * m_rows * kh + m_rows * nchunks + 4 * kh + max(m_rows * kh, kdense * n_cols, m_rows * n_cols) + 2
    return nf, ni, 2 * n_cols + m_rows * n_cols


@njit(cache=True, inline="always", error_model="numpy")
def _carve(wf, wi, wu, m_rows, kh, nchunks, kdense, n_cols):
    """The workspace arrays, views of the three buffers (the order work_sizes counts them in)."""
    mk, kn, mn = m_rows * kh, kdense * n_cols, m_rows * n_cols
    avf, apf = wf[0:mk], wf[mk:2 * mk]
    o = 2 * mk
    bvf, bpf = wf[o:o + kn], wf[o + kn:o + 2 * kn]
    o += 2 * kn
    cvf, cpf = wf[o:o + mn], wf[o + mn:o + 2 * mn]
    o += 2 * mn
    nc = n_cols
    val, emx = wf[o:o + nc], wf[o + nc:o + 2 * nc]
    acc, accp = wf[o + 2 * nc:o + 3 * nc].reshape((1, nc)), wf[o + 3 * nc:o + 4 * nc].reshape((1, nc))
    zeros, zpow = wf[o + 4 * nc:o + 5 * nc].reshape((1, nc)), wf[o + 5 * nc:o + 6 * nc].reshape((1, nc))
    o += 8 * nc
    terms, tpow = wf[o:o + kh], wf[o + kh:o + 2 * kh]
    aval, apow = avf.reshape((m_rows, kh)), apf.reshape((m_rows, kh))
    bkn, bpk = bvf.reshape((kdense, nc)), bpf.reshape((kdense, nc))
    cval, cpw = cvf.reshape((m_rows, nc)), cpf.reshape((m_rows, nc))
    kcf, klane, kshift, kbase = wi[0:mk], wi[mk:2 * mk], wi[2 * mk:3 * mk], wi[3 * mk:4 * mk]
    o = 4 * mk
    codes_f = wi[o:o + m_rows * nchunks]
    o += m_rows * nchunks
    js_all, js_even, js_odd, js_grp = wi[o:o + kh], wi[o + kh:o + 2 * kh], wi[o + 2 * kh:o + 3 * kh], \
        wi[o + 3 * kh:o + 4 * kh]
    raw = wi[o + 4 * kh:wi.shape[0] - 2]
    kcol, codes = kcf.reshape((m_rows, kh)), codes_f.reshape((m_rows, nchunks))
    row_bits, row2, dall = wu[0:n_cols], wu[n_cols:2 * n_cols], wu[2 * n_cols:]
    return (aval, apow, bkn, bpk, cval, cpw, val, emx, acc, accp, zeros, zpow, terms, tpow, kcol, klane, kshift,
            kbase, codes, js_all, js_even, js_odd, js_grp, raw, row_bits, row2, dall,
            avf, apf, bvf, bpf, cvf, cpf, kcf, codes_f)


@njit(cache=True, error_model="numpy")
def carve_work(wf, wi, wu, m_rows, kh, nchunks, kdense, n_cols):
    """_carve, callable from Python: the workspace views that an in-place mma keeps (warpsim.tensorcore.InPlace)."""
    return _carve(wf, wi, wu, m_rows, kh, nchunks, kdense, n_cols)


@njit(cache=True, error_model="numpy")
def prepare_work(wf, wi, wu, tm, pattern, z, kh, kdense, n_cols):
    """Fill the workspace's fixed part for metadata tables ``tm``: the stored-value index lists (all, those in
    even chunks, in odd chunks; their counts in the last two int64 words), the zero accumulator and, for the
    2:4 and tf32 1:2 fast paths, the lane, shift and base column of every stored value's metadata index."""
    m_rows, nchunks = tm.shape[1], tm.shape[2]
    (aval, apow, bkn, bpk, cval, cpw, val, emx, acc, accp, zeros, zpow, terms, tpow, kcol, klane, kshift, kbase,
     codes, js_all, js_even, js_odd, js_grp, raw, row_bits, row2, dall, avf, apf, bvf, bpf, cvf, cpf, kcf,
     codes_f) = _carve(wf, wi, wu, m_rows, kh, nchunks, kdense, n_cols)
    n_even = n_odd = 0
    for j in range(kh):  # stored value j lies in chunk j // z
        js_all[j] = j
        if (j // z) % 2 == 0:
            js_even[n_even] = j
            n_even += 1
        else:
            js_odd[n_odd] = j
            n_odd += 1
    wi[wi.shape[0] - 2], wi[wi.shape[0] - 1] = n_even, n_odd
    zeros[:] = 0.0
    zpow[:] = ZERO_POW
    tm0, tm1 = tm[0], tm[1]
    fast24 = pattern == PAT_2_4 and z == 2
    fast12 = pattern == PAT_1_2 and z == 1 and nchunks == kh
    for m in range(m_rows):
        for j in range(kh):
            if fast12:
                klane[m * kh + j], kshift[m * kh + j], kbase[m * kh + j] = tm0[m, j], tm1[m, j], 2 * j
            elif fast24:
                klane[m * kh + j] = tm0[m, j >> 1]
                kshift[m * kh + j] = tm1[m, j >> 1] + 2 * (j & 1)
                kbase[m * kh + j] = 4 * (j >> 1)


@njit(cache=True, error_model="numpy", _nrt=False)
def _mma_work(a2, b2, c2, e, fa, sa, tm, fb, sb, fc, sc, dsrc, dpos, decs, luts_a, luts_b, luts_c, lows, masks,
              emin_pows, pattern, z, kdense, is_int, satfinite, align_bits, group, out_kind, out_frac, fp8_hmma_pair,
              sca, scb, scale_blk, d2, work, flats, n_even, n_odd):
    """mma_batch's instances with a prepared workspace (``work``: _carve's views after prepare_work) and the
    tables' flat views (``flats``: fa, sa, fb, sb, fc, sc)."""
    n_inst = a2.shape[0]
    m_rows, n_cols = fc.shape
    kh = fa.shape[1]
    if kh > _MAX_TERMS or n_cols != 8:
        raise ValueError("mma_batch: the row kernel takes N = 8 and at most _MAX_TERMS stored values a row")
    nchunks = tm.shape[2]
    (aval, apow, bkn, bpk, cval, cpw, val, emx, acc, accp, zeros, zpow, terms, tpow, kcol, klane, kshift, kbase,
     codes, js_all, js_even, js_odd, js_grp, raw, row_bits, row2, dall, avf, apf, bvf, bpf, cvf, cpf, kcf,
     codes_f) = work
    faf, saf, fbf, sbf, fcf, scf = flats
    scale = 2.0 ** align_bits
    packed = out_kind != OUT_F32  # f16 D: two values per register; f32/s32 D: one (d2 arrives unwritten)
    fast24 = pattern == PAT_2_4 and z == 2
    fast12 = pattern == PAT_1_2 and z == 1 and nchunks == kh
    tm0, tm1 = tm[0], tm[1]
    for i in range(n_inst):
        load_bits(a2, i, faf, saf, masks[0], raw)
        decode_all(raw, decs[0], luts_a, lows[0], emin_pows[0], avf, apf)
        if fast24:  # 2:4 with 2 stored per chunk: each dense column straight from its 2-bit index in e
            for p in range(kcf.shape[0]):
                kcf[p] = kbase[p] + ((np.int64(e[i, klane[p]]) >> kshift[p]) & 3)
            mixed = False
        elif fast12:  # tf32 1:2: one stored value per chunk; 0100 → column 2c, 1110 → 2c + 1, others mix halves
            bad = 0
            for p in range(kcf.shape[0]):
                q = (np.int64(e[i, klane[p]]) >> kshift[p]) & 0xF
                codes_f[p] = q
                kcf[p] = kbase[p] + (1 if q == 0b1110 else 0)
                bad += 0 if (q == 0b0100 or q == 0b1110) else 1
            mixed = bad > 0
        else:
            mixed = gather_codes(e, i, tm0, tm1, pattern, z, codes, kcol)
        load_bits(b2, i, fbf, sbf, masks[1], raw)
        decode_all(raw, decs[1], luts_b, lows[1], emin_pows[1], bvf, bpf)
        load_bits(c2, i, fcf, scf, masks[2], raw)
        decode_all(raw, decs[2], luts_c, lows[2], emin_pows[2], cvf, cpf)
        for m in range(m_rows):
            if is_int:
                for n in range(n_cols):
                    row_bits[n] = _int_element(aval, kcol, m, bkn, n, cval[m, n], satfinite)
            elif mixed:
                _tf32_mixed_row(aval, apow, codes, m, b2, i, fb, sb, cval, cpw, scale, out_kind, out_frac,
                                emin_pows[1], terms, tpow, row_bits)
            elif scale_blk > 0:
                for n in range(n_cols):
                    for j in range(kh):
                        blk = kcol[m, j] // scale_blk
                        x, y = sca[i, m, blk], scb[i, n, blk]
                        terms[j] = aval[m, j] * bkn[kcol[m, j], n] * x * y
                        tpow[j] = apow[m, j] * bpk[kcol[m, j], n] * pow2_of(x, 0.0) * pow2_of(y, 0.0)
                    row_bits[n] = fused_terms(terms, tpow, kh, cval[m, n], cpw[m, n], scale, out_kind, out_frac)
            elif fp8_hmma_pair:
                # HMMA 1: even chunks, C = +0 (RZ); HMMA 2: odd chunks, C = HMMA 1's f32; then FADD C + D2 (RN)
                _sum8(aval, apow, kcol, m * kh, js_even, n_even, bkn, bpk, zeros, zpow, 0, scale, OUT_F32, val, emx,
                      row2, 0)
                for n in range(n_cols):
                    acc[0, n] = np.float64(uint32_as_f32(row2[n]))  # exact, specials included
                    accp[0, n] = pow2_of(acc[0, n], F32_EMIN_POW)
                _sum8(aval, apow, kcol, m * kh, js_odd, n_odd, bkn, bpk, acc, accp, 0, scale, OUT_F32, val, emx,
                      row2, 0)
                for n in range(n_cols):
                    row_bits[n] = f32_rn_add(cval[m, n], np.float64(uint32_as_f32(row2[n])))
            elif group > 0:
                for n in range(n_cols):
                    acc[0, n], accp[0, n] = cval[m, n], cpw[m, n]
                for lo in range(0, kdense, group):
                    cnt = 0
                    for j in range(kh):
                        if lo <= kcol[m, j] < lo + group:
                            js_grp[cnt] = j
                            cnt += 1
                    frac = out_frac if lo + group >= kdense else 23
                    redo = _sum8(aval, apow, kcol, m * kh, js_grp, cnt, bkn, bpk, acc, accp, 0, scale, out_kind, val,
                                 emx, row_bits, 0)
                    if frac != 23:
                        finish_row(aval, kcol, m, js_grp, cnt, bkn, acc, 0, out_kind, frac, row_bits, val, emx, redo)
                    for n in range(n_cols):
                        acc[0, n] = decode_out(row_bits[n], out_kind)
                        accp[0, n] = out_pow(row_bits[n], out_kind)
            else:  # the common case: the whole K fused (isa.numerics.dot.fused_row, inlined by hand)
                redo = _sum8(aval, apow, kcol, m * kh, js_all, kh, bkn, bpk, cval, cpw, m * n_cols, scale, out_kind,
                             val, emx, dall, m * n_cols)
                if out_frac != 23:  # the literature e8m13 results only
                    finish_row(aval, kcol, m, js_all, kh, bkn, cval, m, out_kind, out_frac, row_bits, val, emx, redo)
                else:
                    continue
            for n in range(n_cols):
                dall[m * n_cols + n] = row_bits[n]
        # D registers from the (M, N) results: word w holds elements dsrc[w, :] (low half first)
        if packed:
            for w in range(dsrc.shape[0]):
                d2[i, dpos[w]] = dall[dsrc[w, 0]] | (dall[dsrc[w, 1]] << np.uint32(16))
        else:
            for w in range(dsrc.shape[0]):
                d2[i, dpos[w]] = dall[dsrc[w, 0]]
    return True


@njit(cache=True, inline="always", error_model="numpy")
def _tf32_mixed_row(av, ap, codes, m, b2, i, fb, sb, cv, cp, scale, out_kind, out_frac, emin_pow, terms, tpow,
                    out):
    """tf32 with any 4-bit code, as the H100 executes it [HW, traces/h100/ub/tf32_*]: B is gathered in
    16-bit halves. For code q = (idx1 << 2) | idx0 of chunk c, the B value the stored element multiplies
    is hi16 = half (idx1 & 1) of B[2c + (idx1 >> 1)] and lo16 = half (idx0 & 1) of B[2c + (idx0 >> 1)],
    then tf32-truncated. 0100 and 1110 give B[2c] and B[2c + 1]."""
    for n in range(out.shape[0]):
        for j in range(av.shape[1]):
            q = codes[m, j]
            i0, i1 = q & 3, q >> 2
            w0 = np.int64(b2[i, fb[2 * j + (i0 >> 1), n]]) >> sb[2 * j + (i0 >> 1), n]
            w1 = np.int64(b2[i, fb[2 * j + (i1 >> 1), n]]) >> sb[2 * j + (i1 >> 1), n]
            lo = (w0 >> (16 * (i0 & 1))) & 0xFFFF
            hi = (w1 >> (16 * (i1 & 1))) & 0xFFFF
            bv = np.float64(uint32_as_f32(np.uint32(((hi << 16) | lo) & ~TF32_LOW)))
            terms[j] = av[m, j] * bv
            tpow[j] = ap[m, j] * pow2_of(bv, emin_pow)
        out[n] = fused_terms(terms, tpow, av.shape[1], cv[m, n], cp[m, n], scale, out_kind, out_frac)


@njit(cache=True, inline="always", error_model="numpy")
def _int_element(av, kc, m, bkn, n, acc, satfinite):
    s = np.int64(acc)
    for j in range(av.shape[1]):
        s += np.int64(av[m, j]) * np.int64(bkn[kc[m, j], n])
    if satfinite:
        s = min(max(s, -2147483648), 2147483647)
    return np.uint32(s & 0xFFFFFFFF)


# --- one warp in place: mma_batch's arguments kept in one structure ----------------------------------------------
# A numba call types and unboxes every argument (mma_batch has 35), and mma_batch allocates and fills its workspace
# on every call: together more than one instance's arithmetic. InPlaceArgs holds the arguments, the prepared
# workspace and the tables' flat views of one instruction; the call goes straight to mma_in_place's compiled entry.
@structref.register
class InPlaceArgsType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class InPlaceArgs(structref.StructRefProxy):
    """mma_batch's arguments for one instruction on one register bank (see :func:`in_place_args`)."""


_IN_PLACE_FIELDS = ("fa", "sa", "tm", "fb", "sb", "fc", "sc", "dsrc", "dpos", "decs", "luts_a", "luts_b", "luts_c",
                    "lows", "masks", "emin_pows", "pattern", "z", "kdense", "is_int", "satfinite", "align_bits",
                    "group", "out_kind", "out_frac", "pair", "no_scales", "valid", "work", "flats", "n_even", "n_odd")
structref.define_proxy(InPlaceArgs, InPlaceArgsType, list(_IN_PLACE_FIELDS))


@njit(cache=True)
def _new_in_place_args(fa, sa, tm, fb, sb, fc, sc, dsrc, dpos, decs, luts_a, luts_b, luts_c, lows, masks, emin_pows,
                       pattern, z, kdense, is_int, satfinite, align_bits, group, out_kind, out_frac, pair, no_scales,
                       valid, work, flats, n_even, n_odd):
    """InPlaceArgs(...), compiled once to the disk cache (the proxy's own constructor compiles in every process)."""
    return InPlaceArgs(fa, sa, tm, fb, sb, fc, sc, dsrc, dpos, decs, luts_a, luts_b, luts_c, lows, masks, emin_pows,
                       pattern, z, kdense, is_int, satfinite, align_bits, group, out_kind, out_frac, pair, no_scales,
                       valid, work, flats, n_even, n_odd)


def in_place_args(tables: tuple, numerics: tuple, valid_mask: int) -> InPlaceArgs:
    """The arguments of :func:`mma_in_place` from :class:`warpsim.tensorcore.InPlace`'s tables (fa, sa, tm, fb,
    sb, fc, sc, dsrc, dpos) and :attr:`warpsim.tensorcore.Plan.numerics`, with a workspace of their own."""
    tables = tuple(np.ascontiguousarray(x) for x in tables)
    fa, sa, tm, fb, sb, fc, sc, dsrc, dpos = tables
    decs, la, lb, lc, lows, masks, emin_pows, pattern, z, kdense, is_int, satfinite, align, group, out_kind, \
        out_frac, pair = numerics
    (m, kh), nch, n = fa.shape, tm.shape[2], fc.shape[1]
    nf, ni, nu = work_sizes(m, kh, nch, kdense, n)
    wf, wi, wu = np.empty(nf), np.empty(ni, dtype=np.int64), np.empty(nu, dtype=np.uint32)
    prepare_work(wf, wi, wu, tm, pattern, z, kh, kdense, n)
    work = carve_work(wf, wi, wu, m, kh, nch, kdense, n)
    flats = tuple(x.reshape(-1) for x in (fa, sa, fb, sb, fc, sc))
    arrays = tuple(np.ascontiguousarray(x) for x in (decs, la, lb, lc, lows, masks, emin_pows))
    return _new_in_place_args(*tables, *arrays, int(pattern), int(z), int(kdense), bool(is_int), bool(satfinite),
                              int(align), int(group), int(out_kind), int(out_frac), bool(pair), np.ones((1, 1, 1)),
                              int(valid_mask), work, flats, int(wi[-2]), int(wi[-1]))


@njit(cache=True, error_model="numpy")
def mma_in_place(bank, g):
    """:func:`mma_batch` on one warp's register bank (``bank``: (1, registers · 32) uint32, read and written)
    with the arguments ``g`` (:func:`in_place_args`). False (nothing written) when a metadata code is invalid."""
    if g.valid and not codes_valid(bank, g.tm, g.valid):
        return False
    return _mma_work(bank, bank, bank, bank, g.fa, g.sa, g.tm, g.fb, g.sb, g.fc, g.sc, g.dsrc, g.dpos, g.decs,
                     g.luts_a, g.luts_b, g.luts_c, g.lows, g.masks, g.emin_pows, g.pattern, g.z, g.kdense, g.is_int,
                     g.satfinite, g.align_bits, g.group, g.out_kind, g.out_frac, g.pair, g.no_scales, g.no_scales, 0,
                     bank, g.work, g.flats, g.n_even, g.n_odd)


def in_place_entry(bank: np.ndarray, args: InPlaceArgs):
    """mma_in_place compiled for these argument types, called without the dispatcher's type resolution (the
    types do not change for a bank and an instruction)."""
    return mma_in_place.compile((typeof(bank), typeof(args)))
