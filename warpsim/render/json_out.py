"""JSON: one record per element, straight from the layout tables (for tools, tests and diffing).

Register operands: ``{lane, register, element, row, col}`` (A: ``col`` is the compressed column; the
record adds ``chunk``, the metadata chunk the value belongs to). Metadata: ``{lane, register, bits:
[hi, lo], row, chunk}`` (``register`` is 0: the single ``e`` register). The document also carries the
metadata example (sample, ``--codes`` or ``--e``): codes per (row, chunk), ``e`` per lane, and for
the sample the A registers per lane.
"""
from __future__ import annotations

import json

from isa import layouts
from isa.forms import MmaSpForm
from warpsim.render import sparse
from warpsim.render.figure import check_selector, resolve_form
from warpsim.render.model import OPERANDS, signature_header


def fragment_records(form: MmaSpForm, operand: str) -> list[dict]:
    lay = layouts.layout(form, operand)
    rows, cols = lay.tables
    z = form.chunk[0]
    out = []
    for lane in range(32):
        for reg in range(lay.nregs):
            for elem in range(lay.epr):
                r, c = int(rows[lane, reg, elem]), int(cols[lane, reg, elem])
                rec = {"lane": lane, "register": reg, "element": elem, "row": r, "col": c}
                if operand == "A" and form.sparse:
                    rec["chunk"] = c // z
                out.append(rec)
    return out


def meta_records(form: MmaSpForm, selector: int) -> list[dict]:
    ml = layouts.meta_layout(form, selector)
    out = []
    for lane in ml.lanes:
        for nib in range(8):
            site = ml(lane, nib)
            if site is not None:
                out.append({"lane": lane, "register": 0, "bits": [4 * nib + 3, 4 * nib],
                            "row": site[0], "chunk": site[1]})
    return out


def _example(ex: sparse.Example) -> dict:
    doc = {"source": ex.source, "codes": ex.codes.tolist(), "e": [int(x) for x in ex.e]}
    if ex.a is not None:
        doc["a"] = [[int(x) for x in lane] for lane in ex.a]
    return doc


def document(form, operand: str, selector: int | None = None, codes=None, e=None) -> dict:
    form = resolve_form(form)[0]
    operand = operand.upper()
    if operand not in OPERANDS:
        raise ValueError(f"operand must be one of {', '.join(OPERANDS)}, not {operand!r}")
    doc = {"form": form.key, "instruction": form.name, "operand": operand}
    if operand == "E":
        sel = check_selector(form, selector or 0)
        ml = layouts.meta_layout(form, sel)
        doc.update(layout=signature_header(form, "E", sel), selector=sel, meta_class=form.meta_class,
                   lanes=list(ml.lanes), shape=[form.shape.m, sparse.chunks(form)],
                   elements=meta_records(form, sel), example=_example(sparse.example(form, sel, codes, e)))
        return doc
    lay = layouts.layout(form, operand)
    doc.update(layout=signature_header(form, operand), shape=[lay.nrows, lay.ncols], registers=lay.nregs,
               elements_per_register=lay.epr, element_bits=lay.bits, elements=fragment_records(form, operand))
    if operand == "A" and form.sparse:
        sel = check_selector(form, selector or 0)
        doc.update(pattern=form.pattern, dense_shape=[form.shape.m, form.shape.k], selector=sel,
                   example=_example(sparse.example(form, sel, codes, e)))
    return doc


def render(form, operand: str, selector: int | None = None, codes=None, e=None) -> str:
    """Records one per line inside a readable, stable JSON document."""
    doc = document(form, operand, selector, codes, e)
    elements = doc.pop("elements")
    example = doc.pop("example", None)
    head = ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in doc.items())
    lines = ["{\n" + head + ',\n "elements": [']
    lines.append(",\n".join("  " + json.dumps(r, separators=(",", ":")) for r in elements))
    tail = "\n ]"
    if example is not None:
        tail += ',\n "example": ' + json.dumps(example, separators=(",", ":"))
    return "\n".join(lines) + tail + "\n}\n"
