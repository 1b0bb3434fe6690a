"""Terminal rendering: ANSI 24-bit colour (CuTe palette) or plain text, wrapped to the terminal width.

A cell prints its lines joined by a space (``T5 V3``); wide grids are cut into column bands that
fit ``width`` (chunk boundaries preferred), like numpy's line wrapping. In plain text a highlighted
lane's cells are marked ``*`` and ignored / flagged cells keep their text marks (``-``, ``?``, ``!``).
"""
from __future__ import annotations

import shutil
import textwrap

from warpsim.render.model import KIND_TEXT, Figure, Grid, cell_fill, emphasized, lane_rgb

RESET = "\x1b[0m"


def _ansi(rgb, bold: bool) -> str:
    return f"\x1b[{'1;' if bold else ''}30;48;2;{rgb[0]};{rgb[1]};{rgb[2]}m"


def _cell_text(cell) -> str:
    return " ".join(cell.lines)


def _bands(grid: Grid, cw: int, label_w: int, width: int) -> list[range]:
    ncols = grid.shape[1]
    fit = max(1, (width - label_w - 1) // (cw + 1))
    step = grid.band[1]
    if step and fit >= step:
        fit -= fit % step
    return [range(s, min(s + fit, ncols)) for s in range(0, ncols, fit)]


def render_grid(grid: Grid, highlight=None, color: bool = False, width: int = 100) -> list[str]:
    cw = max(len(_cell_text(c)) for row in grid.cells for c in row) + (1 if highlight is not None else 0)
    cw = max(cw, max(len(c) for c in grid.cols))
    lw = max(len(r) for r in grid.rows)
    out = textwrap.wrap(grid.title, width)
    bands = _bands(grid, cw, lw, width)
    notes_fit = lw + 1 + (cw + 1) * len(bands[-1]) + 1 + max(map(len, grid.row_notes), default=0) <= width
    for band in bands:
        head = " " * lw + " " + " ".join(grid.cols[c].rjust(cw) for c in band)
        out.append(head.rstrip())
        for r, label in enumerate(grid.rows):
            if grid.band[0] and r and r % grid.band[0] == 0:
                out.append(" " * lw + " " + "-" * ((cw + 1) * len(band) - 1))
            parts = [_fmt(grid.cells[r][c], cw, highlight, color) for c in band]
            note = grid.row_notes[r] if grid.row_notes and notes_fit and band is bands[-1] else ""
            out.append((label.rjust(lw) + " " + " ".join(parts) + ("  " + note if note else "")).rstrip())
        if len(band) < grid.shape[1]:
            out.append("")
    if grid.row_notes and not notes_fit:
        out.append("")
        for label, note in zip(grid.rows, grid.row_notes):
            wrapped = textwrap.wrap(note, max(width - lw - 2, 8)) or [""]
            out += [f"{label.rjust(lw) if i == 0 else ' ' * lw}: {w}" for i, w in enumerate(wrapped)]
    if grid.caption:
        out += textwrap.wrap(f"({grid.caption})", width)
    return out


def _fmt(cell, cw: int, highlight, color: bool) -> str:
    text = _cell_text(cell)
    mark = emphasized(cell, highlight)
    if not color:
        return (("*" if mark else "") + text).rjust(cw)
    return _ansi(cell_fill(cell, highlight), mark) + text.rjust(cw) + RESET


def legend(fig: Figure, color: bool) -> list[str]:
    meaning, label, count = fig.palette
    parts = [_ansi(lane_rgb(i), False) + " " + label.format(i) + " " + RESET for i in range(count)] if color else []
    line = " ".join(parts) if parts else f"colour = {meaning} (CuTe palette; --format html/svg to see it)"
    kinds = [f"{k}: {KIND_TEXT[k]}" for k in fig.kinds]
    if fig.highlight is not None:
        kinds.append(f"{'bold' if color else '*'}: lane {fig.highlight}")
    return [line] + (["  " + "; ".join(kinds)] if kinds else [])


def render(fig: Figure, color: bool = False, width: int | None = None) -> str:
    """The whole figure as text (``color=True`` for ANSI); ``width`` defaults to the terminal's."""
    width = width or shutil.get_terminal_size((100, 24)).columns
    out = [f"# layout: {fig.header}"]
    for grid in fig.grids:
        out.append("")
        out += render_grid(grid, fig.highlight, color, width)
    out.append("")
    out += legend(fig, color) if color else [w for line in legend(fig, color) for w in textwrap.wrap(line, width)]
    out += [w for n in fig.notes for w in textwrap.wrap(n, width, initial_indent="- ", subsequent_indent="  ")]
    return "\n".join(out) + "\n"
