"""A static HTML gallery: ``index.html``, one page per form (every operand, every selector's metadata
view, ``explain`` for lane 0), ``seeds.html`` (the PTX ISA mma.sp figures regenerated from the tables)
and ``tcgen05.html`` (TMEM data paths, TMEM sparse metadata per kind and selector, swizzle atoms).

    from warpsim.render.gallery import gallery
    gallery("out/gallery")            # or: warpsim gallery out/gallery
"""
from __future__ import annotations

from html import escape
from pathlib import Path

from isa.forms import FORMS, MmaSpForm
from warpsim.render import html
from warpsim.render.explain import explain
from warpsim.render.figure import build, layout_group

# (figure, caption, form key, operand, selector, views): PTX ISA §9.7.14.6 figures, made from the tables
SEED_FIGURES = (
    ("111", "Sparse MMA storage example (16x16 f16 A, compressed, selector 0)", "m16n8k16.f32.f16.f16.f32", "A", 0,
     ("fragment", "landing")),
    ("111", "Sparse MMA storage example: the lane of each quad that holds the metadata (selector 0)",
     "m16n8k16.f32.f16.f16.f32", "E", 0, ("sites",)),
    ("112", "Sparse MMA metadata example for .f16/.bf16", "m16n8k16.f32.f16.f16.f32", "A", 0, ("landing",)),
    ("113", "Sparse MMA metadata example for .tf32", "m16n8k8.f32.tf32.tf32.f32", "A", 0, ("landing",)),
    ("114", "Sparse MMA metadata example for .u8/.s8", "m16n8k32.s32.u8.u8.s32", "A", 0, ("landing",)),
    ("115", "Sparse MMA metadata example for .u4/.s4", "m16n8k64.s32.u4.u4.s32", "A", 0, ("landing",)),
    ("116", "Sparse MMA metadata example for .e4m3/.e5m2/.e3m2/.e2m3/.e2m1 (.kind::f8f6f4)",
     "m16n8k64.f8f6f4.f32.e4m3.e4m3.f32", "A", 0, ("landing",)),
    ("117", "Sparse MMA metadata example for .e2m1 (.kind::mxf4)", "m16n8k128.mxf4.x2X.ue8m0.f32.e2m1.e2m1.f32",
     "A", 0, ("landing",)),
    ("123", "Sparse MMA .m16n8k16 fragment layout for matrix A with .tf32", "m16n8k16.f32.tf32.tf32.f32", "A", 0,
     ("fragment", "window")),
    ("124", "Sparse MMA .m16n8k16 fragment layout for matrix B with .tf32", "m16n8k16.f32.tf32.tf32.f32", "B", None,
     None),
    ("125", "Sparse MMA .m16n8k16 metadata layout for .tf32 (selector 0)", "m16n8k16.f32.tf32.tf32.f32", "E", 0,
     ("sites",)),
    ("125", "Sparse MMA .m16n8k16 metadata layout for .tf32 (selector 1)", "m16n8k16.f32.tf32.tf32.f32", "E", 1,
     ("sites",)),
    ("138", "Sparse MMA .m16n8k64 fragment layout for matrix A with .u4/.s4", "m16n8k64.s32.u4.u4.s32", "A", 0,
     ("fragment", "window")),
    ("139", "Sparse MMA .m16n8k64 metadata layout for .u4/.s4 (selector 0)", "m16n8k64.s32.u4.u4.s32", "E", 0,
     ("sites",)),
    ("139", "Sparse MMA .m16n8k64 metadata layout for .u4/.s4 (selector 1)", "m16n8k64.s32.u4.u4.s32", "E", 1,
     ("sites",)),
)


def command(key: str, operand: str, selector=None, views=None, fmt: str | None = None) -> str:
    cmd = f"warpsim layout {key} --operand {operand}"
    if selector is not None and operand in "AE":
        cmd += f" --selector {selector}"
    if views:
        cmd += " --view " + ",".join(views)
    return cmd + (f" --format {fmt}" if fmt else "")


def page_name(form: MmaSpForm) -> str:
    return f"forms/{form.key}.html"


def form_page(form: MmaSpForm, prev: MmaSpForm | None, nxt: MmaSpForm | None) -> str:
    nav = '<nav><a href="../index.html">index</a><a href="../seeds.html">PTX figures</a>'
    nav += "".join(f'<a href="../{page_name(f)}">{label} {escape(f.key)}</a>'
                   for label, f in (("prev", prev), ("next", nxt)) if f)
    nav += "</nav>"
    parts = [f"<p><code>{escape(form.name)}</code> — pattern {form.pattern}, metadata class {form.meta_class}, "
             f"selectors {list(form.selectors)}, PTX {form.ptx[0]}.{form.ptx[1]}, targets {', '.join(form.targets)}, "
             f"{escape(form.verified)}</p>"]
    for op in ("A", "B", "C", "D"):
        parts.append(html.section(build(form, op), f"{op}: {command(form.key, op)}"))
    for sel in form.selectors:
        parts.append(html.section(build(form, "E", sel), f"E, selector {sel}: {command(form.key, 'E', sel)}"))
    parts.append(f"<h2>explain lane 0: warpsim explain {escape(form.key)} --lane 0</h2>"
                 f"<pre>{escape(explain(form, 0))}</pre>")
    return html.page(form.key, "\n".join(parts), nav)


