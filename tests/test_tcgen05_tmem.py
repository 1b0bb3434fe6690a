"""Tensor Memory: allocation rules and misuse errors, ld/st register maps, cp and shift."""
import numpy as np
import pytest

from isa.tcgen05 import smem_desc as sd
from isa.tcgen05.tmem_layout import MAX_NUM, SHAPES, regmap
from warpsim.tmem import POISON, Tmem, TmemAccessError, TmemAllocError

# ---------------------------------------------------------------- allocation


def test_alloc_places_lowest_aligned_run_and_writes_the_address_to_smem():
    t, smem = Tmem(), np.zeros(64, np.uint8)
    assert t.alloc(128, smem=smem, dst=8) == 0
    assert t.alloc(64, smem=smem, dst=12) == 128
    assert t.alloc(32) == 192
    assert int(smem[8:12].view("<u4")[0]) == 0 and int(smem[12:16].view("<u4")[0]) == 128
    t.dealloc(128, 64)
    assert t.alloc(32) == 128  # the freed run is reused, aligned to the new size
    assert (t.cells[:, :224] == POISON).all() and not t.defined.any()


@pytest.mark.parametrize("ncols", [0, 16, 48, 96, 1024])
def test_alloc_column_count_must_be_a_power_of_two_in_32_512(ncols):
    with pytest.raises(TmemAllocError, match=rf"tcgen05.alloc: nCols = {ncols} is illegal; legal: a power of two in \[32, 512\]"):
        Tmem().alloc(ncols)


def test_alloc_beyond_512_columns():
    t = Tmem()
    t.alloc(256)
    t.alloc(256)
    with pytest.raises(TmemAllocError, match=r"nCols = 32 does not fit: 0 of 512 columns free \(allocated: columns 0..255, "
                                             r"columns 256..511\); the alloc would block forever"):
        t.alloc(32)


def test_allocation_sizes_may_not_increase():
    t = Tmem()
    t.alloc(64)
    with pytest.raises(TmemAllocError, match="nCols = 128 exceeds the earlier allocation's 64; a CTA's allocation sizes may not increase"):
        t.alloc(128)


def test_dealloc_must_match_size_and_address():
    t = Tmem()
    t.alloc(128)
    with pytest.raises(TmemAllocError, match="tcgen05.dealloc: nCols = 64 but the allocation at column 0 has 128 columns"):
        t.dealloc(0, 64)
    with pytest.raises(TmemAllocError, match=r"address 0x20 \(lane 0, column 32\) is not the start of an allocation; allocated: columns 0..127"):
        t.dealloc(32, 128)
    with pytest.raises(TmemAllocError, match=r"address 0x10000 \(lane 1, column 0\) is not the start"):
        t.dealloc(1 << 16, 128)
    t.dealloc(0, 128)
    with pytest.raises(TmemAllocError, match="allocated: nothing"):
        t.dealloc(0, 128)


def test_relinquish_cta_group_uniformity_and_exit():
    t = Tmem()
    t.alloc(32, cta_group=1)
    with pytest.raises(TmemAllocError, match=r"tcgen05.dealloc.cta_group::2 in a kernel whose tcgen05 instructions use .cta_group::1"):
        t.dealloc(0, 32, cta_group=2)
    t.relinquish_alloc_permit()
    with pytest.raises(TmemAllocError, match="tcgen05.alloc after tcgen05.relinquish_alloc_permit in this CTA is illegal"):
        t.alloc(32)
    with pytest.raises(TmemAllocError, match=r"CTA 0 exits with TMEM still allocated: columns 0..31"):
        t.check_exit()
    t.dealloc(0, 32)
    t.check_exit()


# ---------------------------------------------------------------- ld / st register maps

CASES = [(s, n, p) for s in SHAPES for n in (1, 2, 4, 8, 16, 32, 64, 128) if n <= MAX_NUM[s] for p in (False, True)]


@pytest.mark.parametrize("shape,num,pack", CASES)
def test_regmap_is_a_bijection_onto_its_footprint(shape, num, pack):
    rpr, cpr = SHAPES[shape][:2]
    imm = num * cpr * (2 if pack else 1) if shape == "16x32bx2" else None
    rm = regmap(shape, num, pack, imm)
    h = 2 if pack else 1
    assert rm.lane.shape == (32, rpr * num, h)
    cells = set(zip(rm.lane.ravel().tolist(), rm.col.ravel().tolist()))
    assert len(cells) == 32 * rpr * num * h  # injective: every (thread, register, half) its own cell
    lanes = {c[0] for c in cells}
    assert lanes == set(range(32 if shape == "32x32b" else 16))
    width = num * cpr * h
    cols = sorted({c[1] for c in cells})
    assert cols == (list(range(width)) + list(range(imm, imm + width)) if imm else list(range(width)))


