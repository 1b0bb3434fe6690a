"""``explain(form, lane)``: what each register of one lane holds, in words and small tables.

A: row, compressed column, metadata chunk, the dense window the value may occupy and where the
sample metadata puts it; B and C/D: (row, col) per element; E: for every selector, whether the lane
is read and which bits describe which (row, chunk). All read from :mod:`isa.layouts` / :mod:`isa.sparsity`.
"""
from __future__ import annotations

from isa import layouts, sparsity
from warpsim.render import sparse
from warpsim.render.figure import resolve_form
from warpsim.render.model import REG_LETTER, bit_range


def _table(head: list[str], rows: list[list]) -> list[str]:
    cells = [head] + [[str(x) for x in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]


def a_rows(form, lane: int) -> list[list]:
    lay = layouts.a_layout(form)
    rows_t, cols_t = lay.tables
    z, w = form.chunk
    dense = sparsity.dense_columns(form, sparse.sample_codes(form))
    out = []
    for reg in range(lay.nregs):
        for elem in range(lay.epr):
            r, c = int(rows_t[lane, reg, elem]), int(cols_t[lane, reg, elem])
            ch = c // z
            hi, lo = bit_range(lay.bits, elem)
            out.append([f"a{reg}", f"V{reg * lay.epr + elem}", f"[{hi}:{lo}]", r, c, ch,
                        f"k{w * ch}..{w * ch + w - 1}", f"k{int(dense[r, c])}"])
    return out


def frag_rows(form, operand: str, lane: int) -> list[list]:
    lay = layouts.layout(form, operand)
    rows_t, cols_t = lay.tables
    return [[f"{REG_LETTER[operand]}{reg}", f"V{reg * lay.epr + elem}", "[%d:%d]" % bit_range(lay.bits, elem),
             int(rows_t[lane, reg, elem]), int(cols_t[lane, reg, elem])]
            for reg in range(lay.nregs) for elem in range(lay.epr)]


def meta_rows(form, lane: int, selector: int) -> list[list] | None:
    """None when the selector ignores the lane's ``e``."""
    ml = layouts.meta_layout(form, selector)
    if lane not in ml.lanes:
        return None
    w = form.chunk[1]
    out = []
    for nib in range(8):
        site = ml(lane, nib)
        if site is not None:
            m, c = site
            out.append([f"[{4 * nib + 3}:{4 * nib}]", m, c, f"k{w * c}..{w * c + w - 1}"])
    return out


def _a_section(form, a, lane: int) -> list[str]:
    if not form.sparse:
        return ([f"A: {a.nregs} x .b32, {a.epr} {form.atype} value(s) each, of the dense {a.nrows}x{a.ncols} A"]
                + _table(["reg", "elem", "bits", "m", "k"], frag_rows(form, "A", lane)))
    head = (f"A: {a.nregs} x .b32, {a.epr} stored {form.atype} value(s) of {a.bits} bits each, "
            f"out of the {form.pattern} sparse {form.shape.m}x{form.shape.k} A "
            f"(compressed {a.nrows}x{a.ncols}; k' = compressed column, window = the chunk's dense columns, "
            f"sample = where the sample metadata puts it)")
    return [head] + _table(["reg", "elem", "bits", "row", "k'", "chunk", "window", "sample"], a_rows(form, lane))


def _e_section(form, lane: int) -> list[str]:
    if not form.sparse:
        return ["E: none (dense mma.sync has no metadata)"]
    out = [f"E: one .b32 of 4-bit codes (metadata class {form.meta_class}; selectors {list(form.selectors)})"]
    for sel in form.selectors:
        rows = meta_rows(form, lane, sel)
        lanes = layouts.meta_layout(form, sel).lanes
        if rows is None:
            out.append(f"  selector {sel}: ignored (this selector reads lanes {', '.join(map(str, lanes))})")
            continue
        out.append(f"  selector {sel}: read; the lane's e describes:")
        out += ["  " + line for line in _table(["bits", "row", "chunk", "dense cols"], rows)]
    return out


def explain(form, lane: int) -> str:
    form = resolve_form(form)[0]
    if not 0 <= lane < 32:
        raise ValueError(f"lane must be 0..31, not {lane}")
    g, t = layouts.group_id(lane), layouts.thread_id_in_group(lane)
    a, b, cd = (layouts.layout(form, op) for op in ("A", "B", "C"))
    out = [f"{form.key} ({form.name})",
           f"lane {lane}: groupID g = lane >> 2 = {g}, threadID_in_group t = lane % 4 = {t}", ""]
    out += _a_section(form, a, lane)
    out += ["", f"B: {b.nregs} x .b32, {b.epr} {form.btype} value(s) each, of the dense {b.nrows}x{b.ncols} B"]
    out += _table(["reg", "elem", "bits", "k", "n"], frag_rows(form, "B", lane))
    out += ["", f"C/D: {cd.nregs} x .b32, {cd.epr} {form.ctype} value(s) each, "
                f"of the {cd.nrows}x{cd.ncols} accumulator"]
    out += _table(["reg", "elem", "bits", "m", "n"], frag_rows(form, "C", lane))
    out += [""] + _e_section(form, lane)
    return "\n".join(out) + "\n"
