"""The 32-bit tcgen05 instruction descriptor (PTX ISA 9.7.16.4.2, Tables 42-44).

``decode(bits, kind)`` -> :class:`InstrDescriptor`; ``encode(desc)`` is its inverse. The kind, the
``cta_group`` and ``.ws`` are not in the descriptor (they are opcode qualifiers); they are kept in
the dataclass because the legal M/N set depends on them (Table 39). Every illegal field raises a
:class:`DescriptorError` naming the field, its bits, the value and the legal set.
"""
from __future__ import annotations

from dataclasses import dataclass

from isa.errors import WarpsimError

KINDS = ("f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4")
BLOCK_SCALED = ("mxf8f6f4", "mxf4", "mxf4nvf4")


class DescriptorError(WarpsimError):
    """An instruction or shared-memory descriptor field outside its legal set."""

    def __init__(self, descriptor: str, field: str | None = None, bits: str = "", value=None, legal: str = "",
                 why: str = ""):
        self.descriptor, self.field, self.value, self.legal = descriptor, field, value, legal
        if field is None:  # rebuilt from its message alone (engines re-raise ``type(e)(*e.args)``)
            super().__init__(descriptor)
            return
        v = f"{value:#x}" if isinstance(value, int) and value >= 1 << 16 else repr(value)
        msg = f"{descriptor} field '{field}' (bits {bits}) = {v} is illegal"
        if why:
            msg += f" {why}"
        super().__init__(f"{msg}; legal: {legal}")


# ---------------------------------------------------------------- field tables (bit positions)
# (name, low bit, width). Table 44 (kinds f16/tf32/f8f6f4/i8) and the block-scaled variants.
_FIELDS_PLAIN = (("sparsity_selector", 0, 2), ("sparse", 2, 1), ("saturate", 3, 1), ("d_type", 4, 2),
                 ("reserved6", 6, 1), ("a_type", 7, 3), ("b_type", 10, 3), ("negate_a", 13, 1),
                 ("negate_b", 14, 1), ("transpose_a", 15, 1), ("transpose_b", 16, 1), ("n", 17, 6),
                 ("reserved23", 23, 1), ("m", 24, 5), ("reserved29", 29, 1), ("max_shift", 30, 2))
_FIELDS_MXF8 = (("reserved0", 0, 2), ("sparse", 2, 1), ("reserved3", 3, 1), ("scale_factor_b_id", 4, 2),
                ("reserved6", 6, 1), ("a_type", 7, 3), ("b_type", 10, 3), ("negate_a", 13, 1),
                ("negate_b", 14, 1), ("transpose_a", 15, 1), ("transpose_b", 16, 1), ("n", 17, 6),
                ("scale_type", 23, 1), ("reserved24", 24, 3), ("m", 27, 2), ("scale_factor_a_id", 29, 2),
                ("reserved31", 31, 1))
_FIELDS_MXF4 = tuple(f for f in _FIELDS_MXF8 if f[0] not in ("b_type", "reserved31")) + (
    ("b_type", 10, 2), ("reserved12", 12, 1), ("k96", 31, 1))


def _fields(kind: str):
    return {"mxf8f6f4": _FIELDS_MXF8, "mxf4": _FIELDS_MXF4, "mxf4nvf4": _FIELDS_MXF4}.get(kind, _FIELDS_PLAIN)


def _bits(kind: str, name: str) -> str:
    for f, lo, w in _fields(kind):
        if f == name:
            return f"{lo + w - 1}:{lo}" if w > 1 else str(lo)
    return "-"


_F8F6F4_TYPES = {0: "e4m3", 1: "e5m2", 3: "e2m3", 4: "e3m2", 5: "e2m1"}
TYPE_CODES = {"f16": {0: "f16", 1: "bf16"}, "tf32": {2: "tf32"}, "f8f6f4": _F8F6F4_TYPES,
              "i8": {0: "u8", 1: "s8"}, "mxf8f6f4": _F8F6F4_TYPES, "mxf4": {1: "e2m1"}, "mxf4nvf4": {1: "e2m1"}}