def test_regmap_reference_table_entries():
    rm = regmap("16x256b", 2)
    assert (rm.lane[5, 2, 0], rm.col[5, 2, 0]) == (9, 2)  # r2 of t5: lane t/4 + 8, column 2(t%4)
    assert (rm.lane[5, 5, 0], rm.col[5, 5, 0]) == (1, 8 + 3)  # repetition 1, r1: column 8 + 2(t%4) + 1
    rm = regmap("16x64b", 1)
    assert [(rm.lane[t, 0, 0], rm.col[t, 0, 0]) for t in (0, 1, 2, 3, 4)] == [(0, 0), (8, 0), (0, 1), (8, 1), (1, 0)]
    rm = regmap("16x32bx2", 2, imm_half_splitoff=1)
    assert (rm.lane[17, 1, 0], rm.col[17, 1, 0]) == (1, 2)
    rm = regmap("32x32b", 2, pack=True)
    assert rm.col[3].tolist() == [[0, 1], [2, 3]] and (rm.lane[3] == 3).all()


def test_regmap_errors():
    with pytest.raises(ValueError, match=r".x128 is illegal for .16x128b; legal: .x1 .. .x64"):
        regmap("16x128b", 128)
    with pytest.raises(ValueError, match="unknown tcgen05.ld/st shape .8x32b"):
        regmap("8x32b", 1)
    with pytest.raises(ValueError, match="immHalfSplitoff is required by .16x32bx2"):
        regmap("16x32bx2", 1)


@pytest.mark.parametrize("shape,num,pack", [c for c in CASES if c[1] <= 16])
def test_st_then_ld_round_trips_in_every_quarter(shape, num, pack):
    t = Tmem()
    t.alloc(512)
    rng = np.random.default_rng(num)
    imm = 64 if shape == "16x32bx2" else None
    nregs = SHAPES[shape][0] * num
    for warp in range(4, 8):
        lane0 = 32 * (warp % 4) + (16 if shape != "32x32b" and warp % 2 else 0)
        regs = rng.integers(0, 1 << 32, (32, nregs), dtype=np.uint64).astype(np.uint32)
        t.st(warp, lane0 << 16 | 8, shape, num, regs, unpack=pack, imm_half_splitoff=imm)
        assert (t.ld(warp, lane0 << 16 | 8, shape, num, pack=pack, imm_half_splitoff=imm) == regs).all()


def test_pack_reads_low_halves_of_two_columns():
    t = Tmem()
    t.alloc(32)
    t.cells[0, 0:4] = [0xAAAA1111, 0xBBBB2222, 0xCCCC3333, 0xDDDD4444]
    assert t.ld(0, 0, "32x32b", 2, pack=True)[0].tolist() == [0x22221111, 0x44443333]
    t.st(0, 0, "32x32b", 1, np.full((32, 1), 0x12345678, np.uint32), unpack=True)
    assert t.cells[0, 0:2].tolist() == [0x5678, 0x1234]


def test_warp_may_not_touch_another_quarter():
    t = Tmem()
    t.alloc(32)
    with pytest.raises(TmemAccessError, match=r"tcgen05.ld: warp 5 accesses TMEM lanes 0..31, but warp 5 \(warp_id % 4 = 1\) may only reach lanes 32..63"):
        t.ld(5, 0, "32x32b", 1)
    t.st(0, 16 << 16, "16x64b", 1, np.zeros((32, 1)))  # lanes 16..31 are quarter 0: allowed
    with pytest.raises(TmemAccessError, match=r"tcgen05.st: warp 4 accesses TMEM lanes 32..47, but warp 4 \(warp_id % 4 = 0\) may only reach lanes 0..31"):
        t.st(4, 32 << 16, "16x64b", 1, np.zeros((32, 1)))


def test_access_errors_are_named():
    t = Tmem()
    t.alloc(32)
    with pytest.raises(TmemAccessError, match=r"tcgen05.ld: TMEM column 32 is not allocated \(allocated: columns 0..31\)"):
        t.ld(0, 0, "32x32b", 64)
    with pytest.raises(TmemAccessError, match=r"tcgen05.ld: TMEM \(lane 0, column 512\) is out of range; TMEM has lanes 0..127, columns 0..511"):
        t.ld(0, 500, "32x32b", 16)
    with pytest.raises(TmemAccessError, match=r"tcgen05.ld.32x32b: taddr lane 16 must be a multiple of 32"):
        t.ld(0, 16 << 16, "32x32b", 1)
    t.dealloc(0, 32)
    with pytest.raises(TmemAccessError, match="TMEM column 0 is not allocated"):
        t.st(0, 0, "32x32b", 1, np.zeros((32, 1)))


# ---------------------------------------------------------------- cp / shift

