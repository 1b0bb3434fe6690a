"""Every `mma.sp` form, one frozen row each (PTX ISA §9.7.14.6.3, "mma.sp").

A row says *which registers* (counts per operand), *what elements* (types and widths), the
sparsity pattern, the metadata class (§9.7.14.6.2 figures; see :mod:`isa.layouts`), the legal
sparsity selectors, and where the form exists (PTX ISA version, targets). Layouts and numerics
are other modules; nothing here computes.

Row numbers in comments refer to the register-count table of ``ptx-mma-sp.md`` §2.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from isa import formats

# Sparsity patterns: (non-zeros Z, chunk width W) of the PTX ISA's "sparse matrix storage".
PAIR_2_4 = "2:4"  # f16 bf16 s8 u8 fp8 f6 f4-in-container: 2 of every 4
TF32_1_2 = "1:2"  # tf32: 1 of every 2
QUAD_4_8 = "4:8"  # s4 u4 packed e2m1: 2 pairs of every 4 pairs
DENSE = "dense"  # `mma.sync` (no sparsity): every column stored
PATTERNS = {PAIR_2_4: (2, 4), TF32_1_2: (1, 2), QUAD_4_8: (4, 8), DENSE: (1, 1)}

VARIANTS = ("sp", "sp::ordered_metadata")


@dataclass(frozen=True)
class Shape:
    m: int
    n: int
    k: int

    def __str__(self) -> str:
        return f"m{self.m}n{self.n}k{self.k}"


@dataclass(frozen=True)
class MmaSpForm:
    shape: Shape
    atype: str
    btype: str
    ctype: str
    dtype: str
    kind: str | None = None  # "f8f6f4" | "mxf8f6f4" | "mxf4" | "mxf4nvf4"
    scale_vec: str | None = None  # "1X" | "2X" | "4X" (block scaling)
    stype: str | None = None  # "ue8m0" | "ue4m3"
    satfinite: bool = False
    ptx: tuple[int, int] = (7, 1)
    targets: tuple[str, ...] = ("sm_80+",)
    verified: str = "spec"  # "hardware:H100" where traces/h100 replays bit-exact, else "spec"
    legacy_ok: bool = True  # `.sp` (unordered) accepted; the `.kind` forms are ordered-only
    sparse: bool = True  # False: the dense `mma.sync` of the same shape (for comparisons)
    extra_selectors: tuple[int, ...] = field(default=(), compare=False)  # ptxas accepts, H100 traps

    # ---- derived facts (computed once per row: the engines ask for them on every instruction)
    def __hash__(self) -> int:
        h = self.__dict__.get("_hash")
        if h is None:
            h = self.__dict__["_hash"] = hash(self.key)
        return h

    @cached_property
    def element_bits(self) -> int:
        """Register bits per A/B element (sub-byte f6/f4 ride in 8-bit containers under f8f6f4)."""
        if self.kind in ("f8f6f4", "mxf8f6f4"):
            return 8
        return 4 if self.atype in ("s4", "u4", "e2m1") else formats.get(self.atype).bits

    @cached_property
    def epr(self) -> int:
        return 32 // self.element_bits

    @cached_property
    def pattern(self) -> str:
        if not self.sparse:
            return DENSE
        if self.atype == "tf32":
            return TF32_1_2
        return QUAD_4_8 if self.element_bits == 4 else PAIR_2_4

    @cached_property
    def chunk(self) -> tuple[int, int]:
        return PATTERNS[self.pattern]

    @cached_property
    def regs(self) -> dict:
        m, n, k = self.shape.m, self.shape.n, self.shape.k
        a = m * (k // 2 if self.sparse else k) * self.element_bits // (32 * 32)
        b = k * n * self.element_bits // (32 * 32)
        cd = m * n * formats.get(self.ctype).bits // (32 * 32) if self.ctype != "f16" else m * n // 64
        return {"a": a, "b": b, "c": cd, "d": cd, "e": 1 if self.sparse else 0}

    @cached_property
    def meta_class(self) -> str:
        """Metadata class I–IV (ptx-mma-sp.md §5.2): bits of metadata per row decide it."""
        if not self.sparse:
            return "-"
        bits_per_row = (self.shape.k // self.chunk[1]) * 4
        if bits_per_row == 16:
            return "I"
        if bits_per_row == 64:
            return "IV"
        return "III" if self.element_bits <= 8 else "II"

    @cached_property
    def selectors(self) -> tuple[int, ...]:
        return {"I": (0, 1, 2, 3), "II": (0, 1), "III": (0, 1), "IV": (0,), "-": ()}[self.meta_class]

    @property
    def is_integer(self) -> bool:
        return self.dtype == "s32"

    @property
    def block_scaled(self) -> bool:
        return self.scale_vec is not None

    @property
    def name(self) -> str:
        """Canonical instruction text (ordered variant; `.sp` is the same with the variant swapped)."""
        parts = ["mma"] + (["sp::ordered_metadata"] if self.sparse else []) + ["sync", "aligned", str(self.shape), "row", "col"]
        if self.kind:
            parts.append(f"kind::{self.kind}")
        if self.block_scaled:
            parts += ["block_scale", f"scale_vec::{self.scale_vec}"]
        if self.satfinite:
            parts.append("satfinite")
        parts += [self.dtype, self.atype, self.btype, self.ctype]
        if self.stype:
            parts.append(self.stype)
        return ".".join(parts)

    @cached_property
    def key(self) -> str:
        """Short id for tables, files and CLI: ``m16n8k16.f32.f16.f16.f32`` (+ kind/scale/sat)."""
        parts = [str(self.shape)]
        if self.kind:
            parts.append(self.kind)
        if self.scale_vec:
            parts.append(f"x{self.scale_vec}.{self.stype}")
        parts += [self.dtype, self.atype, self.btype, self.ctype]
        if self.satfinite:
            parts.append("satfinite")
        if not self.sparse:
            parts.append("dense")
        return ".".join(parts)

    def __str__(self) -> str:
        return self.key

    def __post_init__(self):
        m, n, k = self.shape.m, self.shape.n, self.shape.k
        z, w = self.chunk
        assert k % w == 0, f"{self.key}: K not a multiple of the chunk width"
        r = self.regs
        assert r["a"] * 32 * self.epr == m * k // (2 if self.sparse else 1), f"{self.key}: A register count"
        assert r["b"] * 32 * self.epr == k * n, f"{self.key}: B register count"
        assert self.dtype == self.ctype, f"{self.key}: D and C types differ"


# ----------------------------------------------------------------------------- the table

S = Shape
INT8, INT4 = ("s8", "u8"), ("s4", "u4")
FP8 = ("e4m3", "e5m2")
F8F6F4 = ("e4m3", "e5m2", "e3m2", "e2m3", "e2m1")
HW = "hardware:H100"


def _rows():
    for k, c in itertools.product((16, 32), ("f16", "f32")):  # rows 1, 2, 4, 5
        extra = (2, 3) if (k, c) == (32, "f32") else ()
        yield MmaSpForm(S(16, 8, k), "f16", "f16", c, c, verified=HW, extra_selectors=extra)
    for k in (16, 32):  # rows 3, 6
        yield MmaSpForm(S(16, 8, k), "bf16", "bf16", "f32", "f32", verified=HW)
    for k in (8, 16):  # rows 7, 8
        yield MmaSpForm(S(16, 8, k), "tf32", "tf32", "f32", "f32", verified=HW)
    for (k, types), a, b, sat in itertools.product(
            ((32, INT8), (64, INT8), (64, INT4), (128, INT4)), range(2), range(2), (False, True)):
        yield MmaSpForm(S(16, 8, k), types[a], types[b], "s32", "s32", satfinite=sat, verified=HW)  # rows 9-12
    for a, b in itertools.product(FP8, FP8):  # row 13
        yield MmaSpForm(S(16, 8, 64), a, b, "f32", "f32", ptx=(8, 4), targets=("sm_89+",), verified=HW)
        yield MmaSpForm(S(16, 8, 64), a, b, "f16", "f16", ptx=(8, 7), targets=("sm_120a", "sm_120f", "sm_121a"),
                        legacy_ok=False)  # ptxas 13.0: "Illegal modifier '.sp'" (only ::ordered_metadata)
    kind_targets = ("sm_120a", "sm_120f", "sm_121a", "sm_100a", "sm_100f", "sm_103a", "sm_110a")
    for a, b, c in itertools.product(F8F6F4, F8F6F4, ("f16", "f32")):  # row 14
        yield MmaSpForm(S(16, 8, 64), a, b, c, c, kind="f8f6f4", ptx=(8, 7), targets=kind_targets, legacy_ok=False)
    for a, b in itertools.product(F8F6F4, F8F6F4):  # row 15
        yield MmaSpForm(S(16, 8, 64), a, b, "f32", "f32", kind="mxf8f6f4", scale_vec="1X", stype="ue8m0",
                        ptx=(8, 7), targets=("sm_120a", "sm_120f", "sm_121a"), legacy_ok=False)
    for kind, vec, st, ptx in (("mxf4", "2X", "ue8m0", (8, 7)), ("mxf4nvf4", "2X", "ue8m0", (8, 7)),
                               ("mxf4nvf4", "4X", "ue4m3", (8, 7)), ("mxf4nvf4", "4X", "ue8m0", (9, 1))):  # row 16
        yield MmaSpForm(S(16, 8, 128), "e2m1", "e2m1", "f32", "f32", kind=kind, scale_vec=vec, stype=st,
                        ptx=ptx, targets=("sm_120a", "sm_121a"), legacy_ok=False)


def _dense_rows():
    """Dense `mma.sync` of the H100 shapes, for the comparisons the timing traces make (PTX ISA §9.7.14.5.14)."""
    for c in ("f16", "f32"):
        yield MmaSpForm(S(16, 8, 16), "f16", "f16", c, c, sparse=False, legacy_ok=False, ptx=(6, 5))
    for k in (8, 16):
        yield MmaSpForm(S(16, 8, k), "bf16", "bf16", "f32", "f32", sparse=False, legacy_ok=False, ptx=(7, 0))
    for k in (4, 8):
        yield MmaSpForm(S(16, 8, k), "tf32", "tf32", "f32", "f32", sparse=False, legacy_ok=False, ptx=(7, 0))
    for (k, types), a, b, sat in itertools.product(((16, INT8), (32, INT8), (32, INT4), (64, INT4)),
                                                   range(2), range(2), (False, True)):
        yield MmaSpForm(S(16, 8, k), types[a], types[b], "s32", "s32", satfinite=sat, sparse=False,
                        legacy_ok=False, ptx=(7, 0))
    for a, b in itertools.product(FP8, FP8):
        yield MmaSpForm(S(16, 8, 32), a, b, "f32", "f32", sparse=False, legacy_ok=False, ptx=(8, 4),
                        targets=("sm_89+",))


FORMS: tuple[MmaSpForm, ...] = tuple(_rows())  # every mma.sp form
DENSE_FORMS: tuple[MmaSpForm, ...] = tuple(_dense_rows())
BY_KEY = {f.key: f for f in FORMS + DENSE_FORMS}
assert len(BY_KEY) == len(FORMS) + len(DENSE_FORMS), "form keys must be unique"

# ----------------------------------------------------------------------------- targets


def arch_number(arch: str) -> tuple[int, str]:
    """``sm_90a`` → (90, "a"); ``sm_120f`` → (120, "f")."""
    mt = re.fullmatch(r"sm_(\d+)([af]?)", arch)
    if not mt:
        raise ValueError(f"not a target: {arch!r}")
    return int(mt.group(1)), mt.group(2)


@lru_cache(maxsize=None)  # the engines ask on every mma.sp they run
def runs_on(form: MmaSpForm, arch: str) -> bool:
    """Whether ptxas accepts ``form`` for ``arch`` (ptx-mma-sp.md §1.3)."""
    num, suffix = arch_number(arch)
    for t in form.targets:
        if t.endswith("+"):
            if num >= arch_number(t[:-1])[0]:
                return True
        elif t == arch or (t.endswith("f") and suffix == "a" and t[:-1] == arch[:-1]):
            return True
    return False


def variants_of(form: MmaSpForm) -> tuple[str, ...]:
    if not form.sparse:
        return ("dense",)
    return VARIANTS if form.legacy_ok else ("sp::ordered_metadata",)


def variant_ptx(form: MmaSpForm, variant: str) -> tuple[int, int]:
    """PTX ISA version needed: ordered metadata came with PTX 8.5 for the pre-kind forms."""
    return max(form.ptx, (8, 5)) if variant == "sp::ordered_metadata" else form.ptx


# ----------------------------------------------------------------------------- from PTX qualifiers

TYPE_TOKENS = {"f16", "f32", "bf16", "tf32", "s8", "u8", "s4", "u4", "s32", "e4m3", "e5m2", "e3m2",
               "e2m3", "e2m1", "ue8m0", "ue4m3"}
_FIXED = {"sync", "aligned", "row", "col", "block_scale"}


class FormError(ValueError):
    """The qualifiers name no `mma.sp` form; the message says which part and what is allowed."""


def parse_mods(mods) -> tuple[MmaSpForm, str]:
    """Qualifiers as written (any order, as ptxas accepts them) → (form, variant)."""
    mods = list(mods)
    variants = [m for m in mods if m in VARIANTS]
    if len(variants) > 1:
        raise FormError("expected exactly one of .sp or .sp::ordered_metadata")
    variants = variants or ["dense"]
    for req in ("sync", "aligned"):
        if req not in mods:
            raise FormError(f"`.{req}` is required on mma.sp")
    if "row" not in mods or "col" not in mods or mods.index("row") > mods.index("col"):
        raise FormError("only the .row.col layout exists for mma.sp")
    shape = [m for m in mods if re.fullmatch(r"m\d+n\d+k\d+", m)]
    kinds = [m[6:] for m in mods if m.startswith("kind::")]
    vecs = [m[11:] for m in mods if m.startswith("scale_vec::")]
    types = [m for m in mods if m in TYPE_TOKENS]
    unknown = [m for m in mods if m not in TYPE_TOKENS and m not in _FIXED and m not in VARIANTS
               and m not in shape and m != "satfinite" and not m.startswith(("kind::", "scale_vec::"))]
    if unknown:
        raise FormError(f"unknown qualifier .{unknown[0]}")
    if len(shape) != 1:
        raise FormError("expected one shape such as .m16n8k16")
    kind = kinds[0] if kinds else None
    block = "block_scale" in mods
    vec = vecs[0] if vecs else ({"mxf4": "2X", "mxf8f6f4": "1X"}.get(kind) if block else None)
    stype = types.pop() if block and len(types) == 5 else None
    if len(types) != 4:
        raise FormError(f"expected 4 types .dtype.atype.btype.ctype, got {len(types)}")
    d, a, b, c = types
    wanted = (shape[0], kind, vec, stype, d, a, b, c, "satfinite" in mods)
    for f in FORMS + DENSE_FORMS:
        if (str(f.shape), f.kind, f.scale_vec, f.stype, f.dtype, f.atype, f.btype, f.ctype, f.satfinite) == wanted \
                and f.sparse == (variants[0] != "dense"):
            variant = variants[0]
            if variant == "sp" and not f.legacy_ok:
                raise FormError(f"`.sp` is not allowed with .kind::{kind}; use .sp::ordered_metadata")
            return f, variant
    if "satfinite" in mods and d != "s32":
        raise FormError(".satfinite exists only for integer mma.sp")
    raise FormError(f"no {'mma.sp' if variants[0] != 'dense' else 'mma'} form {shape[0]} .{d}.{a}.{b}.{c}" + (f" with .kind::{kind}" if kind else ""))
