"""What the debugger shows, as objects: :class:`WarpState` (a warp's masks, PC, line), :class:`LaneRegisters`
(one lane's registers, typed), :class:`LaneTable` (one register across the 32 lanes, the warp watch),
:class:`Fragments` (an mma.sp's operands as matrices) and :class:`TmemView`.

Each renders as plain text (``str``), as rich text in a terminal (``__rich__``, when rich is installed)
and as HTML in Jupyter (``_repr_html_``). The text is the shell's output.
"""
from __future__ import annotations

import html
import os
from dataclasses import dataclass

import numpy as np

from isa import formats, layouts, sparsity
from warpsim.debug import values as V

RESET, REVERSE = "\x1b[0m", "\x1b[7m"


def mask_hex(mask) -> str:
    bits = 0
    for i, b in enumerate(np.asarray(mask, bool)):
        if b:
            bits |= 1 << i
    return f"0x{bits:08x}"


def table(headers: list[str], rows: list[list[str]], marks: list[str] | None = None,
          right: set | None = None) -> str:
    """Columns aligned to their widest cell; ``marks`` is the first column (``*`` on the focus row)."""
    right = right if right is not None else set()
    width = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]

    def line(cells, mark):
        parts = [c.rjust(width[i]) if i in right else c.ljust(width[i]) for i, c in enumerate(cells)]
        return (mark + " " + " ".join(parts)).rstrip()

    out = [line(headers, " ")]
    for k, r in enumerate(rows):
        out.append(line(r, marks[k] if marks else " "))
    return "\n".join(out)


def _html_table(title: str, headers, rows, marks=None) -> str:
    th = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = []
    for k, r in enumerate(rows):
        style = ' style="font-weight:bold"' if marks and marks[k].strip() else ""
        body.append(f"<tr{style}>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>")
    return (f"<div><b>{html.escape(title)}</b><table style='font-family:monospace'>"
            f"<tr>{th}</tr>{''.join(body)}</table></div>")


