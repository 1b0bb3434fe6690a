"""Register values as the debugger shows them: typed views of raw lane bits, exact float text, and a
small per-lane expression language for ``print`` and breakpoint conditions.

A register holds raw bits (``warpsim.regfile``). A *view* reads them as one or more elements:
``%r4.f32``, ``%r4.s32``, ``%r1.f16x2`` (two halves, element 0 = bits 15:0 as in PTX), ``.bf16x2``,
``.e4m3x4`` / ``.e5m2x4`` / ``.s8x4`` / ``.u8x4`` (element 0 = bits 7:0), ``.s16x2``, ``.u16x2``, and the
scalar types ``.b8 .. .b64``, ``.u8 .. .u64``, ``.s8 .. .s64``, ``.f16``, ``.bf16``, ``.f32``, ``.f64``,
``.pred``. Without a view a register is read as declared. Floats are written with Python's ``repr``
of the exact value (it reads back to the same bits) and the bits in hex beside.

Expressions (``print %r4 + 1``, ``break 42 if %r4 == 7 && %p1``) are evaluated for all 32 lanes at
once: registers (``%r4``, ``$r4``, ``%tid.x``, with a scalar view), integer and float literals,
``+ - * / // % & | ^ << >> ~``, comparisons, ``&& || !`` (or ``and or not``) and parentheses.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import numpy as np

from isa import formats
from isa.errors import WarpsimError


class ExprError(WarpsimError):
    """A register expression that does not parse or names something that is not there."""


@dataclass(frozen=True)
class View:
    name: str  # as written after the dot ("f16x2", "u32")
    fmt: str  # element format: an isa.formats name, or "u", "s", "b", "pred"
    bits: int  # bits per element
    count: int  # elements per register

    @property
    def is_float(self) -> bool:
        return self.fmt not in ("u", "s", "b", "pred") and not formats.get(self.fmt).integer


def _views() -> dict[str, View]:
    v = {}
    for bits in (8, 16, 32, 64):
        for k in "bus":
            v[f"{k}{bits}"] = View(f"{k}{bits}", k, bits, 1)
    v.update({n: View(n, n, formats.get(n).bits, 1) for n in ("f16", "bf16", "f32", "f64")})
    v["pred"] = View("pred", "pred", 1, 1)
    v.update({
        "f16x2": View("f16x2", "f16", 16, 2), "bf16x2": View("bf16x2", "bf16", 16, 2),
        "e4m3x4": View("e4m3x4", "e4m3", 8, 4), "e5m2x4": View("e5m2x4", "e5m2", 8, 4),
        "e4m3x2": View("e4m3x2", "e4m3", 8, 2), "e5m2x2": View("e5m2x2", "e5m2", 8, 2),
        "s8x4": View("s8x4", "s", 8, 4), "u8x4": View("u8x4", "u", 8, 4),
        "s16x2": View("s16x2", "s", 16, 2), "u16x2": View("u16x2", "u", 16, 2),
    })
    return v


VIEWS = _views()


def declared_view(ptype: str, nbits: int) -> View:
    """The view a register gets without a suffix: its declared type (``.b32`` reads as ``.u32``)."""
    if ptype == "pred":
        return VIEWS["pred"]
    if ptype in VIEWS and VIEWS[ptype].count == 1:
        v = VIEWS[ptype]
        return VIEWS[f"u{v.bits}"] if v.fmt == "b" else v
    return VIEWS.get(f"u{nbits}", VIEWS["u32"])


def raw_bits(arr: np.ndarray) -> list[int]:
    """A register's 32 lanes as Python ints (the raw bits; predicates 0/1)."""
    if arr.dtype == np.bool_:
        return [int(x) for x in arr]
    u = arr.view(f"u{arr.dtype.itemsize}") if arr.dtype.kind != "u" else arr
    return [int(x) for x in u]


def elements(bits: int, view: View) -> list[int]:
    """The element bit patterns of one lane's register under ``view`` (element 0 = lowest bits)."""
    mask = (1 << view.bits) - 1
    return [(bits >> (i * view.bits)) & mask for i in range(view.count)]


def element_value(pattern: int, view: View):
    """One element's value: a Python int, a float (exact) or a bool."""
    if view.fmt == "pred":
        return bool(pattern)
    if view.fmt in ("u", "b"):
        return pattern
    if view.fmt == "s":
        return pattern - (1 << view.bits) if pattern >> (view.bits - 1) else pattern
    if view.fmt == "f32":
        return float(np.array(pattern, np.uint32).view(np.float32))
    if view.fmt == "f64":
        return float(np.array(pattern, np.uint64).view(np.float64))
    return float(formats.decode(view.fmt, np.array(pattern))[()])


