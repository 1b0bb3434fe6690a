"""Test-data builders shared by the table-driven tests."""
from __future__ import annotations

import numpy as np

from isa import formats


def small_values(fmt: str, rng, shape) -> np.ndarray:
    """Small numbers exactly representable in ``fmt``, so every sum of products is exact."""
    if fmt == "e2m1":
        choices = np.array([0, 0.5, 1, 1.5, 2, 3, -1, -2, -0.5])
    elif fmt in ("u8", "u4"):
        choices = np.arange(0, 4)
    else:
        choices = np.arange(-3, 4)
    return rng.choice(choices, size=shape).astype(float)


def sparse_a(form, rng, fmt=None) -> np.ndarray:
    """A random dense M×K matrix obeying the form's pattern (2:4, 1:2 or pairwise 4:8)."""
    m_rows, k = form.shape.m, form.shape.k
    z, w = form.chunk
    unit = 2 if form.pattern == "4:8" else 1
    dense = small_values(fmt or form.atype, rng, (m_rows, k))
    dense[dense == 0] = 1
    chunks = dense.reshape(m_rows, k // w, w // unit, unit)
    for m in range(m_rows):
        for c in range(k // w):
            keep = rng.choice(w // unit, z // unit, replace=False)
            mask = np.ones(w // unit, bool)
            mask[keep] = False
            chunks[m, c, mask] = 0
    return dense


def unit_scales(form) -> dict:
    """Scale registers that multiply by 1 (ue8m0 127 = 2^0; ue4m3 0x38 = 1.0)."""
    if not form.block_scaled:
        return {}
    word = 0x7F7F7F7F if form.stype == "ue8m0" else 0x38383838
    assert formats.decode(form.stype, word & 0xFF)[()] == 1.0
    return dict(scale_a=np.full(32, word, np.uint32), scale_b=np.full(32, word, np.uint32))


def arch_for(form) -> str:
    return "sm_120a" if (form.kind or form.dtype == "f16" and form.atype in ("e4m3", "e5m2")) else "sm_90a"