class _Shown:
    """str / rich / Jupyter from ``text()`` and ``html()``."""

    def text(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.text()

    def __rich__(self):
        from rich.text import Text

        return Text(self.text())

    def _repr_html_(self) -> str:
        return self.html()

    def html(self) -> str:
        return f"<pre>{html.escape(self.text())}</pre>"


# ----------------------------------------------------------------------------- warps and lanes


@dataclass
class WarpState(_Shown):
    """One warp as ``info warps`` shows it (cuda-gdb's columns)."""

    warp: int
    active: np.ndarray  # lanes at the next PC (cuda-gdb's active lanes)
    divergent: np.ndarray  # live lanes waiting at another PC
    live: np.ndarray
    pc: int | None
    where: str
    source: str
    state: str
    first_thread: tuple | None
    retired: int
    focus: bool
    kernel: str
    block: tuple

    @classmethod
    def of(cls, session, w) -> "WarpState":
        g = session.group(w)
        pc = session.next_pc(w)
        if w.done:
            state = "exited"
        elif w.blocked is not None:
            state = f"waiting at barrier {w.blocked[0]}"
        else:
            state = "running" if not (w.live & ~g).any() else "divergent"
        first = session.thread_of(w.warp_id, int(np.argmax(g))) if g.any() else None
        return cls(w.warp_id, g, w.live & ~g, w.live.copy(), pc, session.location(pc) if pc is not None else "-",
                   session.source_text(pc), state, first, w.steps, w.warp_id == session.focus_warp,
                   session.name, session.cta.ctaid)

    def row(self) -> list[str]:
        ft = f"({self.first_thread[0]},{self.first_thread[1]},{self.first_thread[2]})" if self.first_thread else "-"
        b = self.block
        return [str(self.warp), mask_hex(self.active), mask_hex(self.divergent),
                "-" if self.pc is None else str(self.pc), self.where, self.kernel, f"({b[0]},{b[1]},{b[2]})", ft,
                self.state]

    HEADERS = ["Wp", "Active Lanes Mask", "Divergent Lanes Mask", "Active PC", "Line", "Kernel", "BlockIdx",
               "First Active ThreadIdx", "State"]

    def text(self) -> str:
        return table(self.HEADERS, [self.row()], ["*" if self.focus else " "], right={0, 3})

    def html(self) -> str:
        return _html_table(f"warp {self.warp}", self.HEADERS, [self.row()])


def warps_table(states: list[WarpState]) -> str:
    return table(WarpState.HEADERS, [s.row() for s in states], ["*" if s.focus else " " for s in states],
                 right={0, 3})


def lanes_table(session, w) -> str:
    """``info lanes``: cuda-gdb's ``Ln State PC ThreadIdx`` plus the PTX line."""
    g = session.group(w)
    rows, marks = [], []
    for lane in range(session.nlanes(w.warp_id)):
        pc = session.lane_pc(w, lane)
        state = "exited" if not w.live[lane] else "active" if g[lane] else "divergent"
        if state != "exited" and w.blocked is not None:
            state = "barrier"
        t = session.thread_of(w.warp_id, lane)
        rows.append([str(lane), state, "-" if pc is None else str(pc), session.location(pc) if pc is not None else "-",
                     f"({t[0]},{t[1]},{t[2]})"])
        marks.append("*" if (w.warp_id == session.focus_warp and lane == session.focus_lane) else " ")
    return table(["Ln", "State", "PC", "Line", "ThreadIdx"], rows, marks, right={0, 2})


@dataclass
class LaneRegisters(_Shown):
    """The declared registers of one lane, each read as declared (``info registers``)."""

    warp: int
    lane: int
    rows: list  # (name, ptype, value text)

    @classmethod
    def of(cls, session, w, lane: int, names=None) -> "LaneRegisters":
        types = session.program.regs
        rows = []
        for name in names or _sorted_regs(types):
            arr = w.regs[name]
            view, bits = V.lane_values(arr, types.get(name, ""), None)
            rows.append((name, types.get(name, "special"), V.fmt_lane(bits[lane], view, V.reg_bits(arr))))
        return cls(w.warp_id, lane, rows)

    def text(self) -> str:
        return table(["Register", "Type", f"Value (warp {self.warp}, lane {self.lane})"],
                     [[n, "." + t, v] for n, t, v in self.rows])

    def html(self) -> str:
        return _html_table(f"registers of warp {self.warp} lane {self.lane}", ["Register", "Type", "Value"],
                           [[n, "." + t, v] for n, t, v in self.rows])


def _sorted_regs(types: dict) -> list[str]:
    import re

    def key(n):
        m = re.fullmatch(r"(%\D+)(\d+)", n)
        return (m.group(1), int(m.group(2))) if m else (n, -1)

    return sorted(types, key=key)


@dataclass
class LaneTable(_Shown):
    """One register (or view) across the 32 lanes, laid out as groupID x threadID_in_group (8 x 4, the
    mma fragment figures' arrangement); ``changed`` marks lanes whose value changed since the last look."""

    number: int
    label: str
    warp: int
    cells: list[str]
    changed: np.ndarray
    live: np.ndarray
    color: bool = False

    def text(self) -> str:
        w = max(len(c) for c in self.cells) + 1
        head = (f"{self.number}: {self.label}  (warp {self.warp}; row g = lane/4, column t = lane%4; "
                f"{'highlighted' if self.color else '*'} = changed)")
        out = [head, "       " + " ".join(f"t{t}".rjust(w) for t in range(4))]
        for g in range(8):
            cells = []
            for t in range(4):
                lane = 4 * g + t
                c = self.cells[lane] if self.live[lane] else "-"
                if self.changed[lane]:
                    c = (REVERSE + c.rjust(w) + RESET) if self.color else ("*" + c).rjust(w)
                else:
                    c = c.rjust(w)
                cells.append(c)
            out.append(f"g{g} L{4 * g:<2} " + " ".join(cells))
        return "\n".join(out)

    def html(self) -> str:
        rows = []
        for g in range(8):
            tds = []
            for t in range(4):
                lane = 4 * g + t
                style = " style='background:#ffd'" if self.changed[lane] else ""
                tds.append(f"<td{style} title='lane {lane}'>{html.escape(self.cells[lane])}</td>")
            rows.append(f"<tr><th>g{g}</th>{''.join(tds)}</tr>")
        return (f"<div><b>{html.escape(self.label)}</b> (warp {self.warp})<table style='font-family:monospace'>"
                f"<tr><th></th>{''.join(f'<th>t{t}</th>' for t in range(4))}</tr>{''.join(rows)}</table></div>")


# ----------------------------------------------------------------------------- mma.sp fragments


def _fmt_el(v, integer: bool) -> str:
    if integer:
        return str(int(v))
    return V.fmt_number(float(v))


class Fragments(_Shown):
    """The operands of one mma.sp of one warp, as matrices through :mod:`isa.layouts`.

    ``matrix(op)`` for op in A (dense, decompressed), "A'" (compressed, M x K/2), B, C, D (None until
    executed); ``owner(op)`` the lane holding each element; ``codes`` the metadata codes (M x chunks) as the
    selector reads them, ``invalid`` where a code is not valid for the instruction's variant,
    ``meta_lanes`` the lanes whose ``e`` the selector reads."""

    def __init__(self, session, rec, pending: bool):
        from isa.semantics.mma_sp import decode

        self.rec, self.pending = rec, pending
        self.form, self.variant, self.selector = decode(rec.ins)
        self.warp = rec.warp
        self.where = session.location(rec.pc)
        self.names = {op: _names(x) for op, x in zip("DABCE", rec.ins.operands[:5])}
        f = self.form
        if f.sparse:
            self.codes = sparsity.meta_codes(f, rec.e, self.selector)
            self.invalid = ~np.isin(self.codes, sparsity.valid_codes(f, self.variant))
            self.meta = layouts.meta_layout(f, self.selector)
            self.meta_lanes = self.meta.lanes
        else:
            self.codes = self.invalid = self.meta = None
            self.meta_lanes = ()

    # -- matrices
    def _values(self, operand: str, regs) -> np.ndarray:
        from warpsim import fragments

        if operand == "A'":
            lay = layouts.a_layout(self.form)
            return formats.decode(self.form.atype, lay.unpack(regs)) if self.form.atype != "tf32" else \
                formats.decode("tf32", lay.unpack(regs))
        return fragments.from_registers(self.form, operand, regs)

    def matrix(self, operand: str):
        r = self.rec
        if operand == "A":
            vals = self._values("A'", r.a)
            if not self.form.sparse:
                return vals
            cols = sparsity.dense_columns(self.form, self.codes)
            dense = np.zeros((self.form.shape.m, self.form.shape.k))
            rows = np.arange(dense.shape[0])[:, None].repeat(cols.shape[1], 1)
            ok = cols >= 0
            np.add.at(dense, (rows[ok], cols[ok]), vals[ok])
            return dense
        if operand == "A'":
            return self._values("A'", r.a)
        if operand == "D":
            return None if r.d is None else self._values("D", r.d)
        return self._values(operand, {"B": r.b, "C": r.c}[operand])

    def owner(self, operand: str) -> np.ndarray:
        """Lane holding each element: (rows, cols) int array (A means the compressed A)."""
        lay = layouts.a_layout(self.form) if operand in ("A", "A'") else layouts.layout(self.form, operand)
        return lay.inverse()[..., 0]

    def stored_columns(self) -> np.ndarray:
        """Dense column of each compressed A element (M x K/2); -1 where the code names none."""
        return sparsity.dense_columns(self.form, self.codes)

    # -- text
    def header(self) -> str:
        state = "pending: the warp's next instruction" if self.pending else "last executed"
        sel = f"; sparsity selector {self.selector}" if self.form.sparse else ""
        return f"{self.rec.ins.name}\n  warp {self.warp}, {self.where} ({state}{sel})"

    def text(self, operands: str = "ABCDE") -> str:
        parts = [self.header()]
        for op in operands:
            parts.append(self.operand_text(op))
        return "\n\n".join(parts)

    def operand_text(self, op: str) -> str:
        op = op.upper()
        f = self.form
        if op == "A":
            return self._a_text()
        if op == "E":
            return self._e_text()
        if op == "D" and self.rec.d is None:
            return (f"D {self.names['D']}: not written yet (this mma.sp has not executed; `stepi`, then "
                    f"`frag D`)")
        m = self.matrix(op)
        fmt = {"B": f.btype, "C": f.ctype, "D": f.dtype}[op]
        shape = f"{m.shape[0]} x {m.shape[1]}"
        title = f"{op} {self.names[op]} ({shape} .{fmt}): value and the lane T# holding it"
        return title + "\n" + self._grid(m, self.owner(op), "k" if op == "B" else "m", "n",
                                         formats.get(fmt).integer)

    def _grid(self, m, owner, rlab, clab, integer, mark=None) -> str:
        cells = [[(f"T{owner[i, j]} " if owner is not None else "") + _fmt_el(m[i, j], integer)
                  for j in range(m.shape[1])] for i in range(m.shape[0])]
        if mark is not None:
            cells = [[c if mark[i][j] is None else mark[i][j] for j, c in enumerate(r)] for i, r in enumerate(cells)]
        return table([""] + [f"{clab}{j}" for j in range(m.shape[1])],
                     [[f"{rlab}{i}"] + r for i, r in enumerate(cells)], right=set(range(1, m.shape[1] + 1)))

    def _a_text(self) -> str:
        f = self.form
        integer = formats.get(f.atype).integer
        comp = self.matrix("A'")
        owner = self.owner("A'")
        if not f.sparse:
            return (f"A {self.names['A']} ({comp.shape[0]} x {comp.shape[1]} .{f.atype}): value and lane\n"
                    + self._grid(comp, owner, "m", "k", integer))
        out = [f"A {self.names['A']}, compressed ({comp.shape[0]} x {comp.shape[1]} .{f.atype}): value and the "
               f"lane T# holding it; column j = stored element j of the row"]
        out.append(self._grid(comp, owner, "m", "j", integer))
        dense = self.matrix("A")
        cols = self.stored_columns()
        stored = np.zeros(dense.shape, bool)
        rows = np.arange(dense.shape[0])[:, None].repeat(cols.shape[1], 1)
        stored[rows[cols >= 0], cols[cols >= 0]] = True
        mark = [[None if stored[i, j] else "." for j in range(dense.shape[1])] for i in range(dense.shape[0])]
        out.append("")
        out.append(f"A, dense ({dense.shape[0]} x {dense.shape[1]}) as the metadata places the stored values "
                   f"('.' = not stored)")
        out.append(self._grid(dense, None, "m", "k", integer, mark))
        return "\n".join(out)

    def _e_text(self) -> str:
        f = self.form
        if not f.sparse:
            return "E: a dense mma has no metadata"
        e = self.rec.e
        lanes = self.meta_lanes
        out = [f"E {self.names['E']}, selector {self.selector} (metadata class {f.meta_class}): the selector reads "
               f"lanes {' '.join(map(str, lanes))}; the other lanes' e is ignored",
               "  per lane: e, then each 4-bit field: row m, chunk c and the code ('!' = invalid, '-' = unused)"]
        rows = []
        for lane in lanes:
            items = []
            for nib in reversed(range(8)):
                site = self.meta(lane, nib)
                if site is None:
                    items.append("-")
                    continue
                mrow, c = site
                q = (int(e[lane]) >> (4 * nib)) & 0xF
                items.append(f"m{mrow}c{c} {q:04b}{'!' if self.invalid[mrow, c] else ''}")
            rows.append([f"T{lane}", f"0x{int(e[lane]):08x}"] + items)
        out.append(table(["lane", "e"] + [f"[{4 * n + 3}:{4 * n}]" for n in reversed(range(8))], rows))
        cols = self.stored_columns()
        z = f.chunk[0]
        cells = []
        for mrow in range(self.codes.shape[0]):
            r = []
            for c in range(self.codes.shape[1]):
                ks = cols[mrow, c * z:(c + 1) * z]
                ktxt = ",".join(str(k) for k in ks) if (ks >= 0).all() else "?"
                r.append(f"{self.codes[mrow, c]:04b}{'!' if self.invalid[mrow, c] else ''} k{ktxt}")
            cells.append(r)
        out.append("")
        rule = "::ordered_metadata" if self.variant == "sp::ordered_metadata" else ".sp"
        nbad = int(self.invalid.sum())
        out.append(f"decoded: code and the dense columns it selects, per row m and chunk c "
                   f"({nbad} invalid for {rule}{'' if not nbad else ', marked !'})")
        out.append(table([""] + [f"c{c}" for c in range(self.codes.shape[1])],
                         [[f"m{i}"] + r for i, r in enumerate(cells)], right=set(range(1, self.codes.shape[1] + 1))))
        return "\n".join(out)


def _names(op) -> str:
    from isa.ptx.ast import Reg, Vec

    if isinstance(op, Vec):
        return "{" + ", ".join(getattr(x, "name", str(x)) for x in op.items) + "}"
    if isinstance(op, Reg):
        return op.name
    return str(op)


# ----------------------------------------------------------------------------- Tensor Memory


class TmemView(_Shown):
    """A CTA's Tensor Memory: allocations, then the allocated columns of the lanes asked for, in hex."""

    def __init__(self, tmem, lanes=range(0, 128, 32), columns: int = 8):
        self.t, self.lanes, self.columns = tmem, list(lanes), columns

    def text(self) -> str:
        t = self.t
        if not t.allocs:
            return f"Tensor Memory of CTA {t.cta}: nothing allocated"
        out = [f"Tensor Memory of CTA {t.cta}: 128 lanes x 512 columns; allocations (first column: columns): "
               + ", ".join(f"{c}: {n}" for c, n in sorted(t.allocs.items()))]
        for first, n in sorted(t.allocs.items()):
            cols = list(range(first, first + min(n, self.columns)))
            rows = []
            for lane in self.lanes:
                cells = [f"{int(t.cells[lane, c]):08x}" if t.defined[lane, c] else "--------" for c in cols]
                rows.append([f"lane {lane}"] + cells)
            more = f" (first {len(cols)} of {n})" if n > len(cols) else ""
            out.append(f"columns {first}..{first + n - 1}{more}; '--------' = not written since allocation")
            out.append(table([""] + [f"col {c}" for c in cols], rows))
        return "\n".join(out)


def short_path(path: str) -> str:
    return os.path.basename(path)
