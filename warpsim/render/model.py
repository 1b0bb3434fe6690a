"""A renderer-neutral picture model, built only from :mod:`isa.layouts` (never a second copy of a layout).

A :class:`Figure` is a list of :class:`Grid` s; a grid is rows × cols of :class:`Cell` s, each with its
text lines (``T#`` over ``V#`` in CuTe's style), its owner lane (the colour: CuTe's ``tid % 8``
pastel palette), its kind (owned, candidate window, zero, ignored lane, invalid code …) and a tooltip
(register, bits). The term/svg/html/tex renderers only draw what is here.

V# is CuTe's value index ``register · epr + element``, which is also the PTX element index
(``a_i``, ``b_i``, ``c_i``) of the ISA's fragment tables.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from isa import layouts
from isa.forms import MmaSpForm

# CuTe print_latex / print_svg: the fill of thread t is PALETTE[t % 8]
PALETTE = ((175, 175, 255), (175, 255, 175), (255, 255, 175), (255, 175, 175),
           (210, 210, 255), (210, 255, 210), (255, 255, 210), (255, 210, 210))
WHITE = (255, 255, 255)
KIND_RGB = {"ignored": (222, 222, 222), "other": (236, 236, 236), "zero": WHITE, "empty": WHITE,
            "invalid": (255, 96, 96), "legacy": (255, 196, 120)}
KIND_TEXT = {"window": "candidate position (chunk window)", "zero": "zero (not stored)",
             "ignored": "lane ignored by this selector", "other": "not read by this selector",
             "invalid": "invalid code (UB for .sp and ordered)",
             "legacy": "valid for legacy .sp only (UB with ::ordered_metadata)"}
OPERANDS = ("A", "B", "C", "D", "E")


def lane_rgb(lane: int) -> tuple[int, int, int]:
    return PALETTE[lane % 8]


def mix(rgb, toward=WHITE, amount: float = 0.5) -> tuple[int, int, int]:
    return tuple(round(c + (t - c) * amount) for c, t in zip(rgb, toward))


@dataclass(frozen=True)
class Cell:
    lines: tuple[str, ...] = ()
    lane: int | None = None  # owner lane: colour and --lane highlight
    kind: str = "own"  # own | window | zero | ignored | invalid | legacy | empty
    tip: str = ""


@dataclass
class Grid:
    name: str  # view name: fragment | window | landing | sites | lanes | decoded
    title: str
    rows: list[str]  # row labels
    cols: list[str]  # column labels
    cells: list[list[Cell]]
    row_notes: list[str] = field(default_factory=list)  # text right of each row
    band: tuple[int, int] = (0, 0)  # a heavier rule every (rows, cols); 0 = none
    caption: str = ""

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), len(self.cols)


@dataclass
class Figure:
    key: str
    operand: str
    selector: int | None
    header: str  # one line: form, operand, layout signature
    grids: list[Grid]
    notes: list[str] = field(default_factory=list)
    highlight: int | None = None
    palette: tuple[str, str, int] = ("lane % 8", "lane%8={}", 8)  # what the colour means, swatch label, swatches

    @property
    def kinds(self) -> list[str]:
        """Kinds present (for the legend)."""
        seen = {c.kind for g in self.grids for row in g.cells for c in row}
        return [k for k in KIND_TEXT if k in seen]

    @property
    def lanes(self) -> list[int]:
        return sorted({c.lane for g in self.grids for row in g.cells for c in row if c.lane is not None})


def cell_fill(cell: Cell, highlight: int | None) -> tuple[int, int, int]:
    """The fill every renderer uses: lane colour, kind colour, faded when another lane is highlighted."""
    if cell.kind in KIND_RGB:
        rgb = KIND_RGB[cell.kind]
    elif cell.lane is None:
        rgb = WHITE
    else:
        rgb = lane_rgb(cell.lane)
        if cell.kind == "window":
            rgb = mix(rgb, amount=0.45)
    if highlight is not None and cell.lane != highlight and cell.kind not in ("invalid", "legacy"):
        rgb = mix(rgb, amount=0.7)
    return rgb


def emphasized(cell: Cell, highlight: int | None) -> bool:
    return highlight is not None and cell.lane == highlight


def hexrgb(rgb) -> str:
    return "#%02x%02x%02x" % tuple(rgb)


# ----------------------------------------------------------------------------- register fragments

OPERAND_TEXT = {"A": "A, compressed", "B": "B", "C": "C", "D": "D"}
REG_LETTER = {"A": "a", "B": "b", "C": "c", "D": "d"}


def bit_range(bits: int, elem: int) -> tuple[int, int]:
    """[hi, lo] of element ``elem`` inside its 32-bit register."""
    return bits * (elem + 1) - 1, bits * elem


def fragment_grid(form: MmaSpForm, operand: str) -> Grid:
    """CuTe-style grid of one register operand: every (row, col) cell says T<lane> / V<value>."""
    lay = layouts.layout(form, operand)
    inv = lay.inverse()
    letter = REG_LETTER[operand]
    cells = []
    for r in range(lay.nrows):
        row = []
        for c in range(lay.ncols):
            lane, reg, elem = (int(x) for x in inv[r, c])
            hi, lo = bit_range(lay.bits, elem)
            tip = f"({r},{c}) = lane {lane}, {letter}{reg} bits [{hi}:{lo}] (V{reg * lay.epr + elem})"
            row.append(Cell((f"T{lane}", f"V{reg * lay.epr + elem}"), lane, "own", tip))
        cells.append(row)
    dims = {"A": ("m", "k'" if form.sparse else "k"), "B": ("k", "n"), "C": ("m", "n"), "D": ("m", "n")}[operand]
    band = (8, form.chunk[0]) if operand == "A" else ((0, 0) if operand == "B" else (8, 0))
    name = OPERAND_TEXT[operand] if form.sparse else operand
    title = f"{name} ({lay.nrows}x{lay.ncols}) {lay.signature}"
    rows, cols = [f"{dims[0]}{r}" for r in range(lay.nrows)], [f"{dims[1]}{c}" for c in range(lay.ncols)]
    return Grid("fragment", title, rows, cols,
                cells, band=band, caption=_fragment_caption(form, operand, lay))


def _fragment_caption(form: MmaSpForm, operand: str, lay) -> str:
    what = f"{lay.nregs} x .b32 per lane, {lay.epr} element(s) of {lay.bits} bits each"
    if operand == "A" and form.sparse:
        what += f"; column k' counts stored elements (dense K = {form.shape.k}, pattern {form.pattern})"
    return what


def signature_header(form: MmaSpForm, operand: str, selector: int | None = None) -> str:
    if operand == "E":
        ml = layouts.meta_layout(form, selector)
        return (f"{form.key} E selector {selector}: (lane,nibble) -> (row,chunk) "
                f"({form.shape.m},{form.shape.k // form.chunk[1]}) class {form.meta_class} lanes {list(ml.lanes)}")
    return f"{form.key} {operand} {layouts.layout(form, operand).signature}"
