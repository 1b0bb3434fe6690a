"""The per-warp register file: every declared register is a numpy array of 32 lanes.

A register holds raw bits in an unsigned container of its declared width (uint16 for
``.b16/.f16``, uint32 for ``.b32/.f32``, uint64 for ``.b64/.f64``; bool for ``.pred``).
Reads and writes are typed by the instruction (``ptype``): same-width types are numpy views
(no copy); a narrower type reads the low bits; a narrower value written into a wider register
is zero-extended, or sign-extended for ``.sN`` types (as ``ld.s8`` into a ``.b32`` register).
"""
from __future__ import annotations

import numpy as np

from isa.errors import PtxSemanticError
from isa.ptx.ast import Imm

NP = {"b8": np.uint8, "u8": np.uint8, "s8": np.int8, "b16": np.uint16, "u16": np.uint16, "s16": np.int16,
      "f16": np.uint16, "bf16": np.uint16, "e4m3x2": np.uint16, "e5m2x2": np.uint16,
      "b32": np.uint32, "u32": np.uint32, "s32": np.int32, "f32": np.float32, "tf32": np.uint32,
      "f16x2": np.uint32, "bf16x2": np.uint32, "b64": np.uint64, "u64": np.uint64, "s64": np.int64,
      "f64": np.float64, "pred": np.bool_, "b128": np.uint64}
NP = {k: np.dtype(v) for k, v in NP.items()}
SIZE = {k: v.itemsize for k, v in NP.items()}
UINT = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
INT = {1: np.dtype(np.int8), 2: np.dtype(np.int16), 4: np.dtype(np.int32), 8: np.dtype(np.int64)}
CONTAINER = {1: np.dtype(np.uint16), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}


def container(ptype: str) -> np.dtype:
    """numpy dtype a register declared ``.reg .<ptype>`` is stored in."""
    if ptype == "pred":
        return NP["pred"]
    if ptype not in SIZE:
        raise KeyError(ptype)
    return CONTAINER[SIZE[ptype]]


def fit(values: np.ndarray, ptype: str, dst: np.dtype) -> np.ndarray:
    """``values`` of ``ptype`` re-expressed in the container ``dst`` (extend or truncate)."""
    v = np.asarray(values)
    if v.dtype == np.bool_ or dst == np.bool_:
        return v.astype(dst)
    if v.dtype.kind == "f":
        v = v.view(UINT[v.dtype.itemsize])
    if v.dtype.itemsize == dst.itemsize:
        return v.view(dst)
    if v.dtype.itemsize < dst.itemsize and ptype.startswith("s"):
        return v.view(INT[v.dtype.itemsize]).astype(np.int64).astype(dst)
    return v.view(UINT[v.dtype.itemsize]).astype(dst)


def view(arr: np.ndarray, ptype: str) -> np.ndarray:
    """Read register bits ``arr`` as ``ptype`` (low bits when the type is narrower)."""
    dt = NP[ptype]
    if arr.dtype.itemsize == dt.itemsize:
        return arr.view(dt)
    if dt == np.bool_:
        return arr != 0
    return arr.astype(UINT[dt.itemsize]).view(dt)


_IMM_CACHE: dict = {}


def immediate(op: Imm, ptype: str) -> np.ndarray:
    """A 32-lane read-only array holding immediate ``op`` as ``ptype``."""
    key = (op.value, op.kind, op.bits, ptype)
    arr = _IMM_CACHE.get(key)
    if arr is not None:
        return arr
    dt = NP[ptype]
    if dt == np.bool_:
        arr = np.full(32, bool(op.value))
    elif dt.kind == "f":
        if op.bits is not None and SIZE[ptype] == (4 if op.kind == "f32" else 8):
            arr = np.full(32, op.bits, UINT[dt.itemsize]).view(dt)
        else:
            arr = np.full(32, float(op.value), dt)
    elif op.kind != "int":  # a float literal's bits used by an integer-typed instruction (mov.b32 %r, 0f...)
        arr = np.full(32, op.bits if op.bits is not None else 0, UINT[dt.itemsize]).view(dt)
    else:
        mask = (1 << (8 * dt.itemsize)) - 1
        arr = np.full(32, int(op.value) & mask, UINT[dt.itemsize]).view(dt)
    arr.setflags(write=False)
    _IMM_CACHE[key] = arr
    return arr


class RegFile:
    """Registers of one warp: ``regs`` maps a name (``%r1``) to its (32,) array.

    The registers of one container type are the rows of one 2-D array (``banks[dtype]``, registers x
    lanes; ``rows[name]`` is a register's row), so an instruction that reads or writes many registers at
    once (``mma``: up to 13) can gather and scatter them with one index array."""

    def __init__(self, decls: dict[str, str], loc_of=None):
        self.types = dict(decls)
        self.regs: dict[str, np.ndarray] = {}
        self.rows: dict[str, int] = {}
        dtypes = {}
        for name, ptype in decls.items():
            try:
                dtypes[name] = container(ptype)
            except KeyError:
                raise PtxSemanticError(loc_of(name) if loc_of else None,
                                       f"register {name} has unsupported type .{ptype}",
                                       expected="a .pred, .b/.u/.s 8-64, .f16, .bf16, .f32 or .f64 register") from None
        count: dict[np.dtype, int] = {}
        for name, dt in dtypes.items():
            self.rows[name] = count.get(dt, 0)
            count[dt] = self.rows[name] + 1
        self.banks = {dt: np.zeros((n, 32), dt) for dt, n in count.items()}
        self.flat = {dt: b.reshape(1, -1) for dt, b in self.banks.items()}  # each bank as one row (a view)
        for name, dt in dtypes.items():
            self.regs[name] = self.banks[dt][self.rows[name]]

    def dump(self, name: str, ptype: str | None = None) -> np.ndarray:
        """A copy of register ``name`` (typed as declared unless ``ptype``) for debuggers and tests."""
        return view(self.regs[name], ptype or self.types.get(name, "b64")).copy()
