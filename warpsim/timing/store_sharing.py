"""What the per-trip clock store costs, and what it does to the other warps (``traces/h100/trips/store_sharing.json``,
``traces/capture/store_sharing.py``), run by the H100 and by warpsim's timed engine from the same PTX.

The ILP-1 trips kernels (8 dependent mma a trip, then lane 0 reads ``%clock64`` and stores it) with only the
trip's store changed: ``base`` (``st.global``), ``nost`` (the clock xor-ed into a register, no store in the loop),
``shared`` (``st.shared``), ``predoff`` (the ``st.global`` predicated off in every lane) and ``split`` (warps 0-3
run base's loop, warps 4.. nost's: one storing warp a sub-partition beside warps that store nothing). 4-16 warps, 32
trips. The capture script's ``variant`` makes each kernel from the recorded timing trace's PTX; warpsim runs that
text.

    python -m warpsim.timing.store_sharing [FILE]    # the H100's cycles beside warpsim's (default: the H100 file)
"""
from __future__ import annotations

import functools
import importlib.util
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
PATH = os.path.join(REPO, "traces", "h100", "trips", "store_sharing.json")
CAPTURE = os.path.join(REPO, "traces", "capture", "store_sharing.py")
FORMS = ("sp_f16_k16_f32", "dense_f16_k16_f32", "sp_f16_k32_f32")
VARIANTS = ("base", "nost", "shared", "predoff", "split")
WARPS = (4, 8, 12, 16)
REPS = 32


def load(path: str = PATH) -> dict:
    from warpsim.timing import measurement
    doc = measurement.load(path, "store_sharing", ("how",) + FORMS)
    for form in FORMS:
        for kind in VARIANTS:
            for w in WARPS:
                x = (doc[form].get(kind) or {}).get(str(w)) or {}
                start, end = measurement.shape(x.get("start")), measurement.shape(x.get("end"))
                if start != end or len(start) != 2 or start[1] != w:
                    raise ValueError(f"{path}: {form} {kind} with {w} warps has no start and end clocks of "
                                     f"{w} warps a launch")
    return doc


@functools.lru_cache(maxsize=None)
def _capture():
    spec = importlib.util.spec_from_file_location("store_sharing_capture", CAPTURE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@functools.lru_cache(maxsize=None)
def _trace(form: str):
    from warpsim import tracefile
    return tracefile.read_trace(os.path.join(REPO, "traces", "h100", "timing", f"{form}.npz"))


@functools.lru_cache(maxsize=None)
def ptx(form: str, kind: str) -> str:
    """The PTX the H100 ran for ``kind`` of ``form`` (the capture script's ``variant`` of the recorded trace's)."""
    return _capture().variant(_trace(form).ptx, form, kind)


def groups(cycles) -> tuple[float, float]:
    """``(warps 0-3, warps 4..)``: the mean of each group's cycles (nan for an empty group)."""
    c = np.asarray(cycles, dtype=np.float64)
    return float(c[:4].mean()), (float(c[4:].mean()) if len(c) > 4 else float("nan"))


def measured(doc: dict) -> dict:
    """``{(form, kind, warps): (warps 0-3, warps 4..)}``: each warp's cycles (its end clock less its start), the
    median over the launches after the first (cold) one, then the mean of each group."""
    out = {}
    for form in FORMS:
        for kind in VARIANTS:
            for w in WARPS:
                x = doc[form][kind][str(w)]
                cyc = np.array(x["end"][1:], np.int64) - np.array(x["start"][1:], np.int64)
                out[(form, kind, w)] = groups(np.median(cyc, axis=0))
    return out


def simulate(form: str, kind: str, warps: int, params=None) -> np.ndarray:
    """Each warp's cycles in warpsim (the H100's table, or ``params``)."""
    import warpsim
    fn = warpsim.RawModule(code=ptx(form, kind), timing=True, timing_params=params).get_function(f"trips_{form}_ilp1")
    ts, te = np.zeros(16, np.uint64), np.zeros(16, np.uint64)
    fn((1,), (32 * warps,), (_trace(form).arrays["input"].copy(), ts, te, np.zeros(16, np.uint32),
                             np.zeros(32 * warps * 16 * 4, np.uint32), np.int32(REPS)))
    return te[:warps].astype(np.int64) - ts[:warps].astype(np.int64)


def table(doc: dict | None = None, params=None, kinds=VARIANTS) -> list[dict]:
    """Per form, variant and warp count: the H100's groups and warpsim's."""
    got = measured(doc or load())
    rows = []
    for form in FORMS:
        for kind in kinds:
            for w in WARPS:
                sim = groups(simulate(form, kind, w, params))
                rows.append({"form": form, "kind": kind, "warps": w, "gpu": got[(form, kind, w)], "warpsim": sim})
    return rows


def main(argv=None) -> int:
    from warpsim.timing import measurement
    doc = measurement.opened(argv, __doc__, load, PATH)
    if doc is None:
        return 0
    print(f"{'form':18} {'variant':8} {'warps':>5} {'group':>6} {'H100':>9} {'warpsim':>9} {'error':>7}")
    for r in table(doc):
        for g, name in ((0, "0-3"), (1, "4..")):
            h, s = r["gpu"][g], r["warpsim"][g]
            if not np.isnan(h):
                print(f"{r['form']:18} {r['kind']:8} {r['warps']:5} {name:>6} {h:9.0f} {s:9.0f} "
                      f"{100 * (s / h - 1):+6.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
