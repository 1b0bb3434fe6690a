"""Sparse storage of A: metadata codes, their validity, compress and decompress
(PTX ISA §9.7.14.6.1 "Sparse matrix storage"; ptx-mma-sp.md §5).

A 4-bit code ``q`` describes one chunk of W dense columns; ``idx0 = q[1:0]``, ``idx1 = q[3:2]``.

* 2:4 (f16, bf16, 8-bit, f8f6f4): stored element 0 → column ``4c+idx0``, element 1 → ``4c+idx1``.
* 1:2 (tf32): the one stored element → ``2c`` if q = 0b0100, ``2c+1`` if q = 0b1110; nothing else is defined.
* 4:8 (s4, u4, packed e2m1): pairs — stored 0,1 → ``8c+2·idx0 (+1)``, stored 2,3 → ``8c+2·idx1 (+1)``.

Valid codes: ``::ordered_metadata`` needs idx0 < idx1 (6 codes); legacy ``.sp`` any idx0 ≠ idx1 (12).
The H100 places the stored elements literally at idx0/idx1 and adds both when they are equal [HW].
"""
from __future__ import annotations

import numpy as np

from isa import layouts
from isa.errors import UndefinedBehavior
from isa.forms import PAIR_2_4, QUAD_4_8, TF32_1_2, MmaSpForm

ORDERED_CODES = (0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b1110)
LEGACY_CODES = tuple(q for q in range(16) if (q & 3) != (q >> 2))
TF32_CODES = (0b0100, 0b1110)
EQUAL_INDEX_CODES = (0b0000, 0b0101, 0b1010, 0b1111)


def valid_codes(form: MmaSpForm, variant: str) -> tuple[int, ...]:
    if form.pattern == TF32_1_2:
        return TF32_CODES
    return ORDERED_CODES if variant == "sp::ordered_metadata" else LEGACY_CODES


