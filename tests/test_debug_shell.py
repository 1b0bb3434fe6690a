"""The debugger shell driven by transcripts: tests/golden/debug/NAME.cmd (commands, one a line; an empty
line repeats the last command) against NAME.out (the exact output, commands echoed after the prompt).
Regenerate with WARPSIM_REGEN_GOLDEN=1 and review the diff. Also: `frag` text checked cell by cell
against isa.layouts and the registers, every command covered, `warpsim debug --batch`."""
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from isa import layouts, sparsity
from warpsim.debug.shell import Shell

HERE = Path(__file__).parent
GOLDEN = HERE / "golden" / "debug"
PTX_DIR = HERE / "ptx" / "debug"
sys.path.insert(0, str(PTX_DIR))
import make_inputs  # noqa: E402

CASES = sorted(p.stem for p in GOLDEN.glob("*.cmd"))


def transcript(commands: str, session=None) -> str:
    out = io.StringIO()
    Shell(session or make_inputs.session(), stdin=io.StringIO(commands), stdout=out, echo=True, color=False).cmdloop()
    return out.getvalue()


@pytest.mark.parametrize("name", CASES)
def test_transcript(name):
    got = transcript((GOLDEN / f"{name}.cmd").read_text())
    path = GOLDEN / f"{name}.out"
    if os.environ.get("WARPSIM_REGEN_GOLDEN"):
        path.write_text(got)
    assert got == path.read_text()


COMMANDS = ["help", "break", "tbreak", "delete", "run", "continue", "step", "stepi", "next", "reverse-step",
            "reverse-stepi", "reverse-continue", "info warps", "info lanes", "info breakpoints", "info registers",
            "focus", "cuda", "print", "display", "undisplay", "x", "list", "frag", "tmem", "cycle", "set", "quit"]
ALIASES = {"b": "break", "d": "delete", "r": "run", "c": "continue", "s": "step", "si": "stepi", "n": "next",
           "rs": "reverse-step", "rsi": "reverse-stepi", "rc": "reverse-continue", "p": "print", "l": "list",
           "q": "quit", "h": "help", "info b": "info breakpoints"}


def test_transcripts_cover_every_command():
    used = set()
    for name in CASES:
        for line in (GOLDEN / f"{name}.cmd").read_text().splitlines():
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            head = words[0].split("/")[0]
            if head == "info":
                head = "info " + words[1]
            used.add(ALIASES.get(head, head))
    assert set(COMMANDS) - used == set()


def test_empty_line_repeats_and_comments_do_not():
    out = transcript("b 48\nc\nsi\n\n# a comment\n\n")
    lines = [ln for ln in out.splitlines() if re.match(r"^\d+\t", ln)]
    # the stop at line 48, then three stepi (the comment does not reset or count as the last command)
    assert [ln.split("\t")[0] for ln in lines] == ["48", "49", "51", "53"]  # 50 and 52 are .loc lines


def _cells(block: str):
    """Rows of a table printed by the shell: {row label: [cells]} (cells split on 2+ spaces or single)."""
    rows = {}
    lines = block.splitlines()
    for ln in lines[1:]:
        parts = ln.split()
        if parts and re.fullmatch(r"[mk]\d+", parts[0]):
            rows[parts[0]] = parts[1:]
    return rows


def _section(text: str, start: str) -> str:
    i = text.index(start)
    j = text.find("\n\n", i)
    return text[i: j if j >= 0 else len(text)]


