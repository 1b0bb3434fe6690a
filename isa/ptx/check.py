"""A light semantic pass over a parsed module: names must resolve.

``check(module)`` raises :class:`PtxSemanticError` at the offending use for

* a register that no ``.reg`` in scope declares and that is not a parameter, a variable or a
  special register (``%tid.x``, ``%laneid``, ``%clock64`` ...);
* a branch to a label that is not defined (in this block or an enclosing one);
* a label defined twice in the same block;
* any other name (operand, ``[address]`` base) that is not a label, parameter, variable,
  function or call prototype.

Scopes follow the nested ``{ }`` blocks recorded in each statement's ``block`` path: a name
declared in block ``(2,)`` is seen from ``(2,)`` and ``(2, 5)`` but not from ``()`` or ``(3,)``.
Operand counts and types are the semantics' business, not this pass's.
"""
from __future__ import annotations

import re

from isa.errors import Loc, PtxSemanticError
from isa.ptx.ast import Addr, CallPrototype, Function, Instruction, Label, Module, Reg, RegDecl, Sym, VarDecl, Vec

_XYZ = ("x", "y", "z")
_VECTOR_SPECIALS = ("tid", "ntid", "ctaid", "nctaid", "clusterid", "nclusterid", "cluster_ctaid", "cluster_nctaid")
_SCALAR_SPECIALS = (
    "laneid warpid nwarpid smid nsmid gridid lanemask_eq lanemask_le lanemask_lt lanemask_ge lanemask_gt "
    "clock clock_hi clock64 globaltimer globaltimer_lo globaltimer_hi total_smem_size aggr_smem_size "
    "dynamic_smem_size is_explicit_cluster cluster_ctarank cluster_nctarank current_graph_exec "
    "reserved_smem_offset_begin reserved_smem_offset_end reserved_smem_offset_cap "
    "reserved_smem_offset_0 reserved_smem_offset_1"
).split()

SPECIAL_REGISTERS = frozenset(
    ["%" + s for s in _SCALAR_SPECIALS]
    + ["%" + v for v in _VECTOR_SPECIALS]
    + [f"%{v}.{c}" for v in _VECTOR_SPECIALS for c in _XYZ]
    + [f"%pm{i}" for i in range(8)]
    + [f"%pm{i}_64" for i in range(8)]
    + [f"%envreg{i}" for i in range(32)]
)
PREDEFINED = frozenset({"WARP_SZ"})
BRANCHES = frozenset({"bra", "brx"})
_COMPONENT = re.compile(r"^(.*)\.([xyzwrgba])$")


def is_special_register(name: str) -> bool:
    return name in SPECIAL_REGISTERS


class _Scopes:
    """name -> the block paths that declare it."""

    def __init__(self):
        self.where: dict[str, list[tuple]] = {}

    def add(self, name: str, block: tuple) -> None:
        self.where.setdefault(name, []).append(block)

    def sees(self, name: str, block: tuple) -> bool:
        for decl in self.where.get(name, ()):
            if block[: len(decl)] == decl:
                return True
        return False


def _use_loc(ins: Instruction, name: str, in_guard: bool = False) -> Loc | None:
    """The place of ``name`` on the instruction's source line (the instruction's place if not found)."""
    loc = ins.loc
    if loc is None or not loc.text:
        return loc
    pat = re.compile(r"(?<![\w$%.])" + re.escape(name) + r"(?![\w$])")
    m = pat.search(loc.text, 0 if in_guard else loc.col - 1)
    if m is None or (in_guard and m.start() >= loc.col - 1):
        return loc
    return Loc(loc.file, loc.line, m.start() + 1, loc.text)


