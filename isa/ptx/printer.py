"""PTX printer: the syntax tree back to text that ``parse`` (and ptxas) reads.

``parse(format_module(m)) == m`` for every module ``m`` the parser produces. Nested ``{ }``
blocks are put back from each statement's ``block`` path, so printed nvcc output with several
call sequences declaring ``param0`` still assembles.
"""
from __future__ import annotations

import math
import struct

from isa.ptx.ast import (
    Addr, CallPrototype, Function, Imm, Instruction, Label, Module, Param, Pragma, Reg, RegDecl, Sym,
    VarDecl, Vec,
)

_VEC = {2: ".v2", 4: ".v4", 8: ".v8"}


# ---------------------------------------------------------------- operands


def format_imm(imm: Imm) -> str:
    if imm.text:
        return imm.text
    if imm.kind == "int":
        return str(imm.value)
    if imm.kind == "f32":
        bits = imm.bits if imm.bits is not None else struct.unpack("<I", struct.pack("<f", imm.value))[0]
        return f"0f{bits:08X}"
    bits = imm.bits if imm.bits is not None else struct.unpack("<Q", struct.pack("<d", imm.value))[0]
    return f"0d{bits:016X}"


def format_operand(op) -> str:
    if isinstance(op, (Reg, Sym)):
        return op.name
    if isinstance(op, Imm):
        return format_imm(op)
    if isinstance(op, Addr):
        return format_address(op)
    if isinstance(op, Vec):
        inner = [format_operand(x) for x in op.items]
        if op.delim == "|":
            return "|".join(inner)
        if op.delim == "()":
            return "(" + ", ".join(inner) + ")"
        return "{" + ", ".join(inner) + "}"
    raise TypeError(f"not a PTX operand: {op!r}")


def format_address(a: Addr) -> str:
    if a.base is None:
        return f"[{a.offset}]"
    if a.offset == 0:
        return f"[{a.base.name}]"
    return f"[{a.base.name}+{a.offset}]"


def format_instruction(ins: Instruction) -> str:
    """``@!%p1 bra.uni $L__BB0_2;`` (no indentation)."""
    guard = ""
    if ins.guard is not None:
        guard = f"@{'!' if ins.guard.negated else ''}{ins.guard.reg} "
    text = guard + ins.name
    if ins.operands:
        text += " " + ", ".join(format_operand(op) for op in ins.operands)
    return text + ";"


# ---------------------------------------------------------------- declarations


def _float_text(x: float, vtype: str) -> str:
    if vtype != "f64":
        try:
            f32 = struct.pack("<f", x)
        except OverflowError:
            f32 = None
        if f32 is not None and (struct.unpack("<f", f32)[0] == x or math.isnan(x)):
            return f"0f{struct.unpack('<I', f32)[0]:08X}"
    return f"0d{struct.unpack('<Q', struct.pack('<d', x))[0]:016X}"


def _init_value(v, vtype: str) -> str:
    if isinstance(v, Sym):
        return v.name
    if isinstance(v, float):
        return _float_text(v, vtype)
    return str(v)


def format_var(v: VarDecl) -> str:
    """``.shared .align 16 .b8 smem[1024];`` (no indentation)."""
    words = [w for w, on in (("extern", v.extern), ("visible", v.visible), ("weak", v.weak)) if on]
    parts = ["." + w for w in words] + ["." + v.space]
    if v.align is not None:
        parts.append(f".align {v.align}")
    if v.vector:
        parts.append(_VEC[v.vector])
    parts.append("." + v.type)
    text = " ".join(parts) + " " + v.name + "".join(f"[{d}]" if d else "[]" for d in v.dims)
    if v.init is not None:
        vals = [_init_value(x, v.type) for x in v.init]
        shape = tuple(v.dims) + ((v.vector,) if v.vector else ())
        text += " = " + (_nest(vals, shape[1:]) if shape else vals[0])
    return text + ";"


