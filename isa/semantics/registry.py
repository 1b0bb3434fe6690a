"""One small function per opcode, registered once.

    @semantics("add", syntax="add{.sat}.type d, a, b;", timing="alu")
    def add(ctx, ins): ...

The decorator records the syntax (for ``help``, error messages and ``warpsim forms``) and the
timing class (which pipeline the timed engine sends the instruction to). The functional engine,
the timed engine and the debugger all call the same body through :func:`lookup`.

A body has Sail's order: check legality (raise a typed error naming the rule), read operands
through ``ctx``, compute over the 32 lanes with numpy, write through ``ctx``.
``ctx`` implements :class:`isa.semantics.context.ExecContext`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from isa.errors import UnsupportedInstruction

TIMING_CLASSES = (
    "alu",  # integer/logic/compare/select/move, integer-integer and float-float conversions
    "fma",  # float add/mul/fma
    "mul",  # integer multiply (IMAD)
    "mul_wide",  # a 64-bit product of 32-bit integers (IMAD.WIDE)
    "div",  # division / remainder (multi-instruction sequences on hardware)
    "cvt",  # conversions between an integer and a float type (I2F / F2I)
    "special",  # special-register reads (%clock, %tid ...)
    "mem_param",
    "mem_global",
    "mem_shared",
    "mem_local",
    "shfl",  # shfl.sync: a lane exchange through the MIO
    "branch",
    "barrier",
    "tensor",  # warp-level mma / mma.sp
    "tmem",  # tcgen05 ld/st/cp/alloc
    "async",  # tcgen05.mma / commit / mbarrier
    "exit",
)


@dataclass(frozen=True)
class OpSpec:
    opcode: str
    fn: Callable
    syntax: str
    timing: str
    when: Callable | None = None  # predicate on the Instruction, for opcodes with several bodies

    def __call__(self, ctx, ins):
        return self.fn(ctx, ins)


REGISTRY: dict[str, list[OpSpec]] = {}


def semantics(opcode: str, *, syntax: str, timing: str, when: Callable | None = None):
    """Register ``fn(ctx, ins)`` as the meaning of ``opcode`` (optionally only ``when(ins)``)."""
    if timing not in TIMING_CLASSES:
        raise ValueError(f"unknown timing class {timing!r}")

    def deco(fn):
        REGISTRY.setdefault(opcode, []).append(OpSpec(opcode, fn, syntax, timing, when))
        return fn

    return deco


def lookup(ins) -> OpSpec:
    """The OpSpec that runs ``ins``; an :class:`UnsupportedInstruction` naming it and its line otherwise."""
    _load_all()
    for spec in REGISTRY.get(ins.opcode, ()):
        if spec.when is None or spec.when(ins):
            return spec
    raise UnsupportedInstruction(ins.loc, f"unsupported instruction '{ins.name}'",
                                 expected="an instruction warpsim models (see `warpsim forms` and the README)")


_LOADED = False


def _load_all() -> None:
    """Import every semantics module once, so their decorators run."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import importlib
    import pkgutil

    import isa.semantics as pkg

    for m in pkgutil.iter_modules(pkg.__path__):
        if m.name not in ("registry", "context"):
            importlib.import_module(f"isa.semantics.{m.name}")
