"""Shared-memory matrix descriptor: fields, errors, swizzles as bijections, canonical layouts and their inverse."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from isa.errors import MemoryFault
from isa.tcgen05 import smem_desc as sd
from isa.tcgen05.idesc import DescriptorError

MODES = list(sd.SWIZZLES)


@settings(max_examples=500, deadline=None)
@given(st.integers(0, (1 << 14) - 1), st.integers(0, (1 << 14) - 1), st.integers(0, (1 << 14) - 1),
       st.sampled_from(MODES), st.integers(0, 7))
def test_encode_decode_round_trip(start, lbo, sbo, mode, base):
    d = sd.SmemDescriptor(start << 4, lbo << 4, sbo << 4, mode, base)
    w = sd.encode(d)
    assert sd.decode(w) == d
    assert (w >> 46) & 7 == 1 and (w >> 61) == sd.SWIZZLE_NAMES[mode]
    assert w & 0x3FFF == start and (w >> 16) & 0x3FFF == lbo and (w >> 32) & 0x3FFF == sbo and (w >> 49) & 7 == base


def test_field_positions_match_the_table():
    # 128B swizzle, start 0x400, LBO 16 (unused), SBO 1024: what CUTLASS builds for a K-major 128B tile
    w = sd.encode(sd.SmemDescriptor(0x400, 16, 1024, "128B"))
    assert w == (0x40 | 1 << 16 | 64 << 32 | 1 << 46 | 2 << 61)


GOOD = sd.encode(sd.SmemDescriptor(0x100, 128, 256))


@pytest.mark.parametrize("word,msg", [
    (GOOD & ~(7 << 46), "smem descriptor field 'version' (bits 48:46) = 0 is illegal (a Hopper wgmma descriptor has 0 here); legal: {1} (0b001)"),
    (GOOD | 1 << 14, "field 'reserved15_14' (bits 15:14) = 1 is illegal (reserved, must be 0); legal: {0}"),
    (GOOD | 2 << 30, "field 'reserved31_30' (bits 31:30) = 2 is illegal"),
    (GOOD | 1 << 55, "field 'fixed60_53' (bits 60:53) = 4 is illegal"),
    (GOOD | 3 << 61, "field 'swizzle' (bits 63:61) = 3 is illegal; legal: {0 (none), 1 (128B_base32B), 2 (128B), 4 (64B), 6 (32B)}"),
    (GOOD | 5 << 61, "field 'swizzle' (bits 63:61) = 5 is illegal"),
    (GOOD | 7 << 61, "field 'swizzle' (bits 63:61) = 7 is illegal"),
    (GOOD | 1 << 52, "field 'lbo_mode' (bits 52) = 1 is illegal (absolute-LBO mode exists only on sm_103a); legal: {0}"),
])
def test_decode_errors(word, msg):
    with pytest.raises(DescriptorError) as e:
        sd.decode(word)
    assert msg in str(e.value)


def test_constructor_errors():
    with pytest.raises(DescriptorError, match=r"'start_address' \(bits 13:0\) = 8 is illegal; legal: a multiple of 16"):
        sd.SmemDescriptor(8, 16, 16)
    with pytest.raises(DescriptorError, match=r"'sbo' \(bits 45:32\) = 0x40000 is illegal"):
        sd.SmemDescriptor(0, 16, 1 << 18)
    with pytest.raises(DescriptorError, match=r"'base_offset' \(bits 51:49\) = 8 is illegal; legal: \{0..7\}"):
        sd.SmemDescriptor(0, 16, 16, "128B", 8)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("base", [0, 3])
def test_swizzle_is_an_involutive_bijection_inside_each_repeat(mode, base):
    a = np.arange(8192)
    p = sd.swizzle(mode, a, base)
    assert sorted(p.tolist()) == a.tolist()
    assert (sd.swizzle(mode, p, base) == a).all()
    assert ((p >> 7) == (a >> 7)).all()  # a 128-byte line never leaves its line
    assert ((p & 15) == (a & 15)).all()  # 16-byte chunks (32-byte for base32B) move whole
    rep = sd.SWIZZLES[mode].repeat
    assert ((p // rep) == (a // rep)).all()


def test_swizzle_patterns_as_data():
    a = np.arange(1024)
    assert (sd.swizzle("128B", a) == a ^ (((a >> 7) & 7) << 4)).all()
    assert (sd.swizzle("64B", a) == a ^ (((a >> 7) & 3) << 4)).all()
    assert (sd.swizzle("32B", a) == a ^ (((a >> 7) & 1) << 4)).all()
    assert (sd.swizzle("128B_base32B", a) == a ^ (((a >> 7) & 3) << 5)).all()
    assert (sd.swizzle("none", a) == a).all()
    # base offset 3: the pattern's row 0 sits at phase 3
    assert sd.swizzle("128B", 3 * 128 + 16, 3) == 3 * 128 + 16
    assert sd.swizzle("128B", 4 * 128 + 16, 3) == 4 * 128 + 0


# (major, mode, rows, row_bytes, lbo, sbo) of a packed tile that fills [start, start + rows*row_bytes)
PACKED = [("K", "none", 16, 64, 128, 512), ("K", "none", 16, 32, 256, 128),  # ISA tf32 example: LBO 256, SBO 128
          ("K", "32B", 24, 32, 16, 256), ("K", "64B", 16, 64, 16, 512), ("K", "128B", 32, 128, 16, 1024),
          ("K", "128B_base32B", 16, 128, 16, 1024),
          ("MN", "none", 16, 64, 512, 128), ("MN", "none", 16, 32, 256, 128),  # ISA bf16 MN example: LBO 256, SBO 128
          ("MN", "32B", 16, 64, 256, 512), ("MN", "64B", 16, 128, 512, 1024),  # ISA bf16 examples
          ("MN", "128B", 16, 256, 1024, 2048), ("MN", "128B_base32B", 8, 256, 512, 1024)]


@pytest.mark.parametrize("major,mode,rows,rb,lbo,sbo", PACKED)
def test_canonical_layout_bijection_and_inverse(major, mode, rows, rb, lbo, sbo):
    start = 2048
    d = sd.SmemDescriptor(start, lbo, sbo, mode)
    r, b = np.meshgrid(np.arange(rows), np.arange(rb), indexing="ij")
    addr = sd.address(d, major, r, b)
    assert sorted(addr.ravel().tolist()) == list(range(start, start + rows * rb))
    ri, bi = sd.inverse(d, major, rows, rb, addr)
    assert (ri == r).all() and (bi == b).all()
    ro, bo = sd.inverse(d, major, rows, rb, np.array([start - 1, start + rows * rb]))
    assert (ro == -1).all() and (bo == -1).all()


def test_k_major_128b_is_the_tma_pattern():
    d = sd.SmemDescriptor(1024, 16, 1024, "128B")
    for r in range(16):
        for b in range(0, 128, 16):
            expect = 1024 + (r // 8) * 1024 + (r % 8) * 128 + (b ^ ((r % 8) << 4))
            assert sd.address(d, "K", r, b) == expect
    # advancing the start by 32 B (next K step, CUTLASS/DeepGEMM) reads bytes 32.. of each row
    d2 = sd.SmemDescriptor(1024 + 32, 16, 1024, "128B")
    assert all(sd.address(d2, "K", r, 0) == sd.address(d, "K", r, 32) for r in range(8))


def test_no_swizzle_core_matrices():
    d = sd.SmemDescriptor(0, 128, 256)  # K-major: 8 x 16 B core matrices, K step 128 B, row group 256 B
    assert sd.address(d, "K", 0, 0) == 0 and sd.address(d, "K", 1, 0) == 16 and sd.address(d, "K", 7, 15) == 127
    assert sd.address(d, "K", 0, 16) == 128 and sd.address(d, "K", 8, 0) == 256 and sd.address(d, "K", 9, 17) == 256 + 16 + 128 + 1


def test_non_injective_strides_and_wide_k_are_named():
    with pytest.raises(DescriptorError, match="strides that give every byte of the tile its own address"):
        sd.inverse(sd.SmemDescriptor(0, 16, 16), "K", 16, 32, [0])
    with pytest.raises(DescriptorError, match=r"'swizzle' \(bits 63:61\) = '32B' is illegal for a K-major operand \(its rows are only 32 B wide\)"):
        sd.address(sd.SmemDescriptor(0, 16, 256, "32B"), "K", 0, np.arange(64))


@pytest.mark.parametrize("bits,major,mode", [(b, mj, md) for b in (4, 8, 16, 32)
                                              for mj, md in (("K", "none"), ("K", "128B"), ("MN", "none"), ("MN", "64B"))
                                              if not (b == 4 and mj == "MN")])  # 4-bit: K-major only (Table 54)
def test_write_then_read_tile(bits, major, mode):
    rng = np.random.default_rng(bits)
    mn, k = (512 // bits if mode == "64B" else 16), (1024 // bits if mode == "128B" else 32)
    if major == "K":  # rows = mn; packed: 128B rows of one atom, or core matrices K-chunk after K-chunk
        lbo, sbo = (16, 1024) if mode == "128B" else (128, 128 * (k * bits // 128))
    else:  # rows = k; 64B: one 64-byte MN chunk, 8-row groups 512 B apart; none: 16 B chunks 128 B apart
        lbo, sbo = (512, 512) if mode == "64B" else (128 * (mn * bits // 128), 128)
    d = sd.SmemDescriptor(4096, lbo, sbo, mode)
    raw = rng.integers(0, 1 << bits, (mn, k), dtype=np.uint64)
    smem = np.zeros(1 << 16, np.uint8)
    sd.write_tile(smem, d, major, raw, bits)
    assert (sd.read_tile(smem, d, major, mn, k, bits) == raw).all()
    assert np.count_nonzero(smem[:4096]) == 0 and np.count_nonzero(smem[4096 + mn * k * bits // 8:]) == 0


def test_read_outside_shared_memory_is_a_fault():
    with pytest.raises(MemoryFault, match=r"shared address 0x100 is outside the CTA's 256-byte shared memory window"):
        sd.read_tile(np.zeros(256, np.uint8), sd.SmemDescriptor(0, 128, 256), "K", 16, 16, 16)
