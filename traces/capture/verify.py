#!/usr/bin/env python3
"""Validate a folder of traces and sanity-check the instruction traces against an exact reference.

    python traces/capture/verify.py traces/h100

Every ``*.npz`` must pass ``read_trace`` (schema, shapes, dtypes, SHA-256). Then, per instruction
trace (reference.py, written from the PTX ISA layouts, independent of warpsim's ``isa``):

* integer families (all classes, UB traces too): D must equal sat/wrap(C + sum of stored products)
  bit for bit;
* float families, classes ``normal`` and ``cancel`` and the UB traces (tf32 UB rows excluded): |D - ref|
  must be below 2^-18 (f32 out) or 2^-9 (f16 out) times |C| + sum |a*b| -- a layout check, not a numerics
  model.

Prints one line per trace and exits non-zero on any failure.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import forms  # noqa: E402
import reference  # noqa: E402

_spec = importlib.util.spec_from_file_location("warpsim_tracefile", HERE.parent.parent / "warpsim" / "tracefile.py")
tracefile = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("warpsim_tracefile", tracefile)
_spec.loader.exec_module(tracefile)

FLOAT_CHECKED = ("normal", "cancel", "ub")


def check_instruction(t) -> tuple[str, int, int]:
    """(status, checked elements, mismatching elements)."""
    fam = forms.FAMILY[t.meta["family"]]
    cls = t.meta["class"]
    if not fam.integer and cls not in FLOAT_CHECKED:
        return "valid (float class not reference-checked)", 0, 0
    kernels = t.meta["kernels"]
    kidx = t["kernel_index"]
    checked = bad = 0
    for ki, k in enumerate(kernels):
        sel = kidx == ki
        if not sel.any():
            continue
        a, b, c, e, d = (t[x][sel] for x in "abced")
        ref, defined = reference.reference_d(fam, k, a, b, c, e)
        got = reference.d_matrix(fam, d)
        if fam.integer:
            ok = got == ref
        else:
            mag = reference.magnitude(fam, k, a, b, c, e)
            tol = (2.0 ** -9 if fam.ctype == "f16" else 2.0 ** -18) * mag + 2.0 ** -24
            with np.errstate(invalid="ignore", over="ignore"):
                finite = np.isfinite(ref) & np.isfinite(mag)
                ok = ~finite | (np.abs(got - ref) <= tol)
                if fam.ctype == "f16":  # f16 results overflow to inf where f64 does not
                    ok |= np.isinf(got) & (np.abs(ref) > 65504)
        ok = ok | ~defined
        checked += int(defined.sum())
        bad += int((~ok).sum())
    return ("OK" if bad == 0 else "MISMATCH"), checked, bad


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    root = Path(argv[0] if argv else HERE.parent / "h100")
    files = sorted(root.rglob("*.npz"))
    if not files:
        print(f"no .npz files under {root}")
        return 1
    failures = 0
    print(f"{'file':52s} {'kind':12s} {'status':44s} {'checked':>8s} {'bad':>6s}")
    for p in files:
        try:
            t = tracefile.read_trace(p)
        except tracefile.TraceError as exc:
            print(f"{str(p.relative_to(root)):52s} {'?':12s} INVALID: {exc.what}")
            failures += 1
            continue
        status, n, bad = "valid", 0, 0
        if t.kind == "instruction":
            status, n, bad = check_instruction(t)
        if t.kind == "program" and "out_D" in t and t.launch["kernel"].startswith("mmasp_"):
            # a capture kernel run as a program: same check as its instruction trace
            fam = forms.FAMILY[t.meta["family"]]
            k = t.meta["kernel_info"]
            a, b, c, e = (t[f"in_{x}"] for x in "ABCE")
            d = t["out_D"]
            ref, _ = reference.reference_d(fam, k, a, b, c, e)
            got = reference.d_matrix(fam, d)
            if fam.integer:
                bad = int((got != ref).sum())
            else:
                mag = reference.magnitude(fam, k, a, b, c, e)
                bad = int((np.abs(got - ref) > 2.0 ** -18 * mag + 2.0 ** -24).sum())
            n = got.size
            status = "OK" if bad == 0 else "MISMATCH"
        if bad:
            failures += 1
        print(f"{str(p.relative_to(root)):52s} {t.kind:12s} {status:44s} {n:8d} {bad:6d}")
    print(f"{len(files)} files, {failures} failing")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
