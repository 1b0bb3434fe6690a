"""Pictures of the mma.sp layouts, drawn only from :mod:`isa.layouts` and :mod:`isa.sparsity`.

    from warpsim.render import Picture, explain
    Picture("m16n8k16.f32.f16.f16.f32", "A")            # Jupyter: SVG/HTML; terminal: str()/rich
    Picture("m16n8k32.f32.f16.f16.f32", "E", selector=1, lane=6)
    print(explain("m16n8k16.f32.f16.f16.f32", lane=5))

Formats: ``term`` (ANSI colour), ``text`` (plain), ``svg``, ``html``, ``tex`` (TikZ), ``json``.
"""
from __future__ import annotations

from warpsim.render.explain import explain  # noqa: F401
from warpsim.render.figure import build, resolve_form  # noqa: F401

FORMATS = ("term", "text", "svg", "html", "tex", "json")


def render(form, operand: str, fmt: str = "text", selector: int | None = None, lane: int | None = None,
           codes=None, e=None, width: int | None = None, views=None) -> str:
    """One operand of one form in one format (see :data:`FORMATS`); ``views`` keeps only those grids."""
    if fmt == "json":
        if views:
            raise ValueError("views apply to pictures, not to the json format")
        from warpsim.render import json_out

        return json_out.render(form, operand, selector, codes, e)
    return render_figure(build(form, operand, selector, lane, codes, e, views), fmt, width)


def render_figure(fig, fmt: str = "text", width: int | None = None) -> str:
    """Any :class:`~warpsim.render.model.Figure` (mma.sp, TMEM, swizzle) in a picture format."""
    if fmt in ("term", "text"):
        from warpsim.render import term

        return term.render(fig, color=fmt == "term", width=width)
    if fmt == "svg":
        from warpsim.render import svg

        return svg.render(fig)
    if fmt == "html":
        from warpsim.render import html

        return html.render(fig)
    if fmt == "tex":
        from warpsim.render import tex

        return tex.render(fig)
    raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")


class Picture:
    """A rich-display wrapper: ``_repr_svg_`` / ``_repr_html_`` for Jupyter, ``__rich__`` and ``__str__``
    for terminals. (``FragmentLayout`` / ``MetaLayout`` stay plain data; wrap them with :meth:`of`.)"""

    def __init__(self, form, operand: str = "A", selector: int | None = None, lane: int | None = None,
                 codes=None, e=None):
        self.form = resolve_form(form)[0]
        self.operand, self.selector, self.lane, self.codes, self.e = operand.upper(), selector, lane, codes, e
        self.figure = build(self.form, self.operand, selector, lane, codes, e)

    @classmethod
    def of(cls, layout, form=None, lane: int | None = None) -> "Picture":
        """From an ``isa.layouts`` object: a ``MetaLayout`` knows its form; a ``FragmentLayout`` needs ``form``."""
        if hasattr(layout, "selector"):
            return cls(layout.form, "E", layout.selector, lane)
        if form is None:
            raise ValueError("Picture.of(FragmentLayout) needs the form it came from: Picture.of(lay, form)")
        return cls(form, layout.operand, None, lane)

    def to(self, fmt: str, width: int | None = None) -> str:
        return render(self.form, self.operand, fmt, self.selector, self.lane, self.codes, self.e, width)

    def _repr_svg_(self) -> str:
        from warpsim.render import svg

        return svg.render(self.figure, tips=True)

    def _repr_html_(self) -> str:
        from warpsim.render import html

        return html.section(self.figure)

    def __rich__(self):
        from rich.text import Text  # rich is optional

        from warpsim.render import term

        return Text.from_ansi(term.render(self.figure, color=True, width=200))

    def __str__(self) -> str:
        from warpsim.render import term

        return term.render(self.figure, color=False)

    def __repr__(self) -> str:
        return f"Picture({self.form.key!r}, {self.operand!r}, selector={self.selector}, lane={self.lane})"
