"""The PTX syntax tree: what the parser produces, the printer prints and the machine runs.

Nodes are frozen dataclasses. Instruction qualifiers are kept in source order as written
(``mods``); semantics read them as a set (``ins.modset``) because ptxas accepts them in any
order (CUTLASS writes ``.satfinite`` after the types).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Union

from isa.errors import Loc

# ---------------------------------------------------------------- operands


@dataclass(frozen=True)
class Reg:
    """A register or special register (``%r1``, ``%tid.x``, ``%laneid``), or a named variable used as a value."""

    name: str


@dataclass(frozen=True)
class Imm:
    """An immediate. ``value`` is an int for integer literals; for ``0f``/``0d`` literals and decimal
    floats ``value`` is the float and ``bits`` keeps the exact bit pattern written (``0f3F800000``)."""

    value: Union[int, float]
    kind: str = "int"  # "int" | "f32" | "f64"
    bits: int | None = None
    text: str = ""  # as written, for faithful printing


@dataclass(frozen=True)
class Sym:
    """A symbol used as an address or branch target: a label, a parameter or a variable name."""

    name: str


@dataclass(frozen=True)
class Addr:
    """A memory operand ``[base+offset]``; base is a Reg, a Sym or None (absolute ``[imm]``)."""

    base: Union[Reg, Sym, None]
    offset: int = 0


@dataclass(frozen=True)
class Vec:
    """A vector operand ``{a, b, ...}``.

    ``delim`` says how it was written: ``"{}"`` (a vector), ``"()"`` (the argument/return lists
    of ``call``) or ``"|"`` (a pair of destinations ``%r1|%p1`` as in ``setp``/``elect.sync``)."""

    items: tuple
    delim: str = "{}"


Operand = Union[Reg, Imm, Sym, Addr, Vec]

# ---------------------------------------------------------------- statements


@dataclass(frozen=True)
class Guard:
    """``@%p`` or ``@!%p``."""

    reg: str
    negated: bool = False


@dataclass(frozen=True)
class Instruction:
    """``[@guard] opcode.mod1.mod2 op1, op2, ...;``"""

    opcode: str
    mods: tuple[str, ...]
    operands: tuple
    guard: Guard | None = None
    loc: Loc | None = field(default=None, compare=False)
    src_line: int | None = field(default=None, compare=False)  # CUDA source line from ``.loc``
    block: tuple[int, ...] = field(default=(), compare=False)  # nested ``{ }`` scope path (see Function)

    @cached_property
    def modset(self) -> frozenset:
        return frozenset(self.mods)

    def __hash__(self) -> int:  # computed once: instructions key the semantics' decode caches
        h = self.__dict__.get("_hash")
        if h is None:
            h = self.__dict__["_hash"] = hash((self.opcode, self.mods, self.operands, self.guard))
        return h

    @property
    def name(self) -> str:
        """The full dotted name as written: ``mma.sp::ordered_metadata.sync.aligned...``."""
        return ".".join((self.opcode,) + self.mods)


@dataclass(frozen=True)
class Label:
    name: str
    loc: Loc | None = field(default=None, compare=False)
    block: tuple[int, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class RegDecl:
    """``.reg .b32 %r<10>;`` (count=10) or ``.reg .pred p;`` (count=None). Also ``.reg .v4 .f32 x``."""

    type: str
    name: str
    count: int | None = None
    vector: int | None = None
    loc: Loc | None = field(default=None, compare=False)
    block: tuple[int, ...] = field(default=(), compare=False)

    def names(self) -> list[str]:
        if self.count is None:
            return [self.name]
        return [f"{self.name}{i}" for i in range(self.count)]


@dataclass(frozen=True)
class VarDecl:
    """A ``.global``/``.shared``/``.local``/``.const``/``.param`` variable.

    ``dims`` are array sizes (``()`` for a scalar; ``(0,)`` for ``[]`` in extern shared),
    ``init`` a flat tuple of initial values (ints/floats, or :class:`Sym` for an address
    initialiser such as ``{_Z2sqf, _Z4cubef}``) or None."""

    space: str
    type: str
    name: str
    align: int | None = None
    dims: tuple[int, ...] = ()
    init: tuple | None = None
    extern: bool = False
    visible: bool = False
    vector: int | None = None
    loc: Loc | None = field(default=None, compare=False)
    weak: bool = False
    block: tuple[int, ...] = field(default=(), compare=False)

    @property
    def count(self) -> int:
        n = 1
        for d in self.dims:
            n *= d
        return n


@dataclass(frozen=True)
class Pragma:
    text: str
    loc: Loc | None = field(default=None, compare=False)
    block: tuple[int, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class CallPrototype:
    """``name: .callprototype (.param .b32 _) _ (.param .b64 _);`` -- the signature of an indirect ``call``."""

    name: str
    rets: tuple  # of Param
    params: tuple  # of Param
    loc: Loc | None = field(default=None, compare=False)
    block: tuple[int, ...] = field(default=(), compare=False)


Statement = Union[Instruction, Label, RegDecl, VarDecl, Pragma, CallPrototype]


@dataclass(frozen=True)
class Param:
    """A kernel/function parameter: ``.param .u64 name`` with optional ``.align`` and ``[N]``."""

    type: str
    name: str
    align: int | None = None
    dims: tuple[int, ...] = ()
    space: str = "param"
    ptr_space: str | None = None  # ``.ptr.global`` etc.
    loc: Loc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Function:
    """``.entry`` (kernel) or ``.func``. ``body`` keeps statements in order; nested ``{ }`` blocks are flattened.

    Each statement's ``block`` (not compared) is the path of the nested blocks it sat in, e.g.
    ``(3,)`` for the fourth top-level ``{ }`` of the body: enough for the printer to put them back."""

    kind: str  # "entry" | "func"
    name: str
    params: tuple[Param, ...]
    body: tuple
    rets: tuple[Param, ...] = ()
    visible: bool = False
    extern: bool = False
    directives: tuple[str, ...] = ()  # performance directives as written, e.g. ".maxntid 128, 1, 1"
    loc: Loc | None = field(default=None, compare=False)
    weak: bool = False

    @property
    def instructions(self) -> list[Instruction]:
        return [s for s in self.body if isinstance(s, Instruction)]


@dataclass(frozen=True)
class Module:
    version: tuple[int, int]
    target: tuple[str, ...]  # e.g. ("sm_90a",) or ("sm_80", "texmode_independent")
    address_size: int
    functions: tuple[Function, ...]
    globals: tuple[VarDecl, ...] = ()
    file: str = field(default="<ptx>", compare=False)  # where it came from, like ``loc``
    source: str = field(default="", compare=False, repr=False)
    decls: tuple[Function, ...] = ()  # bodiless declarations: ``.extern .func vprintf(...);``, forward ``.func``
    # module-level text kept as written and printed back: ``.file`` lines, ``.section`` blocks (DWARF, from
    # ``-G``), module-scope ``.pragma "...";``
    verbatim: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)

    @property
    def arch(self) -> str:
        """The first ``sm_XX`` of ``.target`` (``sm_90a``)."""
        for t in self.target:
            if t.startswith("sm_"):
                return t
        return "sm_80"
