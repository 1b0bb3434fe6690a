"""The sparse views: logical dense A (chunk windows, where a metadata example lands) and the metadata E.

Everything comes from :mod:`isa.layouts` (``a_layout``, ``meta_layout``) and :mod:`isa.sparsity`
(``dense_columns``, ``compress``, ``meta_registers``, ``meta_codes``, ``valid_codes``).

The sample is the worked example of ptx-mma-sp.md §7: in row m, chunk c the kept positions are the
``(m + c) mod 6``-th ordered code (1:2 tf32: ``(m + c) mod 2``-th of its two codes), kept values
``1 + m + k/16`` where the A type holds them exactly, else ``1 + (m + k) mod 3``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from isa import formats, layouts, sparsity
from isa.forms import MmaSpForm
from warpsim import fragments
from warpsim.render.model import Cell, Grid

ORDERED, LEGACY = "sp::ordered_metadata", "sp"


@dataclass(frozen=True)
class Example:
    """A concrete metadata example: codes (M × chunks), the ``e`` register of every lane, and — when it
    came from a sample matrix — the dense matrix and the A registers."""

    source: str  # "sample" | "codes" | "e"
    codes: np.ndarray
    e: np.ndarray
    dense: np.ndarray | None = None
    a: np.ndarray | None = None


def chunks(form: MmaSpForm) -> int:
    return form.shape.k // form.chunk[1]


def sample_codes(form: MmaSpForm) -> np.ndarray:
    m, c = np.meshgrid(np.arange(form.shape.m), np.arange(chunks(form)), indexing="ij")
    table = sparsity.valid_codes(form, ORDERED)
    return np.asarray(table, dtype=np.int64)[(m + c) % len(table)]


def sample_dense(form: MmaSpForm) -> np.ndarray:
    m_rows, k = form.shape.m, form.shape.k
    m, kk = np.meshgrid(np.arange(m_rows), np.arange(k), indexing="ij")
    values = 1.0 + m + kk / 16.0
    try:
        formats.encode_exact(form.atype, values)
    except ValueError:
        values = 1.0 + (m + kk) % 3
    cols = sparsity.dense_columns(form, sample_codes(form))
    dense = np.zeros((m_rows, k))
    rows = np.arange(m_rows)[:, None].repeat(cols.shape[1], 1)
    dense[rows, cols] = values[rows, cols]
    return dense


def parse_ints(text: str) -> list[int]:
    """``"0b0100,0x8, 12"`` → [4, 8, 12]."""
    return [int(tok, 0) for tok in text.replace(";", ",").replace(" ", ",").split(",") if tok]


def example(form: MmaSpForm, selector: int, codes=None, e=None) -> Example:
    """From ``e`` (1 value for every lane or 32), from ``codes`` (tiled row-major), or the sample."""
    if e is not None:
        e = np.asarray(e, dtype=np.int64).reshape(-1)
        if e.size not in (1, 32):
            raise ValueError(f"--e takes 1 value (every lane) or 32 (one per lane), got {e.size}")
        e = np.resize(e, 32).astype(np.uint32)
        return Example("e", sparsity.meta_codes(form, e, selector), e)
    if codes is not None:
        flat = np.asarray(codes, dtype=np.int64).reshape(-1)
        if flat.size == 0 or ((flat < 0) | (flat > 15)).any():
            raise ValueError("metadata codes are 4-bit values 0..15")
        full = np.resize(flat, (form.shape.m, chunks(form)))
        return Example("codes", full, sparsity.meta_registers(form, full, selector))
    dense = sample_dense(form)
    a, e = fragments.to_registers(form, "A", dense, selector=selector)
    return Example("sample", sparsity.compress(form, dense)[1], e, dense, a)


def code_kind(form: MmaSpForm, q: int) -> str:
    if q in sparsity.valid_codes(form, ORDERED):
        return "own"
    if form.legacy_ok and q in sparsity.valid_codes(form, LEGACY):
        return "legacy"
    return "invalid"


def code_text(form: MmaSpForm, q: int) -> str:
    return f"{q:04b}" + {"own": "", "legacy": "?", "invalid": "!"}[code_kind(form, q)]


# ----------------------------------------------------------------------------- dense A


def _stored_owner(form: MmaSpForm):
    """(M, K/2, 2) lane and V# of every stored element, from the A layout's inverse."""
    lay = layouts.a_layout(form)
    inv = lay.inverse()
    return inv[..., 0], inv[..., 1] * lay.epr + inv[..., 2]


