"""SVG rendering in CuTe's print_svg style: ``T#`` over ``V#`` per cell, fill = lane % 8 pastel.

Grids flow left to right and wrap below ``max_width``; a highlighted lane gets a thick outline and
the other lanes fade. The figure's header is the first comment (``<!-- layout: ... -->``).
Deterministic text output (golden-file tested); no dependencies.
"""
from __future__ import annotations

from html import escape

from warpsim.render.model import KIND_RGB, KIND_TEXT, Figure, Grid, cell_fill, emphasized, hexrgb, lane_rgb

FONT, LINE, CHAR = 9, 10, 5.6  # font size, line height, approximate monospace advance (px)
TITLE, PAD, GAP = 12, 4, 24


def _esc(text: str) -> str:
    return escape(text, quote=True)


class _Box:
    """One grid laid out: its size and the SVG text at origin (0, 0)."""

    def __init__(self, grid: Grid, highlight, tips: bool):
        self.grid, self.highlight, self.tips = grid, highlight, tips
        nlines = max(len(c.lines) for row in grid.cells for c in row)
        longest = max(len(t) for row in grid.cells for c in row for t in c.lines)
        self.cw = max(24, round(CHAR * max(longest, max(map(len, grid.cols))) + 2 * PAD))
        self.ch = LINE * nlines + 2 * PAD
        self.lw = round(CHAR * max(map(len, grid.rows))) + 2 * PAD
        self.nw = round(CHAR * max(map(len, grid.row_notes), default=0)) + (2 * PAD if grid.row_notes else 0)
        rows, cols = grid.shape
        self.top = TITLE + 6 + LINE + 2
        self.width = max(self.lw + cols * self.cw + self.nw, round(0.62 * (TITLE - 1) * len(grid.title)))
        self.height = self.top + rows * self.ch + (LINE + 6 if grid.caption else 2)

    def svg(self) -> list[str]:
        g, out = self.grid, []
        out.append(f'<text x="0" y="{TITLE}" font-size="{TITLE - 1}" font-weight="bold">{_esc(g.title)}</text>')
        y0, x0 = self.top, self.lw
        out.append(f'<g text-anchor="middle" fill="#444">')
        out += [f'<text x="{x0 + c * self.cw + self.cw / 2:g}" y="{y0 - 4}">{_esc(t)}</text>'
                for c, t in enumerate(g.cols)]
        out.append("</g>")
        out.append('<g text-anchor="end" fill="#444">')
        out += [f'<text x="{x0 - PAD}" y="{y0 + r * self.ch + self.ch / 2 + 3:g}">{_esc(t)}</text>'
                for r, t in enumerate(g.rows)]
        out.append("</g>")
        out += self._cells(x0, y0)
        out += self._rules(x0, y0)
        if g.row_notes:
            xn = x0 + g.shape[1] * self.cw + PAD
            out += [f'<text x="{xn}" y="{y0 + r * self.ch + self.ch / 2 + 3:g}">{_esc(t)}</text>'
                    for r, t in enumerate(g.row_notes)]
        if g.caption:
            out.append(f'<text x="0" y="{y0 + g.shape[0] * self.ch + LINE + 2}" fill="#444">({_esc(g.caption)})</text>')
        return out

    def _cells(self, x0, y0) -> list[str]:
        """Fills (one path per colour, or one rect per cell with a tooltip), thin grid, marks, texts."""
        fills: dict[str, list[str]] = {}
        out, marks, texts = [], [], ['<g text-anchor="middle">']
        for r, row in enumerate(self.grid.cells):
            for c, cell in enumerate(row):
                x, y = x0 + c * self.cw, y0 + r * self.ch
                fill = hexrgb(cell_fill(cell, self.highlight))
                if self.tips and cell.tip:
                    out.append(f'<rect x="{x}" y="{y}" width="{self.cw}" height="{self.ch}" fill="{fill}">'
                               f"<title>{_esc(cell.tip)}</title></rect>")
                else:
                    fills.setdefault(fill, []).append(f"M{x} {y}h{self.cw}v{self.ch}h-{self.cw}z")
                if emphasized(cell, self.highlight):
                    marks.append(f"M{x + 1} {y + 1}h{self.cw - 2}v{self.ch - 2}h-{self.cw - 2}z")
                top = y + (self.ch - LINE * len(cell.lines)) / 2 + LINE - 2
                for i, line in enumerate(cell.lines):
                    texts.append(f'<text x="{x + self.cw / 2:g}" y="{top + i * LINE:g}">{_esc(line)}</text>')
        out += [f'<path fill="{f}" d="{"".join(d)}"/>' for f, d in fills.items()]
        out.append(self._grid_path(x0, y0))
        if marks:
            out.append(f'<path fill="none" stroke="#c00000" stroke-width="2" d="{"".join(marks)}"/>')
        return out + texts + ["</g>"]

    def _grid_path(self, x0, y0) -> str:
        (rows, cols), w, h = self.grid.shape, self.grid.shape[1] * self.cw, self.grid.shape[0] * self.ch
        d = "".join(f"M{x0} {y0 + r * self.ch}h{w}" for r in range(1, rows))
        d += "".join(f"M{x0 + c * self.cw} {y0}v{h}" for c in range(1, cols))
        return f'<path fill="none" stroke="#000" stroke-width="0.5" d="{d}"/>'

    def _rules(self, x0, y0) -> list[str]:
        (rb, cb), (rows, cols) = self.grid.band, self.grid.shape
        w, h = cols * self.cw, rows * self.ch
        lines = [f'<line x1="{x0}" y1="{y0 + r * self.ch}" x2="{x0 + w}" y2="{y0 + r * self.ch}"/>'
                 for r in range(rb, rows, rb)] if rb else []
        lines += [f'<line x1="{x0 + c * self.cw}" y1="{y0}" x2="{x0 + c * self.cw}" y2="{y0 + h}"/>'
                  for c in range(cb, cols, cb)] if cb and cb > 1 else []
        frame = f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="none"/>'
        return ['<g stroke="#000" stroke-width="1.5">'] + lines + [frame, "</g>"]


