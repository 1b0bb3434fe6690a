"""Helpers shared by the ordinary-instruction semantics (alu, memory, convert, control).

``@decoded(decoder)`` runs ``decoder(ins)`` once per instruction (at program load, through the
``decode`` attribute the machine calls, or at first execution) and caches the result on the
instruction, so a step never re-parses qualifiers. A decoder checks legality and raises a
located :class:`UnsupportedInstruction` or :class:`PtxSemanticError`.
"""
from __future__ import annotations

from functools import wraps

import numpy as np

from isa.errors import PtxSemanticError, UnsupportedInstruction

INT_TYPES = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64")
BIT_TYPES = ("b8", "b16", "b32", "b64")
FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
ALL_TYPES = INT_TYPES + BIT_TYPES + FLOAT_TYPES + ("pred", "f16x2", "bf16x2", "tf32")
FRND = ("rn", "rz", "rm", "rp")
IRND = ("rni", "rzi", "rmi", "rpi")
BITS = {t: int(t[1:]) if t[1:].isdigit() else 0 for t in INT_TYPES + BIT_TYPES}
BITS.update({"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "pred": 1})
_KEY = "_warpsim_decoded"
DT = {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "s8": np.int8, "s16": np.int16,
      "s32": np.int32, "s64": np.int64, "b8": np.uint8, "b16": np.uint16, "b32": np.uint32, "b64": np.uint64,
      "f16": np.uint16, "bf16": np.uint16, "f32": np.float32, "f64": np.float64, "pred": np.bool_}


def decoded(decoder):
    """Decorator: the body becomes ``body(ctx, ins, d)`` with ``d = decoder(ins)`` cached on ``ins``."""

    def wrap(body):
        def decode(ins):
            d = ins.__dict__.get(_KEY)
            if d is None:
                d = ins.__dict__[_KEY] = decoder(ins)
            return d

        @wraps(body)
        def fn(ctx, ins):
            d = ins.__dict__.get(_KEY)
            if d is None:
                d = decode(ins)
            return body(ctx, ins, d)

        fn.decode = decode
        return fn

    return wrap


def unsupported(ins, what: str | None = None, expected: str | None = None):
    raise UnsupportedInstruction(ins.loc, f"unsupported instruction '{ins.name}'" + (f": {what}" if what else ""),
                                 expected=expected)


def bad(ins, msg: str, expected: str | None = None):
    raise PtxSemanticError(ins.loc, f"'{ins.name}': {msg}", expected=expected)


def nops(ins, *counts: int) -> None:
    """Check the operand count."""
    if len(ins.operands) not in counts:
        want = " or ".join(str(c) for c in counts)
        bad(ins, f"takes {want} operands, got {len(ins.operands)}")


def split_mods(ins, known: dict[str, tuple]) -> dict:
    """Sort ``ins.mods`` into groups: ``known`` maps group name -> allowed values; types go to 'types'.

    Each group may appear once; a qualifier in no group makes the instruction unsupported."""
    out = {k: None for k in known}
    out["types"] = []
    for m in ins.mods:
        for group, allowed in known.items():
            if m in allowed:
                if out[group] is not None:
                    bad(ins, f"qualifier .{m} conflicts with .{out[group]}")
                out[group] = m
                break
        else:
            if m in ALL_TYPES:
                out["types"].append(m)
            else:
                unsupported(ins, f"qualifier .{m} is not modelled")
    return out


def one_type(ins, types: list, allowed) -> str:
    if len(types) != 1 or types[0] not in allowed:
        unsupported(ins, f"type {'.'.join(types) or '(none)'}", expected="one of ." + " .".join(allowed))
    return types[0]