D_TYPE_CODES = {0: "f16", 1: "f32", 2: "s32"}
_D_TYPES = {"f16": ("f16", "f32"), "tf32": ("f32",), "f8f6f4": ("f16", "f32"), "i8": ("s32",)}
SCALE_TYPE_CODES = {"mxf8f6f4": {1: "ue8m0"}, "mxf4": {1: "ue8m0"}, "mxf4nvf4": {0: "ue4m3", 1: "ue8m0"}}
MAX_SHIFT_CODES = {0: 0, 1: 8, 2: 16, 3: 32}
TYPE_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "e2m3": 6, "e3m2": 6, "e2m1": 4,
             "u8": 8, "s8": 8}
# Dense K of one instruction (Table 39); .sp doubles it; mxf4/mxf4nvf4 idesc bit 31 selects K = 96.
DENSE_K = {"f16": 16, "tf32": 8, "f8f6f4": 32, "i8": 32, "mxf8f6f4": 32, "mxf4": 64, "mxf4nvf4": 64}


def _fmt(codes: dict) -> str:
    return "{" + ", ".join(f"{c} ({n})" for c, n in codes.items()) + "}"


def legal_shapes(kind: str, cta_group: int = 1, ws: bool = False, sparse: bool = False):
    """(legal M tuple, legal N tuple) of Table 39 for this kind / cta_group / .ws / .sp."""
    step8 = tuple(range(8, 257, 8))
    if ws:
        return (32, 64, 128), ((64, 128) if sparse else (64, 128, 256))
    if cta_group == 1:
        ms = (128,) if kind in BLOCK_SCALED else (64, 128)
        ns = (8, 16, 24, 32) + tuple(range(48, 257, 16)) if kind == "i8" else step8
        return ms, ns
    ms = (256,) if kind in BLOCK_SCALED and sparse else (128, 256)
    return ms, tuple(range(32, 257, 32)) if kind == "i8" else tuple(range(16, 257, 16))


@dataclass(frozen=True)
class InstrDescriptor:
    """A decoded ``idesc``. Types are PTX names (``bf16``, ``e4m3``, ``s8``); M, N in elements."""

    kind: str
    m: int
    n: int
    a_type: str
    b_type: str
    d_type: str = "f32"
    sparse: bool = False
    sparsity_selector: int = 0
    saturate: bool = False
    negate_a: bool = False
    negate_b: bool = False
    transpose_a: bool = False
    transpose_b: bool = False
    max_shift: int = 0
    scale_type: str | None = None
    scale_factor_a_id: int = 0
    scale_factor_b_id: int = 0
    k96: bool = False
    cta_group: int = 1  # opcode qualifier, not encoded
    ws: bool = False  # opcode qualifier, not encoded

    def __post_init__(self):
        encode(self)  # validates every field

    @property
    def block_scaled(self) -> bool:
        return self.kind in BLOCK_SCALED

    @property
    def k(self) -> int:
        """Dense-equivalent K of one instruction (doubled for .sp)."""
        base = 96 if self.k96 else DENSE_K[self.kind]
        return base * (2 if self.sparse else 1)


def _code_of(kind: str, field: str, table: dict, name) -> int:
    for c, n in table.items():
        if n == name:
            return c
    raise DescriptorError("idesc", field, _bits(kind, field), name, _fmt(table), f"for .kind::{kind}")


