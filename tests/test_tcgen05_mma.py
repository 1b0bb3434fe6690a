"""tcgen05.mma / mma.sp functional model against a numpy matmul: every kind x M x a few N x dense/sparse.

Error bounds (the model: exact products, float64 sum, one final rounding - see isa/tcgen05/mma.py):
  f32 accumulator (f16, bf16, tf32, f8f6f4, mxf8f6f4, mxf4, mxf4nvf4): |D - ref| <= ulp_f32(|ref|) + 2^-50 sum|terms|
  f16 accumulator: |D - ref| <= ulp_f16(|ref|) / 2 + 2^-50 sum|terms|   (round to nearest even)
  s32 accumulator (i8): exact, wrapping modulo 2^32 (saturating with idesc.saturate).
"""
import numpy as np
import pytest

from isa import formats
from isa.errors import UndefinedBehavior
from isa.tcgen05 import smem_desc as sd
from isa.tcgen05 import tmem_layout as tl
from isa.tcgen05.idesc import DescriptorError, InstrDescriptor, legal_shapes
from isa.tcgen05.mma import Cta, MmaError, container_bits, mma
from warpsim.tmem import Tmem

_POOLS = {}


def pool(t):
    """Raw patterns of finite values of type t with |v| <= 8 (and f16/bf16 >= 2^-6 or zero)."""
    if t not in _POOLS:
        src = "f16" if t == "tf32" else t
        bits = formats.get(src).bits
        pats = np.arange(1 << bits)
        v = formats.decode(src, pats)
        ok = np.isfinite(v) & (np.abs(v) <= 8) & ((np.abs(v) >= 2.0 ** -6) | (v == 0))
        pats = pats[ok]
        if t == "tf32":
            pats = formats.f32_bits(formats.decode("f16", pats).astype(np.float32)).astype(np.int64)
        _POOLS[t] = pats
    return _POOLS[t]


def rand(rng, t, shape):
    return rng.choice(pool(t), size=shape).astype(np.uint64)


def value(t, raw):
    return formats.decode(t, raw)


CODES24 = np.array([0x4, 0x8, 0xC, 0x9, 0xD, 0xE, 0x6])


def sparsify(rng, kind, a_packed_vals, k):
    """Random metadata codes and the dense A they imply (independent of the model's decoder)."""
    rows = a_packed_vals.shape[0]
    chunk = tl.CHUNK[kind]
    nch = k // chunk
    dense = np.zeros((rows, k))
    if chunk == 2:
        codes = rng.choice([0x4, 0xE], size=(rows, nch))
        for c in range(nch):
            dense[np.arange(rows), 2 * c + (codes[:, c] == 0xE)] = a_packed_vals[:, c]
        return codes, dense
    codes = rng.choice(CODES24, size=(rows, nch))
    for r in range(rows):
        for c in range(nch):
            i0, i1 = codes[r, c] & 3, codes[r, c] >> 2
            if chunk == 4:
                dense[r, 4 * c + i0], dense[r, 4 * c + i1] = a_packed_vals[r, 2 * c], a_packed_vals[r, 2 * c + 1]
            else:
                dense[r, 8 * c + 2 * i0:8 * c + 2 * i0 + 2] = a_packed_vals[r, 4 * c:4 * c + 2]
                dense[r, 8 * c + 2 * i1:8 * c + 2 * i1 + 2] = a_packed_vals[r, 4 * c + 2:4 * c + 4]
    return codes, dense


def put_metadata(tmem, kind, codes, addr, sel, lane_align):
    lane, col, bit = tl.metadata_nibbles(kind, codes.shape[0], codes.shape[1] * tl.CHUNK[kind], lane_align)
    cols = (addr & 0xFFFF) + sel + col
    for l, c, b, v in zip(lane.ravel(), cols.ravel(), bit.ravel(), codes.ravel()):
        tmem.cells[l, c] = (int(tmem.cells[l, c]) & ~(0xF << int(b))) | (int(v) << int(b))
        tmem.defined[l, c] = True


