"""Fragment layouts of `mma.sp`, written once (PTX ISA §9.7.14.6.2, "Matrix fragments for mma.sp").

Notation of the PTX ISA: ``groupID = laneid >> 2`` (g), ``threadID_in_group = laneid % 4`` (t).
Each operand layout is one map ``(lane, register, element) -> (row, col)`` — CuTe's TV layout
``(T32, V) -> (M, K)`` — and everything else is derived from it: the numpy index tables the numba
kernels read (``rows``/``cols``), the inverse map, the pictures and the tests.

* **A** (compressed, M × K/2): register r of lane (g,t) holds ``epr`` stored elements of row
  ``g + 8·(r mod 2)``, taken from the dense window starting at column ``2·epr·t + (K/2)·(r div 2)``.
  In compressed columns that is ``epr·t + (K/4)·(r div 2) + j`` (every pattern keeps half, so a
  dense window of ``2·epr`` columns holds ``epr`` stored values). [HW: all H100 forms]
* **B** (dense, K × N): element j of register r: ``k = epr·t + j + 4·epr·r``, ``n = g``. [HW]
* **C/D** (M × N): value i = ``r·per_reg + j``: ``m = g + 8·(i div 2)``, ``n = 2t + (i mod 2)``. [HW]
* **E** (metadata): each 4-bit code describes one (row m, chunk c) — c counts W-wide chunks of the
  dense row — and sits in lane L at nibble ``o/4`` of the single ``e`` register (selector s,
  ``h = m div 8``, ``g = m mod 8``)::

      class I   (16 bits/row: f16/bf16 k16, tf32 k8)        L = 4g + s             o = 4c + 16h
      class II  (32 bits/row, 16/32-bit types: k32, tf32 k16) L = 4g + 2s + c div 4 o = 4(c mod 4) + 16h
      class III (32 bits/row, 8/4-bit types: s8 k32, s4 k64)  L = 4g + 2s + h       o = 4c
      class IV  (64 bits/row: 8-bit k64, 4-bit k128, .kind)   L = 4g + h + 2(c div 8) o = 4(c mod 8)

  Class II splits the selected lane pair by K half; class III by row — the trap of the manual's
  figures 122 vs 129. [HW: every class, every legal selector]
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np

from isa.forms import MmaSpForm

LANES = 32


def group_id(lane: int) -> int:
    return lane >> 2


def thread_id_in_group(lane: int) -> int:
    return lane % 4


@dataclass(frozen=True, eq=False)
class FragmentLayout:
    """``(lane, register, element) -> (row, col)`` over a ``rows × cols`` matrix, plus what derives from it."""

    operand: str  # "A" (compressed), "B", "C", "D"
    nrows: int
    ncols: int
    nregs: int
    epr: int  # elements per 32-bit register
    bits: int  # bits per element in the register
    fn: Callable[[int, int, int], tuple[int, int]]

    def __call__(self, lane: int, reg: int, elem: int) -> tuple[int, int]:
        return self.fn(lane, reg, elem)

    @property
    def signature(self) -> str:
        return f"(T32,V{self.nregs * self.epr}) -> ({self.nrows},{self.ncols})"

    @property
    def tables(self) -> tuple[np.ndarray, np.ndarray]:
        """int32 arrays ``rows[32, nregs, epr]``, ``cols[32, nregs, epr]``."""
        return _tables(self)

    def inverse(self) -> np.ndarray:
        """``owner[row, col] = (lane, reg, elem)`` (int32, shape rows × cols × 3)."""
        rows, cols = self.tables
        inv = np.full((self.nrows, self.ncols, 3), -1, dtype=np.int32)
        for lane, reg, elem in np.ndindex(rows.shape):
            inv[rows[lane, reg, elem], cols[lane, reg, elem]] = (lane, reg, elem)
        return inv

    def pack(self, matrix_bits: np.ndarray) -> np.ndarray:
        """Element bit patterns ``(..., rows, cols)`` → registers ``(..., 32, nregs)`` uint32."""
        rows, cols = self.tables
        el = np.asarray(matrix_bits).astype(np.uint64)[..., rows, cols] & np.uint64((1 << self.bits) - 1)
        shifts = (np.arange(self.epr, dtype=np.uint64) * np.uint64(self.bits))
        return np.ascontiguousarray(np.bitwise_or.reduce(el << shifts, axis=-1), dtype=np.uint32)

    def unpack(self, regs: np.ndarray) -> np.ndarray:
        """Registers ``(..., 32, nregs)`` → element bit patterns ``(..., rows, cols)`` (uint32)."""
        rows, cols = self.tables
        regs = np.asarray(regs, dtype=np.uint32)
        shifts = (np.arange(self.epr, dtype=np.uint32) * np.uint32(self.bits))
        el = (regs[..., None] >> shifts) & np.uint32((1 << self.bits) - 1) if self.bits < 32 else regs[..., None]
        out = np.zeros(regs.shape[:-2] + (self.nrows, self.ncols), dtype=np.uint32)
        out[..., rows, cols] = el
        return out


_TABLE_CACHE: dict = {}


def _tables(layout: FragmentLayout):
    key = id(layout)
    if key not in _TABLE_CACHE:
        rows = np.empty((LANES, layout.nregs, layout.epr), dtype=np.int32)
        cols = np.empty_like(rows)
        for lane, reg, elem in np.ndindex(rows.shape):
            rows[lane, reg, elem], cols[lane, reg, elem] = layout.fn(lane, reg, elem)
        rows.flags.writeable = cols.flags.writeable = False
        _TABLE_CACHE[key] = (layout, rows, cols)  # keep layout alive so id() stays unique
    return _TABLE_CACHE[key][1:]


# ----------------------------------------------------------------------------- operand maps


@lru_cache(maxsize=None)
def a_layout(form: MmaSpForm) -> FragmentLayout:
    """Compressed A: ``(T32, V) -> (M, K/2)``; for dense `mma` the whole ``(M, K)``.

    Both are one formula over the stored width W (K/2 sparse, K dense): column ``epr·t + (W/2)·(r div 2) + j``
    — the compressed sparse fragment is laid out exactly like a dense fragment of half the K."""
    width, epr = form.shape.k // (2 if form.sparse else 1), form.epr

    def fn(lane, reg, elem):
        g, t = group_id(lane), thread_id_in_group(lane)
        return g + 8 * (reg % 2), epr * t + (width // 2) * (reg // 2) + elem

    return FragmentLayout("A", form.shape.m, width, form.regs["a"], epr, form.element_bits, fn)


@lru_cache(maxsize=None)
def b_layout(form: MmaSpForm) -> FragmentLayout:
    """Dense B: ``(T32, V) -> (K, N)``."""
    epr = form.epr

    def fn(lane, reg, elem):
        g, t = group_id(lane), thread_id_in_group(lane)
        return epr * t + elem + 4 * epr * reg, g

    return FragmentLayout("B", form.shape.k, form.shape.n, form.regs["b"], epr, form.element_bits, fn)


@lru_cache(maxsize=None)
def cd_layout(form: MmaSpForm, operand: str = "C") -> FragmentLayout:
    """C and D: ``(T32, V4) -> (M, N)``; f16 packs two values per register."""
    per_reg = 2 if form.ctype == "f16" else 1

    def fn(lane, reg, elem):
        g, t = group_id(lane), thread_id_in_group(lane)
        i = reg * per_reg + elem
        return g + 8 * (i // 2), 2 * t + (i % 2)

    return FragmentLayout(operand, form.shape.m, form.shape.n, form.regs["c"], per_reg, 32 // per_reg, fn)


def layout(form: MmaSpForm, operand: str) -> FragmentLayout:
    return {"A": a_layout, "B": b_layout}[operand](form) if operand in "AB" else cd_layout(form, operand)


# ----------------------------------------------------------------------------- metadata (E)


def meta_site(form: MmaSpForm, m: int, c: int, selector: int) -> tuple[int, int]:
    """(row m, chunk c) → (lane, nibble) of the ``e`` register holding its 4-bit code."""
    g, h = m % 8, m // 8
    klass = form.meta_class
    if klass == "I":
        return 4 * g + selector, c + 4 * h
    if klass == "II":
        return 4 * g + 2 * selector + c // 4, (c % 4) + 4 * h
    if klass == "III":
        return 4 * g + 2 * selector + h, c
    return 4 * g + h + 2 * (c // 8), c % 8


@dataclass(frozen=True, eq=False)
class MetaLayout:
    """``(lane, nibble) -> (row, chunk)`` of the metadata register for one selector; -1 where unused."""

    form: MmaSpForm
    selector: int
    row: np.ndarray  # (32, 8) int32
    chunk: np.ndarray  # (32, 8) int32
    lane_of: np.ndarray  # (M, chunks) int32: inverse
    nibble_of: np.ndarray  # (M, chunks) int32

    @property
    def lanes(self) -> tuple[int, ...]:
        """Lanes whose ``e`` register the selector reads."""
        return tuple(int(x) for x in np.unique(self.lane_of))

    def __call__(self, lane: int, nibble: int) -> tuple[int, int] | None:
        r = int(self.row[lane, nibble])
        return None if r < 0 else (r, int(self.chunk[lane, nibble]))


@lru_cache(maxsize=None)
def meta_layout(form: MmaSpForm, selector: int) -> MetaLayout:
    if not form.sparse:
        raise ValueError(f"{form.key} is dense: it has no metadata")
    if selector not in form.selectors:
        raise ValueError(f"selector {selector} is not defined for {form.key} (defined: {form.selectors})")
    m_rows, chunks = form.shape.m, form.shape.k // form.chunk[1]
    row = np.full((LANES, 8), -1, dtype=np.int32)
    chunk = np.full((LANES, 8), -1, dtype=np.int32)
    lane_of = np.empty((m_rows, chunks), dtype=np.int32)
    nib_of = np.empty_like(lane_of)
    for m in range(m_rows):
        for c in range(chunks):
            lane, nib = meta_site(form, m, c, selector)
            assert row[lane, nib] == -1, f"{form.key}: two codes at lane {lane} nibble {nib}"
            row[lane, nib], chunk[lane, nib] = m, c
            lane_of[m, c], nib_of[m, c] = lane, nib
    for a in (row, chunk, lane_of, nib_of):
        a.flags.writeable = False
    return MetaLayout(form, selector, row, chunk, lane_of, nib_of)


# ----------------------------------------------------------------------------- block scaling


def scale_a_site(form: MmaSpForm, m: int, block: int, thread_id: int, byte_id: int) -> tuple[int, int]:
    """Row m, K-block → (lane, byte) holding its scale for A [CUTE: SFALayout; not hardware-verified].

    ``thread-id-a`` picks the lane pair ``4g + 2·thread_id + {0, 1}``; the even lane holds row g,
    the odd one row g+8; consecutive K blocks take consecutive bytes from ``byte-id``.
    """
    return 4 * (m % 8) + 2 * thread_id + m // 8, byte_id + block


def scale_b_site(form: MmaSpForm, n: int, block: int, thread_id: int, byte_id: int) -> tuple[int, int]:
    """Column n, K-block → (lane, byte) holding its scale for B [CUTE: SFBLayout]: lane ``4n + thread-id-b``."""
    return 4 * n + thread_id, byte_id + block


def scale_blocks(form: MmaSpForm) -> int:
    return {"1X": 1, "2X": 2, "4X": 4}[form.scale_vec] if form.scale_vec else 0
