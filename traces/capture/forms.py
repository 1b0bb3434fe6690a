"""The `mma.sp` forms the capture harness records, as a small standalone table.

Standalone on purpose (stdlib only): the harness runs on GPU machines where warpsim is not
installed. Rows follow ``shared/reference/ptx-mma-sp.md`` §2 rows 1-13 (every form an H100 runs).

A *family* is one PTX module (``kernels/instr_<family>.cu`` / ``.ptx``) holding one kernel per
(A type, B type, selector, variant, satfinite). The selector of `mma.sp` is an immediate, so each
selector needs its own kernel.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

# element formats: bits, exponent bits, mantissa bits, bias, special-value convention
# ("ieee": max exponent field = Inf/NaN; "fn": e4m3 style, only S.1111.111 is NaN; "int")
FLOAT_FORMATS = {
    "f16": (16, 5, 10, 15, "ieee"),
    "bf16": (16, 8, 7, 127, "ieee"),
    "tf32": (32, 8, 23, 127, "ieee"),  # tf32 operands are full fp32 bit patterns in registers
    "f32": (32, 8, 23, 127, "ieee"),
    "e4m3": (8, 4, 3, 7, "fn"),
    "e5m2": (8, 5, 2, 15, "ieee"),
}
INT_BITS = {"s8": 8, "u8": 8, "s4": 4, "u4": 4, "s32": 32}

ORDERED = "sp::ordered_metadata"
LEGACY = "sp"
VARIANTS = (LEGACY, ORDERED)
VARIANT_TAG = {LEGACY: "sp", ORDERED: "ord"}

# metadata codes (4-bit nibbles): idx0 = q[1:0], idx1 = q[3:2]
CODES_ORDERED = (0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b1110)
CODES_LEGACY = tuple(q for q in range(16) if (q & 3) != (q >> 2))  # idx0 != idx1 (12 codes)
CODES_TF32 = (0b0100, 0b1110)


@dataclass(frozen=True)
class Family:
    name: str  # file-name stem, e.g. "f16_k16_f32"
    k: int
    atypes: tuple  # A element types this family is run with
    btypes: tuple
    ctype: str  # C = D type: f16 | f32 | s32
    n_a: int
    n_b: int
    n_c: int
    selectors: tuple
    meta_class: str  # I | II | III | IV  (reference §5.2)
    pattern: str  # 2:4 | 1:2 | 4:8
    integer: bool = False
    mixes: str = "same"  # "same": atype == btype pairs only; "all": every (A, B) combination
    trap_selectors: tuple = ()  # ptxas accepts, the H100 traps (never run in the main capture)

    @property
    def elem_bits(self) -> int:
        t = self.atypes[0]
        return INT_BITS[t] if t in INT_BITS else FLOAT_FORMATS[t][0]

    @property
    def epr(self) -> int:
        return 32 // self.elem_bits

    @property
    def c_epr(self) -> int:
        return 2 if self.ctype == "f16" else 1

    def type_pairs(self):
        if self.mixes == "all":
            return list(itertools.product(self.atypes, self.btypes))
        return list(zip(self.atypes, self.btypes))

    def satfinite_options(self):
        return (False, True) if self.integer else (False,)

    def instruction(self, variant: str, atype: str, btype: str, satfinite: bool, selector: int) -> str:
        """The PTX opcode with all its modifiers (operands not included)."""
        sat = ".satfinite" if satfinite else ""
        return (f"mma.{variant}.sync.aligned.m16n8k{self.k}.row.col{sat}."
                f"{self.ctype}.{atype}.{btype}.{self.ctype}")

    def kernels(self, selectors=None, variants=VARIANTS):
        """Every kernel of the family: dicts with name, atype, btype, selector, variant, satfinite, instruction."""
        out = []
        for (at, bt), sel, var, sat in itertools.product(self.type_pairs(), selectors or self.selectors,
                                                         variants, self.satfinite_options()):
            mix = f"_{at}{bt}" if self.mixes == "all" else ""
            name = f"mmasp_{self.name}{mix}_sel{sel}_{VARIANT_TAG[var]}{'_sat' if sat else ''}"
            out.append({"name": name, "atype": at, "btype": bt, "selector": sel, "variant": var,
                        "satfinite": sat,
                        "instruction": self.instruction(var, at, bt, sat, sel) + f" d, a, b, c, e, {sel};"})
        return out

    def selected_lanes(self, selector: int):
        """Lanes whose metadata register the selector picks (reference §5.3); others are ignored."""
        lanes = []
        for g in range(8):
            if self.meta_class == "I":
                lanes.append(4 * g + selector)
            elif self.meta_class in ("II", "III"):
                lanes += [4 * g + 2 * selector, 4 * g + 2 * selector + 1]
            else:
                lanes += [4 * g + i for i in range(4)]
        return sorted(lanes)


FAMILIES = [
    Family("f16_k16_f16", 16, ("f16",), ("f16",), "f16", 2, 2, 2, (0, 1, 2, 3), "I", "2:4"),
    Family("f16_k16_f32", 16, ("f16",), ("f16",), "f32", 2, 2, 4, (0, 1, 2, 3), "I", "2:4"),
    Family("bf16_k16_f32", 16, ("bf16",), ("bf16",), "f32", 2, 2, 4, (0, 1, 2, 3), "I", "2:4"),
    Family("f16_k32_f16", 32, ("f16",), ("f16",), "f16", 4, 4, 2, (0, 1), "II", "2:4"),
    Family("f16_k32_f32", 32, ("f16",), ("f16",), "f32", 4, 4, 4, (0, 1), "II", "2:4", trap_selectors=(2, 3)),
    Family("bf16_k32_f32", 32, ("bf16",), ("bf16",), "f32", 4, 4, 4, (0, 1), "II", "2:4"),
    Family("tf32_k8_f32", 8, ("tf32",), ("tf32",), "f32", 2, 2, 4, (0, 1, 2, 3), "I", "1:2"),
    Family("tf32_k16_f32", 16, ("tf32",), ("tf32",), "f32", 4, 4, 4, (0, 1), "II", "1:2"),
    Family("i8_k32", 32, ("s8", "u8"), ("s8", "u8"), "s32", 2, 2, 4, (0, 1), "III", "2:4", integer=True, mixes="all"),
    Family("i8_k64", 64, ("s8", "u8"), ("s8", "u8"), "s32", 4, 4, 4, (0,), "IV", "2:4", integer=True, mixes="all"),
    Family("i4_k64", 64, ("s4", "u4"), ("s4", "u4"), "s32", 2, 2, 4, (0, 1), "III", "4:8", integer=True, mixes="all"),
    Family("i4_k128", 128, ("s4", "u4"), ("s4", "u4"), "s32", 4, 4, 4, (0,), "IV", "4:8", integer=True, mixes="all"),
    Family("f8_k64_f32", 64, ("e4m3", "e5m2"), ("e4m3", "e5m2"), "f32", 4, 4, 4, (0,), "IV", "2:4", mixes="all"),
]
FAMILY = {f.name: f for f in FAMILIES}

FLOAT_CLASSES = ("normal", "randbits", "allbits", "cancel", "overflow")
INT_CLASSES = ("normal", "randbits", "overflow", "intextreme")


def classes_for(fam: Family):
    return INT_CLASSES if fam.integer else FLOAT_CLASSES


def valid_codes(fam: Family, variant: str):
    if fam.pattern == "1:2":
        return CODES_TF32
    return CODES_ORDERED if variant == ORDERED else CODES_LEGACY


def ub_codes(fam: Family, variant: str):
    """Codes the PTX ISA leaves undefined for this family and variant."""
    ok = set(valid_codes(fam, variant))
    return tuple(q for q in range(16) if q not in ok)