def candidates(form: MmaSpForm) -> list[list[set]]:
    """For every dense (m, k): the stored elements (compressed column j) that some valid code puts there."""
    m_rows, k = form.shape.m, form.shape.k
    out = [[set() for _ in range(k)] for _ in range(m_rows)]
    codes = set(sparsity.valid_codes(form, ORDERED))
    if form.legacy_ok:
        codes |= set(sparsity.valid_codes(form, LEGACY))
    for q in sorted(codes):
        cols = sparsity.dense_columns(form, np.full((m_rows, chunks(form)), q))
        for m, j in np.ndindex(cols.shape):
            if cols[m, j] >= 0:
                out[m][cols[m, j]].add(j)
    return out


def _dense_frame(form: MmaSpForm, name: str, title: str, cells, notes=None) -> Grid:
    m_rows, k = form.shape.m, form.shape.k
    return Grid(name, title, [f"m{r}" for r in range(m_rows)], [f"k{c}" for c in range(k)], cells,
                notes or [], band=(8, form.chunk[1]))


def dense_window_grid(form: MmaSpForm) -> Grid:
    """Logical A (M × K): each cell lists the stored values that can occupy it (the chunk window)."""
    lane, vid = _stored_owner(form)
    cand = candidates(form)
    cells = []
    for m, row in enumerate(cand):
        line = []
        for k, js in enumerate(row):
            js = sorted(js)
            ln = int(lane[m, js[0]])
            vs = "|".join(str(int(vid[m, j])) for j in js)
            tip = f"A[{m}][{k}] may hold V{vs} of lane {ln} (chunk {k // form.chunk[1]})"
            line.append(Cell((f"T{ln}", f"V{vs}"), ln, "window", tip))
        cells.append(line)
    z, w = form.chunk
    title = f"A, logical {form.shape.m}x{form.shape.k}: chunk windows ({z} of every {w} kept)"
    return _dense_frame(form, "window", title,
                        cells)


