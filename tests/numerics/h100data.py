"""Per-element view of the H100 float `mma.sp` traces, for model fitting (exact, numpy).

``load(family_glob)`` → list of ``Group``: per kernel of each trace, the stored A values and the dense column
each multiplies (``av``, ``kc``: N×M×K/2), B (N×K×Ncol), C (N×M×Ncol), as raw bits and float64 values,
and the recorded D bits (N×M×Ncol). Everything is derived through :mod:`isa.layouts` / :mod:`isa.sparsity`.
"""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass

import numpy as np

from isa import formats, layouts, sparsity
from warpsim import tracefile
from warpsim.tensorcore import resolve

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "h100")


@dataclass
class Group:
    trace: str
    name: str
    form: object
    variant: str
    selector: int
    a_bits: np.ndarray  # N, M, K/2
    kc: np.ndarray  # N, M, K/2
    b_bits: np.ndarray  # N, K, Ncol
    c_bits: np.ndarray  # N, M, Ncol
    d_bits: np.ndarray  # N, M, Ncol
    sel: np.ndarray  # instance indices in the trace

    def values(self):
        f = self.form
        return (formats.decode(f.atype, self.a_bits), formats.decode(f.btype, self.b_bits),
                formats.decode(f.ctype, self.c_bits))


def groups_of(path: str):
    tr = tracefile.read_trace(path)
    kidx = tr.arrays["kernel_index"]
    out = []
    for ki, kern in enumerate(tr.meta["kernels"]):
        sel = np.flatnonzero(kidx == ki)
        form, variant = resolve(kern["instruction"].split()[0])
        if form.is_integer:
            continue
        a, b, c, e, d = (tr.arrays[x][sel] for x in "abced")
        codes = sparsity.meta_codes(form, e[..., 0], kern["selector"])
        kc = sparsity.dense_columns(form, codes)
        out.append(Group(os.path.basename(path), f"{form.key} {variant} sel{kern['selector']}", form, variant,
                         kern["selector"], layouts.a_layout(form).unpack(a), kc, layouts.b_layout(form).unpack(b),
                         layouts.cd_layout(form, "C").unpack(c), layouts.cd_layout(form, "D").unpack(d), sel))
    return out


def load(pattern: str = "*", sub: str = "instruction"):
    res = []
    for p in sorted(glob.glob(os.path.join(ROOT, sub, pattern + ".npz"))):
        res += groups_of(p)
    return res