class _FunctionChecker:
    def __init__(self, module: Module, f: Function):
        self.f = f
        self.regs, self.labels, self.names = _Scopes(), _Scopes(), _Scopes()
        self.vregs = _Scopes()  # vector registers (.reg .v4 .f32 %v): %v.x names a component
        self.label_at: dict[str, Label] = {}  # first definition of each label name, any block
        globals_ = [g.name for g in module.globals]
        functions = [g.name for g in module.functions] + [g.name for g in module.decls]
        for name in globals_ + functions + [p.name for p in f.params + f.rets] + list(PREDEFINED):
            self.names.add(name, ())
        for p in f.params + f.rets:
            if p.space == "reg":
                self.regs.add(p.name, ())
        self.collect()

    def collect(self) -> None:
        first_label: dict[tuple, Label] = {}
        for s in self.f.body:
            if isinstance(s, RegDecl):
                for n in s.names():
                    self.regs.add(n, s.block)
                    if s.vector:
                        self.vregs.add(n, s.block)
            elif isinstance(s, (VarDecl, CallPrototype)):
                self.names.add(s.name, s.block)
            elif isinstance(s, Label):
                key = (s.name, s.block)
                if key in first_label:
                    first = first_label[key].loc
                    raise PtxSemanticError(
                        s.loc, f"duplicate label '{s.name}'",
                        expected=f"a label name not already defined in this block (first defined at {first})")
                first_label[key] = s
                self.label_at.setdefault(s.name, s)
                self.labels.add(s.name, s.block)

    def run(self) -> None:
        for s in self.f.body:
            if isinstance(s, Instruction):
                self.instruction(s)

    def instruction(self, ins: Instruction) -> None:
        if ins.guard is not None and not self.is_register(ins.guard.reg, ins.block):
            self.undeclared_register(ins, ins.guard.reg, in_guard=True)
        for op in ins.operands:
            self.operand(ins, op)

    def operand(self, ins: Instruction, op) -> None:
        if isinstance(op, Reg):
            if op.name != "_" and not self.is_register(op.name, ins.block) and not self.names.sees(op.name, ins.block):
                self.undeclared_register(ins, op.name)
        elif isinstance(op, Sym):
            self.symbol(ins, op.name)
        elif isinstance(op, Addr):
            if op.base is not None:
                self.operand(ins, op.base)
        elif isinstance(op, Vec):
            for x in op.items:
                self.operand(ins, x)

    def is_register(self, name: str, block: tuple) -> bool:
        if self.regs.sees(name, block) or name in SPECIAL_REGISTERS:
            return True
        m = _COMPONENT.match(name)  # %v1.x: a component of a vector register
        return bool(m) and self.vregs.sees(m.group(1), block)

    def symbol(self, ins: Instruction, name: str) -> None:
        if ins.opcode in BRANCHES:
            if not self.labels.sees(name, ins.block):
                other = self.label_at.get(name)
                if other is not None:
                    raise PtxSemanticError(
                        _use_loc(ins, name), f"label '{name}' is not visible here",
                        expected=f"a label in this block or an enclosing one ('{name}' is defined at {other.loc}, "
                                 "inside a '{ }' block that does not enclose this branch)")
                raise PtxSemanticError(_use_loc(ins, name), f"label '{name}' used but not defined",
                                       expected=f"a label defined in function '{self.f.name}'")
            return
        if self.labels.sees(name, ins.block) or self.names.sees(name, ins.block):
            return
        raise PtxSemanticError(_use_loc(ins, name), f"undeclared identifier '{name}'",
                               expected="a label, parameter, variable, function or register name")

    def undeclared_register(self, ins: Instruction, name: str, in_guard: bool = False):
        raise PtxSemanticError(
            _use_loc(ins, name, in_guard), f"undeclared register '{name}'",
            expected=f"a register declared with .reg in '{self.f.name}', a parameter, a variable, "
                     "or a special register (%tid.x, %laneid, %clock64, ...)")


def check(module: Module) -> Module:
    """Raise :class:`PtxSemanticError` at the first unresolved name; return ``module`` when all resolve."""
    for f in module.functions:
        _FunctionChecker(module, f).run()
    return module
