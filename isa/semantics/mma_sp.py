"""``mma.sp`` / ``mma.sp::ordered_metadata`` (PTX ISA §9.7.14.6.3), and dense ``mma.sync`` (§9.7.14.5.14)
of the same shapes.

    mma.SPV.sync.aligned.shape.row.col{.kind}{.block_scale{.scale_vec}}{.satfinite}.dtype.atype.btype.ctype{.stype}
        d, a, b, c, e, f {, scale-a, {byte-id-a, thread-id-a}, scale-b, {byte-id-b, thread-id-b}};

The body checks legality (form, target, register counts, selector, a full warp), reads the raw
registers, and hands them to the machine's tensor core (``ctx.mma_sp``), which gathers through the
layouts and adds with the target's numerics.
"""
from __future__ import annotations

import numpy as np

from isa.errors import IllegalInstruction, PtxSemanticError, UndefinedBehavior
from isa.forms import FormError, MmaSpForm, parse_mods, runs_on
from isa.ptx.ast import Imm, Instruction, Reg, Vec
from isa.semantics.registry import semantics

SYNTAX = ("mma.sp{::ordered_metadata}.sync.aligned.shape.row.col{.kind}{.block_scale}{.satfinite}"
          ".dtype.atype.btype.ctype d, a, b, c, e, f;")


def decode(ins: Instruction) -> tuple[MmaSpForm, str, int]:
    """(form, variant, selector) of a well-formed instruction (cached on it), or a located PtxSemanticError."""
    d = ins.__dict__.get("_warpsim_mma")
    if d is None:
        d = ins.__dict__["_warpsim_mma"] = _decode(ins)
    return d


def _decode(ins: Instruction) -> tuple[MmaSpForm, str, int]:
    try:
        form, variant = parse_mods(ins.mods)
    except FormError as err:
        raise PtxSemanticError(ins.loc, f"'{ins.name}': {err}", expected="an mma.sp form (see `warpsim forms`)")
    ops = ins.operands
    if not form.sparse:
        _check_vectors(ins, form, ops, 4)
        return form, variant, 0
    want = 10 if form.block_scaled else 6
    _check_vectors(ins, form, ops, want)
    e = ops[4]
    if not (isinstance(e, Reg) or (isinstance(e, Vec) and len(e.items) == 1 and isinstance(e.items[0], Reg))):
        raise PtxSemanticError(ins.loc, "metadata operand e must be a 32-bit register", expected="%r or {%r}")
    if not isinstance(ops[5], Imm) or not isinstance(ops[5].value, int):
        raise PtxSemanticError(ins.loc, "sparsity selector f must be an integer constant", expected="0..3")
    selector = int(ops[5].value)
    if selector not in form.selectors + form.extra_selectors:
        raise PtxSemanticError(ins.loc, f"sparsity selector {selector} is out of range for {form.key}",
                               expected=f"one of {list(form.selectors)}")
    return form, variant, selector


def _check_vectors(ins, form, ops, want) -> None:
    if len(ops) != want:
        raise PtxSemanticError(ins.loc, f"{'mma.sp' if form.sparse else 'mma'} takes {want} operands, got {len(ops)}",
                               expected=SYNTAX if form.sparse else "d, a, b, c")
    for pos, name in ((0, "d"), (1, "a"), (2, "b"), (3, "c")):
        n = form.regs[name]
        if not isinstance(ops[pos], Vec) or len(ops[pos].items) != n:
            raise PtxSemanticError(ins.loc, f"operand {name} of {form.key} must be a vector of {n} registers",
                                   expected="{" + ", ".join(f"%r{i}" for i in range(n)) + "}")


@semantics("mma", syntax=SYNTAX + "  |  mma.sync.aligned.shape.row.col.dtype.atype.btype.ctype d, a, b, c;",
           timing="tensor")
def mma_sp(ctx, ins):
    form, variant, selector = decode(ins)
    if not runs_on(form, ctx.arch):
        raise IllegalInstruction(ins.loc, f"{form.key} is not supported on {ctx.arch}",
                                 expected=f"a target among {', '.join(form.targets)}")
    if ctx.mma_sp_in_place(ins, form, variant, selector):  # the machine's fast way (a full warp only)
        return
    if not ctx.active.all():
        lane = int(np.flatnonzero(~ctx.active)[0])
        raise UndefinedBehavior(".aligned mma executed by a partial warp (PTX ISA §9.7.14.6.3: "
                                "all threads must execute the same mma)", lane=lane, where=ctx.where(),
                                detail=f"{int(ctx.active.sum())} of 32 lanes active")
    ops = ins.operands
    a, b, c = (ctx.read_vec(op, "b32") for op in ops[1:4])
    if not form.sparse:
        ctx.write_vec(ops[0], ctx.mma_sp(form, variant, 0, a, b, c, None), "b32")
        return
    e_op = ops[4].items[0] if isinstance(ops[4], Vec) else ops[4]
    e = ctx.read(e_op, "b32")
    scales = {}
    if form.block_scaled:
        scales = dict(scale_a=ctx.read(ops[6], "b32"), scale_b=ctx.read(ops[8], "b32"),
                      byte_id_a=_u16(ctx, ops[7].items[0]), thread_id_a=_u16(ctx, ops[7].items[1]),
                      byte_id_b=_u16(ctx, ops[9].items[0]), thread_id_b=_u16(ctx, ops[9].items[1]))
    d = ctx.mma_sp(form, variant, selector, a, b, c, e, **scales)
    ctx.write_vec(ops[0], d, "b32")


def _u16(ctx, op) -> int:
    """A byte-id / thread-id value: an immediate, or a u16 register (warp-uniform by the rules)."""
    if isinstance(op, Imm):
        return int(op.value)
    return int(ctx.read(op, "u16")[0])
