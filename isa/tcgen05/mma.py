"""Functional core of ``tcgen05.mma`` and ``tcgen05.mma.sp`` (PTX ISA 9.7.16.10) over numpy.

One call does the whole M x N x K instruction: A from shared memory (descriptor) or TMEM, B from
shared memory, sparse metadata and block-scale factors from TMEM, D read (``enable-input-d``) and
written in TMEM through the data-path layout. ``cta_group::2`` takes both CTAs of the pair.

Numerics (an assumption calibrated on the literature, NOT bit-exact for tcgen05): products are exact
in float64 and only the stored (metadata-selected) products take part; the sum and the scaled input
D are accumulated in float64; the result is rounded once - toward zero to f32, to nearest-even to
f16 (MMA-Sim's Blackwell model, anchors.md: f32 output RZ, f16 output RNE). The hardware aligns and
truncates every term to 25 fraction bits first (isa.numerics.models.BLACKWELL); we do not, so results
can differ from hardware in the last f32 bits. i8 is exact: s32 wraps, or saturates with idesc bit 3.
A NaN result is written as 0x7FFFFFFF / 0x7FFF (the H100's canonical NaN; unverified on B200).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from isa import formats
from isa.errors import UndefinedBehavior, WarpsimError
from isa.tcgen05 import smem_desc as sd
from isa.tcgen05 import tmem_layout as tl
from isa.tcgen05.idesc import TYPE_BITS, DescriptorError, InstrDescriptor

# Assumption DISABLE_OUTPUT_LANE_CTA2 (reference 7.9): with cta_group::2 the 8-word mask gives words
# 0..3 to the even CTA of the pair and words 4..7 to the odd one (bit i of a CTA's 128 bits = lane i).
DISABLE_OUTPUT_LANE_WORDS_PER_CTA = 4
SCALE_VEC_DEFAULT = {"mxf8f6f4": "1X", "mxf4": "2X"}  # mxf4nvf4 must say 2X or 4X
SCALE_VEC_LEGAL = {"mxf8f6f4": ("1X", "block32"), "mxf4": ("2X", "block32"),
                   "mxf4nvf4": ("2X", "4X", "block32", "block16")}


class MmaError(WarpsimError):
    """A tcgen05.mma operand combination the ISA does not allow."""


@dataclass
class Cta:
    """One CTA's view: its TMEM (``warpsim.tmem.Tmem`` or anything with ``read_cells``, ``write_cells``
    and a ``defined`` mask) and its shared memory as a uint8 array indexed by shared address."""

    tmem: object
    smem: np.ndarray


def container_bits(kind: str, t: str) -> int:
    """Bits one element occupies in SMEM/TMEM: 4/6-bit types sit in 8-bit containers except in
    .kind::mxf4/mxf4nvf4, which pack two e2m1 per byte (9.7.16.10.4). Assumption: the value is in
    the container's low bits."""
    if kind in ("mxf4", "mxf4nvf4"):
        return 4
    return max(8, TYPE_BITS[t])