def test_frag_text_agrees_with_layouts_and_registers():
    form = make_inputs.form()
    s = make_inputs.session()
    out = transcript("b mma.sp\nc\nfrag A B E\nsi\nfrag D\n", s)
    a, b, e = make_inputs.registers()
    dense_a, dense_b = make_inputs.dense_a(0), make_inputs.dense_b(0)
    values, codes = sparsity.compress(form, dense_a)
    # A compressed: "T<lane> <value>" per cell; the lane from the layout, the value from the compressed A
    owner = layouts.a_layout(form).inverse()
    rows = _cells(_section(out, "A {%r1, %r2}, compressed"))
    assert len(rows) == 16
    for m in range(16):
        cells = rows[f"m{m}"]
        pairs = list(zip(cells[0::2], cells[1::2]))
        for j, (lane, val) in enumerate(pairs):
            assert lane == f"T{owner[m, j, 0]}" and float(val) == values[m, j]
    # A dense: '.' exactly where the metadata stores nothing
    rows = _cells(_section(out, "A, dense (16 x 16)"))
    cols = sparsity.dense_columns(form, codes)
    for m in range(16):
        for k, cell in enumerate(rows[f"m{m}"]):
            assert (cell == ".") == (k not in cols[m]) and (cell == "." or float(cell) == dense_a[m, k])
    # B: lanes from the layout and the registers' values
    owner = layouts.b_layout(form).inverse()
    rows = _cells(_section(out, "B {%r3, %r4}"))
    for k in range(16):
        pairs = list(zip(rows[f"k{k}"][0::2], rows[f"k{k}"][1::2]))
        assert [(p[0], float(p[1])) for p in pairs] == [(f"T{owner[k, n, 0]}", dense_b[k, n]) for n in range(8)]
    # E: each selected lane's e register, and each field's (row, chunk, code) from the metadata layout
    ml = layouts.meta_layout(form, 0)
    block = _section(out, "E %r5, selector 0")
    lanes_seen = []
    for ln in block.splitlines():
        m = re.match(r"\s+T(\d+)\s+(0x[0-9a-f]{8})\s+(.*)$", ln)
        if not m:
            continue
        lane = int(m.group(1))
        lanes_seen.append(lane)
        assert int(m.group(2), 16) == e[lane]
        fields = re.findall(r"m(\d+)c(\d+) ([01]{4})", m.group(3))
        assert len(fields) == 8
        for nib, (row, chunk, code) in zip(reversed(range(8)), fields):
            assert ml(lane, nib) == (int(row), int(chunk))
            assert int(code, 2) == codes[int(row), int(chunk)] == (int(e[lane]) >> (4 * nib)) & 0xF
    assert lanes_seen == list(ml.lanes)
    decoded = _section(out, "decoded: code and the dense columns")
    rows = {ln.split()[0]: ln.split()[1:] for ln in decoded.splitlines()[2:]}
    for m in range(16):
        for c in range(4):
            code, ks = rows[f"m{m}"][2 * c], rows[f"m{m}"][2 * c + 1]
            assert int(code, 2) == codes[m, c] and ks == "k" + ",".join(map(str, cols[m, 2 * c: 2 * c + 2]))
    # D after the instruction: A.B through the C/D layout
    owner = layouts.cd_layout(form, "D").inverse()
    rows = _cells(_section(out, "D {%f104, %f103, %f102, %f101} (16 x 8 .f32)"))
    ref = dense_a @ dense_b
    for m in range(16):
        pairs = list(zip(rows[f"m{m}"][0::2], rows[f"m{m}"][1::2]))
        assert [(p[0], float(p[1])) for p in pairs] == [(f"T{owner[m, n, 0]}", ref[m, n]) for n in range(8)]


def test_display_marks_changed_lanes():
    out = transcript("b mma.sp\nc\ndisplay %f103\nsi\n")
    tables = [t for t in out.split("1: %f103") if t.startswith(" (.f32)")]
    assert len(tables) == 2 and "*" not in "".join(tables[0].splitlines()[1:])
    form = make_inputs.form()
    ref = make_inputs.dense_a(0) @ make_inputs.dense_b(0)
    owner = layouts.cd_layout(form, "D").inverse()
    # %f103 is element 1 of each lane's D: (row g, column 2t+1); changed where that value is not 0
    changed = set()
    for m, n in zip(*np.nonzero(ref)):
        lane, reg, _ = owner[m, n]
        if reg == 1:
            changed.add(int(lane))
    marked = set()
    for ln in [x for x in tables[1].splitlines() if re.match(r"g\d L", x)]:
        g = int(ln.split()[0][1:])
        cells = re.findall(r"\S+", ln)[2:]
        marked |= {4 * g + t for t, c in enumerate(cells) if c.startswith("*")}
    assert marked == changed and len(changed) > 20


def test_colour_highlights_instead_of_star():
    out = io.StringIO()
    sh = Shell(make_inputs.session(), stdin=io.StringIO("b mma.sp\nc\ndisplay %f103\nsi\n"), stdout=out, color=True)
    sh.cmdloop()
    text = out.getvalue()
    assert "\x1b[7m" in text and "highlighted = changed" in text


def test_warpsim_debug_batch_command_line(tmp_path):
    cmds = tmp_path / "cmds"
    cmds.write_text("b mma.sp\nc\np %r1.f16x2\nc\ncycle\nq\n")
    args = [sys.executable, "-m", "warpsim.cli", "debug", str(PTX_DIR / "spmma.ptx"), "--block", "64",
            "--arg", str(PTX_DIR / "a.npy"), "--arg", str(PTX_DIR / "b.npy"), "--arg", str(PTX_DIR / "e.npy"),
            "--arg", "zeros:256:f32", "--arg", "i32:2", "--arg", "zeros:64:i32", "--no-timing", "--batch", str(cmds)]
    r = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("warpsim debug: kernel spmma_loop of spmma.ptx, grid 1, block 64 (2 warps per CTA), "
                               "arch sm_90a.")
    assert "(warpsim) p %r1.f16x2\n%r1.f16x2 = {1.0, 2.0} (0x40003c00)\n" in r.stdout
    assert r.stdout.count("Breakpoint 1, spmma_loop () at spmma.ptx:111") == 2
    assert "warp 0: 43 warp instructions retired (timing is off" in r.stdout
    r = subprocess.run(args[:-3] + ["--batch", str(cmds)], capture_output=True, text=True, timeout=300)
    assert re.search(r"warp 0: cycle [0-9.]+ \(simulated, timed engine, sm_90: its next instruction", r.stdout)
    cmds.write_text("p %nope\n")
    r = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "*** no register %nope in this kernel" in r.stdout
