"""Independent layout reference for checking captured instruction traces (numpy only).

Written from ``shared/reference/ptx-mma-sp.md`` §4 (fragments) and §5 (metadata) -- on purpose
not from warpsim's own ``isa`` package, so that a capture bug and a simulator bug cannot hide each
other. It implements the "gather B" formulation (§6.1): every stored A element is multiplied by the
B row its metadata index points at, and all products of a row are added to C. Integers: exact,
then `.satfinite` clamp or two's-complement wrap. Floats: float64 (an accuracy check, not a bit model).

    python traces/capture/reference.py --selftest     # reproduces the worked example of §7
"""
from __future__ import annotations

import numpy as np

import forms
from inputs import unpack

# --------------------------------------------------------------------------- element decoding


def _minifloat_table(E: int, M: int, bias: int, conv: str) -> np.ndarray:
    out = np.zeros(1 << (1 + E + M))
    for x in range(len(out)):
        s = -1.0 if x >> (E + M) else 1.0
        e = (x >> M) & ((1 << E) - 1)
        m = x & ((1 << M) - 1)
        if conv == "ieee" and e == (1 << E) - 1:
            out[x] = s * np.inf if m == 0 else np.nan
        elif conv == "fn" and e == (1 << E) - 1 and m == (1 << M) - 1:
            out[x] = np.nan
        elif e == 0:
            out[x] = s * m * 2.0 ** (1 - bias - M)
        else:
            out[x] = s * (1 + m / (1 << M)) * 2.0 ** (e - bias)
    return out


_E4M3 = _minifloat_table(4, 3, 7, "fn")
_E5M2 = _minifloat_table(5, 2, 15, "ieee")


