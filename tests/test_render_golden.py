"""Golden pictures (text, SVG, JSON) for one form per (shape, element bits, class) group; every other
form checked structurally: the same picture as its layout group's representative, every cell of the
picture model equal to the layout tables, every SVG well-formed and labelled from the tables.

Regenerate with ``python tests/golden/regen_layouts.py`` (and review the diff).
"""
from __future__ import annotations

import difflib
import xml.etree.ElementTree as ET

import pytest

from golden import regen_layouts as regen
from isa import layouts
from isa.forms import FORMS
from warpsim.render import build, render
from warpsim.render.figure import layout_group, representatives

GOLDEN = [(f, stem, op, sel, ext) for f in regen.golden_forms() for stem, op, sel in regen.cases(f)
          for ext in regen.FORMATS]
SVGNS = "{http://www.w3.org/2000/svg}"


def _diff(want: str, got: str) -> str:
    lines = difflib.unified_diff(want.splitlines(), got.splitlines(), "golden", "now", lineterm="", n=1)
    return "\n".join(list(lines)[:40])


@pytest.mark.parametrize("form,stem,op,sel,ext", GOLDEN, ids=[f"{g[0].key}-{g[1]}.{g[4]}" for g in GOLDEN])
def test_golden(form, stem, op, sel, ext):
    path = regen.path_of(form, stem, ext)
    assert path.exists(), f"missing golden file {path}: run tests/golden/regen_layouts.py"
    want = path.read_text(encoding="utf-8")
    got = regen.golden(form, op, sel, ext)
    assert got == want, f"{path} differs (regenerate and review if intended):\n{_diff(want, got)}"


def test_golden_set_is_small_and_covers_every_group():
    files = [p for p in regen.OUT.rglob("*") if p.is_file()]
    assert sum(p.stat().st_size for p in files) < 5_000_000
    coarse = {layout_group(f)[:3] for f in FORMS}
    assert {layout_group(f)[:3] for f in regen.golden_forms()} == coarse
    assert len(files) == len(GOLDEN)


def _same_picture(member, rep, text_m: str, text_r: str, ext: str) -> None:
    text_m = text_m.replace(member.name, rep.name).replace(member.key, rep.key)
    if ext == "svg":  # the first lines carry widths that follow the form key's length
        lines_m, lines_r = text_m.split("\n"), text_r.split("\n")
        text_m, text_r = "\n".join(lines_m[1:2] + lines_m[3:]), "\n".join(lines_r[1:2] + lines_r[3:])
    assert text_m == text_r, f"{member.key} vs {rep.key}:\n{_diff(text_r, text_m)}"


MEMBERS = [f for f in FORMS if representatives()[layout_group(f)] is not f]


@pytest.mark.parametrize("form", MEMBERS, ids=[f.key for f in MEMBERS])
def test_group_member_draws_its_representatives_picture(form):
    rep = representatives()[layout_group(form)]
    for _stem, op, sel in regen.cases(form):
        for ext in ("txt", "svg"):
            _same_picture(form, rep, regen.golden(form, op, sel, ext), regen.golden(rep, op, sel, ext), ext)


def _fragment_cells_match_tables(form, op):
    lay = layouts.layout(form, op)
    grid = build(form, op).grids[0]
    rows, cols = lay.tables
    seen = set()
    for lane in range(32):
        for reg in range(lay.nregs):
            for elem in range(lay.epr):
                r, c = int(rows[lane, reg, elem]), int(cols[lane, reg, elem])
                cell = grid.cells[r][c]
                assert cell.lines == (f"T{lane}", f"V{reg * lay.epr + elem}") and cell.lane == lane, (op, r, c)
                seen.add((r, c))
    assert len(seen) == lay.nrows * lay.ncols == grid.shape[0] * grid.shape[1]


def _meta_cells_match_tables(form, sel):
    ml = layouts.meta_layout(form, sel)
    sites, by_lane = build(form, "E", sel, views=("sites", "lanes")).grids
    for lane in range(32):
        for nib in range(8):
            cell = by_lane.cells[lane][7 - nib]
            if lane not in ml.lanes:
                assert cell.kind == "ignored"
                continue
            m, c = ml(lane, nib)
            assert cell.lines[:2] == (f"m{m}", f"c{c}")
            assert sites.cells[m][c].lines == (f"T{lane}", f"[{4 * nib + 3}:{4 * nib}]")


@pytest.mark.parametrize("form", FORMS, ids=[f.key for f in FORMS])
def test_every_cell_comes_from_the_tables(form):
    for op in "ABCD":
        _fragment_cells_match_tables(form, op)
    for sel in form.selectors:
        _meta_cells_match_tables(form, sel)


@pytest.mark.parametrize("form", FORMS[::9], ids=[f.key for f in FORMS[::9]])
def test_svg_is_wellformed_and_labels_every_value(form):
    for op in "BCD":
        root = ET.fromstring(render(form, op, "svg", lane=0))
        assert root.tag == f"{SVGNS}svg"
        texts = [t.text for t in root.iter(f"{SVGNS}text")]
        lay = layouts.layout(form, op)
        assert texts.count("T0") == lay.nregs * lay.epr  # lane 0's values, each drawn once
        assert {f"V{v}" for v in range(lay.nregs * lay.epr)} <= set(texts)