def encode(d: InstrDescriptor) -> int:
    """The 32-bit ``idesc`` of ``d`` (validates every field)."""
    if d.kind not in KINDS:
        raise DescriptorError("idesc", "kind", "opcode", d.kind, "{" + ", ".join(KINDS) + "}")
    tc = TYPE_CODES[d.kind]
    raw = {"sparse": int(d.sparse), "a_type": _code_of(d.kind, "a_type", tc, d.a_type),
           "b_type": _code_of(d.kind, "b_type", tc, d.b_type), "negate_a": int(d.negate_a),
           "negate_b": int(d.negate_b), "transpose_a": int(d.transpose_a), "transpose_b": int(d.transpose_b),
           "n": d.n >> 3 if d.n % 8 == 0 else -d.n, "m": d.m}
    if d.kind in BLOCK_SCALED:
        if d.d_type != "f32":
            raise DescriptorError("idesc", "d_type", "implied", d.d_type, "{f32}", f"for .kind::{d.kind}")
        raw.update(scale_type=_code_of(d.kind, "scale_type", SCALE_TYPE_CODES[d.kind], d.scale_type),
                   scale_factor_a_id=d.scale_factor_a_id, scale_factor_b_id=d.scale_factor_b_id)
        if d.kind != "mxf8f6f4":
            raw["k96"] = int(d.k96)
    else:
        if d.scale_type is not None or d.scale_factor_a_id or d.scale_factor_b_id or d.k96:
            raise DescriptorError("idesc", "scale_type", "-", d.scale_type, "{None}",
                                  f"(block scaling needs a block-scaled kind, not .kind::{d.kind})")
        raw.update(sparsity_selector=d.sparsity_selector, saturate=int(d.saturate),
                   d_type=_code_of(d.kind, "d_type", D_TYPE_CODES, d.d_type),
                   max_shift=_code_of(d.kind, "max_shift", MAX_SHIFT_CODES, d.max_shift))
    _validate(d.kind, raw, d.cta_group, d.ws)
    word = 0
    for name, lo, w in _fields(d.kind):
        v = raw.get(name, 0)
        if name == "m":
            v = v >> (7 if d.kind in BLOCK_SCALED else 4)
        word |= (v & ((1 << w) - 1)) << lo
    return word


def decode(word: int, kind: str, *, cta_group: int = 1, ws: bool = False, sparse: bool | None = None,
           ) -> InstrDescriptor:
    """Decode ``idesc`` for ``.kind::<kind>``. ``sparse``: whether the opcode is ``.sp`` (checked vs bit 2)."""
    if kind not in KINDS:
        raise DescriptorError("idesc", "kind", "opcode", kind, "{" + ", ".join(KINDS) + "}")
    if not 0 <= word < 1 << 32:
        raise DescriptorError("idesc", "word", "31:0", word, "a 32-bit value")
    raw = {name: (word >> lo) & ((1 << w) - 1) for name, lo, w in _fields(kind)}
    raw["m"] <<= 7 if kind in BLOCK_SCALED else 4
    if sparse is not None and raw["sparse"] != int(sparse):
        raise DescriptorError("idesc", "sparse", "2", raw["sparse"], "{%d}" % int(sparse),
                              "(must match the opcode: tcgen05.mma%s)" % (".sp" if sparse else " without .sp"))
    _validate(kind, raw, cta_group, ws)
    tc = TYPE_CODES[kind]
    common = dict(kind=kind, m=raw["m"], n=raw["n"] << 3, a_type=tc[raw["a_type"]], b_type=tc[raw["b_type"]],
                  sparse=bool(raw["sparse"]), negate_a=bool(raw["negate_a"]), negate_b=bool(raw["negate_b"]),
                  transpose_a=bool(raw["transpose_a"]), transpose_b=bool(raw["transpose_b"]),
                  cta_group=cta_group, ws=ws)
    if kind in BLOCK_SCALED:
        return InstrDescriptor(**common, scale_type=SCALE_TYPE_CODES[kind][raw["scale_type"]],
                               scale_factor_a_id=raw["scale_factor_a_id"],
                               scale_factor_b_id=raw["scale_factor_b_id"], k96=bool(raw.get("k96", 0)))
    return InstrDescriptor(**common, d_type=D_TYPE_CODES[raw["d_type"]], sparsity_selector=raw["sparsity_selector"],
                           saturate=bool(raw["saturate"]), max_shift=MAX_SHIFT_CODES[raw["max_shift"]])


