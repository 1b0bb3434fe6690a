"""Tensor Memory of one CTA: 128 lanes x 512 columns of 32-bit cells (PTX ISA 9.7.16.2, 9.7.16.7-8).

Allocation rules (9.7.16.7.1), the warp -> lane-quarter rule of tcgen05.ld/st (9.7.16.8.3), and every
access checked against the allocated columns. Placement of an allocation is undocumented; we take
the lowest free run aligned to its size (an assumption, reference 1.2). Cells are poisoned on
allocation; ``defined`` tracks which cells were written since.

Two views of the cells: ``cells``/``defined`` are what ``tcgen05.ld`` sees now; ``future``/``fdefined``
are the cells once every queued asynchronous operation (mma, cp, shift) has completed, which is what the
next queued operation computes from (they run in issue order, warpsim.tcgen05_async). ``w_op``/``r_op``
name the last asynchronous operation that wrote / read each cell (-1: none), for hazard checks.
"""
from __future__ import annotations

import numpy as np

from isa.errors import WarpsimError
from isa.tcgen05 import smem_desc as sd
from isa.tcgen05.tmem_layout import SHAPE_LANES, regmap

LANES, COLUMNS = 128, 512
POISON = 0xFFBADBAD  # a NaN as f32, huge as s32: stands out in a dump


class TmemError(WarpsimError):
    """Misuse of Tensor Memory."""


class TmemAllocError(TmemError):
    """An illegal tcgen05.alloc / dealloc / relinquish_alloc_permit."""


class TmemAccessError(TmemError):
    """A TMEM access out of range, outside the allocation, or outside the warp's lane quarter."""


def split(taddr: int) -> tuple[int, int]:
    """taddr -> (lane, column): bits 31..16 lane, 15..0 column (9.7.16.2.1)."""
    return (int(taddr) >> 16) & 0xFFFF, int(taddr) & 0xFFFF


