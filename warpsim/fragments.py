"""Fragment helpers: dense matrices ↔ lane registers for any `mma.sp` form and operand.

    a, e = to_registers(form, "A", dense_A, selector=0)   # compress 2:4 / 1:2 / 4:8, pack, metadata
    b    = to_registers(form, "B", B)
    c    = to_registers(form, "C", C)
    D    = from_registers(form, "D", d)

Values are encoded exactly in the operand's element type (a value the type cannot hold is an
error); pass ``bits=True`` to give raw bit patterns instead. Leading batch dimensions are kept.
"""
from __future__ import annotations

import numpy as np

from isa import formats, layouts, sparsity
from isa.forms import MmaSpForm

from warpsim.tensorcore import resolve


def _element_format(form: MmaSpForm, operand: str) -> str:
    return {"A": form.atype, "B": form.btype, "C": form.ctype, "D": form.dtype}[operand]


def _encode(form: MmaSpForm, operand: str, values) -> np.ndarray:
    fmt = _element_format(form, operand)
    bits = formats.encode_exact(fmt, values)
    if operand in "AB" and form.kind in ("f8f6f4", "mxf8f6f4") and fmt in ("e2m1", "e3m2", "e2m3"):
        bits = bits << 2 if fmt == "e2m1" else bits  # 8-bit containers (ptx-mma-sp.md §3)
    return bits


def to_registers(form, operand: str, matrix, *, selector: int = 0, bits: bool = False, fill: int = 0):
    """Dense matrix → registers. For "A" returns ``(a, e)``: the compressed fragment and metadata."""
    form = resolve(form)[0] if not isinstance(form, MmaSpForm) else form
    matrix = np.asarray(matrix)
    if operand == "A":
        values, codes = sparsity.compress(form, matrix)
        pat = values.astype(np.int64) if bits else _encode(form, "A", values)
        return layouts.a_layout(form).pack(pat), sparsity.meta_registers(form, codes, selector, fill)
    pat = matrix.astype(np.int64) if bits else _encode(form, operand, matrix)
    return layouts.layout(form, operand).pack(pat)


def from_registers(form, operand: str, regs, *, e=None, selector: int = 0, bits: bool = False):
    """Registers → dense matrix (values, or bit patterns with ``bits=True``). "A" needs ``e``."""
    form = resolve(form)[0] if not isinstance(form, MmaSpForm) else form
    lay = layouts.layout(form, operand)
    pat = lay.unpack(regs)
    if operand == "A" and form.kind in ("f8f6f4", "mxf8f6f4") and form.atype in ("e2m1", "e3m2", "e2m3"):
        pat = (pat >> 2) & 0xF if form.atype == "e2m1" else pat & 0x3F
    if operand == "B" and form.kind in ("f8f6f4", "mxf8f6f4") and form.btype in ("e2m1", "e3m2", "e2m3"):
        pat = (pat >> 2) & 0xF if form.btype == "e2m1" else pat & 0x3F
    vals = pat if bits else formats.decode(_element_format(form, operand), pat)
    if operand != "A":
        return vals
    if e is None:
        raise ValueError("from_registers(form, 'A', ...) needs the metadata registers e=")
    codes = sparsity.meta_codes(form, e, selector)
    return sparsity.decompress(form, vals, codes)


def compress(form, dense):
    """Dense sparse A → (stored values M × K/2, metadata codes M × K/W); see :func:`isa.sparsity.compress`."""
    form = resolve(form)[0] if not isinstance(form, MmaSpForm) else form
    return sparsity.compress(form, dense)


def decompress(form, values, codes):
    form = resolve(form)[0] if not isinstance(form, MmaSpForm) else form
    return sparsity.decompress(form, values, codes)