def _validate(kind: str, raw: dict, cta_group: int, ws: bool) -> None:
    """Check raw field codes; the first illegal one raises."""
    def check(field, legal: dict | tuple, why=""):
        v = raw.get(field, 0)
        if v not in legal:
            shown = _fmt(legal) if isinstance(legal, dict) else "{" + ", ".join(map(str, legal)) + "}"
            raise DescriptorError("idesc", field, _bits(kind, field), v, shown, why or f"for .kind::{kind}")

    if cta_group not in (1, 2):
        raise DescriptorError("idesc", "cta_group", "opcode", cta_group, "{1, 2}")
    if ws and (cta_group != 1 or kind in BLOCK_SCALED):
        raise DescriptorError("idesc", "ws", "opcode", True, "{False}",
                              f"(.ws needs cta_group::1 and a non-block-scaled kind; got .kind::{kind}, "
                              f"cta_group::{cta_group})")
    for name, _lo, _w in _fields(kind):
        if name.startswith("reserved"):
            check(name, (0,), "(reserved, must be 0)")
    sparse = bool(raw["sparse"])
    tc = TYPE_CODES[kind]
    check("a_type", tc)
    check("b_type", tc)
    a, b = tc[raw["a_type"]], tc[raw["b_type"]]
    if kind == "f16" and a != b:
        check("b_type", {raw["a_type"]: a}, "(.kind::f16 needs a_type == b_type)")
    if kind in BLOCK_SCALED:
        check("scale_type", SCALE_TYPE_CODES[kind])
        ids = (0, 1, 2, 3) if kind == "mxf8f6f4" else (0, 2)
        check("scale_factor_a_id", ids)
        check("scale_factor_b_id", ids)
        if kind != "mxf8f6f4":  # Table 39: dense K = 96 is an sm_103a form; warpsim targets sm_100a
            check("k96", (0,), "(K = 96 exists only on sm_103a, dense)")
    else:
        check("d_type", {c: D_TYPE_CODES[c] for c in D_TYPE_CODES if D_TYPE_CODES[c] in _D_TYPES[kind]})
        if kind == "f16" and D_TYPE_CODES[raw["d_type"]] == "f16" and a != "f16":
            check("d_type", {1: "f32"}, f"(an f16 accumulator needs f16 inputs, not {a})")
        # 9.7.16.10.8.4: selector must be 0 for i8/f8f6f4; it only has meaning for .sp (we require 0 when dense).
        sel_ok = (0, 1, 2, 3) if sparse and kind in ("f16", "tf32") else (0,)
        check("sparsity_selector", sel_ok, f"for .kind::{kind}{'' if sparse else ' dense'}")
        check("saturate", (0, 1) if kind == "i8" else (0,))
        check("max_shift", MAX_SHIFT_CODES if ws else (0,), "(max shift is a .ws field)")
    if kind == "i8":  # Table 51: no negate for integer kinds
        check("negate_a", (0,))
        check("negate_b", (0,))
    for op, t in (("a", a), ("b", b)):  # Table 51/54: no transpose for mxf4*, 4/6-bit types K-major only
        if kind in ("mxf4", "mxf4nvf4") or TYPE_BITS[t] < 8:
            check(f"transpose_{op}", (0,), f"for .kind::{kind} with {t} (K-major only)")
    ms, ns = legal_shapes(kind, cta_group, ws, sparse)
    where = f"for .kind::{kind}{'.sp' if sparse else ''} cta_group::{cta_group}{' .ws' if ws else ''}"
    check("m", ms, where)
    raw_n = raw["n"]
    raw["n"] = raw_n * 8 if raw_n >= 0 else -raw_n
    try:
        check("n", ns, where)
        if raw["transpose_b"] and TYPE_BITS[b] == 8:  # Table 52
            check("n", tuple(range(16 * cta_group, 257, 16 * cta_group)), f"(8-bit transposed B) {where}")
    finally:
        raw["n"] = raw_n