def decode(bits: np.ndarray, t: str) -> np.ndarray:
    """Element bit patterns (uint32) -> float64 (floats) or int64 (integers)."""
    bits = bits.astype(np.uint32)
    if t in ("s8", "s4", "s32"):
        w = forms.INT_BITS[t]
        v = bits.astype(np.int64)
        return np.where(v >= (1 << (w - 1)), v - (1 << w), v)
    if t in ("u8", "u4"):
        return bits.astype(np.int64)
    if t == "f16":
        return bits.astype(np.uint16).view(np.float16).astype(np.float64)
    if t == "bf16":
        return (bits << np.uint32(16)).view(np.float32).astype(np.float64)
    if t == "tf32":  # hardware ignores (truncates) the low 13 mantissa bits (§3)
        return (bits & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    if t == "f32":
        return bits.view(np.float32).astype(np.float64)
    if t == "e4m3":
        return _E4M3[bits]
    if t == "e5m2":
        return _E5M2[bits]
    raise ValueError(t)


# --------------------------------------------------------------------------- layouts


def _chunk_geometry(fam: forms.Family):
    W, Z = {"2:4": (4, 2), "1:2": (2, 1), "4:8": (8, 4)}[fam.pattern]
    return W, Z


def meta_lane_offset(fam: forms.Family, selector: int, m, c):
    """Lane L and bit offset o of the code of (row m, chunk c) (§5.2)."""
    g, h = m % 8, m // 8
    cls = fam.meta_class
    if cls == "I":
        return 4 * g + selector, 4 * c + 16 * h
    if cls == "II":
        return 4 * g + 2 * selector + c // 4, 4 * (c % 4) + 16 * h
    if cls == "III":
        return 4 * g + 2 * selector + h, 4 * c
    return 4 * g + h + 2 * (c // 8), 4 * (c % 8)


def a_positions(fam: forms.Family):
    """For every (lane, reg, slot) of A: row m, chunk c, slot j (arrays of shape (32, nA, epr))."""
    W, Z = _chunk_geometry(fam)
    epr = fam.epr
    lane = np.arange(32)[:, None, None]
    r = np.arange(fam.n_a)[None, :, None]
    j = np.arange(epr)[None, None, :]
    g, t = lane // 4, lane % 4
    m = g + 8 * (r % 2)
    start = 2 * epr * t + (fam.k // 2) * (r // 2)
    c = start // W + j // Z
    shape = (32, fam.n_a, epr)
    return np.broadcast_to(m, shape), np.broadcast_to(c, shape), np.broadcast_to(j, shape)


def dense_column(fam: forms.Family, c, j, q):
    """Dense column of stored slot j in chunk c given the chunk's code q (§5.4)."""
    W, Z = _chunk_geometry(fam)
    if fam.pattern == "2:4":
        return 4 * c + ((q >> (2 * (j % 2))) & 3)
    if fam.pattern == "4:8":
        return 8 * c + 2 * ((q >> (2 * ((j % 4) // 2))) & 3) + j % 2
    # tf32 1:2: only 0100 -> first, 1110 -> second column are defined
    col = np.where(q == 0b0100, 0, np.where(q == 0b1110, 1, -1))
    return np.where(col < 0, -1, 2 * c + col)


def b_dense(fam: forms.Family, b_regs: np.ndarray, btype: str) -> np.ndarray:
    """(N, 32, nB) registers -> (N, K, 8) decoded dense B."""
    bits = forms.INT_BITS[btype] if btype in forms.INT_BITS else forms.FLOAT_FORMATS[btype][0]
    epr = 32 // bits
    el = decode(unpack(b_regs, bits), btype)  # (N, 32, nB, epr)
    lane = np.arange(32)[:, None, None]
    r = np.arange(fam.n_b)[None, :, None]
    j = np.arange(epr)[None, None, :]
    k = np.broadcast_to(epr * (lane % 4) + j + 4 * epr * r, (32, fam.n_b, epr))
    n = np.broadcast_to(lane // 4, (32, fam.n_b, epr))
    out = np.zeros((b_regs.shape[0], fam.k, 8), dtype=el.dtype)
    out[:, k, n] = el
    return out


def c_positions(ne: int):
    i = np.arange(ne)
    lane = np.arange(32)[:, None]
    g, t = lane // 4, lane % 4
    return np.broadcast_to(g + 8 * (i // 2), (32, ne)), np.broadcast_to(2 * t + i % 2, (32, ne))


def c_matrix(fam: forms.Family, c_regs: np.ndarray) -> np.ndarray:
    """(N, 32, nC) registers -> (N, 16, 8) decoded C (float64 or int64)."""
    if fam.ctype == "f16":
        el = decode(unpack(c_regs, 16), "f16").reshape(c_regs.shape[0], 32, -1)
    else:
        el = decode(c_regs, "s32" if fam.ctype == "s32" else "f32")
    m, n = c_positions(el.shape[2])
    out = np.zeros((c_regs.shape[0], 16, 8), dtype=el.dtype)
    out[:, m, n] = el
    return out


def d_registers(fam: forms.Family, dmat: np.ndarray) -> np.ndarray:
    """(N, 16, 8) int64 D matrix -> (N, 32, 4) uint32 registers (integer forms)."""
    m, n = c_positions(4)
    return (dmat[:, m, n] & 0xFFFFFFFF).astype(np.uint32)


def products(fam: forms.Family, kernel: dict, a_regs, b_regs, e_regs):
    """Per stored A element: value, row, dense column, and the B row it meets.

    Returns (aval (N,32,nA,epr), rows (32,nA,epr), kcol (N,32,nA,epr), B dense (N,K,8)).
    """
    at, bt, sel = kernel["atype"], kernel["btype"], kernel["selector"]
    m, c, j = a_positions(fam)
    L, o = meta_lane_offset(fam, sel, m, c)
    e = e_regs[:, :, 0]
    q = (e[:, L] >> o.astype(np.uint32)) & np.uint32(0xF)  # (N, 32, nA, epr)
    kcol = dense_column(fam, c[None], j[None], q.astype(np.int64))
    aval = decode(unpack(a_regs, fam.elem_bits), at)
    return aval, m, kcol, b_dense(fam, b_regs, bt)


def reference_d(fam: forms.Family, kernel: dict, a_regs, b_regs, c_regs, e_regs):
    """Reference D as (N, 16, 8): int64 after sat/wrap for integers, float64 sums for floats.

    For floats the sum is of the K/2 stored products only (the hardware never forms pruned ones).
    Returns also a mask (N, 16, 8) of elements whose reference is defined (tf32 UB codes -> False).
    """
    aval, rows, kcol, B = products(fam, kernel, a_regs, b_regs, e_regs)
    N = a_regs.shape[0]
    valid = kcol >= 0
    kk = np.where(valid, kcol, 0)
    Bg = B[np.arange(N)[:, None, None, None], kk, :]  # (N, 32, nA, epr, 8)
    prod = aval[..., None] * Bg
    prod = np.where(valid[..., None], prod, 0)
    onehot = (rows.reshape(-1)[None, :] == np.arange(16)[:, None])  # (16, L)
    flat = prod.reshape(N, -1, 8)
    if fam.integer:
        acc = np.einsum("ml,nlc->nmc", onehot.astype(np.int64), flat)
        d = c_matrix(fam, c_regs) + acc
        if kernel["satfinite"]:
            d = np.clip(d, -(2**31), 2**31 - 1)
        else:
            d = ((d + 2**31) % 2**32) - 2**31
        defined = np.ones(d.shape, bool)
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            acc = np.einsum("ml,nlc->nmc", onehot.astype(np.float64), flat)
            d = c_matrix(fam, c_regs) + acc
        bad_row = np.einsum("ml,nl->nm", onehot.astype(np.int64), (~valid).reshape(N, -1).astype(np.int64)) > 0
        defined = np.broadcast_to(~bad_row[..., None], d.shape)
    return d, defined


def magnitude(fam, kernel, a_regs, b_regs, c_regs, e_regs):
    """|C| + sum |a*b| per output element (float64): the scale for a float accuracy check."""
    aval, rows, kcol, B = products(fam, kernel, a_regs, b_regs, e_regs)
    N = a_regs.shape[0]
    kk = np.where(kcol >= 0, kcol, 0)
    Bg = B[np.arange(N)[:, None, None, None], kk, :]
    with np.errstate(invalid="ignore", over="ignore"):
        prod = np.abs(aval[..., None] * Bg).reshape(N, -1, 8)
        onehot = (rows.reshape(-1)[None, :] == np.arange(16)[:, None]).astype(np.float64)
        return np.abs(c_matrix(fam, c_regs)) + np.einsum("ml,nlc->nmc", onehot, prod)


def d_matrix(fam: forms.Family, d_regs: np.ndarray) -> np.ndarray:
    """Measured D registers -> (N, 16, 8) decoded (int64 or float64)."""
    return c_matrix(fam, d_regs)


# --------------------------------------------------------------------------- self test (§7 example)

_EXAMPLE = """
0 0x3C403C00 0x48984880 0xED9C9C84
1 0x3D803D00 0x48B048A8 -
2 0x3EC03E00 0x48D848C8 -
3 0x3F803F40 0x48F848F0 -
4 0x40404000 0x49104908 0x4ED9D9C8
5 0x40E04080 0x49384928 -
6 0x41404120 0x49584950 -
7 0x41E041A0 0x49684960 -
8 0x42604200 0x49984988 0x84EDED9C
9 0x42C042A0 0x49B849B0 -
10 0x43604320 0x49C849C0 -
11 0x43E043C0 0x49F049E0 -
12 0x44204410 0x4A184A10 0xC84E4ED9
13 0x44704450 0x4A284A20 -
14 0x44B044A0 0x4A504A40 -
15 0x44D044C0 0x4A784A60 -
16 0x45304510 0x4A884A80 0x9C8484ED
17 0x45704560 0x4AB04AA0 -
18 0x45904580 0x4AD84AC0 -
19 0x45E045C0 0x4AF04AE8 -
20 0x46304620 0x4B104B00 0xD9C8C84E
21 0x46504640 0x4B384B20 -
22 0x46A04680 0x4B504B48 -
23 0x46F046C0 0x4B784B68 -
24 0x47104700 0x4B984B80 0xED9C9C84
25 0x47604740 0x4BB04BA8 -
26 0x47B04780 0x4BD84BC8 -
27 0x47E047D0 0x4BF84BF0 -
28 0x48104800 0x4C084C04 0x4ED9D9C8
29 0x48384820 0x4C1C4C14 -
30 0x48504848 0x4C2C4C28 -
31 0x48784868 0x4C344C30 -
"""


def selftest() -> None:
    """Worked example of ptx-mma-sp.md §7: with B one-hot (B[k][n] = [k == n]) and C = 0, D must be
    the first 8 dense columns of A, whose kept values are 1 + m + k/16."""
    fam = forms.FAMILY["f16_k16_f32"]
    rows = [ln.split() for ln in _EXAMPLE.strip().splitlines()]
    a = np.array([[int(r[1], 16), int(r[2], 16)] for r in rows], np.uint32)[None]
    for sel in range(4):
        e = np.zeros((1, 32, 1), np.uint32) ^ np.uint32(0xDEADBEEF)  # junk in unselected lanes
        for r in rows:
            if r[3] != "-":
                e[0, int(r[0]) + sel, 0] = int(r[3], 16)
        # B one-hot: B[k][n] = 1 iff k == n; lane (g,t) reg i slot j: k = 2t + j + 8i, n = g
        b = np.zeros((1, 32, 2), np.uint32)
        for lane in range(32):
            g, t = divmod(lane, 4)
            for i in range(2):
                for j in range(2):
                    if 2 * t + j + 8 * i == g:
                        b[0, lane, i] |= np.uint32(0x3C00 << (16 * j))
        c = np.zeros((1, 32, 4), np.uint32)
        k = {"atype": "f16", "btype": "f16", "selector": sel, "satfinite": False}
        d, _ = reference_d(fam, k, a, b, c, e)
        # expected: dense A (16 x 16) from §7 codes; check the values at kept positions
        for m in range(16):
            for n in range(8):
                v = d[0, m, n]
                assert v == 0 or abs(v - (1 + m + n / 16)) < 1e-12, (sel, m, n, v)
        assert d[0, 0, 0] == 1.0 and d[0, 0, 1] == 1.0625 and d[0, 0, 2] == 0 and d[0, 0, 4] == 1.25
        assert d[0, 8, 0] == 9.0 and d[0, 8, 3] == 9.1875 and d[0, 8, 1] == 0
    print("reference selftest: §7 worked example reproduced for selectors 0..3")


if __name__ == "__main__":
    import sys
    if "--selftest" in sys.argv:
        selftest()
