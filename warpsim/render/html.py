"""HTML: the SVG embedded inline (with per-cell tooltips), a colour legend and the figure's notes.

Every page carries a small self-check script: once loaded it counts the ``<svg>`` elements with a
non-zero bounding box and the images that failed, and writes ``rendered N/M svg, K broken img`` into
the document title (read back by the headless-Chromium test with ``--dump-dom``).
"""
from __future__ import annotations

from html import escape

from warpsim.render import svg
from warpsim.render.model import Figure, hexrgb

CSS = """body{font-family:system-ui,sans-serif;margin:1.2em;color:#222}
h1{font-size:1.25em}h2{font-size:1.05em;margin-top:1.6em}code,pre{font-family:DejaVu Sans Mono,Menlo,monospace}
.fig{overflow-x:auto;border:1px solid #ddd;padding:6px;margin:.4em 0}
.legend span{display:inline-block;margin:2px 10px 2px 0}
.legend i{display:inline-block;width:12px;height:12px;border:1px solid #000;vertical-align:middle;margin-right:4px}
nav a{margin-right:.8em}table.x{border-collapse:collapse}
table.x td,table.x th{border:1px solid #ccc;padding:2px 6px;font-family:monospace}"""

CHECK = """<script>
window.addEventListener('load', function () {
  var svgs = document.querySelectorAll('svg'), ok = 0, broken = 0;
  svgs.forEach(function (s) { var b = s.getBoundingClientRect(); if (b.width > 0 && b.height > 0) ok++; });
  document.querySelectorAll('img').forEach(function (i) { if (!i.complete || i.naturalWidth === 0) broken++; });
  document.title = 'rendered ' + ok + '/' + svgs.length + ' svg, ' + broken + ' broken img';
});
</script>"""


def legend(fig: Figure) -> str:
    items = [f'<span><i style="background:{hexrgb(rgb)}"></i>{escape(label)}</span>'
             for label, rgb in svg.legend_items(fig)]
    if fig.highlight is not None:
        items.append(f'<span><i style="background:#fff;border:2px solid #c00000"></i>lane {fig.highlight}</span>')
    return '<div class="legend">' + "".join(items) + "</div>"


def section(fig: Figure, heading: str | None = None, extra: str = "") -> str:
    """One figure as an HTML fragment: heading, inline SVG (notes drawn below it in HTML), legend."""
    parts = [f"<h2>{escape(heading or fig.header)}</h2>", extra,
             f'<div class="fig">{svg.render(fig, tips=True, notes=False, legend=False)}</div>', legend(fig)]
    parts += ["<ul>"] + [f"<li>{escape(n)}</li>" for n in fig.notes] + ["</ul>"]
    return "\n".join(p for p in parts if p)


def page(title: str, body: str, nav: str = "") -> str:
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<style>{CSS}</style></head>\n<body>\n{nav}\n<h1>{escape(title)}</h1>\n{body}\n{CHECK}\n</body></html>\n")


def render(fig: Figure) -> str:
    """A standalone page for one figure."""
    return page(fig.header, section(fig, "layout: " + fig.header))