def dense_columns(form: MmaSpForm, codes: np.ndarray) -> np.ndarray:
    """Codes ``(..., M, C)`` → dense column of every stored element ``(..., M, K/2)``.

    Equal-index codes map two stored elements to one column (the H100 adds them). tf32 codes other
    than 0100/1110 give -1 (no defined column).
    """
    codes = np.asarray(codes, dtype=np.int64)
    z, w = form.chunk
    c = np.arange(codes.shape[-1], dtype=np.int64)
    slots = []
    for s in range(z):
        if form.pattern == PAIR_2_4:
            col = w * c + ((codes >> (2 * s)) & 3)
        elif form.pattern == QUAD_4_8:
            col = w * c + 2 * ((codes >> (2 * (s // 2))) & 3) + s % 2
        else:
            col = np.where(codes == 0b0100, 2 * c, np.where(codes == 0b1110, 2 * c + 1, -1))
        slots.append(col)
    return np.stack(slots, axis=-1).reshape(codes.shape[:-1] + (codes.shape[-1] * z,))


def decompress(form: MmaSpForm, values: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Stored values ``(..., M, K/2)`` + codes ``(..., M, C)`` → dense A ``(..., M, K)`` (equal indices add)."""
    values = np.asarray(values)
    cols = dense_columns(form, codes)
    if (cols < 0).any():
        raise ValueError("tf32 metadata code other than 0b0100/0b1110 has no dense column")
    dense = np.zeros(values.shape[:-1] + (form.shape.k,), dtype=np.result_type(values, np.float64))
    idx = np.indices(cols.shape)
    np.add.at(dense, tuple(idx[:-1]) + (cols,), values)
    return dense


def compress(form: MmaSpForm, dense: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense sparse A ``(..., M, K)`` → (stored values ``(..., M, K/2)``, ordered codes ``(..., M, C)``).

    Raises ``ValueError`` naming the row and chunk that hold too many non-zeros for the pattern.
    Chunks with fewer non-zeros are padded with stored zeros at the lowest free positions, so every
    code is valid for ``::ordered_metadata`` (and so for legacy ``.sp`` too).
    """
    dense = np.asarray(dense)
    z, w = form.chunk
    unit = 2 if form.pattern == QUAD_4_8 else 1  # 4:8 keeps whole pairs
    m, k = dense.shape[-2:]
    if k != form.shape.k or m != form.shape.m:
        raise ValueError(f"{form.key}: A must be {form.shape.m}×{form.shape.k}, got {m}×{k}")
    chunks = dense.reshape(dense.shape[:-1] + (k // w, w // unit, unit))
    nonzero = (chunks != 0).any(axis=-1)  # (..., M, C, positions)
    keep = z // unit
    if (nonzero.sum(-1) > keep).any():
        where = np.argwhere(nonzero.sum(-1) > keep)[0]
        raise ValueError(f"{form.key}: row {where[-2]} chunk {where[-1]} has more than {keep} non-zero "
                         f"{'pairs' if unit == 2 else 'elements'} of {w // unit}: not {form.pattern} sparse")
    # rank positions: non-zeros first (in column order), then zeros; keep the first `keep`, sorted
    order = np.argsort(~nonzero, axis=-1, kind="stable")[..., :keep]
    pos = np.sort(order, axis=-1)
    if form.pattern == TF32_1_2:
        codes = np.where(pos[..., 0] == 0, 0b0100, 0b1110)
    else:
        codes = pos[..., 0] | (pos[..., 1] << 2)
    vals = np.take_along_axis(chunks, pos[..., None].repeat(unit, -1), axis=-2)
    return vals.reshape(dense.shape[:-1] + (k // 2,)), codes.astype(np.int64)


def tf32_half_sources(code: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """What the H100 does with a tf32 code ``q = (idx1 << 2) | idx0`` [HW, traces/h100/ub/tf32_k8/k16, 100%].

    The stored element of chunk c multiplies a B value assembled from 16-bit halves of the chunk's two B
    rows: its high half is half ``idx1 & 1`` of B row ``2c + (idx1 >> 1)``, its low half is half
    ``idx0 & 1`` of B row ``2c + (idx0 >> 1)`` (half 0 = bits 15:0); the result is tf32-truncated (low
    13 bits ignored). Returns ((row offset, half) for the high half, (row offset, half) for the low half).
    0100 → ((0, 1), (0, 0)) = B[2c]; 1110 → ((1, 1), (1, 0)) = B[2c + 1]."""
    idx0, idx1 = code & 3, (code >> 2) & 3
    return (idx1 >> 1, idx1 & 1), (idx0 >> 1, idx0 & 1)


# ----------------------------------------------------------------------------- the e register


def meta_registers(form: MmaSpForm, codes: np.ndarray, selector: int, fill: int = 0) -> np.ndarray:
    """Codes ``(..., M, C)`` → the ``e`` register of every lane ``(..., 32)`` uint32.

    Lanes the selector does not read get ``fill`` (the hardware ignores them)."""
    ml = layouts.meta_layout(form, selector)
    codes = np.asarray(codes, dtype=np.uint64) & np.uint64(0xF)
    e = np.zeros(codes.shape[:-2] + (32,), dtype=np.uint64)
    shifted = codes << (4 * ml.nibble_of).astype(np.uint64)
    for lane in ml.lanes:
        sel = ml.lane_of == lane
        e[..., lane] = np.bitwise_or.reduce(shifted[..., sel], axis=-1)
    unused = np.setdiff1d(np.arange(32), ml.lanes)
    e[..., unused] = fill
    return e.astype(np.uint32)


def meta_codes(form: MmaSpForm, e: np.ndarray, selector: int) -> np.ndarray:
    """The ``e`` registers ``(..., 32)`` → codes ``(..., M, C)`` as the selector reads them."""
    ml = layouts.meta_layout(form, selector)
    e = np.asarray(e, dtype=np.uint32)
    return ((e[..., ml.lane_of] >> (4 * ml.nibble_of).astype(np.uint32)) & 0xF).astype(np.int64)


def check_codes(form: MmaSpForm, variant: str, codes: np.ndarray, selector: int, *, where: str = "",
                policy: str = "error") -> None:
    """Raise :class:`UndefinedBehavior` for the first invalid code, naming rule, row, chunk, lane and value.

    With ``policy="hardware"`` every code is executed as the H100 executes it: equal-index and unordered
    codes place the stored values literally (equal indices add); tf32 codes other than 0100/1110 gather B
    in 16-bit halves (see :func:`tf32_half_sources`; traces/h100/ub/tf32_*, bit-exact)."""
    codes = np.asarray(codes)
    ok = np.isin(codes, valid_codes(form, variant))
    if policy == "hardware":
        ok = np.ones_like(ok)
    if ok.all():
        return
    bad = tuple(np.argwhere(~ok)[0])
    m, c = int(bad[-2]), int(bad[-1])
    ml = layouts.meta_layout(form, selector)
    lane, nib = int(ml.lane_of[m, c]), int(ml.nibble_of[m, c])
    q = int(codes[bad])
    raise UndefinedBehavior(_rule(form, variant, q), lane=lane, value=q, where=where,
                            detail=f"row {m}, chunk {c} (bits [{4 * nib + 3}:{4 * nib}] of e)"
                                   + (f", instance {bad[0]}" if len(bad) > 2 else ""))


def _rule(form: MmaSpForm, variant: str, q: int) -> str:
    code = f"0b{q:04b}"
    if form.pattern == TF32_1_2:
        return (f"tf32 metadata code {code} is not 0b0100 or 0b1110 (PTX ISA §9.7.14.6.1; "
                f"ub_policy='hardware' runs the H100's half-word mixing of B)")
    if (q & 3) == (q >> 2):
        return f"metadata code {code} names the same column twice (PTX ISA §9.7.14.6.1, PTX 8.5 notes)"
    return (f"metadata code {code} is not increasing (idx0 < idx1), required by "
            f"mma.sp::ordered_metadata (PTX ISA §9.7.14.6.1)")
