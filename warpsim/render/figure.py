"""Assemble a :class:`~warpsim.render.model.Figure` for one form and operand (A, B, C, D, or E + selector)."""
from __future__ import annotations

import difflib

from isa import layouts
from isa.forms import BY_KEY, FORMS, FormError, MmaSpForm
from warpsim.render import sparse
from warpsim.render.model import OPERANDS, Figure, fragment_grid, signature_header


def resolve_form(text) -> tuple[MmaSpForm, str]:
    """A form key, a full instruction string, or a form → (form, variant); unknown names list close matches."""
    if isinstance(text, MmaSpForm):
        return text, "sp::ordered_metadata"
    from warpsim.tensorcore import resolve

    try:
        return resolve(text)
    except FormError as err:
        names = list(BY_KEY) + [f.name for f in FORMS]
        close = difflib.get_close_matches(text.strip(), names, n=6, cutoff=0.5)
        keys = list(dict.fromkeys(n if n in BY_KEY else _key_of_name(n) for n in close))
        hint = ("; close matches: " + ", ".join(keys)) if keys else "; see `warpsim gallery` for every form"
        why = f" ({err})" if text.strip().startswith("mma") else ""
        raise FormError(f"unknown mma.sp form {text!r}{why}{hint}") from None


def _key_of_name(name: str) -> str:
    return next(f.key for f in FORMS if f.name == name)


def check_selector(form: MmaSpForm, selector: int) -> int:
    if not form.sparse:
        raise ValueError(f"{form.key} is a dense mma.sync: it has no metadata or sparsity selector")
    if selector not in form.selectors:
        raise ValueError(f"sparsity selector {selector} is not defined for {form.key}; "
                         f"defined: {', '.join(map(str, form.selectors))}")
    return selector


VIEWS = {"A": ("fragment", "window", "landing"), "B": ("fragment",), "C": ("fragment",), "D": ("fragment",),
         "E": ("sites", "lanes", "decoded")}


def build(form, operand: str, selector: int | None = None, lane: int | None = None,
          codes=None, e=None, views=None) -> Figure:
    """The figure for ``operand`` ∈ A B C D E; A and E also draw a metadata example (sample, codes or e).

    ``views`` keeps only the named grids (see :data:`VIEWS`), e.g. ``("landing",)`` for a metadata example."""
    fig = _build(form, operand, selector, lane, codes, e)
    if views:
        bad = [v for v in views if v not in VIEWS[fig.operand]]
        if bad:
            raise ValueError(f"view {bad[0]!r} does not exist for operand {fig.operand}; "
                             f"views: {', '.join(VIEWS[fig.operand])}")
        fig.grids = [g for g in fig.grids if g.name in views]
    return fig


def _build(form, operand, selector, lane, codes, e) -> Figure:
    form = resolve_form(form)[0]
    operand = operand.upper()
    if operand not in OPERANDS:
        raise ValueError(f"operand must be one of {', '.join(OPERANDS)}, not {operand!r}")
    if lane is not None and not 0 <= lane < 32:
        raise ValueError(f"lane must be 0..31, not {lane}")
    if operand == "E":
        return _meta_figure(form, check_selector(form, selector or 0), lane, codes, e)
    grids = [fragment_grid(form, operand)]
    notes = [_fragment_note(form, operand)]
    if operand == "A" and form.sparse:
        sel = check_selector(form, selector or 0)
        ex = sparse.example(form, sel, codes, e)
        grids += [sparse.dense_window_grid(form), sparse.dense_example_grid(form, ex)]
        notes.append(_pattern_note(form))
    return Figure(form.key, operand, None, signature_header(form, operand), grids, notes, lane)


def _meta_figure(form: MmaSpForm, selector: int, lane, codes, e) -> Figure:
    ml = layouts.meta_layout(form, selector)
    ex = sparse.example(form, selector, codes, e)
    grids = [sparse.meta_site_grid(form, selector), sparse.meta_lane_grid(form, selector, ex),
             sparse.meta_decoded_grid(form, selector, ex)]
    quads = len(ml.lanes) // 8
    notes = [f"Metadata class {form.meta_class}: selector {selector} picks lane(s) "
             f"{', '.join(f'4g+{x % 4}' for x in ml.lanes[:quads])} of every quad "
             f"({len(ml.lanes)} lanes: {', '.join(map(str, ml.lanes))}); "
             "the e register of every other lane is ignored.",
             f"Defined selectors for {form.key}: {', '.join(map(str, form.selectors))}.",
             _pattern_note(form)]
    return Figure(form.key, "E", selector, signature_header(form, "E", selector), grids, notes, lane)


def _fragment_note(form: MmaSpForm, operand: str) -> str:
    lay = layouts.layout(form, operand)
    return (f"{operand}: each lane holds {lay.nregs} register(s) x {lay.epr} element(s) of {lay.bits} bits; "
            f"T# = lane, V# = register*{lay.epr} + element (the PTX element index); colour = lane % 8 (CuTe).")


def _pattern_note(form: MmaSpForm) -> str:
    z, w = form.chunk
    return (f"Sparsity {form.pattern}: each chunk of {w} dense columns keeps {z}"
            f"{' (as 2 pairs)' if form.pattern == '4:8' else ''}; one 4-bit code per chunk. "
            f"Codes: ordered {_codes(form, 'sp::ordered_metadata')}"
            + (f"; legacy .sp also {_codes(form, 'sp', exclude='sp::ordered_metadata')}" if _legacy_extra(form) else "")
            + ".")


def _legacy_extra(form) -> bool:
    from isa.sparsity import valid_codes

    return form.legacy_ok and set(valid_codes(form, "sp")) != set(valid_codes(form, "sp::ordered_metadata"))


def _codes(form, variant, exclude=None) -> str:
    from isa.sparsity import valid_codes

    skip = set(valid_codes(form, exclude)) if exclude else set()
    got = [f"{q:04b}" for q in valid_codes(form, variant) if q not in skip]
    return " ".join(got) if got else "(none)"


# ----------------------------------------------------------------------------- layout groups


def layout_group(form: MmaSpForm) -> tuple:
    """Forms with equal groups draw identical pictures: shape, element bits, metadata class, C/D values per
    register, and whether legacy ``.sp`` codes exist (they widen the chunk windows)."""
    return str(form.shape), form.element_bits, form.meta_class, layouts.cd_layout(form).epr, form.legacy_ok


def representatives() -> dict:
    """group → its representative form (the first hardware-verified one, else the first)."""
    reps: dict = {}
    for f in FORMS:
        g = layout_group(f)
        if g not in reps or (reps[g].verified == "spec" and f.verified != "spec"):
            reps[g] = f
    return reps