def legend_items(fig: Figure) -> list[tuple[str, tuple]]:
    _meaning, label, count = fig.palette
    items = [(label.format(i), lane_rgb(i)) for i in range(count)]
    items += [(KIND_TEXT[k], KIND_RGB.get(k) or cell_fill_window()) for k in fig.kinds]
    return items


def cell_fill_window():
    from warpsim.render.model import Cell

    return cell_fill(Cell(lane=0, kind="window"), None)


def _legend(fig: Figure, y: int) -> tuple[list[str], int]:
    out, x = [], 0
    for label, rgb in legend_items(fig):
        wid = 16 + round(CHAR * len(label)) + 12
        out.append(f'<rect x="{x}" y="{y}" width="12" height="12" fill="{hexrgb(rgb)}" stroke="#000" '
                   'stroke-width="0.5"/>'
                   f'<text x="{x + 16}" y="{y + 10}">{_esc(label)}</text>')
        x += wid
    if fig.highlight is not None:
        out.append(f'<rect x="{x}" y="{y}" width="12" height="12" fill="none" stroke="#c00000" stroke-width="2"/>'
                   f'<text x="{x + 16}" y="{y + 10}">lane {fig.highlight}</text>')
        x += 80
    return out, x


def render(fig: Figure, tips: bool = False, max_width: int = 1500, notes: bool = True, legend: bool = True) -> str:
    """The figure as a standalone SVG document (``tips``: a ``<title>`` tooltip per cell; ``notes`` and
    ``legend`` drawn below the grids unless the caller shows them itself)."""
    boxes = [_Box(g, fig.highlight, tips) for g in fig.grids]
    body, x, y, row_h, width = [], 0, 24, 0, 0
    for box in boxes:
        if x and x + box.width > max_width:
            x, y, row_h = 0, y + row_h + GAP, 0
        body.append(f'<g transform="translate({x},{y})">')
        body += box.svg()
        body.append("</g>")
        width, row_h = max(width, x + box.width), max(row_h, box.height)
        x += box.width + GAP
    y += row_h + GAP
    leg, lw = _legend(fig, y) if legend else ([], 0)
    y += 24 if legend else 0
    if notes:
        leg += [f'<text x="0" y="{y + i * (LINE + 3)}">{_esc(n)}</text>' for i, n in enumerate(fig.notes)]
        y += len(fig.notes) * (LINE + 3)
    width = max(width, lw, round(0.62 * 13 * len(fig.header)),
                round(CHAR * max(map(len, fig.notes), default=0)) if notes else 0) + 8
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y}" viewBox="-4 0 {width} {y}" '
            f'font-family="DejaVu Sans Mono,Menlo,Consolas,monospace" font-size="{FONT}">')
    title = f'<text x="0" y="14" font-size="13" font-weight="bold">{_esc(fig.header)}</text>'
    bg = f'<rect x="-4" y="0" width="{width}" height="{y}" fill="#fff"/>'
    return "\n".join([head, f"<!-- layout: {_esc(fig.header)} -->", bg, title] + body + leg + ["</svg>"]) + "\n"
