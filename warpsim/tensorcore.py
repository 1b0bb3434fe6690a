"""The warp-level sparse tensor core: ``mma_sp`` on raw lane registers, batched.

    d = warpsim.mma_sp("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                       a, b, c, e, selector=0)          # a: (N, 32, 2) uint32 ... d: (N, 32, 4)

A :class:`Plan` holds, for one (form, selector, arch), the index tables derived from
:mod:`isa.layouts` and the numerics parameters from :mod:`isa.numerics.models`; the numba kernel in
:mod:`warpsim.jit` does the rest. Undefined behaviour is checked first (``ub_policy="error"``) or
executed as the H100 executes it (``ub_policy="hardware"``).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from isa import formats, layouts, sparsity
from isa.errors import HardwareTrap, UndefinedBehavior
from isa.forms import DENSE, QUAD_4_8, TF32_1_2, FormError, MmaSpForm, parse_mods
from isa.numerics.dot import OUT_F16, OUT_F32
from isa.numerics.models import DotModel, model_for
from warpsim import jit

EMPTY_LUT = np.empty(0, dtype=np.float64)


def _owner_table(layout: layouts.FragmentLayout, transpose: bool = False) -> np.ndarray:
    """(3, rows, cols) int64: lane, register and bit shift of every matrix element."""
    inv = layout.inverse().astype(np.int64)
    t = np.stack([inv[..., 0], inv[..., 1], inv[..., 2] * layout.bits])
    return np.ascontiguousarray(t.transpose(0, 2, 1) if transpose else t)


def _lut(fmt: str, container: bool) -> np.ndarray:
    """float64 value of every pattern of an element format up to 16 bits (8-bit containers for .kind::f8f6f4)."""
    f = formats.get(fmt)
    if f.bits > 16:
        return EMPTY_LUT
    if not container or f.bits == 8:
        return formats.decode(f, np.arange(1 << f.bits))
    pats = np.arange(256)
    # ptx-mma-sp.md §3: e2m1 sits in bits [5:2] of its byte, e3m2/e2m3 in bits [5:0]; pad bits ignored (assumption)
    field = (pats >> 2) & 0xF if fmt == "e2m1" else pats & 0x3F
    return formats.decode(f, field)


def _low(fmt: str) -> int:
    if fmt == "s32":
        return -1
    return (1 << formats.get(fmt).low_ignored) - 1 if fmt in ("tf32", "f32") else 0


@dataclass(frozen=True, eq=False)
class Plan:
    form: MmaSpForm
    variant: str
    selector: int
    model: DotModel
    tables: tuple  # fa, sa, tm, fb, sb, fc, sc, dsrc, dpos (see warpsim.jit.mma_batch)
    luts: tuple
    decs: np.ndarray
    lows: np.ndarray
    masks: np.ndarray
    emin_pows: np.ndarray
    emin_pows_pair: np.ndarray

    def run(self, a, b, c, e, sa=None, sb=None) -> np.ndarray:
        n = a.shape[0]
        d = np.empty((n, 32, self.form.regs["d"]), dtype=np.uint32)  # every register is written (jit.mma_batch)
        if sa is None:
            sa = sb = _NO_SCALES
        jit.mma_batch(a.reshape(n, -1), b.reshape(n, -1), c.reshape(n, -1), e, *self.tables, *self.numerics,
                      sa, sb, self.scale_blk, 0, d.reshape(n, -1))
        return d

    @cached_property
    def numerics(self) -> tuple:
        """The arguments of jit.mma_batch between the tables and the scales: formats, pattern and rounding."""
        f, mdl = self.form, self.model
        pattern = {TF32_1_2: jit.PAT_1_2, QUAD_4_8: jit.PAT_4_8, DENSE: jit.PAT_DENSE}.get(f.pattern, jit.PAT_2_4)
        fp8 = f.atype in ("e4m3", "e5m2") and f.kind is None
        pair = fp8 and f.sparse and mdl.fp8_sparse == "hmma_pair"
        out_frac = (mdl.fp8_out_bits or 23) if fp8 and not pair else 23
        align = mdl.align_bits if pair else mdl.align_for(f.atype)
        return (self.decs, *self.luts, self.lows, self.masks, self.emin_pows_pair if pair else self.emin_pows,
                pattern, f.chunk[0], f.shape.k, f.is_integer, f.satfinite, align, mdl.group or 0,
                OUT_F16 if f.dtype == "f16" else OUT_F32, out_frac, pair)

    @cached_property
    def scale_blk(self) -> int:
        f = self.form
        return f.shape.k // layouts.scale_blocks(f) if f.block_scaled else 0


_NO_SCALES = np.ones((1, 1, 1))


@dataclass(frozen=True, eq=False)
class InPlace:
    """A :class:`Plan` bound to the registers of one ``mma`` instruction: its tables index a warp's 32-bit
    register bank (``RegFile.banks``, registers x lanes) directly, so one call gathers A, B, C and the
    metadata from the bank and writes D into it (no per-register reads or writes)."""

    plan: Plan
    tables: tuple  # Plan.tables with every word index a bank index (row · 32 + lane)
    valid: int  # bit q set: metadata code q is valid (0: dense, no check)

    @cached_property
    def args(self) -> jit.InPlaceArgs:
        """jit.mma_in_place's arguments after the bank: the tables, numerics and a workspace, kept together."""
        return jit.in_place_args(self.tables, self.plan.numerics, self.valid)

    def run(self, flat: np.ndarray) -> bool:
        """D from and into the bank ``flat`` (``bank.reshape(1, -1)``); False (nothing written) when a metadata
        code is invalid."""
        entry = self.__dict__.get("_entry")
        if entry is None:
            entry = self.__dict__["_entry"] = jit.in_place_entry(flat, self.args)
        return entry(flat, self.args)