def dense_example_grid(form: MmaSpForm, ex: Example) -> Grid:
    """Logical A with the example's codes: where each stored value lands (zeros elsewhere)."""
    lane, vid = _stored_owner(form)
    cols = sparsity.dense_columns(form, ex.codes)
    z, w = form.chunk
    cells, notes = [], []
    for m in range(form.shape.m):
        landed: dict[int, list[int]] = {}
        for j in range(cols.shape[1]):
            landed.setdefault(int(cols[m, j]), []).append(j)
        line = []
        for k in range(form.shape.k):
            owner = int(lane[m, (k // w) * z])
            js = landed.get(k, [])
            if not js:
                line.append(Cell(("0",), owner, "zero", f"A[{m}][{k}] = 0"))
                continue
            vs = "+".join(str(int(vid[m, j])) for j in js)
            kind = "own" if len(js) == 1 else "invalid"
            line.append(Cell((f"T{owner}", f"V{vs}"), owner, kind, f"A[{m}][{k}] <- V{vs} of lane {owner}"))
        cells.append(line)
        notes.append(" ".join(code_text(form, int(q)) for q in ex.codes[m]))
    title = f"A, logical: where the stored values land ({ex.source} metadata; each row lists its chunk codes)"
    return _dense_frame(form, "landing", title,
                        cells, notes)


# ----------------------------------------------------------------------------- metadata E


def nibble_bits(nib: int) -> tuple[int, int]:
    return 4 * nib + 3, 4 * nib


def chunk_cols(form: MmaSpForm, c: int) -> str:
    w = form.chunk[1]
    return f"k{w * c}..{w * c + w - 1}"


def meta_site_grid(form: MmaSpForm, selector: int) -> Grid:
    """M × chunks: which lane and which bits of its ``e`` describe each (row, chunk) — PTX's ``Tk:[hi:lo]``."""
    ml = layouts.meta_layout(form, selector)
    cells = []
    for m in range(form.shape.m):
        line = []
        for c in range(chunks(form)):
            lane, nib = int(ml.lane_of[m, c]), int(ml.nibble_of[m, c])
            hi, lo = nibble_bits(nib)
            tip = f"row {m}, chunk {c} ({chunk_cols(form, c)}) <- lane {lane} e[{hi}:{lo}]"
            line.append(Cell((f"T{lane}", f"[{hi}:{lo}]"), lane, "own", tip))
        cells.append(line)
    return Grid("sites", f"E sites, selector {selector}: lane T# and bits [hi:lo] of its e per (row, chunk)",
                [f"m{r}" for r in range(form.shape.m)], [f"c{c}" for c in range(chunks(form))], cells,
                band=(8, 0), caption=f"chunk c = dense columns {form.chunk[1]}c..{form.chunk[1]}c+{form.chunk[1] - 1}")


def meta_lane_grid(form: MmaSpForm, selector: int, ex: Example | None = None) -> Grid:
    """32 lanes × 8 nibbles of ``e`` (bits high to low): (row, chunk) per nibble; unselected lanes greyed."""
    ml = layouts.meta_layout(form, selector)
    cells, notes = [], []
    for lane in range(32):
        line = []
        picked = lane in ml.lanes
        for nib in range(7, -1, -1):
            hi, lo = nibble_bits(nib)
            site = ml(lane, nib)
            if not picked or site is None:
                line.append(Cell(("-",), lane, "ignored", f"lane {lane} e[{hi}:{lo}] ignored (selector {selector})"))
                continue
            m, c = site
            text = (f"m{m}", f"c{c}")
            kind = "own"
            if ex is not None:
                q = int(ex.codes[m, c])
                text, kind = text + (code_text(form, q),), code_kind(form, q)
            tip = f"lane {lane} e[{hi}:{lo}] -> row {m}, chunk {c} ({chunk_cols(form, c)})"
            line.append(Cell(text, lane, kind, tip))
        cells.append(line)
        if not picked:
            notes.append("ignored")
        else:
            notes.append(f"e=0x{int(ex.e[lane]):08X}" if ex is not None else "read")
    return Grid("lanes", f"E register by lane, selector {selector}: nibble -> (row m, chunk c)",
                [f"T{lane}" for lane in range(32)], [f"[{4 * n + 3}:{4 * n}]" for n in range(7, -1, -1)],
                cells, notes, band=(4, 0))


def meta_decoded_grid(form: MmaSpForm, selector: int, ex: Example) -> Grid:
    """M × chunks: the example's code per (row, chunk) and the dense columns it selects; bad codes flagged."""
    ml = layouts.meta_layout(form, selector)
    cols = sparsity.dense_columns(form, ex.codes)
    z = form.chunk[0]
    cells = []
    for m in range(form.shape.m):
        line = []
        for c in range(chunks(form)):
            q, lane = int(ex.codes[m, c]), int(ml.lane_of[m, c])
            ks = [int(x) for x in cols[m, c * z:(c + 1) * z]]
            where = ",".join("?" if k < 0 else str(k) for k in (ks if z <= 2 else ks[::2]))
            line.append(Cell((code_text(form, q), f"k{where}"), lane, code_kind(form, q),
                             f"row {m} chunk {c}: code 0b{q:04b} -> dense columns {ks} (lane {lane})"))
        cells.append(line)
    return Grid("decoded", f"E decoded ({ex.source}): code per (row, chunk) and the dense columns it selects",
                [f"m{r}" for r in range(form.shape.m)], [f"c{c}" for c in range(chunks(form))], cells,
                band=(8, 0),
                caption="'?' = valid for legacy .sp only, '!' = undefined for both; 4:8 lists each pair's first column")
