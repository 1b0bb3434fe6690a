"""Regenerate the layout golden files: ``python tests/golden/regen_layouts.py``.

All forms x operands would be ~50 MB, so golden files are kept for one representative form per
(shape, element bits, metadata class) group (the hardware-verified one where there is one): every
operand (A, B, C, D; E per selector) as plain text, SVG and JSON. The other forms are checked
structurally (``tests/test_render_golden.py``: same pictures as the representative of their finer
layout group, every cell against the layout tables).

Review the diff before committing regenerated files: a change here is a change of the pictures.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from warpsim.render import render  # noqa: E402
from warpsim.render.figure import representatives  # noqa: E402

OUT = Path(__file__).resolve().parent / "layout"
WIDTH = 120  # text width of the golden term output
FORMATS = {"txt": "text", "svg": "svg", "json": "json"}


def golden_forms() -> list:
    """One representative (see :func:`representatives`) per (shape, element bits, class) group, preferring
    one C/D value per register and legacy ``.sp`` support (the H100-verified forms)."""
    out: dict = {}
    for group, form in sorted(representatives().items(), key=lambda gf: (gf[0][3], not gf[0][4])):
        out.setdefault(group[:3], form)
    return list(out.values())


def cases(form):
    """(file stem, operand, selector) of every picture of a form."""
    for op in "ABCD":
        yield op, op, None
    for sel in form.selectors:
        yield f"E.s{sel}", "E", sel


def golden(form, operand, selector, ext) -> str:
    return render(form, operand, FORMATS[ext], selector=selector, width=WIDTH)


def path_of(form, stem, ext) -> Path:
    return OUT / form.key / f"{stem}.{ext}"


def main() -> int:
    written = 0
    for form in golden_forms():
        for stem, op, sel in cases(form):
            for ext in FORMATS:
                path = path_of(form, stem, ext)
                path.parent.mkdir(parents=True, exist_ok=True)
                text = golden(form, op, sel, ext)
                path.write_text(text, encoding="utf-8")
                written += len(text.encode())
    print(f"wrote {written / 1e6:.2f} MB under {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
