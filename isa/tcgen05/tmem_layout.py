"""Where things live in Tensor Memory (PTX ISA 9.7.16.10.5-8, 9.7.16.8.3; reference ptx-tcgen05.md 1.4, 3, 4).

* :func:`datapath` — D[m][n] -> (CTA, lane, column offset) for every M / cta_group / sparsity.
* :func:`metadata_nibbles` — where each 4-bit sparse-metadata code of a row sits.
* :func:`scale_factor_cell` — where block-scale factors sit (reference JAX ``scales_layout``).
* :func:`regmap` — ``tcgen05.ld/st`` (thread, register) -> (lane, column) maps, as data.

The open questions of the reference (section 7) are decided by the constants below.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# ---------------------------------------------------------------- assumptions (reference section 7)
# Q1 (reference 3.3): sparse metadata for the half-datapath layouts (M = 64 cta_group::1, Layout F;
# M = 128 cta_group::2 sparse, Layout C). Figures 262/264/266 are unreadable. We place 16-row group g
# in lanes 32*g + lane_align + 0..15 with the same within-group interleave as M = 128 (CUTLASS
# tmem_e_frg_ws keeps that interleave; Layout F puts D rows there). "Assumed", not documented.
METADATA_M64_GROUP_LANE_STRIDE = 32
# Q2 (reference 3.2, seed 9.7.16.10.8.4): f16/tf32 selector picks the column: column = address + sel.
# Values 0/1 are what CUTLASS and JAX use; 2/3 extend the rule unverified.
METADATA_SELECTOR_ADDS_COLUMNS = True
# Q3 (reference 3.2): the metadata address column must be a multiple of this. CUTLASS comments
# "COL-4 aligned" but JAX steps by 2 columns and its hardware tests pass, so 2.
METADATA_COLUMN_ALIGN = 2
# Q4 (reference 3.1): 0b0110 (idx0 = 2, idx1 = 1) is listed valid by the tcgen05 text only.
METADATA_ACCEPT_0110 = True
# Scale factors (reference 2.2; JAX scales_layout, validated by its B200 tests): a 32-row block of
# rows/columns per TMEM column, the 4 bytes of a cell are 4 consecutive scale blocks along K, the
# 32 lanes replicated in the 4 lane quarters (tcgen05.cp .32x128b.warpx4). Data-path lane L reads
# the replica in its own quarter.
SF_ROWS_PER_COLUMN = 32

# ---------------------------------------------------------------- data-path layouts (9.7.16.10.5)


def datapath(m: int, n: int, cta_group: int, sparse: bool, ws: bool = False, lane_align: int = 0):
    """Layout of D (M x N, the instruction's full M, N): arrays (cta, lane, col) of shape (M, N).

    ``col`` is relative to the column of ``d-tmem``; ``lane`` is absolute (``lane_align`` = lane
    field of ``d-tmem``: 0, or 16 for the half-datapath layouts F and C).
    """
    r, c = np.meshgrid(np.arange(m), np.arange(n), indexing="ij")
    zero = np.zeros_like(r)
    name = layout_name(m, cta_group, sparse, ws)
    if name in ("F", "C"):
        rows = 64
        rr = r % rows
        return r // rows, METADATA_M64_GROUP_LANE_STRIDE * (rr // 16) + lane_align + rr % 16, c
    if name == "D":
        return zero, r, c
    if name == "A":
        return r // 128, r % 128, c
    if name == "B":
        return r // 64, r % 64 + 64 * (c // (n // 2)), c % (n // 2)
    if name == "E":
        return zero, r + 64 * (c // (n // 2)), c % (n // 2)
    return zero, r + 32 * (c // (n // 4)), c % (n // 4)  # G


def layout_name(m: int, cta_group: int, sparse: bool, ws: bool = False) -> str:
    """The PTX data-path layout letter (Table in 9.7.16.10.5; reference section 4)."""
    table = {(32, 1, True): "G", (64, 1, True): "E", (128, 1, True): "D", (64, 1, False): "F",
             (128, 1, False): "D", (256, 2, False): "A"}
    if cta_group == 2 and m == 128 and not ws:
        return "C" if sparse else "B"
    try:
        return table[(m, cta_group, ws)]
    except KeyError:
        raise ValueError(f"no data-path layout for M = {m}, cta_group::{cta_group}{' .ws' if ws else ''}") from None


def legal_lane_aligns(m: int, cta_group: int, sparse: bool, ws: bool = False) -> tuple:
    return (0, 16) if layout_name(m, cta_group, sparse, ws) in ("F", "C") else (0,)


# ---------------------------------------------------------------- sparse metadata (9.7.16.10.8)
CHUNK = {"tf32": 2, "f16": 4, "f8f6f4": 4, "i8": 4, "mxf8f6f4": 4, "mxf4": 8, "mxf4nvf4": 8}


def metadata_nibbles(kind: str, rows: int, k: int, lane_align: int = 0):
    """(lane, col, bit) arrays of shape (rows, k // CHUNK[kind]): the 4-bit code of chunk c of row r
    is bits bit..bit+3 of the cell (lane, base + sel + col). ``rows`` = 128 (M = 128 per CTA) or 64."""
    r, ch = np.meshgrid(np.arange(rows), np.arange(k // CHUNK[kind]), indexing="ij")
    kk = ch * CHUNK[kind]  # first dense K position of the chunk
    if kind in ("f16", "tf32"):  # reference 3.2: 16-row blocks, K halves in lanes +0..7 / +8..15
        per = 16 if kind == "f16" else 8
        in_block = r % 8 + 8 * (kk // per)
        bit = (kk % per) * (1 if kind == "f16" else 2) + 16 * ((r // 8) % 2)
        col = np.zeros_like(r)
    else:
        in_block = r % 16
        col = kk // (32 if CHUNK[kind] == 4 else 64)
        bit = kk % 32 if CHUNK[kind] == 4 else (kk % 64) // 2
    if rows == 128:
        lane = 16 * (r // 16) + in_block
    else:  # assumption METADATA_M64_GROUP_LANE_STRIDE
        lane = METADATA_M64_GROUP_LANE_STRIDE * (r // 16) + lane_align + in_block
    return lane, col, bit


def metadata_columns(kind: str) -> int:
    """TMEM columns one instruction's metadata spans (from its address column + selector)."""
    return 1 if kind in ("f16", "tf32") else 2


# ---------------------------------------------------------------- block-scale factors (9.7.16.10.7)
SCALE_VEC = {"1X": 1, "2X": 2, "4X": 4, "block32": None, "block16": 4}


def scale_factor_cell(index, dp_lane):
    """(lane, col offset) of the scale factor of A row / B column ``index`` (0..127 / 0..N-1), as read
    by data-path lane ``dp_lane``; the byte inside the cell is ``scale_factor_id + block``."""
    index, dp_lane = np.asarray(index), np.asarray(dp_lane)
    return 32 * ((dp_lane % 128) // 32) + index % SF_ROWS_PER_COLUMN, index // SF_ROWS_PER_COLUMN


# ---------------------------------------------------------------- tcgen05.ld / st register maps
# shape: (registers per repetition, columns per repetition, lane(t, r), column-in-repetition(t, r));
# decoded from CUTLASS Copy_Traits<SM100_TMEM_LOAD_*> (reference 1.4 table).
SHAPES = {
    "32x32b": (1, 1, lambda t, r: t, lambda t, r: 0 * t),
    "16x64b": (1, 2, lambda t, r: t // 4 + 8 * (t % 2), lambda t, r: (t // 2) % 2),
    "16x128b": (2, 4, lambda t, r: t // 4 + 8 * r, lambda t, r: t % 4),
    "16x256b": (4, 8, lambda t, r: t // 4 + 8 * (r // 2), lambda t, r: 2 * (t % 4) + r % 2),
    "16x32bx2": (1, 1, lambda t, r: t % 16, lambda t, r: 0 * t),
}
MAX_NUM = {"32x32b": 128, "16x64b": 128, "16x32bx2": 128, "16x128b": 64, "16x256b": 32}
SHAPE_LANES = {"32x32b": 32, "16x64b": 16, "16x128b": 16, "16x256b": 16, "16x32bx2": 16}


@dataclass(frozen=True)
class RegMap:
    """lane[t, i, h], col[t, i, h]: TMEM (lane, column) offsets from taddr of half h of register i of
    thread t. h has one entry (the whole 32-bit cell) or two with .pack::16b / .unpack::16b (h = 0 is
    register bits 15..0, h = 1 bits 31..16; each the low 16 bits of its cell)."""

    shape: str
    num: int
    pack: bool
    lane: np.ndarray
    col: np.ndarray

    @property
    def nregs(self) -> int:
        return self.lane.shape[1]


def regmap(shape: str, num: int, pack: bool = False, imm_half_splitoff: int | None = None) -> RegMap:
    """The (thread, register) -> (lane, column) map of ``tcgen05.{ld,st}.<shape>.x<num>{.pack::16b}``.

    ``.pack::16b`` reads two adjacent columns per 32-bit shape column (columns double). For 16x32bx2
    the second half-warp is ``imm_half_splitoff`` TMEM columns further (assumption: the immediate is
    in TMEM columns, not scaled by packing)."""
    if shape not in SHAPES:
        raise ValueError(f"unknown tcgen05.ld/st shape .{shape}; legal: {', '.join('.' + s for s in SHAPES)}")
    if num not in [1 << i for i in range(8)] or num > MAX_NUM[shape]:
        raise ValueError(f".x{num} is illegal for .{shape}; legal: .x1 .. .x{MAX_NUM[shape]} (powers of two)")
    if (shape == "16x32bx2") != (imm_half_splitoff is not None):
        raise ValueError("immHalfSplitoff is required by .16x32bx2 and only by it")
    rpr, cpr, lane_fn, col_fn = SHAPES[shape]
    t = np.arange(32)[:, None, None]
    i = np.arange(rpr * num)[None, :, None]
    h = np.arange(2 if pack else 1)[None, None, :]
    j, r = i // rpr, i % rpr
    lane = lane_fn(t, r) + 0 * i + 0 * h
    col = j * cpr + col_fn(t, r) + 0 * h
    col = 2 * col + h if pack else col + 0 * t
    if shape == "16x32bx2":
        col = col + (t >= 16) * imm_half_splitoff
    return RegMap(shape, num, pack, lane.astype(np.int64), col.astype(np.int64))
