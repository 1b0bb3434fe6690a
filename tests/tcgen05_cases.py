"""The tcgen05.mma case matrix of the generated kernels (tests/ptx/tcgen05_gen) and each case's host-side data.

Every layout decision is computed here from ``isa.tcgen05`` (instruction descriptor, shared-memory descriptor
and canonical layouts, swizzles, TMEM data-path / metadata / scale-factor placement), so the PTX stays
generic: a case is a plan row per CTA, a shared-memory image per CTA (swizzled A and B tiles, metadata and
scale-factor staging tiles) and, where the case starts from a given D or stages metadata with tcgen05.st, a
TMEM image. ``expected`` gives the numpy reference and the error bound of the case.

Matrix: every kind x sparse/dense x legal (M, cta_group) x 3 N x 5 swizzle modes; within that, element
types, majorness, negation, saturation, the lane alignment of the half-datapath layouts, metadata by
tcgen05.cp or tcgen05.st and D from zero or from a tcgen05.st image vary from case to case (deterministic).
Error bounds (warpsim's tcgen05 numerics: exact products, one rounding per instruction, isa/tcgen05/mma.py):
with S = |C| + sum over all K steps of |scale_a * scale_b * a * b| (the sum of magnitudes), per output element
``|D - D_ref| <= ksteps * 2^-23 * S`` for an f32 D (round toward zero per instruction), ``ksteps * 2^-11 * S``
for an f16 D (round to nearest per instruction), and ``D == D_ref`` exactly for i8 (s32 wrap, or saturation
per instruction with idesc bit 3).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from isa import formats
from isa.tcgen05 import idesc as idm
from isa.tcgen05 import smem_desc as sd
from isa.tcgen05 import tmem_layout as tl
from isa.tcgen05.mma import container_bits

PTX_DIR = Path(__file__).parent / "ptx" / "tcgen05_gen"
KINDS = ("f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4")
BLOCK_SCALED = ("mxf8f6f4", "mxf4", "mxf4nvf4")
SWIZZLES = ("none", "32B", "64B", "128B", "128B_base32B")
PLAN_WORDS, P_STEP, S_WORDS = 96, 16, 10
SCALE_VEC = {"mxf8f6f4": "1X", "mxf4": "2X", "mxf4nvf4": "4X"}
SCALES_PER_ROW = {"mxf8f6f4": 1, "mxf4": 2, "mxf4nvf4": 4}  # scale factors per row per instruction
F8F6F4 = ("e4m3", "e5m2", "e2m3", "e3m2", "e2m1")
BOUND_ULP = {"f32": 2.0 ** -23, "f16": 2.0 ** -11}


def m_values(kind, sparse, cg):
    """The M this machine models for the form: the legal set of Table 39 (block-scaled M = 128 with
    cta_group::2 is legal but not modelled: its scale-factor layout is not reconstructed)."""
    ms, _ = idm.legal_shapes(kind, cg, sparse=sparse)
    if kind in BLOCK_SCALED and cg == 2:
        ms = tuple(m for m in ms if m == 256)
    return ms


def n_values(kind, cg):
    if cg == 1:
        return (24, 112, 256) if kind == "i8" else (8, 72, 256)
    return (32, 96, 256) if kind == "i8" else (16, 112, 256)


@dataclass
class Case:
    kind: str
    sparse: bool
    cg: int
    m: int
    n: int
    swizzle: str
    index: int
    a_type: str = ""
    b_type: str = ""
    d_type: str = "f32"
    a_major: str = "K"
    b_major: str = "K"
    b_swizzle: str = ""
    ksteps: int = 1
    d_lane: int = 0
    meta_via: str = ""
    d_init: bool = False
    negate_a: bool = False
    negate_b: bool = False
    saturate: bool = False
    scale_type: str | None = None
    data: dict = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        s = (f"{self.kind}{'.sp' if self.sparse else ''} cg{self.cg} M{self.m} N{self.n} {self.swizzle} "
             f"A {self.a_type}/{self.a_major} B {self.b_type}/{self.b_major}")
        if self.b_swizzle != self.swizzle:
            s += f"({self.b_swizzle})"
        s += f" D {self.d_type} K-steps {self.ksteps}"
        if self.d_lane:
            s += f" lane {self.d_lane}"
        if self.meta_via:
            s += f" meta by {self.meta_via}"
        if self.d_init:
            s += " D from st"
        if self.negate_a or self.negate_b:
            s += " neg" + "A" * self.negate_a + "B" * self.negate_b
        if self.saturate:
            s += " sat"
        if self.scale_type:
            s += f" {self.scale_type}"
        return s


def _mn_legal(kind, t, sw) -> bool:
    """Table 54: MN-major for 8/16-bit types with every swizzle but 128B_base32B, tf32 only with it;
    4/6-bit types and .kind::mxf4* are K-major only."""
    if kind in ("mxf4", "mxf4nvf4") or idm.TYPE_BITS[t] < 8:
        return False
    return (sw == "128B_base32B") if t == "tf32" else sw != "128B_base32B"


def _row_bytes(sw) -> int:
    return sd.SWIZZLES[sw].row_bytes


def cases_of(kind, sparse, cg):
    """Every case of one kernel form, deterministic."""
    i = 0
    for m in m_values(kind, sparse, cg):
        for n in n_values(kind, cg):
            for sw in SWIZZLES:
                yield _configure(Case(kind, sparse, cg, m, n, sw, i))
                i += 1


def _configure(c: Case) -> Case:
    i, kind = c.index, c.kind
    if kind == "f16":
        c.a_type, c.b_type, c.d_type = [("f16", "f16", "f32"), ("bf16", "bf16", "f32"), ("f16", "f16", "f16")][i % 3]
    elif kind == "tf32":
        c.a_type = c.b_type = "tf32"
    elif kind in ("f8f6f4", "mxf8f6f4"):
        c.a_type, c.b_type = F8F6F4[i % 5], F8F6F4[(2 * i + 1 + i // 5) % 5]
        c.d_type = "f16" if kind == "f8f6f4" and i % 4 == 3 else "f32"
    elif kind == "i8":
        c.a_type, c.b_type = [("s8", "s8"), ("u8", "s8"), ("s8", "u8"), ("u8", "u8")][i % 4]
        c.d_type, c.saturate = "s32", i % 3 == 1
    else:
        c.a_type = c.b_type = "e2m1"
    if kind in BLOCK_SCALED:
        c.scale_type = "ue4m3" if kind == "mxf4nvf4" and i % 2 == 0 else "ue8m0"
    if kind != "i8":
        c.negate_a, c.negate_b = i % 5 == 2, i % 7 == 3
    # majorness: vary where Table 54 allows; 8-bit transposed B needs N a multiple of 16 * cta_group (Table 52)
    c.b_swizzle = c.swizzle
    a_mn, b_mn = _mn_legal(kind, c.a_type, c.swizzle), _mn_legal(kind, c.b_type, c.swizzle)
    if idm.TYPE_BITS[c.b_type] == 8 and c.n % (16 * c.cg):
        b_mn = False
    c.a_major = "MN" if a_mn and i % 3 == 1 else "K"
    c.b_major = "MN" if b_mn and i % 3 == 2 else "K"
    # a K-major operand's K extent per instruction must fit in its swizzle row: sparse B (64 B) does not fit a
    # 32B row: it goes MN-major if it may, else it takes the 64B mode
    kb = 64 if c.sparse else 32
    if c.swizzle == "32B" and c.sparse and c.b_major == "K":
        if b_mn:
            c.b_major = "MN"
        else:
            c.b_swizzle = "64B"
    limits = []
    if c.a_major == "K" and c.swizzle != "none":
        limits.append(_row_bytes(c.swizzle) // 32)
    if c.b_major == "K" and c.b_swizzle != "none":
        limits.append(_row_bytes(c.b_swizzle) // kb)
    c.ksteps = max(1, min([4] + limits)) if limits else 2
    half = tl.layout_name(c.m, c.cg, c.sparse) in ("F", "C")
    c.d_lane = 16 if half and i % 2 else 0
    if c.sparse:
        c.meta_via = "st" if i % 4 == 1 else "cp"
    c.d_init = i % 3 == 0
    return c


# ---------------------------------------------------------------------- operand values
def _finite_codes(t):
    bits = idm.TYPE_BITS[t]
    codes = np.arange(1 << bits)
    v = formats.decode(t, codes)
    return codes[np.isfinite(v)], v[np.isfinite(v)]


def _values(rng, t, shape, small: bool):
    """Raw container bits and values of random elements of type ``t`` (``small``: |v| <= 4)."""
    if t in ("s8", "u8"):
        raw = rng.integers(0, 256, shape)
        return raw.astype(np.uint64), formats.decode(t, raw).astype(np.int64)
    if t in ("f16", "bf16", "tf32"):
        ebits, bias, mbits, width = {"f16": (5, 15, 10, 16), "bf16": (8, 127, 7, 16), "tf32": (8, 127, 10, 32)}[t]
        e = rng.integers(bias - 6, bias + (2 if small else 4), shape)
        mant = rng.integers(0, 1 << mbits, shape)
        sign = rng.integers(0, 2, shape)
        if t == "tf32":  # the 19 bits of tf32 in an f32 container, the low 13 bits zero
            raw = sign << 31 | e << 23 | mant << 13
        else:
            raw = sign << (width - 1) | e << mbits | mant
        raw = raw.astype(np.uint64)
        return raw, formats.decode(t, raw)
    codes, vals = _finite_codes(t)
    if small:
        keep = np.abs(vals) <= 4
        codes, vals = codes[keep], vals[keep]
    pick = rng.integers(0, len(codes), shape)
    return codes[pick].astype(np.uint64), vals[pick]


def _scales(rng, stype, shape):
    if stype == "ue8m0":
        raw = rng.integers(124, 131, shape)  # 2^-3 .. 2^3
    else:  # ue4m3: positive, 0.25 .. 4 with random mantissas
        raw = rng.integers(0x28, 0x49, shape)
    return raw.astype(np.uint64), formats.decode(stype, raw)


_CODES24 = np.array([0x4, 0x8, 0xC, 0x9, 0xD, 0xE])


def _sparsify(rng, kind, packed_vals, k):
    """Metadata codes (rows, chunks) and the dense A (rows, k) they make of the packed values (rows, k/2)."""
    rows = packed_vals.shape[0]
    chunk = tl.CHUNK[kind]
    nch = k // chunk
    dense = np.zeros((rows, k), dtype=packed_vals.dtype)
    if chunk == 2:  # tf32: one kept element per pair, 0b0100 = element 0, 0b1110 = element 1
        codes = np.where(rng.integers(0, 2, (rows, nch)) == 1, 0xE, 0x4)
        pos = np.arange(nch) * 2 + (codes == 0xE)
        np.put_along_axis(dense, pos, packed_vals, axis=1)
        return codes, dense
    codes = rng.choice(_CODES24, (rows, nch))
    i0, i1 = codes & 3, codes >> 2
    base = np.arange(nch) * chunk
    if chunk == 4:
        np.put_along_axis(dense, base + i0, packed_vals[:, 0::2], axis=1)
        np.put_along_axis(dense, base + i1, packed_vals[:, 1::2], axis=1)
    else:  # mxf4: the indices pick pairs
        for e in range(2):
            np.put_along_axis(dense, base + 2 * i0 + e, packed_vals[:, e::4], axis=1)
            np.put_along_axis(dense, base + 2 * i1 + e, packed_vals[:, 2 + e::4], axis=1)
    return codes, dense


# ---------------------------------------------------------------------- shared-memory tiles
def tile(major, sw, mn, kelems, bits, kstep):
    """(lbo, sbo, size, step offset) of a canonical tile: ``mn`` rows along M/N, ``kelems`` along K, ``kstep``
    elements of K per instruction; offsets in bytes from the tile's start."""
    if major == "K":
        r8 = -(-mn // 8) * 8
        kbytes = kelems * bits // 8
        if sw == "none":  # 8 x 16 B core matrices: SBO = next 8 rows, LBO = next 16 B of K
            lbo = 16 * r8
            return lbo, 128, (kbytes // 16) * lbo, kstep * bits // 8 // 16 * lbo
        w = _row_bytes(sw)
        assert kbytes <= w, (sw, kbytes)
        return 16, 8 * w, r8 * w, kstep * bits // 8  # LBO unused (encoded 1); SBO = one 8-row atom
    mnbytes = mn * bits // 8
    if sw == "none":  # SBO = next 16 B along M/N (8 K rows x 16 B), LBO = next 8 K rows
        lbo = 128 * -(-mnbytes // 16)
        return lbo, 128, (kelems // 8) * lbo, kstep // 8 * lbo
    w = _row_bytes(sw)
    group = 4 if sw == "128B_base32B" else 8
    sbo = group * w
    lbo = sbo * (kelems // group)
    return lbo, sbo, -(-mnbytes // w) * lbo, kstep // group * sbo


def _desc(start, lbo, sbo, sw) -> int:
    return sd.encode(sd.SmemDescriptor(start, lbo, sbo, sw))


def _check_steps(start, lbo, sbo, sw, major, mn, kstep, bits, ksteps, step_off):
    """The per-step descriptors name the same bytes as the tile descriptor shifted by one step of K."""
    whole = sd.SmemDescriptor(start, lbo, sbo, sw)
    for j in range(ksteps):
        part = sd.SmemDescriptor(start + j * step_off, lbo, sbo, sw)
        if major == "K":
            r, b = np.meshgrid(np.arange(mn), np.arange(kstep * bits // 8), indexing="ij")
            assert (sd.address(part, "K", r, b) == sd.address(whole, "K", r, b + j * kstep * bits // 8)).all()
        else:
            r, b = np.meshgrid(np.arange(kstep), np.arange(mn * bits // 8), indexing="ij")
            assert (sd.address(part, "MN", r, b) == sd.address(whole, "MN", r + j * kstep, b)).all()


def _align(x, a):
    return -(-x // a) * a


# ---------------------------------------------------------------------- one case
def build(c: Case, seed: int):
    """Fill ``c.data``: per CTA an image, a TMEM image, a plan row; plus the reference (D_ref, S)."""
    rng = np.random.default_rng(seed)
    kind, cg, m, n = c.kind, c.cg, c.m, c.n
    desc0 = idm.InstrDescriptor(kind, m, n, c.a_type, c.b_type, c.d_type, sparse=c.sparse, saturate=c.saturate,
                                negate_a=c.negate_a, negate_b=c.negate_b, transpose_a=c.a_major == "MN",
                                transpose_b=c.b_major == "MN", scale_type=c.scale_type, cta_group=cg)
    k = desc0.k
    ka = k // 2 if c.sparse else k
    abits, bbits = container_bits(kind, c.a_type), container_bits(kind, c.b_type)
    small = c.d_type == "f16"
    # operands for all K steps: A packed (M, ksteps * ka), B (N, ksteps * k)
    a_raw, a_val = _values(rng, c.a_type, (m, c.ksteps * ka), small)
    b_raw, b_val = _values(rng, c.b_type, (n, c.ksteps * k), small)
    nb = SCALES_PER_ROW.get(kind, 1)
    if kind in BLOCK_SCALED:
        sa_raw, sa_val = _scales(rng, c.scale_type, (c.ksteps, m, nb))
        sb_raw, sb_val = _scales(rng, c.scale_type, (c.ksteps, n, nb))
    dense_a, codes = [], []
    for j in range(c.ksteps):
        part = a_val[:, j * ka:(j + 1) * ka]
        if c.sparse:
            cd, dense = _sparsify(rng, kind, part, k)
            codes.append(cd)
            dense_a.append(dense)
        else:
            dense_a.append(part)
    # the reference, step by step: D_j = D_{j-1} + sum_blocks sA sB A_j B_j
    rows = m // cg
    dl = tl.layout_name(m, cg, c.sparse)
    dcols = n // 2 if dl == "B" else n
    is_int = c.d_type == "s32"
    if c.d_init:
        if is_int:
            big = rng.integers(0, 2, (m, n)).astype(bool) & (c.index % 2 == 0)
            cval = np.where(big, rng.choice([2**31 - 5000, -2**31 + 5000], (m, n)), rng.integers(-2**20, 2**20, (m, n)))
            craw = (cval.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32)
        else:
            craw64, cval = _values(rng, c.d_type if c.d_type == "f16" else "tf32", (m, n), small)
            craw = craw64.astype(np.uint32)
    else:
        cval = np.zeros((m, n), np.int64 if is_int else np.float64)
        craw = np.zeros((m, n), np.uint32)
    sgn_a, sgn_b = (-1.0 if c.negate_a else 1.0), (-1.0 if c.negate_b else 1.0)
    dref = cval.astype(np.int64 if is_int else np.float64)
    mag = np.abs(cval).astype(np.float64)
    for j in range(c.ksteps):
        A = dense_a[j] * (1 if is_int else sgn_a)
        B = b_val[:, j * k:(j + 1) * k].T * (1 if is_int else sgn_b)  # (K, N)
        if kind in BLOCK_SCALED:
            per = k // nb
            prod = sum(sa_val[j][:, blk][:, None] * sb_val[j][:, blk][None, :]
                       * (A[:, blk * per:(blk + 1) * per] @ B[blk * per:(blk + 1) * per]) for blk in range(nb))
            mag += sum(sa_val[j][:, blk][:, None] * sb_val[j][:, blk][None, :]
                       * (np.abs(A[:, blk * per:(blk + 1) * per]) @ np.abs(B[blk * per:(blk + 1) * per]))
                       for blk in range(nb))
        elif is_int:
            prod = A.astype(np.int64) @ B.astype(np.int64)
        else:
            prod = A @ B
            mag += np.abs(A) @ np.abs(B)
        if is_int:
            dref = dref + prod
            dref = np.clip(dref, -2**31, 2**31 - 1) if c.saturate else (dref + 2**31) % 2**32 - 2**31
        else:
            dref = dref + prod
    c.data["dref"], c.data["mag"] = dref, mag
    # TMEM columns: D at 0.., metadata after it, scale factors after that
    meta_base = _align(dcols, 8)
    sf_base = meta_base + 8
    dump_cols = _align(dcols, 32)
    sets = 0
    if kind in BLOCK_SCALED:
        per_set = 4 // nb  # instructions per group of scale-factor columns (scale_factor_id steps by nb)
        sets = -(-c.ksteps // per_set)
        sfb_cols = _align(-(-n // 32), 4)
        sf_stride = 4 + sfb_cols
    ctas = []
    _, lane, col = tl.datapath(m, n, cg, c.sparse, lane_align=c.d_lane)
    cta_of = np.repeat(np.arange(cg), rows)
    for r in range(cg):
        mine = slice(r * rows, (r + 1) * rows)
        # shared-memory image: A tile, B tile, metadata staging, scale-factor staging
        a_mn, a_k = rows, c.ksteps * ka
        b_mn = n // cg
        a_lbo, a_sbo, a_size, a_step = tile(c.a_major, c.swizzle, a_mn, a_k, abits, ka)
        b_lbo, b_sbo, b_size, b_step = tile(c.b_major, c.b_swizzle, b_mn, c.ksteps * k, bbits, k)
        b_off = _align(a_size, 1024)
        meta_off = _align(b_off + b_size, 1024)
        img = np.zeros(meta_off + 2048 * 4 + 512 * 16, np.uint8)
        sd.write_tile(img, sd.SmemDescriptor(0, a_lbo, a_sbo, c.swizzle), c.a_major, a_raw[mine], abits)
        sd.write_tile(img, sd.SmemDescriptor(b_off, b_lbo, b_sbo, c.b_swizzle), c.b_major,
                      b_raw[r * b_mn:(r + 1) * b_mn], bbits)
        _check_steps(0, a_lbo, a_sbo, c.swizzle, c.a_major, a_mn, ka, abits, c.ksteps, a_step)
        _check_steps(b_off, b_lbo, b_sbo, c.b_swizzle, c.b_major, b_mn, k, bbits, c.ksteps, b_step)
        # TMEM image: the initial D (in the data-path layout) and/or the metadata
        timg = np.zeros((128, sf_base), np.uint32)
        if c.d_init:
            sel = cta_of[:, None].repeat(n, 1) == r
            timg[lane[sel], col[sel]] = craw[sel] & (0xFFFF if c.d_type == "f16" else 0xFFFFFFFF)
        meta_cp = 0
        if c.sparse:
            meta = np.zeros((128, 8), np.uint32)
            for j in range(c.ksteps):
                ml, mc, mb = tl.metadata_nibbles(kind, rows, k, c.d_lane)
                cj = (j & ~1) + (j & 1) if kind in ("f16", "tf32") else 2 * j  # address column + selector
                np.bitwise_or.at(meta, (ml, mc + cj), (codes[j][mine].astype(np.uint32) << mb.astype(np.uint32)))
            if c.meta_via == "cp":
                meta_cp = 2
                stage = meta.reshape(128, 2, 4).transpose(1, 0, 2).copy()  # 2 tiles x 128 lanes x 4 columns
                img[meta_off:meta_off + 4096] = stage.view(np.uint8).ravel()
            else:
                timg[:, meta_base:meta_base + 8] = meta
        tinit_cols = 0
        if c.sparse and c.meta_via == "st":
            tinit_cols = _align(meta_base + 8, 32)
        elif c.d_init:
            tinit_cols = _align(meta_base, 32)
        timg = np.pad(timg, ((0, 0), (0, max(0, tinit_cols - timg.shape[1]))))
        sf_off = meta_off + 2048 * meta_cp
        sf_cp = 0
        if kind in BLOCK_SCALED:
            cells = np.zeros((32, sets * sf_stride, 4), np.uint8)
            for j in range(c.ksteps):
                s, sid = j // per_set, (j % per_set) * nb
                for blk in range(nb):
                    i = np.arange(rows)
                    cells[i % 32, s * sf_stride + i // 32, sid + blk] = sa_raw[j][mine][:, blk]
                    q = np.arange(n)
                    cells[q % 32, s * sf_stride + 4 + q // 32, sid + blk] = sb_raw[j][:, blk]
            sf_cp = sets * sf_stride // 4
            stage = cells.reshape(32, sf_cp, 16).transpose(1, 0, 2)  # per cp: 32 rows x 16 B
            img[sf_off:sf_off + 512 * sf_cp] = stage.ravel()
        img_bytes = _align(sf_off + 512 * sf_cp, 16)
        # plan row
        plan = np.zeros(PLAN_WORDS, np.uint32)
        plan[1:5] = [img_bytes, c.ksteps, c.d_lane, dump_cols]
        plan[7:14] = [tinit_cols, meta_cp, meta_off, meta_base, sf_cp, sf_off, sf_base]
        for j in range(c.ksteps):
            d = idm.InstrDescriptor(**{**desc0.__dict__,
                                       "sparsity_selector": (j & 1) if c.sparse and kind in ("f16", "tf32") else 0,
                                       "scale_factor_a_id": (j % per_set) * nb if kind in BLOCK_SCALED else 0,
                                       "scale_factor_b_id": (j % per_set) * nb if kind in BLOCK_SCALED else 0})
            ad = _desc(j * a_step, a_lbo, a_sbo, c.swizzle)
            bd = _desc(b_off + j * b_step, b_lbo, b_sbo, c.b_swizzle)
            mcol = meta_base + ((j & ~1) if kind in ("f16", "tf32") else 2 * j)
            sfa = sf_base + (j // per_set) * sf_stride if kind in BLOCK_SCALED else 0
            row = [idm.encode(d), ad & 0xFFFFFFFF, ad >> 32, bd & 0xFFFFFFFF, bd >> 32, (c.d_lane << 16) | mcol,
                   sfa, sfa + 4 if kind in BLOCK_SCALED else 0, int(c.d_init or j > 0)]
            plan[P_STEP + S_WORDS * j:P_STEP + S_WORDS * j + len(row)] = row
        ctas.append({"img": img[:img_bytes], "tinit": timg[:, :tinit_cols], "plan": plan, "dump_cols": dump_cols})
    c.data["ctas"] = ctas
    return c


def launch_arrays(cases):
    """(plan, img, tinit, out, shared_mem) for one launch of every case in ``cases`` (one kernel form)."""
    plans, imgs, tinits = [], [], []
    img_off = tinit_off = out_off = 0
    for c in cases:
        for x in c.data["ctas"]:
            p = x["plan"].copy()
            p[0], p[6], p[5] = img_off // 16, tinit_off, out_off
            x["out_off"] = out_off
            plans.append(p)
            imgs.append(x["img"])
            img_off += len(x["img"])
            t = x["tinit"].ravel()
            tinits.append(t)
            tinit_off += len(t)
            out_off += 128 * x["dump_cols"]
    img = np.concatenate(imgs) if imgs else np.zeros(16, np.uint8)
    tinit = np.concatenate(tinits + [np.zeros(8, np.uint32)])
    smem = max(len(x["img"]) for c in cases for x in c.data["ctas"]) + 1024
    return np.stack(plans).ravel(), img, tinit, np.zeros(out_off, np.uint32), smem


def result(c: Case, out):
    """D (M, N) read back from the TMEM dumps through the data-path layout."""
    cta, lane, col = tl.datapath(c.m, c.n, c.cg, c.sparse, lane_align=c.d_lane)
    dumps = [out[x["out_off"]:x["out_off"] + 128 * x["dump_cols"]].reshape(128, x["dump_cols"]) for x in c.data["ctas"]]
    raw = np.stack(dumps)[cta, lane, col]
    if c.d_type == "s32":
        return raw.view(np.int32).astype(np.int64)
    if c.d_type == "f16":
        return formats.decode("f16", raw & 0xFFFF)
    return raw.view(np.float32).astype(np.float64)


def check(c: Case, got):
    """None if ``got`` is within the case's bound, else a message."""
    ref, mag = c.data["dref"], c.data["mag"]
    if c.d_type == "s32":
        bad = got != ref
        if bad.any():
            r, q = np.argwhere(bad)[0]
            return f"{c.name}: D[{r},{q}] = {got[r, q]}, numpy {ref[r, q]} ({int(bad.sum())} differ)"
        return None
    bound = c.ksteps * BOUND_ULP[c.d_type] * mag
    err = np.abs(got - ref)
    bad = ~(err <= bound)
    if bad.any():
        r, q = np.argwhere(bad)[0]
        return (f"{c.name}: D[{r},{q}] = {got[r, q]!r}, numpy {ref[r, q]!r}, |error| {err[r, q]:.3g} > bound "
                f"{bound[r, q]:.3g} ({int(bad.sum())} outside)")
    return None


def matrix():
    """{(kind, sparse, cg): [Case, ...]} for every kernel form."""
    return {(k, sp, cg): list(cases_of(k, sp, cg)) for k in KINDS for sp in (False, True) for cg in (1, 2)}


def summary(mat) -> str:
    """Counts per kind / M / N / swizzle / sparse, as the report states them."""
    lines = []
    for k in KINDS:
        cs = [c for (kk, _, _), v in mat.items() if kk == k for c in v]
        by = lambda f: ", ".join(f"{key}: {n}" for key, n in sorted(_count(cs, f).items(), key=lambda t: str(t[0])))  # noqa: E731
        lines.append(f"{k}: {len(cs)} cases; M {by(lambda c: c.m)}; N {by(lambda c: c.n)}; swizzle "
                     f"{by(lambda c: c.swizzle)}; {by(lambda c: 'sparse' if c.sparse else 'dense')}; "
                     f"cta_group {by(lambda c: c.cg)}")
    return "\n".join(lines)


def _count(cs, f):
    out = {}
    for c in cs:
        out[f(c)] = out.get(f(c), 0) + 1
    return out


if __name__ == "__main__":
    print(summary(matrix()))
    print(sum(len(v) for v in matrix().values()), "cases,", math.fsum(c.cg for v in matrix().values() for c in v), "CTAs")
