"""The layout views and their front ends: text width, colour, lane highlight, metadata flags, explain,
the CLI, Jupyter/terminal reprs, TikZ (compiled when pdflatex is installed)."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from isa import layouts
from isa.forms import BY_KEY, FORMS
from warpsim import cmd_layout
from warpsim.render import Picture, build, explain, render

F16_K16 = BY_KEY["m16n8k16.f32.f16.f16.f32"]
F16_K32 = BY_KEY["m16n8k32.f32.f16.f16.f32"]
TF32_K8 = BY_KEY["m16n8k8.f32.tf32.tf32.f32"]
KIND_F8 = BY_KEY["m16n8k64.f8f6f4.f32.e4m3.e4m3.f32"]


@pytest.mark.parametrize("width", [40, 72, 100])
@pytest.mark.parametrize("form", FORMS[::11], ids=[f.key for f in FORMS[::11]])
def test_text_fits_the_width(form, width):
    for op in "ABCDE":
        lines = render(form, op, "text", width=width).splitlines()
        assert lines[0].startswith("# layout: ")
        assert max(len(line) for line in lines[1:]) <= width, op


def test_colour_is_cute_palette_by_lane_and_plain_has_no_escapes():
    ansi = render(F16_K16, "C", "term", width=200)
    plain = render(F16_K16, "C", "text", width=200)
    assert re.search(r"\x1b\[30;48;2;175;175;255m *T0 V0", ansi)
    assert re.search(r"\x1b\[30;48;2;175;255;175m *T1 V0", ansi)
    assert re.search(r"\x1b\[30;48;2;175;175;255m *T8 V0", ansi)  # lane 8 = lane 0's colour (tid % 8)
    assert "\x1b" not in plain


def test_lane_highlight_marks_exactly_that_lanes_values():
    plain = render(F16_K16, "C", "text", lane=5, width=200)
    assert len(re.findall(r"\*T5 V\d", plain)) == layouts.cd_layout(F16_K16).nregs
    assert "*T4" not in plain
    ansi = render(F16_K16, "C", "term", lane=5, width=200)
    assert ansi.count("\x1b[1;30;") == 4  # bold only on lane 5's four values
    assert build(F16_K16, "E", 1, lane=5).highlight == 5


def test_selector_greys_the_lanes_it_ignores():
    by_lane = build(F16_K32, "E", 1, views=("lanes",)).grids[0]
    picked = [lane for lane in range(32) if by_lane.cells[lane][0].kind != "ignored"]
    assert picked == [4 * g + 2 + i for g in range(8) for i in (0, 1)]
    assert by_lane.row_notes[0] == "ignored" and by_lane.row_notes[2].startswith("e=0x")


@pytest.mark.parametrize("form,code,mark,kind", [
    (F16_K16, 0b0100, "0100", "own"), (F16_K16, 0b0001, "0001?", "legacy"), (F16_K16, 0b0101, "0101!", "invalid"),
    (KIND_F8, 0b0001, "0001!", "invalid"), (TF32_K8, 0b1110, "1110", "own"), (TF32_K8, 0b1000, "1000!", "invalid")])
def test_decoded_codes_are_flagged_for_legacy_and_ordered(form, code, mark, kind):
    decoded = build(form, "E", 0, codes=[code], views=("decoded",)).grids[0]
    cell = decoded.cells[3][1]
    assert cell.lines[0] == mark and cell.kind == kind


def test_equal_index_code_lands_two_values_in_one_column():
    landing = build(F16_K16, "A", codes=[0b0101], views=("landing",)).grids[0]
    assert landing.cells[0][1].lines == ("T0", "V0+1") and landing.cells[0][1].kind == "invalid"
    assert landing.cells[0][0].kind == "zero"
    assert landing.row_notes[0] == "0101! 0101! 0101! 0101!"


def test_window_lists_every_stored_value_that_can_reach_a_column():
    # 2:4 with legacy codes: both stored values reach all four columns; ordered-only (.kind): value 0
    # never reaches the last column and value 1 never the first
    legacy = build(F16_K16, "A", views=("window",)).grids[0]
    assert [legacy.cells[0][k].lines[1] for k in range(4)] == ["V0|1"] * 4
    ordered = build(KIND_F8, "A", views=("window",)).grids[0]
    assert [ordered.cells[0][k].lines[1] for k in range(4)] == ["V0", "V0|1", "V0|1", "V1"]
    quad = build(BY_KEY["m16n8k64.s32.s4.s4.s32"], "A", views=("window",)).grids[0]
    assert [quad.cells[0][k].lines[1] for k in range(2)] == ["V0|2", "V1|3"]  # 4:8 keeps pairs


def test_explain_lane5_of_the_worked_example():
    text = explain(F16_K16, 5)
    assert "groupID g = lane >> 2 = 1, threadID_in_group t = lane % 4 = 1" in text
    a0 = [ln.split() for ln in text.splitlines() if ln.strip().startswith("a0")]
    assert a0[0] == ["a0", "V0", "[15:0]", "1", "2", "1", "k4..7", "k4"]  # §7: row 1 keeps k4, k7
    assert a0[1] == ["a0", "V1", "[31:16]", "1", "3", "1", "k4..7", "k7"]
    assert "selector 0: ignored (this selector reads lanes 0, 4, 8" in text
    assert "selector 1: read" in text


def test_explain_rejects_bad_lane():
    with pytest.raises(ValueError, match="lane must be 0..31"):
        explain(F16_K16, 32)


def test_cli_layout_formats_and_output_file(tmp_path, capsys):
    out = tmp_path / "e.svg"
    assert cmd_layout.main(["layout", F16_K32.key, "--operand", "e", "--selector", "1", "--format", "svg",
                            "-o", str(out)]) == 0
    assert out.read_text().startswith("<svg") and "selector 1" in out.read_text()
    assert cmd_layout.main(["layout", F16_K16.name, "--operand", "A", "--format", "tex", "--view", "landing"]) == 0
    tex = capsys.readouterr().out
    assert tex.startswith(f"% layout: {F16_K16.key} A ") and "\\shortstack" in tex
    assert cmd_layout.main(["layout", F16_K16.key, "--operand", "E", "--e", "0xED9C9C84", "--view", "decoded",
                            "--format", "text"]) == 0
    assert "E decoded (e)" in capsys.readouterr().out


def test_cli_unknown_form_lists_close_matches(capsys):
    assert cmd_layout.main(["layout", "m16n8k16.f32.f16.f16.f3"]) == 2
    err = capsys.readouterr().err
    assert "unknown mma.sp form" in err and "m16n8k16.f32.f16.f16.f32" in err


def test_registered_in_the_warpsim_cli(capsys):
    cli = pytest.importorskip("warpsim.cli", reason="warpsim.cli not present")
    assert cli.main(["layout", F16_K16.key, "--operand", "C", "--format", "text", "--lane", "0"]) == 0
    assert "*T0 V0" in capsys.readouterr().out
    assert cli.main(["layout", "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f99"]) == 2
    assert "unknown mma.sp form" in capsys.readouterr().err


def test_cli_bad_selector_and_codes(capsys):
    assert cmd_layout.main(["layout", F16_K32.key, "--operand", "E", "--selector", "2"]) == 2
    assert "defined: 0, 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cmd_layout.main(["layout", F16_K16.key, "--codes", "zz"])


def test_cli_explain_and_gallery(tmp_path, capsys):
    assert cmd_layout.main(["explain", F16_K16.key, "--lane", "0"]) == 0
    assert "a0" in capsys.readouterr().out
    assert cmd_layout.main(["gallery", str(tmp_path), "--forms", f"{F16_K16.key},{TF32_K8.key}"]) == 0
    assert (tmp_path / "forms" / f"{TF32_K8.key}.html").exists() and (tmp_path / "seeds.html").exists()


def test_picture_reprs():
    pic = Picture(F16_K16, "E", selector=2, lane=6)
    assert pic._repr_svg_().startswith("<svg") and "<title>" in pic._repr_svg_()
    assert "<svg" in pic._repr_html_() and "legend" in pic._repr_html_()
    assert "*T6" in str(pic) and "E selector 2" in str(pic)
    assert Picture.of(layouts.meta_layout(F16_K32, 1)).figure.header.startswith(f"{F16_K32.key} E selector 1")
    assert Picture.of(layouts.b_layout(F16_K16), F16_K16).operand == "B"
    with pytest.raises(ValueError, match="needs the form"):
        Picture.of(layouts.b_layout(F16_K16))


def test_picture_rich():
    rich_text = pytest.importorskip("rich.text", reason="rich is optional (Picture.__rich__ uses it)")
    text = Picture(F16_K16, "C").__rich__()
    assert isinstance(text, rich_text.Text) and "T0 V0" in text.plain


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed")
@pytest.mark.parametrize("op,sel", [("A", 0), ("E", 1)])
def test_tikz_compiles(tmp_path, op, sel):
    src = tmp_path / "fig.tex"
    src.write_text(render(F16_K32, op, "tex", selector=sel, lane=3))
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", src.name], cwd=tmp_path,
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stdout[-2000:]
    assert (tmp_path / "fig.pdf").stat().st_size > 1000