def mma(idesc: InstrDescriptor, ctas, d_tmem: int, b_desc: int, *, a_desc: int | None = None,
        a_tmem: int | None = None, sp_meta_tmem: int | None = None, enable_input_d: bool = True,
        disable_output_lane=None, scale_input_d: int = 0, scale_a_tmem: int | None = None,
        scale_b_tmem: int | None = None, scale_vec: str | None = None) -> None:
    """Execute one ``tcgen05.mma{.sp}``; ``ctas`` has ``idesc.cta_group`` entries (even CTA first)."""
    d, cg, kind = idesc, idesc.cta_group, idesc.kind
    op = f"tcgen05.mma{'.sp' if d.sparse else ''}.cta_group::{cg}.kind::{kind}"
    nblocks = _check(op, d, ctas, a_desc, a_tmem, sp_meta_tmem, disable_output_lane, scale_input_d,
                     scale_a_tmem, scale_b_tmem, scale_vec)
    m, n, k = d.m, d.n, d.k
    rows, ka = m // cg, (k // 2 if d.sparse else k)
    d_lane, d_col = d_tmem >> 16 & 0xFFFF, d_tmem & 0xFFFF
    if d_lane not in tl.legal_lane_aligns(m, cg, d.sparse):
        raise MmaError(f"{op}: d-tmem lane {d_lane} is illegal for M = {m}; legal: "
                       f"{tl.legal_lane_aligns(m, cg, d.sparse)} (data-path layout {tl.layout_name(m, cg, d.sparse)})")
    _, lane, col = tl.datapath(m, n, cg, d.sparse, lane_align=d_lane)
    # B: each CTA's shared memory holds N / cta_group columns (9.7.16.10.2)
    bd = sd.decode(b_desc)
    _check_major(op, "B", d.b_type, d.transpose_b, bd)
    braw = np.concatenate([sd.read_tile(c.smem, bd, "MN" if d.transpose_b else "K", n // cg, k,
                                        container_bits(kind, d.b_type)) for c in ctas])
    bval = _decode(d.b_type, braw, d.negate_b).T  # (K, N)
    for ci, cta in enumerate(ctas):
        L, C = lane[ci * rows:(ci + 1) * rows], d_col + col[ci * rows:(ci + 1) * rows]
        kidx = _metadata(op, d, cta.tmem, sp_meta_tmem, rows, d_lane) if d.sparse else None
        if a_desc is not None:
            ad = sd.decode(a_desc)
            _check_major(op, "A", d.a_type, d.transpose_a, ad)
            araw = sd.read_tile(cta.smem, ad, "MN" if d.transpose_a else "K", rows, ka,
                                container_bits(kind, d.a_type))
        groups = np.unique(L.T, axis=0, return_inverse=True)[1].ravel()  # columns sharing data-path lanes
        for g in np.unique(groups):
            ns = np.flatnonzero(groups == g)
            lg = L[:, ns[0]]
            if a_tmem is not None:
                araw = _a_from_tmem(op, d, cta.tmem, a_tmem, lg, ka, d_lane)
            aval = _decode(d.a_type, araw, d.negate_a)
            acc = _dot(aval, bval[:, ns], kidx, k, nblocks, d, cta.tmem, scale_a_tmem, scale_b_tmem, lg, ns, op)
            _write_d(op, d, cta.tmem, L[:, ns], C[:, ns], acc, enable_input_d, scale_input_d,
                     _disabled(disable_output_lane, ci))