def _nest(vals: list[str], inner: tuple[int, ...]) -> str:
    """``{a, b, ...}``, grouped into ``{{..}, {..}}`` by the inner array sizes."""
    size = 1
    for d in inner:
        size *= d
    if not inner or size == 0:
        return "{" + ", ".join(vals) + "}"
    groups = [_nest(vals[i:i + size], inner[1:]) for i in range(0, len(vals), size)]
    return "{" + ", ".join(groups) + "}"


def format_reg(r: RegDecl) -> str:
    vec = _VEC[r.vector] + " " if r.vector else ""
    count = f"<{r.count}>" if r.count is not None else ""
    return f".reg {vec}.{r.type} {r.name}{count};"


def format_param(p: Param) -> str:
    parts = ["." + p.space]
    if p.align is not None and p.ptr_space is None:
        parts.append(f".align {p.align}")
    parts.append("." + p.type)
    if p.ptr_space is not None:
        parts.append(".ptr" + (f".{p.ptr_space}" if p.ptr_space else ""))
        if p.align is not None:
            parts.append(f".align {p.align}")
    return " ".join(parts) + " " + p.name + "".join(f"[{d}]" for d in p.dims)


def format_statement(s) -> str:
    """One body statement, without indentation."""
    if isinstance(s, Instruction):
        return format_instruction(s)
    if isinstance(s, Label):
        return f"{s.name}:"
    if isinstance(s, RegDecl):
        return format_reg(s)
    if isinstance(s, VarDecl):
        return format_var(s)
    if isinstance(s, Pragma):
        return f'.pragma "{s.text}";'
    if isinstance(s, CallPrototype):
        rets = "(" + ", ".join(format_param(p) for p in s.rets) + ")"
        params = "(" + ", ".join(format_param(p) for p in s.params) + ")"
        return f"{s.name}: .callprototype {rets} _ {params};"
    raise TypeError(f"not a PTX statement: {s!r}")


# ---------------------------------------------------------------- functions and modules


def _param_list(params) -> str:
    if not params:
        return "()"
    return "(\n" + ",\n".join("\t" + format_param(p) for p in params) + "\n)"


def format_body(body) -> list[str]:
    """Body lines, reopening the nested ``{ }`` blocks recorded in each statement's ``block``."""
    lines: list[str] = []
    cur: tuple = ()
    for s in body:
        path = getattr(s, "block", ()) or ()
        while cur != path[: len(cur)]:
            cur = cur[:-1]
            lines.append("\t" * (len(cur) + 1) + "}")
        while len(cur) < len(path):
            lines.append("\t" * (len(cur) + 1) + "{")
            cur = path[: len(cur) + 1]
        indent = "" if isinstance(s, Label) else "\t" * (len(cur) + 1)
        lines.append(indent + format_statement(s))
    while cur:
        cur = cur[:-1]
        lines.append("\t" * (len(cur) + 1) + "}")
    return lines


def format_function(f: Function, declaration: bool = False) -> str:
    words = [w for w, on in (("extern", f.extern), ("visible", f.visible), ("weak", f.weak)) if on]
    head = "".join(f".{w} " for w in words) + f".{f.kind} "
    if f.rets:
        head += "(" + ", ".join(format_param(p) for p in f.rets) + ") "
    head += f.name + _param_list(f.params)
    lines = [head] + [d + ";" if d.startswith(".pragma") else d for d in f.directives]
    if declaration:
        lines.append(";")
    else:
        lines += ["{"] + format_body(f.body) + ["}"]
    return "\n".join(lines)


def format_module(m: Module) -> str:
    out = [f".version {m.version[0]}.{m.version[1]}", ".target " + ", ".join(m.target),
           f".address_size {m.address_size}", ""]
    out += [v for v in m.verbatim if v.startswith(".pragma")]
    for d in m.decls:
        out += [format_function(d, declaration=True), ""]
    for g in m.globals:
        out.append(format_var(g))
    if m.globals:
        out.append("")
    for f in m.functions:
        out += [format_function(f), ""]
    for v in m.verbatim:
        if not v.startswith(".pragma"):
            out += [v, ""]
    return "\n".join(out)
