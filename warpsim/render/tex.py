"""TikZ in the style of CuTe's ``print_latex``: a standalone document, x axis pointing down, one node
per cell with ``\\shortstack{T# \\\\ V#}`` and the lane's ``{rgb,255:...}`` fill, index labels on the edges.

The first line is ``% layout: <form> <operand> <signature>``. Grids are stacked top to bottom.
"""
from __future__ import annotations

from warpsim.render.model import Figure, Grid, cell_fill, emphasized

_ESC = {"\\": r"\textbackslash{}", "_": r"\_", "#": r"\#", "%": r"\%", "&": r"\&", "$": r"\$",
        "{": r"\{", "}": r"\}", "|": r"\textbar{}", "~": r"\textasciitilde{}", "^": r"\^{}"}


def esc(text: str) -> str:
    return "".join(_ESC.get(ch, ch) for ch in text)


def _rgb(rgb) -> str:
    return "{rgb,255:red,%d;green,%d;blue,%d}" % tuple(rgb)


def _grid(grid: Grid, highlight, x0: float) -> list[str]:
    rows, cols = grid.shape
    out = [f"% {esc(grid.title)}",
           f"\\node[anchor=south west,minimum size=0pt] at ({x0 - 1.6:g},-0.5) {{\\textbf{{{esc(grid.title)}}}}};"]
    for r, row in enumerate(grid.cells):
        for c, cell in enumerate(row):
            body = r" \\ ".join("{" + esc(t) + "}" for t in cell.lines)
            style = f"fill={_rgb(cell_fill(cell, highlight))}"
            if emphasized(cell, highlight):
                style += ",draw=red,line width=1.5pt"
            out.append(f"\\node[{style}] at ({x0 + r:g},{c}) {{\\shortstack{{{body}}}}};")
    out.append(f"\\draw[color=black,thick,shift={{(-0.5,-0.5)}}] ({x0:g},0) grid ({x0 + rows:g},{cols});")
    out += [f"\\node at ({x0 + r:g},-1) {{\\texttt{{{esc(t)}}}}};" for r, t in enumerate(grid.rows)]
    out += [f"\\node at ({x0 - 1:g},{c}) {{\\texttt{{{esc(t)}}}}};" for c, t in enumerate(grid.cols)]
    if grid.row_notes:
        out += [f"\\node[anchor=west,minimum size=0pt] at ({x0 + r:g},{cols - 0.4:g}) {{\\texttt{{{esc(t)}}}}};"
                for r, t in enumerate(grid.row_notes)]
    return out


def render(fig: Figure) -> str:
    out = [f"% layout: {fig.header}",
           r"\documentclass[convert]{standalone}",
           r"\usepackage[T1]{fontenc}",
           r"\usepackage{tikz}",
           r"\begin{document}",
           r"\begin{tikzpicture}[x={(0cm,-1cm)},y={(1cm,0cm)},every node/.style={minimum size=1cm, outer sep=0pt}]",
           f"\\node[anchor=south west,minimum size=0pt] at (-3.2,-0.5) {{\\large\\textbf{{{esc(fig.header)}}}}};"]
    x0 = 0.0
    for grid in fig.grids:
        out += _grid(grid, fig.highlight, x0)
        x0 += grid.shape[0] + 3
    out += [f"\\node[anchor=west,minimum size=0pt] at ({x0 + i * 0.6 - 1:g},-0.5) {{\\small {esc(n)}}};"
            for i, n in enumerate(fig.notes)]
    out += [r"\end{tikzpicture}", r"\end{document}"]
    return "\n".join(out) + "\n"
