"""The fused multi-term dot of :mod:`isa.numerics.models`, in numba.

Every operand travels with its *alignment exponent* as a power of two (``pow2_of``): 2^e with e the
exponent field's value (subnormals at the format's minimum normal exponent, zero at 2^-126, Inf/NaN
at +Inf). A product's exponent is ``ea + eb`` — the product of the two powers — not the exponent of
the product's value (the significand product lies in [1, 4)). With ``E`` the largest exponent among
the products and C, each term is cut toward zero to a multiple of 2^(E - align_bits) and the cut terms
are added exactly; one rounding gives the result (:mod:`isa.numerics.rounding`).

Exactness in float64: a term is below 2^(E+2), so ``term · 2^(align_bits - E)`` is below 2^27 and is an
exact float64; ``np.trunc`` of it is the cut; the sum of ≤ 65 such integers is exact. Products of two
≤ 16-bit formats (or tf32) are exact in float64, and every power of two used stays a normal float64.
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from isa.numerics.rounding import (ABS_MASK, EXP_MASK, F16_INF, F16_NAN, F32_INF, F32_NAN, as_float64, as_int64,
                                   f16_rne, f32_rz_bits, f32_truncate_fraction, ieee_value)

OUT_F32, OUT_F16 = 0, 1
ZERO_POW = 2.0 ** -126  # alignment exponent of a zero operand (MMA-Sim; the H100 traces cannot tell)


@njit(cache=True, inline="always", error_model="numpy")
def pow2_of(v, emin_pow):
    """2^e of an operand for the alignment: e = its exponent field (subnormals at ``emin_pow`` = 2^emin),
    zero → 2^-126, Inf/NaN → +Inf."""
    b = as_int64(v)
    if (b & ABS_MASK) == 0:
        return ZERO_POW
    return max(as_float64(b & EXP_MASK), emin_pow)


@njit(cache=True, error_model="numpy")
def finish(s, out_kind, out_frac):
    """An exact finite value → output bits (uint32; f16 in the low half)."""
    if out_kind == OUT_F32:
        b = f32_rz_bits(as_int64(s))
        if out_frac < 23:
            b = f32_truncate_fraction(b, out_frac)
        return b
    return np.uint32(f16_rne(s))


@njit(cache=True, error_model="numpy")
def special(naive, out_kind):
    """Bits for a non-finite plain sum: canonical NaN, or ±Inf."""
    if math.isnan(naive):
        return np.uint32(F32_NAN) if out_kind == OUT_F32 else np.uint32(F16_NAN)
    if out_kind == OUT_F32:
        return np.uint32(F32_INF) | (np.uint32(0x80000000) if naive < 0 else np.uint32(0))
    return np.uint32(F16_INF) | (np.uint32(0x8000) if naive < 0 else np.uint32(0))


@njit(cache=True, error_model="numpy")
def zero_result(all_zero_sum, all_zero, out_kind):
    """The bits of an exactly-zero result: IEEE signed-zero sum when every term is zero, else +0."""
    if not all_zero:
        return np.uint32(0)
    neg = math.copysign(1.0, all_zero_sum) < 0
    if out_kind == OUT_F32:
        return np.uint32(0x80000000) if neg else np.uint32(0)
    return np.uint32(0x8000) if neg else np.uint32(0)


@njit(cache=True, inline="always", error_model="numpy")
def fused_terms(terms, tpow, nt, c, cpow, scale, out_kind, out_frac):
    """One element: ``c + Σ terms[:nt]`` (exact products, alignment powers ``tpow``) → output bits.

    ``scale`` = 2^align_bits. Non-finite operands make the plain float64 sum non-finite: it then decides
    NaN (0·Inf, Inf−Inf, NaN) or ±Inf."""
    emx = cpow
    naive = c
    for t in range(nt):
        emx = max(emx, tpow[t])
        naive += terms[t]
    if not math.isfinite(naive):
        return special(naive, out_kind)
    inv = scale / emx
    s = np.trunc(c * inv)
    for t in range(nt):
        s += np.trunc(terms[t] * inv)
    if s == 0.0:
        allz = c == 0.0
        for t in range(nt):
            allz = allz and terms[t] == 0.0
        return zero_result(naive, allz, out_kind)
    return finish(s / inv, out_kind, out_frac)


_MAX_TERMS = 128  # stored products one row of _sum8 holds (K/2 ≤ 64 for every float form)
_F64 = ir.DoubleType()
_V8 = ir.VectorType(_F64, 8)
_I64 = ir.IntType(64)


@intrinsic
def _sum8(typingctx, av, ap, kc, aoff, js, nj, bkn, bpk, cv, cp, coff, scale, out_kind, val, emx, out, ooff):
    """One D row over exactly 8 columns, in 8-wide vector IR (numba's loop vectoriser leaves 8-trip loops
    scalar). The same arithmetic as :func:`sum_generic` + :func:`finish_row`, column by column:

    * ``emx = max(cpow, max_j ap_j · bpk[kc_j])``, ``inv = scale / emx``;
    * ``s = trunc(crow · inv) + Σ_j trunc((av_j · bkn[kc_j]) · inv)`` (exact), ``val = s / inv``;
    * ``naive = crow + Σ_j av_j · bkn[kc_j]`` (plain float64) and whether any term is non-zero;
    * ``out``: ``emx`` = +Inf (a non-finite operand) → canonical NaN if ``naive`` is NaN, else ±Inf;
      ``s`` = 0 → the signed-zero rule; else ``val`` rounded — f32: :func:`f32_rz_bits`; f16 (``out_kind``
      1): :func:`isa.numerics.rounding.f16_rne`.

    No fast-math flags: every operation is the IEEE one, in this order. The A row is ``av/ap/kc``
    (C-contiguous) from flat element ``aoff`` on, the C row ``cv/cp`` from ``coff`` on, the 8 results go to
    ``out[ooff:ooff + 8]``; ``bkn``/``bpk`` are C-contiguous (K, 8). Returns the bit mask of the special or
    zero columns."""
    sig = types.int64(av, ap, kc, aoff, js, nj, bkn, bpk, cv, cp, coff, scale, out_kind, val, emx, out, ooff)

    def codegen(context, builder, signature, args):
        tys = signature.args

        def data(i):
            return context.make_array(tys[i])(context, builder, value=args[i]).data

        aoff, coff = args[3], args[10]
        pav, pap, pkc = (builder.gep(data(i), [aoff]) for i in (0, 1, 2))
        pc, pcp = (builder.gep(data(i), [coff]) for i in (8, 9))
        pjs, pb, pbp, pval, pemx = (data(i) for i in (4, 6, 7, 13, 14))
        pout = builder.gep(data(15), [args[16]])
        count, scale_, kind = args[5], args[11], args[12]
        v8p = _V8.as_pointer()
        vi = ir.VectorType(_I64, 8)
        eight = ir.Constant(_I64, 8)

        def c(x):
            return ir.Constant(vi, [x] * 8)

        def fc(x):
            return ir.Constant(_V8, [x] * 8)

        def vload(ptr, off=None):
            return builder.load(builder.bitcast(ptr if off is None else builder.gep(ptr, [off]), v8p), align=8)

        def splat(x, ty=_V8):
            v = builder.insert_element(ir.Constant(ty, ir.Undefined), x, ir.Constant(ir.IntType(32), 0))
            return builder.shuffle_vector(v, ir.Constant(ty, ir.Undefined),
                                          ir.Constant(ir.VectorType(ir.IntType(32), 8), [0] * 8))

        def sel(cond, a, b):
            return builder.select(cond, a, b)

        def unary(name):
            return cgutils.get_or_insert_function(builder.module, ir.FunctionType(_V8, [_V8]), name)

        trunc, roundeven = unary("llvm.trunc.v8f64"), unary("llvm.roundeven.v8f64")
        # pass 1: the products (kept), the largest alignment power, whether any term is non-zero
        prods = cgutils.alloca_once(builder, _V8, size=_MAX_TERMS)
        crow = vload(pc)
        e_ptr = cgutils.alloca_once_value(builder, vload(pcp))
        z_ptr = cgutils.alloca_once_value(builder, builder.fcmp_unordered("!=", crow, fc(0.0)))
        with cgutils.for_range(builder, count) as loop:
            j = builder.load(builder.gep(pjs, [loop.index]))
            row = builder.mul(builder.load(builder.gep(pkc, [j])), eight)
            p = builder.fmul(splat(builder.load(builder.gep(pav, [j]))), vload(pb, row))
            builder.store(p, builder.gep(prods, [loop.index]))
            x = builder.fmul(splat(builder.load(builder.gep(pap, [j]))), vload(pbp, row))
            e = builder.load(e_ptr)
            builder.store(sel(builder.fcmp_ordered(">", x, e), x, e), e_ptr)
            builder.store(builder.or_(builder.load(z_ptr), builder.fcmp_unordered("!=", p, fc(0.0))), z_ptr)
        e = builder.load(e_ptr)
        inv = builder.fdiv(splat(scale_), e)
        # pass 2: the cut terms (summed exactly: any order) and the plain sum (only its NaN/Inf and the sign of an
        # all-zero sum are used: any order), two chains each to halve the add latency
        s_ptr = [cgutils.alloca_once_value(builder, builder.call(trunc, [builder.fmul(crow, inv)])),
                 cgutils.alloca_once_value(builder, fc(0.0))]
        n_ptr = [cgutils.alloca_once_value(builder, crow), cgutils.alloca_once_value(builder, fc(-0.0))]

        def term(idx, k):
            p = builder.load(builder.gep(prods, [idx]))
            builder.store(builder.fadd(builder.load(s_ptr[k]), builder.call(trunc, [builder.fmul(p, inv)])), s_ptr[k])
            builder.store(builder.fadd(builder.load(n_ptr[k]), p), n_ptr[k])

        one = ir.Constant(count.type, 1)
        with cgutils.for_range(builder, builder.lshr(count, one)) as loop:
            two_t = builder.shl(loop.index, one)
            term(two_t, 0)
            term(builder.add(two_t, one), 1)
        with builder.if_then(builder.icmp_unsigned("!=", builder.and_(count, one), ir.Constant(count.type, 0))):
            term(builder.sub(count, one), 0)
        s_ptr = cgutils.alloca_once_value(builder, builder.fadd(builder.load(s_ptr[0]), builder.load(s_ptr[1])))
        n_ptr = cgutils.alloca_once_value(builder, builder.fadd(builder.load(n_ptr[0]), builder.load(n_ptr[1])))
        s = builder.load(s_ptr)
        v = builder.fdiv(s, inv)
        builder.store(v, builder.bitcast(pval, v8p), align=8)
        builder.store(e, builder.bitcast(pemx, v8p), align=8)
        b = builder.bitcast(v, vi)
        sign = builder.lshr(b, c(63))
        eb = builder.and_(builder.lshr(b, c(52)), c(0x7FF))
        naive = builder.load(n_ptr)
        nsign = builder.lshr(builder.bitcast(naive, vi), c(63))
        nan = builder.fcmp_unordered("uno", naive, naive)
        special = builder.fcmp_ordered("==", e, fc(float("inf")))
        zero = builder.fcmp_ordered("==", s, fc(0.0))
        allz = builder.not_(builder.load(z_ptr))
        res_ptr = cgutils.alloca_once(builder, vi)
        with builder.if_else(builder.icmp_signed("==", kind, ir.Constant(kind.type, 1))) as (is_f16, is_f32):
            with is_f16:
                # nearest even. With E = clamp(exponent, -14, 15) and r = roundeven(|v|·2^(10-E)) the bits are
                # ((E + 14) << 10) + r — subnormals, the carry into the next binade and overflow (→ Inf) alike
                ee0 = builder.sub(eb, c(1023))
                ee = sel(builder.icmp_signed("<", ee0, c(-14)), c(-14), ee0)
                ee = sel(builder.icmp_signed(">", ee, c(15)), c(15), ee)
                scale16 = builder.bitcast(builder.shl(builder.sub(c(1033), ee), c(52)), _V8)
                absv = builder.bitcast(builder.and_(b, c(0x7FFFFFFFFFFFFFFF)), _V8)
                r = builder.fptosi(builder.call(roundeven, [builder.fmul(absv, scale16)]), vi)
                r16 = builder.add(builder.shl(builder.add(ee, c(14)), c(10)), r)
                over = builder.or_(builder.icmp_signed(">", ee0, c(15)), builder.icmp_signed(">=", r16, c(0x7C00)))
                r16 = builder.or_(sel(over, c(0x7C00), r16), builder.shl(sign, c(15)))
                spec = sel(nan, c(0x7FFF), builder.or_(c(0x7C00), builder.shl(nsign, c(15))))
                zbits = sel(allz, builder.shl(nsign, c(15)), c(0))
                builder.store(sel(special, spec, sel(zero, zbits, r16)), res_ptr)
            with is_f32:
                # fraction cut toward zero, exponent > 127 → Inf, subnormals kept (f32_rz_bits)
                mant = builder.and_(b, c(0xFFFFFFFFFFFFF))
                r32 = builder.or_(builder.shl(builder.sub(eb, c(896)), c(23)), builder.lshr(mant, c(29)))
                shift = builder.sub(c(926), eb)  # ≥ 30 where used; ≥ 53 (zero included) shifts all out
                shift = sel(builder.icmp_signed(">", shift, c(63)), c(63), shift)
                r32 = sel(builder.icmp_signed(">=", eb, c(897)), r32,
                          builder.lshr(builder.or_(mant, c(1 << 52)), shift))
                r32 = sel(builder.icmp_signed(">", eb, c(1150)), c(0x7F800000), r32)
                r32 = builder.or_(r32, builder.shl(sign, c(31)))
                spec = sel(nan, c(0x7FFFFFFF), builder.or_(c(0x7F800000), builder.shl(nsign, c(31))))
                zbits = sel(allz, builder.shl(nsign, c(31)), c(0))
                builder.store(sel(special, spec, sel(zero, zbits, r32)), res_ptr)
        res = builder.load(res_ptr)
        res = builder.trunc(res, ir.VectorType(ir.IntType(32), 8))
        builder.store(res, builder.bitcast(pout, ir.VectorType(ir.IntType(32), 8).as_pointer()), align=4)
        return builder.zext(builder.bitcast(builder.or_(special, zero), ir.IntType(8)), _I64)

    return sig, codegen


@njit(cache=True, error_model="numpy")
def sum_generic(av, ap, kc, aoff, js, nj, bkn, bpk, cv, cp, coff, scale, val, emx, out):
    """:func:`_sum8` for any number of columns, in plain loops (the reference the vector code must equal)."""
    ncol = bkn.shape[1]
    avf, apf, kcf, cvf, cpf = av.ravel(), ap.ravel(), kc.ravel(), cv.ravel(), cp.ravel()
    redo = 0
    for n in range(ncol):
        e = cpf[coff + n]
        for t in range(nj):
            x = apf[aoff + js[t]] * bpk[kcf[aoff + js[t]], n]
            e = x if x > e else e
        inv = scale / e
        acc = np.trunc(cvf[coff + n] * inv)
        for t in range(nj):
            acc += np.trunc(avf[aoff + js[t]] * bkn[kcf[aoff + js[t]], n] * inv)
        val[n] = acc / inv
        emx[n] = e
        if e == math.inf or not val[n] != 0.0:
            redo |= 1 << n
            out[n] = 0
        else:
            out[n] = f32_rz_bits(as_int64(val[n]))
    return redo


@njit(cache=True, error_model="numpy")
def fused_row(av, ap, kc, m, js, nj, bkn, bpk, cv, cp, cm, scale, out_kind, out_frac, out, val, emx):
    """Row ``m`` of D for every column: ``out[n] = C[n] + Σ_{j ∈ js[:nj]} a_j · B[kc_j, n]`` (bits).

    ``av``/``ap``: stored A values and their powers (M, K/2); ``kc``: dense column of each; ``bkn``/``bpk``:
    B as (K, 8) values and powers; ``cv``/``cp``: C values and powers, row ``cm``. A column whose largest
    power is +Inf met a non-finite operand, and an exactly-zero column needs the signed-zero rule: both are
    resolved in the vector code too; :func:`finish_row` only serves the literature e8m13 results.

    The batch kernel inlines these steps itself: a numba function taking arrays costs reference counting
    per call (≈ 0.15 µs), inlined ones too when they contain such a call."""
    redo = _sum8(av, ap, kc, m * av.shape[1], js, nj, bkn, bpk, cv, cp, cm * cv.shape[1], scale, out_kind, val,
                 emx, out, 0)
    if out_frac != 23:
        finish_row(av, kc, m, js, nj, bkn, cv, cm, out_kind, out_frac, out, val, emx, redo)


@njit(cache=True, error_model="numpy")
def fused_row_any(av, ap, kc, m, js, nj, bkn, bpk, cv, cp, cm, scale, out_kind, out_frac, out, val, emx):
    """:func:`fused_row` for any number of columns, in scalar loops: the reference of the vector code.
    (Every PTX ``mma``/``mma.sp`` shape has N = 8, so the kernels use the vector code.)"""
    redo = sum_generic(av, ap, kc, m * av.shape[1], js, nj, bkn, bpk, cv, cp, cm * cv.shape[1], scale, val, emx,
                       out)
    if redo != 0 or out_kind != OUT_F32 or out_frac != 23:
        finish_row(av, kc, m, js, nj, bkn, cv, cm, out_kind, out_frac, out, val, emx, redo)


@njit(cache=True, error_model="numpy")
def finish_row(av, kc, m, js, nj, bkn, cv, cm, out_kind, out_frac, out, val, emx, redo):
    """The columns of a row the vector pass cannot finish: specials and zeros exactly, other formats."""
    for n in range(out.shape[0]):
        if (redo >> n) & 1:
            naive, allz = cv[cm, n], cv[cm, n] == 0.0
            for t in range(nj):
                p = av[m, js[t]] * bkn[kc[m, js[t]], n]
                naive += p
                allz = allz and p == 0.0
            if not math.isfinite(naive):
                out[n] = special(naive, out_kind)
            else:
                out[n] = zero_result(naive, allz, out_kind)
        elif out_kind != OUT_F32 or out_frac != 23:
            out[n] = finish(val[n], out_kind, out_frac)


@njit(cache=True, error_model="numpy")
def decode_out(bits, out_kind):
    if out_kind == OUT_F32:
        return ieee_value(np.int64(bits), 8, 23)
    return ieee_value(np.int64(bits), 5, 10)


@njit(cache=True, error_model="numpy")
def f32_pow(bits):
    """Alignment power of an f32 result pattern used as the next accumulator."""
    e = (np.int64(bits) >> 23) & 0xFF
    if (bits & np.uint32(0x7FFFFFFF)) == 0:
        return ZERO_POW
    if e == 0xFF:
        return math.inf
    return as_float64(np.int64(max(e, 1) - 127 + 1023) << 52)


@njit(cache=True, error_model="numpy")
def out_pow(bits, out_kind):
    if out_kind == OUT_F32:
        return f32_pow(bits)
    e = (np.int64(bits) >> 10) & 0x1F
    if (bits & np.uint32(0x7FFF)) == 0:
        return ZERO_POW
    if e == 0x1F:
        return math.inf
    return as_float64(np.int64(max(e, 1) - 15 + 1023) << 52)