def bind(pl: Plan, rows_a, rows_b, rows_c, row_e: int, rows_d) -> InPlace:
    """``pl`` on the bank rows of the instruction's registers (rows_x[k]: the row of register k of x)."""
    fa, sa, tm, fb, sb, fc, sc, dsrc, dpos = pl.tables

    def remap(flat, rows):  # lane · nregs + reg → row · 32 + lane
        rows = np.asarray(rows, dtype=np.uint64)
        n = np.uint64(len(rows))
        return np.ascontiguousarray(rows[flat % n] * np.uint64(32) + flat // n)

    tm_bank = tm.copy()
    tm_bank[0] += 32 * row_e
    form = pl.form
    valid = _valid_mask(form, pl.variant) if form.sparse else 0
    tables = (remap(fa, rows_a), sa, tm_bank, remap(fb, rows_b), sb, remap(fc, rows_c), sc, dsrc,
              remap(dpos, rows_d))
    return InPlace(pl, tables, valid)


def _flat(layout: layouts.FragmentLayout, transpose: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(flat word index ``lane · nregs + reg``, bit shift) of every matrix element, from the layout's inverse.
    The indices are unsigned: numba then skips the negative-index wraparound on every load."""
    t = _owner_table(layout, transpose)
    return np.ascontiguousarray(t[0] * layout.nregs + t[1]).astype(np.uint64), np.ascontiguousarray(t[2])


def _decoder(fmt: str, container: bool) -> int:
    if fmt == "f16":
        return jit.DEC_F16
    if fmt == "bf16":
        return jit.DEC_BF16
    if fmt in ("f32", "tf32"):
        return jit.DEC_F32
    if fmt == "s32":
        return jit.DEC_S32
    return jit.DEC_LUT


def _emin_pow(fmt: str) -> float:
    """2^emin: the alignment exponent of the format's subnormals (its smallest normal exponent)."""
    f = formats.get(fmt)
    return 1.0 if f.integer else 2.0 ** (1 - f.bias)


@lru_cache(maxsize=None)
def plan(form: MmaSpForm, variant: str, selector: int, arch: str) -> Plan:
    if form.shape.n != 8:  # the row kernel (isa.numerics.dot.fused_row) is 8 columns wide, as every PTX shape
        raise FormError(f"{form.key}: N = {form.shape.n}; the tensor-core kernels take N = 8")
    if form.sparse:
        ml = layouts.meta_layout(form, selector)
        tm = np.stack([ml.lane_of, 4 * ml.nibble_of]).astype(np.int64)
    else:  # dense: every column is stored in order; the metadata codes are never consulted
        tm = np.zeros((2, form.shape.m, form.shape.k), dtype=np.int64)
    container = form.kind in ("f8f6f4", "mxf8f6f4")
    fmts = (form.atype, form.btype, form.ctype)
    luts = tuple(_lut(x, container and x != form.ctype) if _decoder(x, container) == jit.DEC_LUT else EMPTY_LUT
                 for x in fmts)
    cd = layouts.cd_layout(form)
    dl = layouts.cd_layout(form, "D")
    rows, cols = dl.tables  # (lane, reg, elem) → (m, n)
    dsrc = np.ascontiguousarray((rows * form.shape.n + cols).reshape(32 * dl.nregs, dl.epr).astype(np.uint64))
    tables = (*_flat(layouts.a_layout(form)), tm, *_flat(layouts.b_layout(form)), *_flat(cd), dsrc,
              np.arange(len(dsrc), dtype=np.uint64))
    masks = np.array([(1 << form.element_bits) - 1, (1 << form.element_bits) - 1,
                      (1 << (16 if form.ctype == "f16" else 32)) - 1], dtype=np.int64)
    return Plan(form, variant, selector, model_for(arch), tables, luts,
                np.array([_decoder(x, container) for x in fmts], dtype=np.int64),
                np.array([_low(x) for x in fmts], dtype=np.int64), masks,
                np.array([_emin_pow(x) for x in fmts]),
                # sm_90 fp8 mma.sp runs as f16 HMMAs: the operands are f16 values there (exact conversion)
                np.array([_emin_pow("f16"), _emin_pow("f16"), _emin_pow(form.ctype)]))


def resolve(instruction) -> tuple[MmaSpForm, str]:
    """An instruction string (``mma.sp.sync...``), a form key, or a (form, variant) pair."""
    if isinstance(instruction, tuple):
        return instruction
    if isinstance(instruction, MmaSpForm):
        return instruction, "sp::ordered_metadata"
    text = instruction.strip()
    mods = text.split(".")[1:] if text.startswith("mma.") else None
    if mods is None:
        from isa.forms import BY_KEY
        if text in BY_KEY:
            return BY_KEY[text], "sp::ordered_metadata"
        raise FormError(f"not an mma.sp instruction or form key: {text!r}")
    return parse_mods(mods)


def check_selector(form: MmaSpForm, selector: int, policy: str, where: str = "") -> None:
    if selector in form.selectors:
        return
    if selector in form.extra_selectors:
        if policy == "hardware":
            raise HardwareTrap(f"{where + ': ' if where else ''}sparsity selector {selector} on {form.key}: "
                               f"the H100 raises cudaErrorIllegalInstruction (ptx-mma-sp.md §5.3)")
        raise UndefinedBehavior(f"sparsity selector {selector} is outside {list(form.selectors)} for {form.key} "
                                f"(PTX ISA §9.7.14.6.3; ptxas accepts it, the H100 traps)", value=selector, where=where)
    raise FormError(f"sparsity selector {selector} is not accepted for {form.key}: must be one of {list(form.selectors)}")


def mma_sp(instruction, a, b, c, e=None, *, selector: int = 0, arch: str = "sm_90a", ub_policy: str = "error",
           scale_a=None, scale_b=None, byte_id_a: int = 0, thread_id_a: int = 0,
           byte_id_b: int = 0, thread_id_b: int = 0, where: str = "") -> np.ndarray:
    """Run ``N`` warp-level ``mma.sp`` instances (or dense ``mma.sync``: no ``e``) on raw registers.

    ``a (N,32,nA)``, ``b (N,32,nB)``, ``c (N,32,nC)`` and ``e (N,32)`` uint32 (a single instance
    may drop the leading N). Returns ``d (N,32,nD)`` uint32. Scale operands (block-scaled kinds):
    ``scale_a``/``scale_b`` (N,32) uint32 registers with their byte-id/thread-id selectors.
    """
    form, variant = resolve(instruction)
    single = np.asarray(a).ndim == 2
    a, b, c = (np.ascontiguousarray(np.asarray(x, dtype=np.uint32).reshape((-1, 32, x.shape[-1])))
               for x in (np.asarray(a), np.asarray(b), np.asarray(c)))
    if e is None:
        if form.sparse:
            raise FormError(f"{form.key}: the metadata registers e are required")
        e = np.zeros((a.shape[0], 32), dtype=np.uint32)
    e = np.ascontiguousarray(np.asarray(e, dtype=np.uint32).reshape((-1, 32)))
    for name, x, want in (("a", a, form.regs["a"]), ("b", b, form.regs["b"]), ("c", c, form.regs["c"])):
        if x.shape[-1] != want:
            raise FormError(f"{form.key}: operand {name} needs {want} registers per lane, got {x.shape[-1]}")
    if form.sparse:
        check_selector(form, selector, ub_policy, where)
        # ub_policy="hardware" runs every code as the H100 does; otherwise a fast scan, and the full
        # check (with its message) only when a code is invalid
        if ub_policy != "hardware" and not jit.codes_valid(e, plan(form, variant, selector, arch).tables[2],
                                                           _valid_mask(form, variant)):
            codes = sparsity.meta_codes(form, e, selector)  # a single warp's message names no instance
            sparsity.check_codes(form, variant, codes[0] if single else codes, selector, where=where, policy=ub_policy)
    sa = sb = None
    if form.block_scaled:
        sa, sb = _scales(form, scale_a, scale_b, byte_id_a, thread_id_a, byte_id_b, thread_id_b, a.shape[0])
    d = plan(form, variant, selector, arch).run(a, b, c, e, sa, sb)
    return d[0] if single else d


@lru_cache(maxsize=None)
def _valid_mask(form: MmaSpForm, variant: str) -> int:
    return sum(1 << q for q in sparsity.valid_codes(form, variant))


def _scales(form, scale_a, scale_b, byte_a, tid_a, byte_b, tid_b, n):
    """Scale registers → per-(row, block) and per-(col, block) float64 factors [CUTE layouts; spec-only]."""
    if scale_a is None or scale_b is None:
        raise FormError(f"{form.key} is block-scaled: scale_a and scale_b registers are required")
    blocks = layouts.scale_blocks(form)
    sa_r = np.asarray(scale_a, dtype=np.uint32).reshape(-1, 32)
    sb_r = np.asarray(scale_b, dtype=np.uint32).reshape(-1, 32)
    sa = np.empty((n, form.shape.m, blocks))
    sb = np.empty((n, form.shape.n, blocks))
    for blk in range(blocks):
        for m in range(form.shape.m):
            lane, byte = layouts.scale_a_site(form, m, blk, tid_a, byte_a)
            sa[:, m, blk] = formats.decode(form.stype, (sa_r[:, lane] >> (8 * byte)) & 0xFF)
        for col in range(form.shape.n):
            lane, byte = layouts.scale_b_site(form, col, blk, tid_b, byte_b)
            sb[:, col, blk] = formats.decode(form.stype, (sb_r[:, lane] >> (8 * byte)) & 0xFF)
    return sa, sb