class Tmem:
    def __init__(self, cta: int = 0):
        self.cta = cta
        self.cells = np.full((LANES, COLUMNS), POISON, dtype=np.uint32)
        self.defined = np.zeros((LANES, COLUMNS), dtype=bool)
        self.future = self.cells.copy()
        self.fdefined = self.defined.copy()
        self.w_op = np.full((LANES, COLUMNS), -1, dtype=np.int64)
        self.r_op = np.full((LANES, COLUMNS), -1, dtype=np.int64)
        self.alloc_where: dict[int, str] = {}  # first column -> where it was allocated
        self.allocs: dict[int, int] = {}  # first column -> number of columns
        self.relinquished = False
        self.last_ncols: int | None = None
        self.cta_group: int | None = None

    # ------------------------------------------------------------ allocation (9.7.16.7.1)
    def _uniform(self, op: str, cta_group: int) -> None:
        if cta_group not in (1, 2):
            raise TmemAllocError(f"{op}: .cta_group::{cta_group} is illegal; legal: ::1, ::2")
        if self.cta_group is None:
            self.cta_group = cta_group
        elif cta_group != self.cta_group:
            raise TmemAllocError(f"{op}.cta_group::{cta_group} in a kernel whose tcgen05 instructions use "
                                 f".cta_group::{self.cta_group}; all must use the same .cta_group")

    def used(self) -> np.ndarray:
        """(COLUMNS,) bool: allocated columns."""
        used = np.zeros(COLUMNS, dtype=bool)
        for c, n in self.allocs.items():
            used[c:c + n] = True
        return used

    def check_alloc(self, ncols: int, cta_group: int = 1) -> None:
        """The rules of tcgen05.alloc that do not depend on where the columns land."""
        op = "tcgen05.alloc"
        self._uniform(op, cta_group)
        if ncols not in (32, 64, 128, 256, 512):
            raise TmemAllocError(f"{op}: nCols = {ncols} is illegal; legal: a power of two in [32, 512] "
                                 "(32, 64, 128, 256, 512)")
        if self.relinquished:
            raise TmemAllocError(f"{op} after tcgen05.relinquish_alloc_permit in this CTA is illegal")
        if self.last_ncols is not None and ncols > self.last_ncols:
            raise TmemAllocError(f"{op}: nCols = {ncols} exceeds the earlier allocation's {self.last_ncols}; "
                                 "a CTA's allocation sizes may not increase (PTX ISA 9.7.16.7.1)")

    def alloc(self, ncols: int, cta_group: int = 1, smem: np.ndarray | None = None, dst: int = 0,
              where: str = "", used: np.ndarray | None = None) -> int:
        """tcgen05.alloc: take ``ncols`` columns (all lanes); return the address, also stored at ``smem[dst]``.
        ``used``: columns to treat as taken (a cta_group::2 alloc takes the same columns in both CTAs)."""
        op = "tcgen05.alloc"
        self.check_alloc(ncols, cta_group)
        used = self.used() if used is None else used
        for start in range(0, COLUMNS, ncols):
            if not used[start:start + ncols].any():
                break
        else:
            raise TmemAllocError(f"{op}: nCols = {ncols} does not fit: {int((~used).sum())} of {COLUMNS} columns "
                                 f"free (allocated: {self._alloc_list()}); the alloc would block forever "
                                 "(no other CTA can free columns of this CTA's TMEM)")
        self.allocs[start] = ncols
        self.alloc_where[start] = where
        self.last_ncols = ncols
        for a in (self.cells, self.future):
            a[:, start:start + ncols] = POISON
        self.defined[:, start:start + ncols] = False
        self.fdefined[:, start:start + ncols] = False
        self.w_op[:, start:start + ncols] = -1
        self.r_op[:, start:start + ncols] = -1
        if smem is not None:
            if not 0 <= dst <= len(smem) - 4 or dst % 4:
                raise TmemAllocError(f"{op}: destination {dst:#x} is not a 4-aligned address in shared memory")
            smem[dst:dst + 4] = np.frombuffer(np.uint32(start).tobytes(), dtype=np.uint8)
        return start  # lane 0, column ``start``

    def dealloc(self, taddr: int, ncols: int, cta_group: int = 1) -> None:
        op = "tcgen05.dealloc"
        self._uniform(op, cta_group)
        lane, col = split(taddr)
        if lane != 0 or self.allocs.get(col) is None:
            raise TmemAllocError(f"{op}: address {int(taddr):#x} (lane {lane}, column {col}) is not the start of an "
                                 f"allocation; allocated: {self._alloc_list()}")
        if self.allocs[col] != ncols:
            raise TmemAllocError(f"{op}: nCols = {ncols} but the allocation at column {col} has "
                                 f"{self.allocs[col]} columns; dealloc must free exactly what alloc took")
        del self.allocs[col]
        self.alloc_where.pop(col, None)
        self.defined[:, col:col + ncols] = False
        self.fdefined[:, col:col + ncols] = False

    def relinquish_alloc_permit(self, cta_group: int = 1) -> None:
        self._uniform("tcgen05.relinquish_alloc_permit", cta_group)
        self.relinquished = True

    def check_exit(self) -> None:
        """At kernel exit every allocation must have been deallocated (9.7.16.7.1)."""
        if self.allocs:
            at = "; ".join(f"columns {c}..{c + n - 1} allocated at {self.alloc_where[c]}"
                           for c, n in sorted(self.allocs.items()) if self.alloc_where.get(c))
            who = f"CTA {getattr(self, 'ctaid', self.cta)}"
            raise TmemAllocError(f"{who} exits with TMEM still allocated: {self._alloc_list()}"
                                 + (f" ({at})" if at else "") + "; all TMEM a CTA allocates must be deallocated "
                                 "(tcgen05.dealloc) before the CTA exits (PTX ISA 9.7.16.7.1)")

    def _alloc_list(self) -> str:
        return ", ".join(f"columns {c}..{c + n - 1}" for c, n in sorted(self.allocs.items())) or "nothing"

    # ------------------------------------------------------------ raw cell access (checked)
    def check(self, op: str, lanes, cols) -> None:
        lanes, cols = np.asarray(lanes), np.asarray(cols)
        if lanes.size == 0:
            return
        bad = (lanes < 0) | (lanes >= LANES) | (cols < 0) | (cols >= COLUMNS)
        if bad.any():
            i = np.flatnonzero(bad.ravel())[0]
            raise TmemAccessError(f"{op}: TMEM (lane {lanes.ravel()[i]}, column {cols.ravel()[i]}) is out of range; "
                                  f"TMEM has lanes 0..{LANES - 1}, columns 0..{COLUMNS - 1}")
        owned = np.zeros(COLUMNS, dtype=bool)
        for c, n in self.allocs.items():
            owned[c:c + n] = True
        miss = ~owned[cols]
        if miss.any():
            c = int(cols.ravel()[np.flatnonzero(miss.ravel())[0]])
            raise TmemAccessError(f"{op}: TMEM column {c} is not allocated (allocated: {self._alloc_list()})")

    def read_cells(self, op: str, lanes, cols) -> np.ndarray:
        self.check(op, lanes, cols)
        return self.cells[lanes, cols]

    def write_cells(self, op: str, lanes, cols, values) -> None:
        self.check(op, lanes, cols)
        self.cells[lanes, cols] = values
        self.defined[lanes, cols] = True

    # ------------------------------------------------------------ tcgen05.ld / st (9.7.16.8.3)
    def _map(self, op, warp_id, taddr, shape, num, pack, imm):
        rm = regmap(shape, num, pack, imm)
        lane0, col0 = split(taddr)
        q = warp_id % 4
        if shape != "32x32b" and lane0 % 16 or shape == "32x32b" and lane0 % 32:
            raise TmemAccessError(f"{op}.{shape}: taddr lane {lane0} must be a multiple of {SHAPE_LANES[shape]}")
        lanes, cols = lane0 + rm.lane, col0 + rm.col
        if lanes.min() < 32 * q or lanes.max() > 32 * q + 31:
            raise TmemAccessError(f"{op}: warp {warp_id} accesses TMEM lanes {lanes.min()}..{lanes.max()}, but warp "
                                  f"{warp_id} (warp_id % 4 = {q}) may only reach lanes {32 * q}..{32 * q + 31}")
        self.check(op, lanes, cols)
        return rm, lanes, cols

    def ld(self, warp_id: int, taddr: int, shape: str, num: int, pack: bool = False,
           imm_half_splitoff: int | None = None) -> np.ndarray:
        """tcgen05.ld: (32 threads, registers) uint32."""
        rm, lanes, cols = self._map("tcgen05.ld", warp_id, taddr, shape, num, pack, imm_half_splitoff)
        v = self.cells[lanes, cols]
        if not pack:
            return v[:, :, 0]
        return (v[:, :, 0] & 0xFFFF) | ((v[:, :, 1] & 0xFFFF) << 16)

    def st(self, warp_id: int, taddr: int, shape: str, num: int, regs, unpack: bool = False,
           imm_half_splitoff: int | None = None, active=None) -> None:
        """tcgen05.st of ``regs`` (32, registers); ``.unpack::16b`` puts each half in a cell's low 16 bits
        (upper 16 bits zero: assumption)."""
        rm, lanes, cols = self._map("tcgen05.st", warp_id, taddr, shape, num, unpack, imm_half_splitoff)
        regs = np.asarray(regs, dtype=np.uint32).reshape(32, rm.nregs)
        vals = np.stack([regs & 0xFFFF, regs >> 16], axis=-1) if unpack else regs[:, :, None]
        sel = np.ones(32, dtype=bool) if active is None else np.asarray(active, dtype=bool)
        for c, d in ((self.cells, self.defined), (self.future, self.fdefined)):
            c[lanes[sel], cols[sel]] = vals[sel]
            d[lanes[sel], cols[sel]] = True

    # ------------------------------------------------------------ tcgen05.cp / shift (9.7.16.9)
    # shape -> (source rows, bytes per row, destination lanes of source row r)
    CP_SHAPES = {
        ("128x256b", None): (128, 32, lambda r: [r]),
        ("128x128b", None): (128, 16, lambda r: [r]),
        ("4x256b", None): (4, 32, lambda r: [r]),  # lanes lane0+0..3 (assumption; reference 1.5)
        ("32x128b", "warpx4"): (32, 16, lambda r: [r, r + 32, r + 64, r + 96]),
        ("64x128b", "warpx2::02_13"): (64, 16, lambda r: [r, r + 64]),
        ("64x128b", "warpx2::01_23"): (64, 16, lambda r: [64 * (r // 32) + r % 32, 64 * (r // 32) + r % 32 + 32]),
    }

    def cp(self, taddr: int, shape: str, smem: np.ndarray, sdesc: int, multicast: str | None = None,
           cta_group: int = 1, decompress: str | None = None) -> None:
        """tcgen05.cp SMEM -> TMEM. The source is a K-major canonical tile (rows x bytes) read through
        the shared-memory descriptor ``sdesc``. For cta_group::2 the caller runs it on both CTAs."""
        op = f"tcgen05.cp.{shape}" + (f".{multicast}" if multicast else "")
        self._uniform("tcgen05.cp", cta_group)
        if (shape, multicast) not in self.CP_SHAPES:
            raise TmemAccessError(f"{op}: illegal shape/multicast; legal: " + ", ".join(
                f".{s}{'.' + m if m else ''}" for s, m in self.CP_SHAPES))
        rows, nbytes, dests = self.CP_SHAPES[(shape, multicast)]
        lane0, col0 = split(taddr)
        if multicast and lane0 or lane0 % 32 and shape != "4x256b":
            raise TmemAccessError(f"{op}: taddr lane {lane0} must be {'0' if multicast else 'a multiple of 32'}")
        d = sd.decode(sdesc)
        if decompress not in (None, "b6x16_p32", "b4x16_p64"):
            raise TmemAccessError(f"{op}: .b8x16.{decompress} is illegal; legal: .b8x16.b6x16_p32, .b8x16.b4x16_p64")
        r, b = np.meshgrid(np.arange(rows), np.arange(nbytes), indexing="ij")
        data = sd._gather(smem, sd.address(d, "K", r, b)).astype(np.uint8)
        if decompress is not None:
            data = _decompress(data, decompress)
        words = data.view("<u4").reshape(rows, nbytes // 4)
        lanes, srcs = [], []
        for row in range(rows):
            for ln in dests(row):
                lanes.append(lane0 + ln)
                srcs.append(row)
        lanes = np.asarray(lanes)[:, None]
        cols = col0 + np.arange(nbytes // 4)[None, :]
        self.write_cells(op, lanes + 0 * cols, cols + 0 * lanes, words[srcs])

    def shift(self, taddr: int, cta_group: int = 1) -> None:
        """tcgen05.shift.down: 32-byte rows (8 columns) of lanes L..L+30 move down one lane (shape .31x256b)."""
        op = "tcgen05.shift.down"
        self._uniform(op, cta_group)
        lane0, col0 = split(taddr)
        if lane0 % 32:
            raise TmemAccessError(f"{op}: taddr lane {lane0} must be a multiple of 32")
        src_l = np.arange(lane0, lane0 + 31)[:, None]
        cols = col0 + np.arange(8)[None, :]
        vals = self.read_cells(op, src_l + 0 * cols, cols + 0 * src_l)
        self.write_cells(op, src_l + 1 + 0 * cols, cols + 0 * src_l, vals)


# Assumption CP_DECOMPRESS (reference 1.5, Figures 194-198 unreadable): in each 16-byte source group the
# 16 packed 6-/4-bit elements come first, LSB-first little-endian, the padding after (4 or 8 bytes);
# each lands in the low bits of one destination byte.
def _decompress(data: np.ndarray, fmt: str) -> np.ndarray:
    width = 6 if fmt == "b6x16_p32" else 4
    rows, nbytes = data.shape
    groups = data.reshape(rows, nbytes // 16, 16)[:, :, :2 * width]
    bits = np.unpackbits(groups, axis=-1, bitorder="little").reshape(rows, nbytes // 16, 16, width)
    return (bits << np.arange(width, dtype=np.uint8)).sum(axis=-1, dtype=np.uint8).reshape(rows, nbytes)


# ---------------------------------------------------------------- machine side (one CTA's state)
def cta_tmem(cta) -> Tmem:
    """The TMEM of ``cta`` (a warpsim.cta.CTA), created on first use (``CTA.tensor_memory``)."""
    return cta.tensor_memory()


def cta_smem(cta) -> np.ndarray:
    """The CTA's shared memory as a uint8 array indexed by shared-window address (no copy)."""
    return cta.shared.buf[:cta.shared.size]