def operand_desc(addr, major, mode, rows, row_bytes):
    """A packed canonical layout for a (rows x row_bytes) K-major or (row_bytes along MN) MN-major tile."""
    if major == "K":
        if mode == "none":
            return sd.SmemDescriptor(addr, 128 * (rows // 8), 128)
        return sd.SmemDescriptor(addr, 16, 8 * sd.SWIZZLES[mode].row_bytes, mode)
    if mode == "none":  # rows = K index; 16 B MN chunks 128 B apart, 8-row K groups after all chunks
        return sd.SmemDescriptor(addr, 128 * (row_bytes // 16), 128)
    w = sd.SWIZZLES[mode].row_bytes
    group = 4 if mode == "128B_base32B" else 8
    return sd.SmemDescriptor(addr, group * w, group * w * max(1, row_bytes // w), mode)


def smem_operand(smem, addr, raw, bits, transposed, mode):
    mn, k = raw.shape
    major = "MN" if transposed else "K"
    d = operand_desc(addr, major, mode, mn if major == "K" else k, (k if major == "K" else mn) * bits // 8)
    sd.write_tile(smem, d, major, raw, bits)
    return sd.encode(d)


def run_case(kind, m, cg, n, sparse, a_type, b_type, d_type="f32", seed=0, a_in_tmem=False, lane_align=0,
             layout=("none", "none"), transpose=(False, False), enable_input_d=True, scale_vec=None,
             scale_type="ue8m0", negate=(False, False), scale_input_d=0):
    rng = np.random.default_rng(seed)
    kw = dict(kind=kind, m=m, n=n, a_type=a_type, b_type=b_type, sparse=sparse, cta_group=cg,
              transpose_a=transpose[0], transpose_b=transpose[1])
    if kind.startswith("mx"):
        kw.update(scale_type=scale_type)
    else:
        kw.update(d_type=d_type, negate_a=negate[0], negate_b=negate[1])
    if sparse and kind in ("f16", "tf32"):
        kw["sparsity_selector"] = int(rng.integers(0, 2))
    d = InstrDescriptor(**kw)
    k, rows = d.k, m // cg
    ka = k // 2 if sparse else k
    ab, bb = container_bits(kind, a_type), container_bits(kind, b_type)
    ctas = [Cta(Tmem(c), np.zeros(1 << 16, np.uint8)) for c in range(cg)]
    for c in ctas:
        c.tmem.alloc(512)
    a_raw = rand(rng, a_type, (m, ka))
    b_raw = rand(rng, b_type, (n, k))
    a_vals, b_vals = value(a_type, a_raw), value(b_type, b_raw)
    a_dense = a_vals
    d_tmem = lane_align << 16 | 8
    cta_of, lane, col = tl.datapath(m, n, cg, sparse, lane_align=lane_align)
    meta_addr = lane_align << 16 | 300
    if sparse:
        codes, a_dense = sparsify(rng, kind, a_vals, k)
        for c in range(cg):
            put_metadata(ctas[c].tmem, kind, codes[c * rows:(c + 1) * rows], meta_addr, d.sparsity_selector, lane_align)
    a_arg = {}
    for c, cta in enumerate(ctas):
        sl = slice(c * rows, (c + 1) * rows)
        b_desc = smem_operand(cta.smem, 0x8000, b_raw[c * n // cg:(c + 1) * n // cg], bb, transpose[1], layout[1])
        if a_in_tmem:  # A in the lanes of the D rows it produces (duplicated for Layout B)
            per = 32 // ab
            for r in range(rows):
                for ln in np.unique(lane[c * rows + r]):
                    for j in range(ka):
                        cell = cta.tmem.cells[ln, 200 + j // per]
                        sh = (j % per) * ab
                        cta.tmem.cells[ln, 200 + j // per] = (int(cell) & ~(((1 << ab) - 1) << sh)) | (int(a_raw[sl][r, j]) << sh)
                        cta.tmem.defined[ln, 200 + j // per] = True
            a_arg = dict(a_tmem=lane_align << 16 | 200)
        else:
            a_arg = dict(a_desc=smem_operand(cta.smem, 0x1000, a_raw[sl], ab, transpose[0], layout[0]))
    # accumulator input
    old = rng.integers(-4, 5, (m, n)).astype(np.float64)
    for c, cta in enumerate(ctas):
        sel = cta_of == c
        bits = (old[sel].astype(np.int64) & 0xFFFFFFFF) if d.d_type == "s32" else (
            formats.f16_bits(old[sel]).astype(np.uint32) if d.d_type == "f16" else formats.f32_bits(old[sel]))
        cta.tmem.cells[lane[sel], 8 + col[sel]] = bits
        cta.tmem.defined[lane[sel], 8 + col[sel]] = True
    extra = {}
    sa = sb = None
    if d.block_scaled:
        nb = {"1X": 1, "2X": 2, "4X": 4, "block16": 4, "block32": 2}[scale_vec or {"mxf8f6f4": "1X", "mxf4": "2X"}[kind]]
        st = scale_type
        sa_raw = rng.integers(120, 135, (m, nb)) if st == "ue8m0" else rng.choice(np.arange(0x08, 0x50), (m, nb))
        sb_raw = rng.integers(120, 135, (n, nb)) if st == "ue8m0" else rng.choice(np.arange(0x08, 0x50), (n, nb))
        sa, sb = value(st, sa_raw), value(st, sb_raw)
        for c, cta in enumerate(ctas):  # JAX scales_layout: 32 rows per column, bytes = K blocks, 4 quarters
            for idx_raw, base, sf in ((sa_raw[c * rows:(c + 1) * rows], 400, d.scale_factor_a_id), (sb_raw, 440, d.scale_factor_b_id)):
                for i in range(idx_raw.shape[0]):
                    word = sum(int(idx_raw[i, j]) << (8 * (sf + j)) for j in range(nb))
                    for q in range(4):
                        cta.tmem.cells[32 * q + i % 32, base + i // 32] = word
                        cta.tmem.defined[32 * q + i % 32, base + i // 32] = True
        extra = dict(scale_a_tmem=400, scale_b_tmem=440, scale_vec=scale_vec)
    mma(d, ctas, d_tmem, b_desc, sp_meta_tmem=meta_addr if sparse else None, enable_input_d=enable_input_d, scale_input_d=scale_input_d,
        **a_arg, **extra)
    # reference: a dense matmul in float64 / int64
    sgn_a, sgn_b = (-1 if negate[0] else 1), (-1 if negate[1] else 1)
    A, B = sgn_a * a_dense, sgn_b * b_vals.T
    if d.block_scaled:
        kb = k // sa.shape[1]
        A = A * np.repeat(sa, kb, axis=1)
        B = B * np.repeat(sb, kb, axis=1).T
    terms = np.abs(A) @ np.abs(B)
    ref = (A.astype(np.int64) @ B.astype(np.int64)) if d.d_type == "s32" else A @ B
    if enable_input_d:
        ref = ref + (old.astype(np.int64) if d.d_type == "s32" else old * 2.0 ** -scale_input_d)
    got = np.empty((m, n))
    for c, cta in enumerate(ctas):
        sel = cta_of == c
        cells = cta.tmem.cells[lane[sel], 8 + col[sel]]
        got[sel] = (cells.astype(np.int32) if d.d_type == "s32" else
                    value(d.d_type, cells & (0xFFFF if d.d_type == "f16" else 0xFFFFFFFF)))
    return d, got, ref, terms


def check(d, got, ref, terms):
    if d.d_type == "s32":
        assert (got == ((ref + 2**31) % 2**32 - 2**31)).all()
        return
    mag = np.maximum(np.abs(ref), 2.0 ** -24)
    ulp = 2.0 ** (np.floor(np.log2(mag)) - (23 if d.d_type == "f32" else 10))
    bound = (ulp if d.d_type == "f32" else np.maximum(ulp, 2.0 ** -24) / 2) + 2.0 ** -50 * (terms + 8)
    err = np.abs(got - ref)
    assert (err <= bound).all(), f"max error {err.max()} at {np.unravel_index(np.argmax(err - bound), err.shape)}"
    assert np.abs(got).max() > 0


TYPES = {"f16": [("f16", "f16", "f32"), ("bf16", "bf16", "f32"), ("f16", "f16", "f16")], "tf32": [("tf32", "tf32", "f32")],
         "f8f6f4": [("e4m3", "e5m2", "f32"), ("e2m3", "e3m2", "f16"), ("e2m1", "e4m3", "f32")],
         "i8": [("s8", "u8", "s32"), ("u8", "s8", "s32")], "mxf8f6f4": [("e4m3", "e2m1", "f32"), ("e3m2", "e2m3", "f32")],
         "mxf4": [("e2m1", "e2m1", "f32")], "mxf4nvf4": [("e2m1", "e2m1", "f32")]}


def _cases():
    out = []
    for kind, types in TYPES.items():
        for m, cg in ((64, 1), (128, 1), (128, 2), (256, 2)):
            for sparse in (False, True):
                ms, ns = legal_shapes(kind, cg, False, sparse)
                if m not in ms or kind.startswith("mx") and m // cg != 128:
                    continue
                for i, n in enumerate((ns[0], ns[len(ns) // 2], ns[-1])):
                    a, b, dt = types[i % len(types)]
                    sv, stype = {"mxf4nvf4": [("4X", "ue4m3"), ("2X", "ue8m0"), ("block16", "ue8m0")][i],
                                 "mxf4": (("block32" if i else "2X"), "ue8m0")}.get(kind, (None, "ue8m0"))
                    out.append(pytest.param(kind, m, cg, n, sparse, a, b, dt, sv, stype,
                                            id=f"{kind}-{a}x{b}-{dt}-M{m}-cg{cg}-N{n}-{'sp' if sparse else 'dense'}"
                                               + (f"-{sv}-{stype}" if sv else "")))
    return out


@pytest.mark.parametrize("kind,m,cg,n,sparse,a,b,dt,sv,stype", _cases())
def test_mma_against_numpy(kind, m, cg, n, sparse, a, b, dt, sv, stype):
    align = 16 if m // cg == 64 and (cg == 1 or sparse) and n % 16 == 0 else 0
    check(*run_case(kind, m, cg, n, sparse, a, b, dt, seed=m + n, lane_align=align, scale_vec=sv, scale_type=stype))


@pytest.mark.parametrize("kind,a,b,dt,layout,transpose,sparse", [
    ("f16", "f16", "f16", "f32", ("64B", "128B"), (True, True), False),
    ("f16", "bf16", "bf16", "f32", ("none", "none"), (True, True), True),
    ("f16", "f16", "f16", "f32", ("128B", "128B"), (False, False), True),  # sparse B: 64 B of K in a 128 B row
    ("tf32", "tf32", "tf32", "f32", ("128B_base32B", "128B_base32B"), (True, True), False),
    ("tf32", "tf32", "tf32", "f32", ("32B", "64B"), (False, False), True),
    ("i8", "s8", "s8", "s32", ("32B", "none"), (True, True), True),
    ("f8f6f4", "e4m3", "e5m2", "f32", ("128B", "32B"), (True, False), False),
    ("mxf4", "e2m1", "e2m1", "f32", ("128B", "128B"), (False, False), False),
])
def test_swizzled_and_transposed_operands(kind, a, b, dt, layout, transpose, sparse):
    cg, m = (2, 256) if kind.startswith("mx") and sparse else (1, 128)
    check(*run_case(kind, m, cg, 64, sparse, a, b, dt, seed=7, layout=layout, transpose=transpose))


@pytest.mark.parametrize("kind,m,cg,sparse,a,dt,align", [
    ("f16", 128, 1, False, "f16", "f32", 0), ("f16", 128, 1, True, "bf16", "f32", 0),
    ("f16", 64, 1, True, "f16", "f16", 16), ("f16", 128, 2, False, "f16", "f32", 0),  # Layout B: A duplicated
    ("tf32", 128, 2, True, "tf32", "f32", 16), ("i8", 256, 2, True, "s8", "s32", 0),
    ("f8f6f4", 128, 1, True, "e2m1", "f32", 0), ("mxf8f6f4", 256, 2, True, "e4m3", "f32", 0),
    ("mxf4", 128, 1, False, "e2m1", "f32", 0),
])
def test_a_from_tmem(kind, m, cg, sparse, a, dt, align):
    b = {"i8": "u8", "mxf8f6f4": "e5m2", "f8f6f4": "e4m3"}.get(kind, a)
    check(*run_case(kind, m, cg, 64, sparse, a, b, dt, seed=3, a_in_tmem=True, lane_align=align))


def test_negate_scale_input_d_and_no_accumulate():
    check(*run_case("f16", 128, 1, 32, True, "f16", "f16", negate=(True, False), scale_input_d=3))
    check(*run_case("tf32", 64, 1, 32, False, "tf32", "tf32", negate=(True, True), scale_input_d=15))
    check(*run_case("f8f6f4", 128, 1, 32, False, "e4m3", "e4m3", negate=(False, True), enable_input_d=False))


def _tiny(kind="f16", m=128, n=16, **kw):
    """One CTA, A = 1s in row 0 only (K-major, no swizzle), B = given; returns (desc, cta, args)."""
    d = InstrDescriptor(kind, m, n, "f16", "f16", kw.pop("d_type", "f32"), **kw)
    cta = Cta(Tmem(), np.zeros(1 << 16, np.uint8))
    cta.tmem.alloc(64)
    return d, cta


def test_final_rounding_is_toward_zero_for_f32():
    # D = (1 + 2^-23) + 1.5 * 2^-24 = 1 + 1.75 ulp: RZ keeps 1 + 1 ulp (RNE would give 1 + 2 ulp)
    d, cta = _tiny()
    a = np.zeros((128, 16)); a[0, 0] = 1.5
    b = np.zeros((16, 16)); b[0, 0] = 2.0 ** -24
    ad = smem_operand(cta.smem, 0x1000, formats.encode_exact("f16", a).astype(np.uint64), 16, False, "none")
    bd = smem_operand(cta.smem, 0x8000, formats.encode_exact("f16", b.T).astype(np.uint64), 16, False, "none")
    cta.tmem.cells[:, 0:16] = formats.f32_bits(np.float32(1 + 2.0 ** -23))
    cta.tmem.defined[:, 0:16] = True
    mma(d, [cta], 0, bd, a_desc=ad)
    assert cta.tmem.cells[0, 0] == formats.f32_bits(np.float32(1 + 2.0 ** -23))
    assert cta.tmem.cells[0, 1] == formats.f32_bits(np.float32(1 + 2.0 ** -23))  # untouched sum, exact
    # f16 accumulator: round to nearest even (1 + 0.75 ulp_f16 -> 1 + ulp_f16)
    d, cta = _tiny(d_type="f16")
    b[0, 0] = 2.0 ** -11
    bd = smem_operand(cta.smem, 0x8000, formats.encode_exact("f16", b.T).astype(np.uint64), 16, False, "none")
    ad = smem_operand(cta.smem, 0x1000, formats.encode_exact("f16", a).astype(np.uint64), 16, False, "none")
    cta.tmem.cells[:, 0:16] = formats.f16_bits(np.float16(1.0))
    cta.tmem.defined[:, 0:16] = True
    mma(d, [cta], 0, bd, a_desc=ad)
    assert cta.tmem.cells[0, 0] == formats.f16_bits(np.float16(1 + 2.0 ** -10))


def test_disable_output_lane_keeps_old_values():
    d, cta = _tiny()
    ad = smem_operand(cta.smem, 0x1000, rand(np.random.default_rng(1), "f16", (128, 16)), 16, False, "none")
    bd = smem_operand(cta.smem, 0x8000, rand(np.random.default_rng(2), "f16", (16, 16)), 16, False, "none")
    mask = [0x0000000F, 0, 0x80000000, 0]  # lanes 0..3 and 95 keep their values
    cta.tmem.cells[:, 0:16] = 0x12345678
    mma(d, [cta], 0, bd, a_desc=ad, enable_input_d=False, disable_output_lane=mask)
    kept = (cta.tmem.cells[:, 0:16] == 0x12345678).all(axis=1)
    assert np.flatnonzero(kept).tolist() == [0, 1, 2, 3, 95]


def test_i8_wraps_and_saturates():
    for sat in (False, True):
        d = InstrDescriptor("i8", 128, 16, "s8", "s8", "s32", saturate=sat)
        cta = Cta(Tmem(), np.zeros(1 << 16, np.uint8))
        cta.tmem.alloc(32)
        a = np.full((128, 32), 127)
        ad = smem_operand(cta.smem, 0x1000, formats.encode_exact("s8", a).astype(np.uint64), 8, False, "none")
        bd = smem_operand(cta.smem, 0x8000, formats.encode_exact("s8", a[:16]).astype(np.uint64), 8, False, "none")
        cta.tmem.cells[:, 0:16] = 2**31 - 100
        cta.tmem.defined[:, 0:16] = True
        mma(d, [cta], 0, bd, a_desc=ad)
        want = 2**31 - 1 if sat else (2**31 - 100 + 32 * 127 * 127) - 2**32
        assert int(cta.tmem.cells[7, 3].astype(np.int32)) == want


def test_pruned_zero_never_meets_inf_in_b():
    d = InstrDescriptor("f16", 128, 16, "f16", "f16", "f32", sparse=True)
    cta = Cta(Tmem(), np.zeros(1 << 16, np.uint8))
    cta.tmem.alloc(64)
    ad = smem_operand(cta.smem, 0x1000, np.full((128, 16), 0x3C00, np.uint64), 16, False, "none")  # 1.0
    b = np.full((16, 32), 0x3C00, np.uint64)
    b[:, 3::4] = 0x7C00  # +Inf at every dense position 3 (pruned by code 0x4: indices 0, 1)
    bd = smem_operand(cta.smem, 0x8000, b, 16, False, "128B")
    put_metadata(cta.tmem, "f16", np.full((128, 8), 0x4), 32, 0, 0)
    mma(d, [cta], 0, bd, a_desc=ad, sp_meta_tmem=32, enable_input_d=False)
    assert (cta.tmem.cells[:, 0:16].view(np.float32) == 16.0).all()


def test_cutlass_style_metadata_staging_with_selector_stepping():
    """f16 .sp, K = 128 as 4 instructions: the metadata atom (reference 3.4 CuTe layout) is copied by one
    tcgen05.cp.128x128b; step j uses column base + (j & ~1) and sparsity_selector j & 1 (CUTLASS/JAX)."""
    rng = np.random.default_rng(11)
    cta = Cta(Tmem(), np.zeros(1 << 17, np.uint8))
    cta.tmem.alloc(128)
    a_packed = rand(rng, "f16", (128, 64))
    codes, a_dense = sparsify(rng, "f16", value("f16", a_packed), 128)
    atom = np.zeros(128 * 128, np.uint8)  # bits, then packed to bytes: lane-major 16 B per lane
    for r in range(128):
        for k in range(128):
            if (codes[r, k // 4] >> (k % 4)) & 1:
                off = 128 * (r % 8) + 16 * ((r // 8) % 2) + 2048 * (r // 16) + (k % 16) + 1024 * ((k // 16) % 2) + 32 * (k // 32)
                atom[off] = 1
    cta.smem[0x10000:0x10800] = np.packbits(atom, bitorder="little")
    cta.tmem.cp(96, "128x128b", cta.smem, sd.encode(sd.SmemDescriptor(0x10000 & 0x3FFF0, 0, 128)))
    b_raw = rand(rng, "f16", (64, 128))
    cta.tmem.cells[:, 0:64] = 0
    cta.tmem.defined[:, 0:64] = True
    for j in range(4):
        d = InstrDescriptor("f16", 128, 64, "f16", "f16", "f32", sparse=True, sparsity_selector=j & 1)
        ad = smem_operand(cta.smem, 0x1000, a_packed[:, 16 * j:16 * j + 16], 16, False, "none")
        bd = smem_operand(cta.smem, 0x8000, b_raw[:, 32 * j:32 * j + 32], 16, False, "none")
        mma(d, [cta], 0, bd, a_desc=ad, sp_meta_tmem=96 + (j & ~1))
    ref = a_dense @ value("f16", b_raw).T
    got = cta.tmem.cells[:, 0:64].view(np.float32)
    terms = np.abs(a_dense) @ np.abs(value("f16", b_raw)).T
    assert (np.abs(got - ref) <= 4 * 2.0 ** -23 * terms).all()  # four RZ roundings of partial sums


@pytest.mark.parametrize("m,align", [(128, 0), (64, 16)])
def test_d_read_back_with_tcgen05_ld(m, align):
    """The epilogue view: warp w's tcgen05.ld.32x32b at lane 32w sees D rows 32w.. (M = 128) or,
    for M = 64 (Layout F), rows 16w.. in lanes 32w + align + 0..15."""
    rng = np.random.default_rng(9)
    d = InstrDescriptor("f16", m, 32, "f16", "f16", "f32")
    cta = Cta(Tmem(), np.zeros(1 << 16, np.uint8))
    cta.tmem.alloc(32)
    a, b = rand(rng, "f16", (m, 16)), rand(rng, "f16", (32, 16))
    ad = smem_operand(cta.smem, 0x1000, a, 16, False, "none")
    bd = smem_operand(cta.smem, 0x8000, b, 16, False, "none")
    mma(d, [cta], align << 16, bd, a_desc=ad, enable_input_d=False)
    ref = value("f16", a) @ value("f16", b).T
    for w in range(4):
        regs = cta.tmem.ld(w, (32 * w) << 16, "32x32b", 32).view(np.float32)
        rows = regs if m == 128 else regs[align:align + 16]
        want = ref[32 * w:32 * w + 32] if m == 128 else ref[16 * w:16 * w + 16]
        assert np.allclose(rows, want, rtol=2.0 ** -22, atol=0)


def test_errors_are_named():
    d = InstrDescriptor("f16", 128, 16, "f16", "f16", "f32", sparse=True)
    cta = Cta(Tmem(), np.zeros(1 << 16, np.uint8))
    cta.tmem.alloc(64)
    ad = smem_operand(cta.smem, 0x1000, np.full((128, 8), 0x3C00, np.uint64), 16, False, "none")
    bd = smem_operand(cta.smem, 0x8000, np.full((16, 32), 0x3C00, np.uint64), 16, False, "128B")
    put_metadata(cta.tmem, "f16", np.full((128, 8), 0x4), 32, 0, 0)
    cta.tmem.cells[40, 32] = 0x5  # lane 40 bits 3:0 = row 32, K 16..19 (chunk 4): 0b0101 (both indices 1)
    with pytest.raises(UndefinedBehavior, match=r"invalid sparse-metadata code \(PTX ISA 9.7.16.10.8.1\); value 0x5; row 32, chunk 4"):
        mma(d, [cta], 0, bd, a_desc=ad, sp_meta_tmem=32, enable_input_d=False)
    put_metadata(cta.tmem, "f16", np.full((128, 8), 0x4), 32, 0, 0)
    with pytest.raises(UndefinedBehavior, match="enable-input-d is true but D's TMEM cells were never written"):
        mma(d, [cta], 0, bd, a_desc=ad, sp_meta_tmem=32)
    with pytest.raises(UndefinedBehavior, match="sparse-metadata column must be a multiple of 2"):
        mma(d, [cta], 0, bd, a_desc=ad, sp_meta_tmem=33, enable_input_d=False)
    with pytest.raises(UndefinedBehavior, match="sparse metadata read from TMEM cells never written"):
        mma(d, [cta], 0, bd, a_desc=ad, sp_meta_tmem=36, enable_input_d=False)
    with pytest.raises(MmaError, match=r"d-tmem lane 16 is illegal for M = 128; legal: \(0,\) \(data-path layout D\)"):
        mma(d, [cta], 16 << 16, bd, a_desc=ad, sp_meta_tmem=32, enable_input_d=False)
    with pytest.raises(MmaError, match=r"\[sp-meta-tmem\] is missing"):
        mma(d, [cta], 0, bd, a_desc=ad, enable_input_d=False)
    with pytest.raises(MmaError, match="scale-input-d = 1 is illegal; legal: 0..15, .kind::f16/.kind::tf32 only"):
        mma(InstrDescriptor("i8", 128, 16, "s8", "s8", "s32"), [cta], 0, bd, a_desc=ad, scale_input_d=1)
    with pytest.raises(DescriptorError, match=r"smem descriptor field 'swizzle' \(bits 63:61\) = '128B' is illegal for an MN-major \(transposed\) tf32 operand B"):
        mma(InstrDescriptor("tf32", 128, 16, "tf32", "tf32", transpose_b=True), [cta], 0, bd, a_desc=ad)
    with pytest.raises(MmaError, match=r"\[a-tmem\] lane 32 differs from \[d-tmem\] lane 0"):
        mma(InstrDescriptor("f16", 128, 16, "f16", "f16"), [cta], 0, bd, a_tmem=32 << 16, enable_input_d=False)
    with pytest.raises(MmaError, match="needs 2 CTA\\(s\\) of a pair, got 1"):
        mma(InstrDescriptor("f16", 256, 16, "f16", "f16", cta_group=2), [cta], 0, bd, a_desc=ad)
    mx = dict(kind="mxf4nvf4", m=128, n=16, a_type="e2m1", b_type="e2m1")
    with pytest.raises(DescriptorError, match=r"'scale_type' \(bits 23\) = 'ue4m3' is illegal with .scale_vec::2X \(ue4m3 needs 4X\); legal: \{ue8m0\}"):
        mma(InstrDescriptor(**mx, scale_type="ue4m3"), [cta], 0, bd, a_desc=ad, scale_a_tmem=0, scale_b_tmem=0, scale_vec="2X")
    with pytest.raises(DescriptorError, match=r"'scale_factor_a_id' \(bits 30:29\) = 2 is illegal with 4 scale factors per row \(.scale_vec::4X\); legal: \(0,\)"):
        mma(InstrDescriptor(**mx, scale_type="ue8m0", scale_factor_a_id=2), [cta], 0, bd, a_desc=ad,
            scale_a_tmem=0, scale_b_tmem=0, scale_vec="4X")
    with pytest.raises(MmaError, match=r".scale_vec 1X is illegal; legal: \('2X', '4X', 'block32', 'block16'\)"):
        mma(InstrDescriptor(**mx, scale_type="ue8m0"), [cta], 0, bd, a_desc=ad, scale_a_tmem=0, scale_b_tmem=0, scale_vec="1X")