def _source(rows, nbytes, seed=0):
    """A no-swizzle canonical source: row r's 16-byte chunk c at (r//8)*SBO + (r%8)*16 + c*LBO."""
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 256, (rows, nbytes), dtype=np.uint8)
    smem = np.zeros(1 << 15, np.uint8)
    lbo, sbo = 128 * (rows // 8), 128  # chunks along the row after all row groups
    d = sd.SmemDescriptor(1024, lbo, sbo)
    for r in range(rows):
        for c in range(nbytes // 16):
            a = 1024 + (r // 8) * sbo + (r % 8) * 16 + c * lbo
            smem[a:a + 16] = data[r, 16 * c:16 * c + 16]
    return smem, sd.encode(d), data.view("<u4")


@pytest.mark.parametrize("shape,multicast,rows,nbytes,lanes_of", [
    ("128x256b", None, 128, 32, lambda r: [r]),
    ("128x128b", None, 128, 16, lambda r: [r]),
    ("32x128b", "warpx4", 32, 16, lambda r: [r, r + 32, r + 64, r + 96]),
    ("64x128b", "warpx2::02_13", 64, 16, lambda r: [r, r + 64]),
    ("64x128b", "warpx2::01_23", 64, 16, lambda r: [r % 32 + 64 * (r // 32), r % 32 + 64 * (r // 32) + 32]),
])
def test_cp_shapes(shape, multicast, rows, nbytes, lanes_of):
    t = Tmem()
    t.alloc(64)
    smem, desc, words = _source(rows, nbytes)
    t.cp(16, shape, smem, desc, multicast)
    covered = np.zeros(128, bool)
    for r in range(rows):
        for ln in lanes_of(r):
            assert t.cells[ln, 16:16 + nbytes // 4].tolist() == words[r].tolist(), (r, ln)
            covered[ln] = True
    assert covered.all() and t.defined[:, 16:16 + nbytes // 4].all() and not t.defined[:, :16].any()


def test_cp_4x256b_and_decompression():
    t = Tmem()
    t.alloc(32)
    smem, desc, words = _source(8, 32)
    t.cp(4 << 16, "4x256b", smem, desc)
    assert (t.cells[4:8, 0:8] == words[:4]).all() and not t.defined[0:4].any()
    # b4x16_p64: bytes 0..7 hold sixteen 4-bit values, low nibble first; bytes 8..15 are padding
    smem = np.zeros(4096, np.uint8)
    for r in range(128):
        smem[r * 16:r * 16 + 8] = [0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE]
        smem[r * 16 + 8:r * 16 + 16] = 0xFF
    t.cp(8, "128x128b", smem, sd.encode(sd.SmemDescriptor(0, 2048, 128)), decompress="b4x16_p64")
    assert t.cells[77, 8:12].view(np.uint8).tolist() == list(range(16))
    # b6x16_p32: twelve bytes hold sixteen 6-bit values LSB-first
    vals = np.arange(16) * 4 + 1
    bits = sum(int(v) << (6 * i) for i, v in enumerate(vals))
    smem[:] = 0
    for r in range(128):
        smem[r * 16:r * 16 + 12] = list(bits.to_bytes(12, "little"))
    t.cp(12, "128x128b", smem, sd.encode(sd.SmemDescriptor(0, 2048, 128)), decompress="b6x16_p32")
    assert t.cells[5, 12:16].view(np.uint8).tolist() == vals.tolist()


def test_cp_errors():
    t = Tmem()
    t.alloc(32)
    smem, desc, _ = _source(128, 16)
    with pytest.raises(TmemAccessError, match=r"tcgen05.cp.64x128b: illegal shape/multicast; legal: .128x256b, .128x128b"):
        t.cp(0, "64x128b", smem, desc)
    with pytest.raises(TmemAccessError, match=r"TMEM column 32 is not allocated"):
        t.cp(30, "128x128b", smem, desc)
    with pytest.raises(TmemAccessError, match=r"tcgen05.cp.32x128b.warpx4: taddr lane 32 must be 0"):
        t.cp(32 << 16, "32x128b", smem, desc, "warpx4")


def test_shift_moves_rows_down_one_lane():
    t = Tmem()
    t.alloc(32)
    t.cells[:, :] = np.arange(128 * 512, dtype=np.uint32).reshape(128, 512)
    before = t.cells.copy()
    t.shift(32 << 16 | 4)
    assert (t.cells[33:64, 4:12] == before[32:63, 4:12]).all()
    assert (t.cells[32, 4:12] == before[32, 4:12]).all() and (t.cells[:, 12:] == before[:, 12:]).all()
    assert (t.cells[:32] == before[:32]).all() and (t.cells[64:] == before[64:]).all()
    with pytest.raises(TmemAccessError, match="tcgen05.shift.down: taddr lane 8 must be a multiple of 32"):
        t.shift(8 << 16)
