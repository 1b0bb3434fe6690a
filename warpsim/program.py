"""An ``ast.Function`` made executable: instructions in order, labels, declarations, layouts.

Everything that does not change from step to step is done here once: each instruction's
:class:`OpSpec` is looked up (an unsupported instruction fails at load, located), semantics
that declare a ``decode`` hook pre-decode their qualifiers and operands, the guard is split
into (register name, negated), and shared/local/param/const layouts get their offsets.
"""
from __future__ import annotations

from dataclasses import dataclass

from isa.errors import PtxSemanticError
from isa.ptx import ast
from isa.semantics.registry import lookup
from warpsim.regfile import SIZE

def type_size(t: str) -> int:
    if t in SIZE:
        return SIZE[t]
    raise KeyError(t)


@dataclass(frozen=True)
class Var:
    """A variable placed in a state space: its byte offset (address in that space) and size."""

    space: str
    name: str
    offset: int
    size: int
    decl: object


def _align_up(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def layout(decls, space: str, start: int = 0) -> tuple[dict[str, Var], int]:
    """Place ``decls`` (VarDecl or Param) one after another with their alignment; returns (vars, end)."""
    out, off = {}, start
    for d in decls:
        elem = type_size(d.type) * (getattr(d, "vector", None) or 1)
        n = 1
        for k in d.dims:
            n *= k
        al = d.align or elem
        off = _align_up(off, al)
        out[d.name] = Var(space, d.name, off, elem * n, d)
        off += elem * n
    return out, off


class Program:
    """``fn`` ready to run. ``ops[i]`` is ``(body, ins, guard_reg, guard_negated)``."""

    def __init__(self, fn: ast.Function, module: ast.Module | None = None):
        self.fn, self.module = fn, module
        self.file = module.file if module else "<ptx>"
        self.instructions: list[ast.Instruction] = []
        self.labels: dict[str, int] = {}
        self.regs: dict[str, str] = {}
        self.reg_loc: dict[str, object] = {}
        local, shared = [], []
        for s in fn.body:
            if isinstance(s, ast.Label):
                self.labels[s.name] = len(self.instructions)
            elif isinstance(s, ast.RegDecl):
                if s.vector:
                    raise PtxSemanticError(s.loc, f"vector register declarations (.v{s.vector}) are not supported",
                                           expected="scalar .reg declarations")
                for n in s.names():
                    self.regs[n] = s.type
                    self.reg_loc[n] = s.loc
            elif isinstance(s, ast.VarDecl):
                (local if s.space == "local" else shared if s.space == "shared" else []).append(s)
                if s.space not in ("local", "shared"):
                    raise PtxSemanticError(s.loc, f"function-scope .{s.space} variables are not supported",
                                           expected=".reg, .local or .shared declarations")
            elif isinstance(s, ast.Instruction):
                self.instructions.append(s)
        mod_globals = module.globals if module else ()
        static = [g for g in mod_globals if g.space == "shared" and not g.extern] + [v for v in shared if not v.extern]
        self.shared, end = layout(static, "shared")
        self.static_shared = end
        self.dynamic_shared_offset = _align_up(end, 16)
        for d in [g for g in mod_globals if g.space == "shared" and g.extern] + [v for v in shared if v.extern]:
            self.shared[d.name] = Var("shared", d.name, self.dynamic_shared_offset, 0, d)
        self.local, self.local_bytes = layout(local, "local")
        self.params, self.param_bytes = layout(fn.params, "param")
        self.consts, self.const_bytes = layout([g for g in mod_globals if g.space == "const"], "const")
        self.globals = [g for g in mod_globals if g.space == "global"]
        self.ops = [self._resolve(i) for i in self.instructions]
        self.derived: dict = {}  # what the machine derives once per instruction (warpsim.warp: bound mma plans)

    def _resolve(self, ins: ast.Instruction):
        spec = lookup(ins)
        decode = getattr(spec.fn, "decode", None)
        if decode is not None:
            decode(ins)
        for t in ins.operands:
            if isinstance(t, ast.Sym) and t.name not in self.labels and not self.is_symbol(t.name) \
                    and ins.opcode in ("bra", "brx"):
                raise PtxSemanticError(ins.loc, f"branch to undefined label '{t.name}'",
                                       expected="a label defined in this function")
        g = ins.guard
        if g is not None and g.reg not in self.regs:
            raise PtxSemanticError(ins.loc, f"guard predicate '{g.reg}' is not declared",
                                   expected="a .pred register declared with .reg .pred")
        return (spec.fn, ins, None if g is None else g.reg, False if g is None else g.negated)

    def is_symbol(self, name: str) -> bool:
        return name in self.shared or name in self.local or name in self.params or name in self.consts \
            or any(g.name == name for g in self.globals)

    def spec(self, pc: int):
        return lookup(self.instructions[pc])
