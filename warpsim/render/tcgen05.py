"""tcgen05 pictures: Tensor Memory canvases (lanes x columns) and shared-memory swizzle atoms.

* :func:`tmem_d_figure` — where D[m][n] lands per M / cta_group / sparsity (``tmem_layout.datapath``).
* :func:`tmem_meta_figure` — where each sparse-metadata code lives per kind and which column the
  sparsity selector reads (``tmem_layout.metadata_nibbles``): PTX ISA Figures 262–267.
* :func:`swizzle_figure` — where each logical 16-byte chunk of a swizzle atom lands (``smem_desc.swizzle``).

Cell colours follow the CuTe palette: TMEM cells by the 32-lane quarter a warp may ``tcgen05.ld``
(D) or by the 8-row block of A (metadata); swizzle cells by the logical 16-byte column.
"""
from __future__ import annotations

import numpy as np

from isa.tcgen05 import smem_desc as sd
from isa.tcgen05 import tmem_layout as tl
from isa.tcgen05.idesc import DENSE_K
from warpsim.render.model import Cell, Figure, Grid

META_KINDS = ("f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4")
EMPTY = Cell(("",), None, "empty", "")


def _canvas(name, title, cells, ncols, col_label, band=(32, 0), notes=None) -> Grid:
    return Grid(name, title, [f"L{lane}" for lane in range(len(cells))], [col_label(c) for c in range(ncols)], cells,
                notes or [], band=band)


def tmem_d_figure(m: int, cta_group: int = 1, sparse: bool = False, n: int = 16, ws: bool = False,
                  lane_align: int = 0) -> Figure:
    """D (M x N) in TMEM, one canvas of 128 lanes per CTA; cell = (row m, column n) of D."""
    name = tl.layout_name(m, cta_group, sparse, ws)
    cta, lane, col = tl.datapath(m, n, cta_group, sparse, ws, lane_align)
    ncols = int(col.max()) + 1
    grids = []
    for c in range(int(cta.max()) + 1):
        cells = [[EMPTY] * ncols for _ in range(128)]
        for r, nn in zip(*np.nonzero(cta == c)):
            ln, co = int(lane[r, nn]), int(col[r, nn])
            cells[ln][co] = Cell((f"m{r}", f"n{nn}"), ln // 32, "own",
                                 f"D[{r}][{nn}] -> CTA {c} lane {ln} column d+{co} (warp {ln // 32} of the warpgroup)")
        grids.append(_canvas("tmem-d", f"CTA {c}: TMEM lanes x columns (from the d-tmem column)", cells, ncols,
                             lambda x: f"+{x}"))
    header = (f"tcgen05 D in TMEM: M={m} cta_group::{cta_group}{' .ws' if ws else ''} "
              f"{'sparse' if sparse else 'dense'} N={n} -> layout {name}")
    notes = [f"Layout {name} (PTX ISA 9.7.16.10.5); colour = the lane quarter (warp w of the warpgroup "
             f"reaches lanes 32w..32w+31 with tcgen05.ld); lane alignment {lane_align}."]
    if name in ("F", "C"):
        notes.append("Half-datapath layout: rows 16g..16g+15 in lanes 32g + alignment (0 or 16)"
                     + (" [assumed for C: reference ptx-tcgen05.md 4]" if name == "C" else "") + ".")
    return Figure("tcgen05", "D", None, header, grids, notes, palette=("lane quarter (warp)", "lanes {}x32..", 4))


def meta_selectors(kind: str) -> tuple[int, ...]:
    return (0, 1, 2, 3) if kind in ("f16", "tf32") else (0,)


