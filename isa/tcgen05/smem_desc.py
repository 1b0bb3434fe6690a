"""The 64-bit shared-memory matrix descriptor and the canonical layouts (PTX ISA 9.7.16.4.1, Tables 40/41, 54/55).

Layouts are byte-level. A K-major operand is addressed by (row = M/N index, byte along K); an
MN-major one by (row = K index, byte along M/N). ``layout_offset`` gives the unswizzled byte offset
from the start address; ``swizzle`` XORs the result as the hardware does; ``read_tile`` gathers an
operand's raw element bits from a shared-memory byte array.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from isa.errors import MemoryFault
from isa.tcgen05.idesc import DescriptorError

SWIZZLE_CODES = {0: "none", 1: "128B_base32B", 2: "128B", 4: "64B", 6: "32B"}
SWIZZLE_NAMES = {v: k for k, v in SWIZZLE_CODES.items()}
_DESC_VERSION = 0b001  # bits 48:46, "fixed constant" (CUTLASS version_ = 1)


@dataclass(frozen=True)
class Swizzle:
    """CuTe ``Swizzle<B, M, S>`` on byte addresses: bits [M+B-1:M] ^= bits [M+S+B-1:M+S].

    Every tcgen05 mode has M + S = 7 (the row phase is address bits 7.. ), so the pattern repeats
    every ``1 << (7 + B)`` bytes (256 B for 32B, 512 B for 64B and 128B_base32B, 1024 B for 128B).
    """

    name: str
    b: int
    m: int
    s: int
    row_bytes: int  # width of one swizzled row (the atom's contiguous extent)

    @property
    def repeat(self) -> int:
        return 1 << (self.m + self.s + self.b) if self.b else 16


SWIZZLES = {"none": Swizzle("none", 0, 4, 3, 16), "32B": Swizzle("32B", 1, 4, 3, 32),
            "64B": Swizzle("64B", 2, 4, 3, 64), "128B": Swizzle("128B", 3, 4, 3, 128),
            "128B_base32B": Swizzle("128B_base32B", 2, 5, 2, 128)}

# Assumption BASE_OFFSET_MODEL (PTX 9.7.16.4.1 "matrix base offset"; reference ptx-tcgen05.md 2.5):
# the XOR reads the row phase from absolute address bits [7+B-1:7] minus the base offset, i.e. the
# base offset names the phase at which the pattern starts. With base offset 0 (what CUTLASS always
# writes) this is the plain absolute-address swizzle that TMA also applies, which is what makes
# advancing the start address by 32 B inside a 128B-swizzled row (CUTLASS/DeepGEMM K-stepping) work.


def swizzle(mode: str, addr, base_offset: int = 0):
    """Physical byte address of the logical address ``addr`` under swizzle ``mode`` (an involution)."""
    sw = SWIZZLES[mode]
    a = np.asarray(addr, dtype=np.int64)
    if sw.b == 0:
        return a
    phase = ((a >> (sw.m + sw.s)) - base_offset) & ((1 << sw.b) - 1)
    return a ^ (phase << sw.m)


@dataclass(frozen=True)
class SmemDescriptor:
    """A decoded shared-memory matrix descriptor; addresses and offsets in bytes."""

    start_address: int
    lbo: int
    sbo: int
    swizzle: str = "none"
    base_offset: int = 0
    lbo_mode: int = 0  # 0: LBO relative; 1: absolute (sm_103a only)

    def __post_init__(self):
        for field, bits in (("start_address", "13:0"), ("lbo", "29:16"), ("sbo", "45:32")):
            v = getattr(self, field)
            if not (0 <= v < 1 << 18 and v % 16 == 0):
                raise DescriptorError("smem descriptor", field, bits, v,
                                      "a multiple of 16 in [0, 0x3fff0] (encoded >> 4)")
        if self.swizzle not in SWIZZLE_NAMES:
            raise DescriptorError("smem descriptor", "swizzle", "63:61", self.swizzle,
                                  "{" + ", ".join(SWIZZLE_NAMES) + "}")
        if self.base_offset not in range(8):
            raise DescriptorError("smem descriptor", "base_offset", "51:49", self.base_offset, "{0..7}")
        if self.lbo_mode != 0:
            raise DescriptorError("smem descriptor", "lbo_mode", "52", self.lbo_mode, "{0}",
                                  "(absolute-LBO mode exists only on sm_103a)")


def encode(d: SmemDescriptor) -> int:
    return ((d.start_address >> 4) | (d.lbo >> 4) << 16 | (d.sbo >> 4) << 32 | _DESC_VERSION << 46
            | d.base_offset << 49 | d.lbo_mode << 52 | SWIZZLE_NAMES[d.swizzle] << 61)


def decode(word: int) -> SmemDescriptor:
    if not 0 <= word < 1 << 64:
        raise DescriptorError("smem descriptor", "word", "63:0", word, "a 64-bit value")

    def f(lo, w):
        return (word >> lo) & ((1 << w) - 1)

    for name, lo, w in (("reserved15_14", 14, 2), ("reserved31_30", 30, 2), ("fixed60_53", 53, 8)):
        if f(lo, w):
            raise DescriptorError("smem descriptor", name, f"{lo + w - 1}:{lo}", f(lo, w), "{0}",
                                  "(reserved, must be 0)")
    if f(46, 3) != _DESC_VERSION:
        raise DescriptorError("smem descriptor", "version", "48:46", f(46, 3), "{1} (0b001)",
                              "(a Hopper wgmma descriptor has 0 here)")
    if f(61, 3) not in SWIZZLE_CODES:
        raise DescriptorError("smem descriptor", "swizzle", "63:61", f(61, 3),
                              "{" + ", ".join(f"{c} ({n})" for c, n in SWIZZLE_CODES.items()) + "}")
    return SmemDescriptor(f(0, 14) << 4, f(16, 14) << 4, f(32, 14) << 4, SWIZZLE_CODES[f(61, 3)],
                          f(49, 3), f(52, 1))


def layout_offset(mode: str, major: str, lbo: int, sbo: int, row, byte):
    """Unswizzled byte offset of (row, byte) in the canonical layout (Table 41 / reference 2.5).

    K-major: ``row`` = M/N index, ``byte`` = byte along K. Core matrices are 8 rows x 16 B; without
    swizzle LBO steps 16 B chunks along K and SBO steps 8-row groups; with a swizzle each row is
    ``row_bytes`` wide and LBO is unused (one instruction's K must fit in the row).
    MN-major: ``row`` = K index, ``byte`` = byte along M/N. Without swizzle SBO steps 16 B chunks
    along M/N and LBO 8-row (K) groups; swizzled, LBO steps ``row_bytes`` chunks along M/N and SBO
    8-row K groups (4-row for 128B_base32B; assumption: its K rows are 128 B apart, the atom being
    4 x 128 B = the 512 B repeat).
    """
    sw = SWIZZLES[mode]
    r, b = np.asarray(row, dtype=np.int64), np.asarray(byte, dtype=np.int64)
    if major == "K":
        if mode == "none":
            return (r % 8) * 16 + (r // 8) * sbo + b % 16 + (b // 16) * lbo
        if np.any(b >= sw.row_bytes):
            raise DescriptorError("smem descriptor", "swizzle", "63:61", mode, "a swizzle at least as wide "
                                  f"as the operand's K extent ({int(np.max(b)) + 1} B)",
                                  "for a K-major operand (its rows are only "
                                  f"{sw.row_bytes} B wide)")
        return (r % 8) * sw.row_bytes + b + (r // 8) * sbo
    if major != "MN":
        raise ValueError(f"major must be 'K' or 'MN', not {major!r}")
    if mode == "none":
        return b % 16 + (b // 16) * sbo + (r % 8) * 16 + (r // 8) * lbo
    group = 4 if mode == "128B_base32B" else 8
    return b % sw.row_bytes + (b // sw.row_bytes) * lbo + (r % group) * sw.row_bytes + (r // group) * sbo


def address(d: SmemDescriptor, major: str, row, byte):
    """Physical shared-memory byte address of (row, byte) of the operand ``d`` describes."""
    return swizzle(d.swizzle, d.start_address + layout_offset(d.swizzle, major, d.lbo, d.sbo, row, byte),
                   d.base_offset)


def inverse(d: SmemDescriptor, major: str, rows: int, row_bytes: int, addrs):
    """(row, byte) arrays for physical ``addrs`` inside a rows x row_bytes tile; -1 where outside.

    Raises if the tile's layout is not injective (LBO/SBO make two bytes share an address)."""
    r, b = np.meshgrid(np.arange(rows), np.arange(row_bytes), indexing="ij")
    fwd = address(d, major, r, b).ravel()
    order = np.argsort(fwd, kind="stable")
    s = fwd[order]
    if np.any(s[1:] == s[:-1]):
        raise DescriptorError("smem descriptor", "lbo/sbo", "29:16/45:32", (d.lbo, d.sbo),
                              "strides that give every byte of the tile its own address",
                              f"for a {rows} x {row_bytes} B {major}-major tile")
    a = np.asarray(addrs, dtype=np.int64)
    pos = np.clip(np.searchsorted(s, a), 0, len(s) - 1)
    hit = s[pos] == a
    flat = np.where(hit, order[pos], -1)
    return np.where(hit, flat // row_bytes, -1), np.where(hit, flat % row_bytes, -1)


def read_tile(smem: np.ndarray, d: SmemDescriptor, major: str, mn: int, k: int, elem_bits: int) -> np.ndarray:
    """Raw element bits (mn, k) uint32 of an operand in shared memory (little-endian bytes).

    ``elem_bits`` is the container width: 32, 16, 8, or 4 (two elements per byte, low nibble first).
    """
    if elem_bits == 4:
        if major != "K":
            raise DescriptorError("smem descriptor", "transpose", "idesc 15/16", major, "{K}",
                                  "(4-bit packed operands are K-major only)")
        raw = _gather(smem, address(d, "K", *np.meshgrid(np.arange(mn), np.arange(k // 2), indexing="ij")))
        out = np.empty((mn, k), dtype=np.uint32)
        out[:, 0::2], out[:, 1::2] = raw & 0xF, raw >> 4
        return out
    nb = elem_bits // 8
    i, j, byte = np.meshgrid(np.arange(mn), np.arange(k), np.arange(nb), indexing="ij")
    if major == "K":
        addrs = address(d, "K", i, j * nb + byte)
    else:
        addrs = address(d, "MN", j, i * nb + byte)
    raw = _gather(smem, addrs).astype(np.uint32)
    return (raw << (8 * np.arange(nb, dtype=np.uint32))).sum(axis=-1, dtype=np.uint32)


def write_tile(smem: np.ndarray, d: SmemDescriptor, major: str, raw, elem_bits: int) -> None:
    """Inverse of :func:`read_tile`: store raw element bits (mn, k) into ``smem`` through ``d``."""
    raw = np.asarray(raw, dtype=np.uint64)
    mn, k = raw.shape
    if elem_bits == 4:
        i, j = np.meshgrid(np.arange(mn), np.arange(k // 2), indexing="ij")
        smem[address(d, "K", i, j)] = (raw[:, 0::2] & 0xF | (raw[:, 1::2] & 0xF) << 4).astype(np.uint8)
        return
    nb = elem_bits // 8
    i, j, byte = np.meshgrid(np.arange(mn), np.arange(k), np.arange(nb), indexing="ij")
    addrs = address(d, "K", i, j * nb + byte) if major == "K" else address(d, "MN", j, i * nb + byte)
    smem[addrs] = ((raw[:, :, None] >> (8 * np.arange(nb, dtype=np.uint64))) & 0xFF).astype(np.uint8)


def _gather(smem: np.ndarray, addrs: np.ndarray) -> np.ndarray:
    bad = (addrs < 0) | (addrs >= len(smem))
    if np.any(bad):
        a = int(addrs[bad].ravel()[0])
        raise MemoryFault(f"tcgen05 operand read at shared address {a:#x} is outside the CTA's "
                          f"{len(smem)}-byte shared memory window")
    return smem[addrs].astype(np.uint32)