def seeds_page() -> str:
    parts = ["<p>Each figure is drawn from the same tables the simulator executes "
             "(<code>isa.layouts</code>, <code>isa.sparsity</code>); the command regenerates it.</p>"]
    for fig_no, caption, key, op, sel, views in SEED_FIGURES:
        fig = build(key, op, sel, views=views)
        head = f"PTX ISA Figure {fig_no}: {caption}"
        parts.append(html.section(fig, head, f"<p><code>{escape(command(key, op, sel, views))}</code></p>"))
    nav = '<nav><a href="index.html">index</a></nav>'
    return html.page("PTX ISA sparse-MMA figures, regenerated", "\n".join(parts), nav)


def tcgen05_page() -> str:
    from warpsim.render import tcgen05 as T

    parts = ["<p>Drawn from <code>isa.tcgen05.tmem_layout</code> and <code>isa.tcgen05.smem_desc</code>.</p>"]
    for fig_no, caption, kind, rows in T.SEED_FIGURES:
        for sel in T.meta_selectors(kind)[:2]:
            cmd = f"warpsim tmem meta --kind {kind} --rows {rows} --selector {sel}"
            parts.append(html.section(T.tmem_meta_figure(kind, rows, sel),
                                      f"PTX ISA Figure {fig_no}: sparsity metadata, {caption}, selector {sel}",
                                      f"<p><code>{escape(cmd)}</code></p>"))
    for kind in ("i8", "mxf4"):
        parts.append(html.section(T.tmem_meta_figure(kind), f"sparsity metadata, .kind::{kind}",
                                  f"<p><code>warpsim tmem meta --kind {kind}</code></p>"))
    for m, cg, sp in T.D_CASES:
        cmd = f"warpsim tmem d --m {m} --cta-group {cg}{' --sparse' if sp else ''}"
        parts.append(html.section(T.tmem_d_figure(m, cg, sp), None, f"<p><code>{escape(cmd)}</code></p>"))
    for mode in ("none", "32B", "64B", "128B", "128B_base32B"):
        parts.append(html.section(T.swizzle_figure(mode), None, f"<p><code>warpsim swizzle {mode}</code></p>"))
    return html.page("tcgen05: Tensor Memory and shared-memory layouts", "\n".join(parts),
                     '<nav><a href="index.html">index</a></nav>')


def index_page(forms) -> str:
    rows = ["<tr><th>form</th><th>pattern</th><th>class</th><th>selectors</th><th>A/B/C regs</th>"
            "<th>layout group</th><th>verified</th></tr>"]
    for f in forms:
        r = f.regs
        rows.append(f'<tr><td><a href="{page_name(f)}">{escape(f.key)}</a></td><td>{f.pattern}</td>'
                    f"<td>{f.meta_class}</td><td>{list(f.selectors)}</td><td>{r['a']}/{r['b']}/{r['c']}</td>"
                    f"<td>{escape(str(layout_group(f)))}</td><td>{escape(f.verified)}</td></tr>")
    body = ('<p><a href="seeds.html">PTX ISA figures regenerated from the tables</a> | '
            '<a href="tcgen05.html">tcgen05: TMEM and swizzles (Figures 262-267)</a></p>'
            f"<p>{len(forms)} forms.</p><table class=\"x\">" + "\n".join(rows) + "</table>")
    return html.page("warpsim: mma.sp layouts", body)


def gallery(outdir, forms=None) -> list[Path]:
    """Write the gallery under ``outdir``; returns the pages written (index first)."""
    out = Path(outdir)
    (out / "forms").mkdir(parents=True, exist_ok=True)
    forms = list(forms or FORMS)
    pages = [(out / "index.html", index_page(forms)), (out / "seeds.html", seeds_page()),
             (out / "tcgen05.html", tcgen05_page())]
    for i, f in enumerate(forms):
        prev = forms[i - 1] if i else None
        nxt = forms[i + 1] if i + 1 < len(forms) else None
        pages.append((out / page_name(f), form_page(f, prev, nxt)))
    for path, text in pages:
        path.write_text(text, encoding="utf-8")
    return [p for p, _ in pages]