def fmt_number(v) -> str:
    """Exact text: ints in decimal, floats by ``repr`` (round-trips), predicates as true/false."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def fmt_hex(bits: int, nbits: int) -> str:
    return f"0x{bits:0{max(nbits // 4, 1)}x}"


def fmt_lane(bits: int, view: View, reg_bits: int, with_hex: bool = True) -> str:
    """One lane of one register under ``view``: ``1.5 (0x3fc00000)``, ``{1.0, -2.0} (0xc0003c00)``."""
    if view.fmt == "pred":
        return fmt_number(bool(bits))
    vals = [fmt_number(element_value(p, view)) for p in elements(bits, view)]
    text = vals[0] if view.count == 1 else "{" + ", ".join(vals) + "}"
    if not with_hex:
        return text
    nb = view.bits * view.count if view.count > 1 else max(view.bits, reg_bits if view.fmt in "ubs" else view.bits)
    return f"{text} ({fmt_hex(bits & ((1 << nb) - 1), nb)})"


# ----------------------------------------------------------------------------- register references

_REF = re.compile(r"[%$][A-Za-z_$][\w$]*(?:\.[A-Za-z_]\w*)*")


@dataclass(frozen=True)
class RegRef:
    """``%name`` with an optional view: what ``print``/``display`` take."""

    name: str
    view: View | None
    text: str

    def label(self) -> str:
        return self.name + (f".{self.view.name}" if self.view else "")


def parse_ref(text: str, regs: dict) -> RegRef:
    """``%r4``, ``$r4``, ``%r4.f16x2``, ``%tid.x`` → RegRef; the longest dotted prefix that is a register wins."""
    t = text.strip()
    if not _REF.fullmatch(t):
        raise ExprError(f"'{t}' is not a register (write %r4, %f1.f32, %r1.f16x2, %tid.x)")
    t = "%" + t[1:]
    parts = t.split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        if name in regs:
            rest = parts[i:]
            if not rest:
                return RegRef(name, None, text.strip())
            if len(rest) == 1 and rest[0] in VIEWS:
                return RegRef(name, VIEWS[rest[0]], text.strip())
            raise ExprError(f"unknown view '.{'.'.join(rest)}' of {name} (views: {', '.join(VIEWS)})")
    raise ExprError(f"no register {parts[0]} in this kernel")


def lane_values(arr: np.ndarray, ptype: str, view: View | None) -> tuple[View, list[int]]:
    """(the view used, raw bits per lane)."""
    nbits = 1 if arr.dtype == np.bool_ else 8 * arr.dtype.itemsize
    return (view or declared_view(ptype, nbits)), raw_bits(arr)


def reg_bits(arr: np.ndarray) -> int:
    return 1 if arr.dtype == np.bool_ else 8 * arr.dtype.itemsize


# ----------------------------------------------------------------------------- expressions

_BIN = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply, ast.Div: np.true_divide,
        ast.FloorDiv: np.floor_divide, ast.Mod: np.mod, ast.BitAnd: np.bitwise_and, ast.BitOr: np.bitwise_or,
        ast.BitXor: np.bitwise_xor, ast.LShift: np.left_shift, ast.RShift: np.right_shift}
_CMP = {ast.Eq: np.equal, ast.NotEq: np.not_equal, ast.Lt: np.less, ast.LtE: np.less_equal, ast.Gt: np.greater,
        ast.GtE: np.greater_equal}


def _lanes_as_values(arr, ptype, view) -> np.ndarray:
    """A register's lanes as numbers for arithmetic: object ints, float64, or bool."""
    v, bits = lane_values(arr, ptype, view)
    if v.count != 1:
        raise ExprError(f"a .{v.name} view holds {v.count} elements; compare a scalar view (e.g. .b32)")
    vals = [element_value(elements(b, v)[0], v) for b in bits]
    if v.fmt == "pred":
        return np.array(vals, bool)
    if v.is_float:
        return np.array(vals, np.float64)
    return np.array(vals, object)


def evaluate(text: str, regs: dict, types: dict) -> np.ndarray:
    """Evaluate ``text`` for all 32 lanes; returns an array of 32 values (object ints, floats or bools)."""
    names: dict[str, np.ndarray] = {}

    def sub(m):
        ref = parse_ref(m.group(0), regs)
        key = f"__r{len(names)}"
        names[key] = _lanes_as_values(regs[ref.name], types.get(ref.name, ""), ref.view)
        return key

    src = _REF.sub(sub, text)
    src = src.replace("&&", " and ").replace("||", " or ")
    src = re.sub(r"!(?!=)", " not ", src)
    try:
        tree = ast.parse(src.strip(), mode="eval")
    except SyntaxError:
        raise ExprError(f"cannot parse expression '{text.strip()}'") from None

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return np.array([node.value] * 32, object if isinstance(node.value, int) else np.float64)
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
        if isinstance(node, ast.Name) and node.id in ("true", "false"):
            return np.full(32, node.id == "true")
        if isinstance(node, ast.BoolOp):
            vals = [np.asarray(ev(v)).astype(bool) for v in node.values]
            f = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
            out = vals[0]
            for v in vals[1:]:
                out = f(out, v)
            return out
        if isinstance(node, ast.UnaryOp):
            x = ev(node.operand)
            if isinstance(node.op, ast.Not):
                return ~np.asarray(x).astype(bool)
            if isinstance(node.op, ast.USub):
                return -x
            if isinstance(node.op, ast.UAdd):
                return x
            if isinstance(node.op, ast.Invert):
                return np.array([~int(v) for v in x], object)
        if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
            a, b = ev(node.left), ev(node.right)
            try:
                return _BIN[type(node.op)](a, b)
            except (TypeError, ZeroDivisionError) as err:
                raise ExprError(f"cannot evaluate '{text.strip()}': {err}") from None
        if isinstance(node, ast.Compare):
            out, left = np.ones(32, bool), ev(node.left)
            for op, right in zip(node.ops, node.comparators):
                if type(op) not in _CMP:
                    break
                r = ev(right)
                out = out & np.asarray(_CMP[type(op)](left, r)).astype(bool)
                left = r
            else:
                return out
        raise ExprError(f"unsupported in an expression: '{ast.unparse(node)}' (registers, numbers, "
                        f"arithmetic, comparisons, && || !)")

    return ev(tree)