def tmem_meta_figure(kind: str, rows: int = 128, selector: int = 0, lane_align: int = 0) -> Figure:
    """Sparse metadata of one instruction in TMEM: 8 nibbles per 32-bit cell; the selector's column(s) in colour."""
    if kind not in META_KINDS:
        raise ValueError(f"kind must be one of {', '.join(META_KINDS)}, not {kind!r}")
    if selector not in meta_selectors(kind):
        raise ValueError(f"sparsity selector {selector} is not defined for .kind::{kind}: "
                         f"{', '.join(map(str, meta_selectors(kind)))}")
    k = 2 * DENSE_K[kind]
    lane, col, bit = tl.metadata_nibbles(kind, rows, k, lane_align)
    span = tl.metadata_columns(kind) + (max(meta_selectors(kind)) if tl.METADATA_SELECTOR_ADDS_COLUMNS else 0)
    read = col + (selector if tl.METADATA_SELECTOR_ADDS_COLUMNS else 0)
    w = tl.CHUNK[kind]
    other = Cell(("",), None, "other", "")
    cells = [[other] * (span * 8) for _ in range(128)]
    for r, ch in np.ndindex(lane.shape):
        ln, co, nib = int(lane[r, ch]), int(read[r, ch]), int(bit[r, ch]) // 4
        cells[ln][co * 8 + 7 - nib] = Cell((f"m{r}", f"c{ch}"), (r // 8) % 8, "own",
                                           f"row {r}, chunk {ch} (k{w * ch}..{w * ch + w - 1}) -> lane {ln}, "
                                           f"column base+{co}, bits [{4 * nib + 3}:{4 * nib}]")
    used = sorted({int(x) for x in lane.ravel()})
    for ln in range(128):
        if ln not in used:
            cells[ln] = [EMPTY] * (span * 8)
    title = f".kind::{kind} metadata, {rows} rows, selector {selector}: TMEM lanes x (column, nibble)"
    grid = _canvas("tmem-meta", title,
                   cells, span * 8, lambda x: f"+{x // 8}[{4 * (7 - x % 8) + 3}:{4 * (7 - x % 8)}]", band=(16, 8))
    header = f"tcgen05 sparse metadata in TMEM: .kind::{kind} M={rows}/CTA K={k} selector {selector}"
    notes = [f"Chunk c = {w} dense K columns, one 4-bit code; colour = 8-row block of A; column +j is "
             f"relative to [sp-meta-tmem]{' + selector' if tl.METADATA_SELECTOR_ADDS_COLUMNS and span > 2 else ''}."]
    if kind in ("f16", "tf32") and selector > 1:
        notes.append("Selectors 2 and 3 extend 'column = address + selector' unverified "
                     "(reference ptx-tcgen05.md 3.2).")
    if rows == 64:
        notes.append("M = 64 placement is assumed (rows 16g.. in lanes 32g + alignment; reference ptx-tcgen05.md 3.3).")
    return Figure("tcgen05", "E", selector, header, [grid], notes, palette=("8-row block of A", "rows {}x8..", 8))


def swizzle_figure(mode: str) -> Figure:
    """One swizzle atom: physical (row, 16-byte column) cells labelled with the logical (row, column) stored there."""
    if mode not in sd.SWIZZLES:
        raise ValueError(f"swizzle mode must be one of {', '.join(sd.SWIZZLES)}, not {mode!r}")
    sw = sd.SWIZZLES[mode]
    ncols, nrows = sw.row_bytes // 16, max(8, sw.repeat // sw.row_bytes)
    cells = [[EMPTY] * ncols for _ in range(nrows)]
    for r in range(nrows):
        for c in range(ncols):
            phys = int(sd.swizzle(mode, r * sw.row_bytes + 16 * c))
            pr, pc = divmod(phys, sw.row_bytes)
            cells[pr][pc // 16] = Cell((f"r{r}", f"u{c}"), c, "own",
                                       f"logical row {r}, bytes {16 * c}..{16 * c + 15} -> byte {phys}")
    grid = Grid("swizzle", f"swizzle {mode}: physical row x 16-byte unit, labelled with the logical (row r, unit u)",
                [f"r{r}" for r in range(nrows)], [f"+{16 * c}B" for c in range(ncols)], cells, band=(8, 0))
    header = (f"tcgen05 shared-memory swizzle {mode}: Swizzle<{sw.b},{sw.m},{sw.s}>, {sw.row_bytes}-byte rows, "
              f"pattern repeats every {sw.repeat} bytes")
    notes = ["Address bits [m+b-1:m] ^= bits [m+s+b-1:m+s] (CuTe Swizzle<b,m,s>); colour = logical 16-byte unit."]
    return Figure("tcgen05", "SMEM", None, header, [grid], notes, palette=("logical 16-byte unit", "u{}", ncols))


# (figure, caption, kind, rows): PTX ISA 9.2 Figures 262-267 (9.7.16.10.8.4, "Sparsity selector")
SEED_FIGURES = (("262", "M = 64, .kind::f16", "f16", 64), ("263", "M = 128 / M = 256, .kind::f16", "f16", 128),
                ("264", "M = 64, .kind::tf32", "tf32", 64), ("265", "M = 128 / M = 256, .kind::tf32", "tf32", 128),
                ("266", "M = 64, .kind::f8f6f4, mxf8f6f4, i8, mxf4, mxf4nvf4", "f8f6f4", 64),
                ("267", "M = 128 / M = 256, .kind::f8f6f4, mxf8f6f4, i8, mxf4, mxf4nvf4", "f8f6f4", 128))
D_CASES = ((128, 1, False), (64, 1, False), (256, 2, False), (128, 2, False), (128, 2, True))
