"""CLI: ``warpsim layout | explain | gallery | tmem | swizzle`` (register them with :func:`register`).

    warpsim layout m16n8k16.f32.f16.f16.f32 --operand A --lane 5
    warpsim layout m16n8k32.f32.f16.f16.f32 --operand E --selector 1 --format svg -o e.svg
    warpsim layout "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" --operand E --e 0xED9C9C84
    warpsim explain m16n8k16.f32.f16.f16.f32 --lane 5
    warpsim gallery out/gallery
    warpsim tmem d --m 128 --cta-group 2 --sparse
    warpsim tmem meta --kind f16 --selector 1 --format svg -o meta.svg
    warpsim swizzle 128B
"""
from __future__ import annotations

import argparse
import sys

from warpsim import render as R

FORMAT_CHOICES = ("term", "text", "svg", "html", "tex", "json")


def _ints(text: str) -> list[int]:
    from warpsim.render.sparse import parse_ints

    try:
        return parse_ints(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected integers like 0b0100,0x8,12, got {text!r}") from None


def _add_layout(sub) -> None:
    p = sub.add_parser("layout", help="draw an mma.sp operand layout (A, B, C, D) or the metadata E",
                       description="Draw one operand of one mma.sp form, from the simulator's own layout tables.")
    p.add_argument("form", help="form key (e.g. m16n8k16.f32.f16.f16.f32) or a full mma.sp instruction")
    p.add_argument("--operand", default="A", type=str.upper, choices=("A", "B", "C", "D", "E"))
    p.add_argument("--selector", type=int, default=None, help="sparsity selector (A and E; default 0)")
    p.add_argument("--lane", type=int, default=None, help="highlight one lane (0..31)")
    p.add_argument("--format", default=None, choices=FORMAT_CHOICES,
                   help="term (ANSI colour; default on a terminal), text (plain; default otherwise), "
                        "svg, html, tex, json")
    p.add_argument("--codes", type=_ints, default=None,
                   help="metadata example: 4-bit codes, row-major over (row, chunk), repeated to fill; e.g. 0b1001")
    p.add_argument("--e", type=_ints, default=None, dest="e",
                   help="metadata example: the e register, one value for every lane or 32 comma-separated")
    p.add_argument("--view", default=None,
                   help="only these grids (comma-separated): A: fragment,window,landing; E: sites,lanes,decoded")
    p.add_argument("--width", type=int, default=None, help="text width (default: the terminal's)")
    p.add_argument("-o", "--output", default=None, help="write to FILE instead of stdout")
    p.set_defaults(func=run_layout)


def _add_explain(sub) -> None:
    p = sub.add_parser("explain", help="what each register of one lane holds, for one mma.sp form")
    p.add_argument("form", help="form key or full mma.sp instruction")
    p.add_argument("--lane", type=int, required=True)
    p.add_argument("-o", "--output", default=None)
    p.set_defaults(func=run_explain)


def _add_gallery(sub) -> None:
    p = sub.add_parser("gallery", help="write a static HTML gallery of every mma.sp form's layouts")
    p.add_argument("outdir")
    p.add_argument("--forms", default=None, help="only these form keys (comma-separated)")
    p.set_defaults(func=run_gallery)


def _picture_args(p) -> None:
    p.add_argument("--format", default=None, choices=FORMAT_CHOICES[:-1])
    p.add_argument("--width", type=int, default=None)
    p.add_argument("-o", "--output", default=None)


def _add_tmem(sub) -> None:
    p = sub.add_parser("tmem", help="tcgen05 Tensor Memory: where D lands, where sparse metadata lives")
    p.add_argument("what", choices=("d", "meta"))
    p.add_argument("--m", type=int, default=128, help="d: the instruction's M")
    p.add_argument("--cta-group", type=int, default=1, choices=(1, 2))
    p.add_argument("--sparse", action="store_true", help="d: .sp (changes M=128 cta_group::2 to layout C)")
    p.add_argument("--ws", action="store_true")
    p.add_argument("--n", type=int, default=16, help="d: columns of D to draw")
    p.add_argument("--kind", default="f16", help="meta: f16 tf32 f8f6f4 i8 mxf8f6f4 mxf4 mxf4nvf4")
    p.add_argument("--rows", type=int, default=128, choices=(64, 128), help="meta: A rows per CTA")
    p.add_argument("--selector", type=int, default=0)
    p.add_argument("--lane-align", type=int, default=0, choices=(0, 16))
    _picture_args(p)
    p.set_defaults(func=run_tmem)


def _add_swizzle(sub) -> None:
    p = sub.add_parser("swizzle", help="tcgen05 shared-memory swizzle atom (none 32B 64B 128B 128B_base32B)")
    p.add_argument("mode")
    _picture_args(p)
    p.set_defaults(func=run_swizzle)


def register(subparsers) -> None:
    """Add ``layout``, ``explain``, ``gallery``, ``tmem`` and ``swizzle`` to an argparse subparsers object."""
    _add_layout(subparsers)
    _add_explain(subparsers)
    _add_gallery(subparsers)
    _add_tmem(subparsers)
    _add_swizzle(subparsers)


def _friendly(run):
    """Errors meant for people (unknown form, bad selector/lane/kind) → one line on stderr, exit status 2."""
    def wrapped(args) -> int:
        try:
            return run(args)
        except (ValueError, KeyError) as err:  # FormError is a ValueError
            print(f"warpsim {args.command}: error: {err}", file=sys.stderr)
            return 2
    wrapped.__name__ = run.__name__
    return wrapped


def _emit(text: str, output: str | None) -> int:
    if output:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


@_friendly
def run_layout(args) -> int:
    fmt = _fmt(args)
    views = [v.strip() for v in args.view.split(",")] if args.view else None
    text = R.render(args.form, args.operand, fmt, args.selector, args.lane, args.codes, args.e, args.width, views)
    return _emit(text, args.output)


def _fmt(args) -> str:
    return args.format or ("term" if sys.stdout.isatty() and not args.output else "text")


@_friendly
def run_tmem(args) -> int:
    from warpsim.render import tcgen05 as T

    if args.what == "d":
        fig = T.tmem_d_figure(args.m, args.cta_group, args.sparse, args.n, args.ws, args.lane_align)
    else:
        fig = T.tmem_meta_figure(args.kind, args.rows, args.selector, args.lane_align)
    return _emit(R.render_figure(fig, _fmt(args), args.width), args.output)


@_friendly
def run_swizzle(args) -> int:
    from warpsim.render import tcgen05 as T

    return _emit(R.render_figure(T.swizzle_figure(args.mode), _fmt(args), args.width), args.output)


@_friendly
def run_explain(args) -> int:
    return _emit(R.explain(args.form, args.lane), args.output)


@_friendly
def run_gallery(args) -> int:
    from warpsim.render.gallery import gallery

    forms = [R.resolve_form(k.strip())[0] for k in args.forms.split(",")] if args.forms else None
    pages = gallery(args.outdir, forms)
    print(f"wrote {len(pages)} pages; open {pages[0]}")
    return 0


def main(argv=None) -> int:
    """Standalone entry (``python -m warpsim.cmd_layout ...``); ``warpsim.cli`` registers the same commands."""
    parser = argparse.ArgumentParser(prog="warpsim")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
