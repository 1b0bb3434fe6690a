"""tcgen05 pictures against isa.tcgen05: TMEM data paths, TMEM sparse metadata, swizzle atoms."""
from __future__ import annotations

import numpy as np
import pytest

from isa.tcgen05 import smem_desc as sd
from isa.tcgen05 import tmem_layout as tl
from warpsim import cmd_layout
from warpsim.render import render_figure
from warpsim.render import tcgen05 as T


@pytest.mark.parametrize("m,cg,sparse,ws,align", [(128, 1, False, False, 0), (64, 1, True, False, 16),
                                                  (256, 2, False, False, 0), (128, 2, False, False, 0),
                                                  (128, 2, True, False, 0), (64, 1, False, True, 0),
                                                  (32, 1, True, True, 0)])
def test_d_canvas_is_the_datapath(m, cg, sparse, ws, align):
    n = 32
    fig = T.tmem_d_figure(m, cg, sparse, n, ws, align)
    cta, lane, col = tl.datapath(m, n, cg, sparse, ws, align)
    assert f"layout {tl.layout_name(m, cg, sparse, ws)}" in fig.header
    assert len(fig.grids) == int(cta.max()) + 1
    filled = 0
    for c, grid in enumerate(fig.grids):
        for ln, row in enumerate(grid.cells):
            for co, cell in enumerate(row):
                if cell.kind == "empty":
                    continue
                filled += 1
                r, nn = int(cell.lines[0][1:]), int(cell.lines[1][1:])
                assert (cta[r, nn], lane[r, nn], col[r, nn]) == (c, ln, co) and cell.lane == ln // 32
    assert filled == m * n


@pytest.mark.parametrize("kind", T.META_KINDS)
@pytest.mark.parametrize("rows", [128, 64])
def test_meta_canvas_is_metadata_nibbles(kind, rows):
    for sel in T.meta_selectors(kind):
        grid = T.tmem_meta_figure(kind, rows, sel).grids[0]
        lane, col, bit = tl.metadata_nibbles(kind, rows, 2 * T.DENSE_K[kind])
        sites = {}
        for ln, row in enumerate(grid.cells):
            for x, cell in enumerate(row):
                if cell.kind == "own":
                    sites[(int(cell.lines[0][1:]), int(cell.lines[1][1:]))] = (ln, x // 8, 7 - x % 8)
                else:
                    assert cell.kind in ("other", "empty")
        assert len(sites) == lane.size
        for (r, c), (ln, co, nib) in sites.items():
            assert (ln, co - sel, 4 * nib) == (lane[r, c], col[r, c], bit[r, c])


def test_meta_selector_moves_the_column():
    reads = [{x // 8 for row in T.tmem_meta_figure("f16", 128, s).grids[0].cells
              for x, cell in enumerate(row) if cell.kind == "own"} for s in (0, 1)]
    assert reads == [{0}, {1}]
    with pytest.raises(ValueError, match="not defined for .kind::i8"):
        T.tmem_meta_figure("i8", 128, 1)


@pytest.mark.parametrize("mode", list(sd.SWIZZLES))
def test_swizzle_atom_is_the_swizzle(mode):
    grid = T.swizzle_figure(mode).grids[0]
    sw = sd.SWIZZLES[mode]
    seen = set()
    for pr, row in enumerate(grid.cells):
        for pc, cell in enumerate(row):
            r, u = int(cell.lines[0][1:]), int(cell.lines[1][1:])
            assert sd.swizzle(mode, r * sw.row_bytes + 16 * u) == pr * sw.row_bytes + 16 * pc
            seen.add((r, u))
    assert len(seen) == grid.shape[0] * grid.shape[1]  # a permutation of the atom


def test_swizzle_128b_is_the_xor_diagonal():
    grid = T.swizzle_figure("128B").grids[0]
    units = np.array([[int(c.lines[1][1:]) for c in row] for row in grid.cells])
    assert (units == np.arange(8)[:, None] ^ np.arange(8)[None, :]).all()


def test_tcgen05_cli_and_formats(tmp_path, capsys):
    assert cmd_layout.main(["tmem", "meta", "--kind", "tf32", "--selector", "1", "--format", "text"]) == 0
    assert "selector 1" in capsys.readouterr().out
    out = tmp_path / "d.svg"
    assert cmd_layout.main(["tmem", "d", "--m", "128", "--cta-group", "2", "--sparse", "--format", "svg",
                            "-o", str(out)]) == 0
    assert "layout C" in out.read_text()
    assert cmd_layout.main(["swizzle", "64B", "--format", "tex"]) == 0
    assert capsys.readouterr().out.startswith("% layout: tcgen05 shared-memory swizzle 64B")
    assert cmd_layout.main(["swizzle", "16B"]) == 2
    assert "must be one of none, 32B" in capsys.readouterr().err
    assert "u7" in render_figure(T.swizzle_figure("128B"), "html")