def _check(op, d, ctas, a_desc, a_tmem, meta, dol, sid, sa, sb, scale_vec) -> int:
    if len(ctas) != d.cta_group:
        raise MmaError(f"{op}: needs {d.cta_group} CTA(s) of a pair, got {len(ctas)}")
    if d.ws:
        raise MmaError(f"{op}: tcgen05.mma.ws (collector buffers, zero-column mask) is not modelled")
    if (a_desc is None) == (a_tmem is None):
        raise MmaError(f"{op}: give A either as a shared-memory descriptor or as a TMEM address, not both/neither")
    if d.sparse != (meta is not None):
        raise MmaError(f"{op}: [sp-meta-tmem] is {'missing' if d.sparse else 'only for tcgen05.mma.sp'}")
    if a_tmem is not None and d.transpose_a:
        raise DescriptorError("idesc", "transpose_a", "15", 1, "{0}", "with A in TMEM (one row per lane)")
    if not d.block_scaled:
        if sa is not None or sb is not None or scale_vec is not None:
            raise MmaError(f"{op}: scale-A/scale-B/.scale_vec need a block-scaled kind (mxf8f6f4, mxf4, mxf4nvf4)")
        if sid and d.kind not in ("f16", "tf32") or not 0 <= sid <= 15:
            raise MmaError(f"{op}: scale-input-d = {sid} is illegal; legal: 0..15, .kind::f16/.kind::tf32 only")
        return 1
    if sa is None or sb is None:
        raise MmaError(f"{op}.block_scale: [scale-A-tmem] and [scale-B-tmem] are required")
    if dol is not None or sid:
        raise MmaError(f"{op}.block_scale: disable-output-lane and scale-input-d are not allowed")
    if d.m // d.cta_group != 128:
        raise MmaError(f"{op}.block_scale with M = {d.m}: only 128 rows per CTA (M = 128 ::1, M = 256 ::2) are "
                       "modelled; the M = 128 cta_group::2 scale-factor layout is not reconstructed")
    sv = scale_vec or SCALE_VEC_DEFAULT.get(d.kind)
    if sv not in SCALE_VEC_LEGAL[d.kind]:
        raise MmaError(f"{op}.block_scale: .scale_vec {sv} is illegal; legal: {SCALE_VEC_LEGAL[d.kind]}")
    nb = {"1X": 1, "2X": 2, "4X": 4, "block32": 64 // 32 if d.kind != "mxf8f6f4" else 1, "block16": 4}[sv]
    if d.scale_type == "ue4m3" and nb != 4:
        raise DescriptorError("idesc", "scale_type", "23", "ue4m3", "{ue8m0}", f"with .scale_vec::{sv} (ue4m3 needs 4X)")
    for name, v in (("scale_factor_a_id", d.scale_factor_a_id), ("scale_factor_b_id", d.scale_factor_b_id)):
        if v % nb or v + nb > 4:
            raise DescriptorError("idesc", name, "30:29" if name[13] == "a" else "5:4", v,
                                  str(tuple(range(0, 4, nb))), f"with {nb} scale factors per row (.scale_vec::{sv})")
    return nb


def _check_major(op, which, t, transposed, desc) -> None:
    """Table 54: tf32 MN-major only with 128B_base32B; no other type may use that mode MN-major."""
    if transposed and (t == "tf32") != (desc.swizzle == "128B_base32B"):
        legal = "{128B_base32B}" if t == "tf32" else "{none, 32B, 64B, 128B}"
        raise DescriptorError("smem descriptor", "swizzle", "63:61", desc.swizzle, legal,
                              f"for an MN-major (transposed) {t} operand {which} of {op}")


def _decode(t: str, raw, negate: bool) -> np.ndarray:
    v = formats.decode(t, raw)
    if t in ("u8", "s8"):
        v = v.astype(np.int64)
    return -v if negate else v


def _a_from_tmem(op, d, tmem, a_tmem, lanes, ka, d_lane) -> np.ndarray:
    a_lane, a_col = a_tmem >> 16 & 0xFFFF, a_tmem & 0xFFFF
    if a_lane != d_lane:
        raise MmaError(f"{op}: [a-tmem] lane {a_lane} differs from [d-tmem] lane {d_lane}; A must sit in the "
                       "lanes of the D rows it produces (9.7.16.10.5)")
    bits = container_bits(d.kind, d.a_type)
    per = 32 // bits
    j = np.arange(ka)
    cells = tmem.read_cells(op + " [a-tmem]", lanes[:, None] + 0 * j, a_col + j // per + 0 * lanes[:, None])
    return (cells >> ((j % per) * bits).astype(np.uint32)) & np.uint32((1 << bits) - 1)


_VALID_24 = {0x4, 0x8, 0xC, 0x9, 0xD, 0xE} | ({0x6} if tl.METADATA_ACCEPT_0110 else set())


def _metadata(op, d, tmem, meta, rows, d_lane) -> np.ndarray:
    """Dense K index (rows, K/2) of every stored A element, from the metadata in TMEM (9.7.16.10.8)."""
    m_lane, m_col = meta >> 16 & 0xFFFF, meta & 0xFFFF
    if m_lane != d_lane:
        raise MmaError(f"{op}: [sp-meta-tmem] lane {m_lane} must equal the [d-tmem] lane alignment {d_lane}")
    if m_col % tl.METADATA_COLUMN_ALIGN:
        raise UndefinedBehavior(f"{op}: sparse-metadata column must be a multiple of {tl.METADATA_COLUMN_ALIGN} "
                                "(assumption METADATA_COLUMN_ALIGN, reference 3.2)", value=m_col)
    lanes, cols, bits = tl.metadata_nibbles(d.kind, rows, d.k, d_lane)
    cols = m_col + cols + (d.sparsity_selector if tl.METADATA_SELECTOR_ADDS_COLUMNS else 0)
    where = op + " [sp-meta-tmem]"
    cells = tmem.read_cells(where, lanes, cols)
    if hasattr(tmem, "defined") and not tmem.defined[lanes, cols].all():
        raise UndefinedBehavior(f"{where}: sparse metadata read from TMEM cells never written", value=int(m_col))
    nib = (cells >> bits.astype(np.uint32)) & 0xF
    chunk = tl.CHUNK[d.kind]
    valid = np.isin(nib, [0x4, 0xE]) if chunk == 2 else np.isin(nib, list(_VALID_24))
    if not valid.all():
        r, c = np.argwhere(~valid)[0]
        raise UndefinedBehavior(f"{op}: invalid sparse-metadata code (PTX ISA 9.7.16.10.8.1)", value=int(nib[r, c]),
                                detail=f"row {r}, chunk {c}; legal: "
                                       + ("0b0100, 0b1110" if chunk == 2 else ", ".join(f"{v:#06b}" for v in sorted(_VALID_24))))
    base = np.arange(nib.shape[1]) * chunk
    if chunk == 2:
        return base + (nib == 0xE)
    idx = np.stack([nib & 3, nib >> 2], axis=-1).astype(np.int64)  # (rows, chunks, 2)
    if chunk == 4:
        return (base[None, :, None] + idx).reshape(rows, -1)
    pair = base[None, :, None, None] + 2 * idx[..., None] + np.arange(2)  # mxf4: idx selects a pair
    return pair.reshape(rows, -1)


def _dot(a, b, kidx, k, nblocks, d, tmem, sa_addr, sb_addr, lanes, ns, op) -> np.ndarray:
    """Σ_blocks sA·sB·Σ_j a[r,j]·B[k_j, n] over the stored products only -> (rows, len(ns))."""
    rows, ka = a.shape
    per = ka // nblocks
    parts = []
    for blk in range(nblocks):
        aj = a[:, blk * per:(blk + 1) * per]
        if kidx is None:
            parts.append(aj @ b[blk * per:(blk + 1) * per])
        else:
            parts.append(np.einsum("rj,rjn->rn", aj, b[kidx[:, blk * per:(blk + 1) * per]]))
    if not d.block_scaled:
        return parts[0]
    sa = _scales(op + " [scale-A-tmem]", tmem, sa_addr, np.arange(rows)[:, None], lanes[:, None],
                 d.scale_factor_a_id, nblocks, d.scale_type)  # (rows, 1, nb)
    sb = _scales(op + " [scale-B-tmem]", tmem, sb_addr, ns[None, :], lanes[:, None],
                 d.scale_factor_b_id, nblocks, d.scale_type)  # (rows, len(ns), nb)
    return sum(sa[:, :, j] * sb[:, :, j] * parts[j] for j in range(nblocks))


def _scales(where, tmem, addr, index, dp_lane, sf_id, nb, stype) -> np.ndarray:
    lane, col = tl.scale_factor_cell(index, dp_lane)
    if addr >> 16 & 0xFFFF:
        raise MmaError(f"{where}: the scale-factor address must have lane 0, got lane {addr >> 16 & 0xFFFF}")
    lane, col = np.broadcast_arrays(lane, (addr & 0xFFFF) + col)
    cells = tmem.read_cells(where, lane, col)[..., None]
    byte = (cells >> (8 * (sf_id + np.arange(nb))).astype(np.uint32)) & 0xFF
    return formats.decode(stype, byte)


def _disabled(mask, cta: int):
    if mask is None:
        return None
    w = np.asarray(mask, dtype=np.uint64).ravel()[cta * 4:(cta + 1) * 4]
    return np.array([(int(w[i // 32]) >> (i % 32)) & 1 for i in range(128)], dtype=bool)


def _write_d(op, d, tmem, lanes, cols, acc, enable_input_d, scale_input_d, disabled) -> None:
    keep = np.ones(lanes.shape, dtype=bool) if disabled is None else ~disabled[lanes]
    lanes, cols, acc = lanes[keep], cols[keep], acc[keep]
    if enable_input_d:
        old = tmem.read_cells(op + " [d-tmem]", lanes, cols)
        if hasattr(tmem, "defined") and not tmem.defined[lanes, cols].all():
            raise UndefinedBehavior(f"{op}: enable-input-d is true but D's TMEM cells were never written "
                                    "(contents after tcgen05.alloc are undefined)", value=int(cols.min()))
        if d.d_type == "s32":
            acc = acc + old.astype(np.int32).astype(np.int64)
        else:
            prev = formats.decode(d.d_type, old & (0xFFFF if d.d_type == "f16" else 0xFFFFFFFF))
            acc = acc + np.ldexp(prev, -scale_input_d)
    tmem.write_cells(op + " [d-tmem]", lanes, cols, _round(d, acc))


def _round(d, acc) -> np.ndarray:
    if d.d_type == "s32":
        acc = np.clip(acc, -2**31, 2**31 - 1) if d.saturate else acc
        return (np.asarray(acc, dtype=np.int64) & 0xFFFFFFFF).astype(np.uint32)
    acc = np.asarray(acc, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        if d.d_type == "f16":
            out = acc.astype(np.float16).view(np.uint16).astype(np.uint32)
            return np.where(np.isnan(acc), np.uint32(0x7FFF), out)
        y = acc.astype(np.float32)
        away = np.isfinite(acc) & (np.abs(y.astype(np.float64)) > np.abs(acc))
        y = np.where(away, np.nextafter(y, np.float32(0)), y)  # round toward zero (RZ)
    return np.where(np.isnan(acc), np.uint32(0x7FFFFFFF), y.view(np.uint32))
