"""The H200 runs the H100's timing kernels in the H100's cycles (``traces/h200/timing_again.json``).

The H200 is the H100's GH100 chip with more and faster memory (HBM3e, 132 SMs, 1,980 MHz, 60 MB of L2 as the
driver reports it). Every timing trace of ``traces/h100/timing`` was recorded again on an H200
(``traces/capture/capture.py`` with the recorded inputs, ``--timing-input-from``, and the options each trace
was recorded with: the sparse fp8 ones after the L1 reset), and each configuration's cycles (the median over
the launches after the first of the warps' mean end - start, as ``warpsim replay`` measures them) set beside
the H100's. They agree: the sm_90 table stands for both chips, and a kernel timed on the H200
(``warpsim.timing.spgemm_clock``) checks the H100's model. Where they differ most is the one-warp runs of 4
trips, whose time is mostly the prologue's global loads (the memory, which the chips do not share).

    python -m warpsim.timing.h200 [FILE]    # H200 against H100, trace by trace

The file is written by :func:`write` from the capture folders (``capture.py --out``) of the H200's runs.
"""
from __future__ import annotations

import glob
import json
import os

import numpy as np

from warpsim import tracefile
from warpsim.replay_timing import configurations, launches

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(HERE, "..", "..", "traces", "h200", "timing_again.json")
H100 = os.path.join(HERE, "..", "..", "traces", "h100", "timing")


def cycles(path: str) -> dict:
    """``{"ilp,warps,reps": [cycles of each launch after the first]}`` of a timing trace, as ``warpsim replay``
    measures a launch (the warps' mean end - start)."""
    tr = tracefile.read_trace(path)
    return {f"{i},{w},{r}": launches(tr, i, w, r) for i, w, r in configurations(tr)}


def write(folders: list, path: str = PATH) -> None:
    """:data:`PATH` from the timing traces under the capture folders ``folders`` (``capture.py --out``, each
    with its ``device.json``), written atomically."""
    with open(os.path.join(folders[0], "device.json")) as fh:
        record = json.load(fh)
    dev, day = record["device"], record["created"][:10]
    how = (f"traces/capture/capture.py --skip-instr --skip-ub --skip-programs --timing-input-from "
           f"traces/h100/timing on an {dev['name']} ({dev['clock_rate_khz'] // 1000} MHz, {dev['sm_count']} SMs, "
           f"driver {dev['driver']}, CUDA {dev['cuda']}, CuPy {dev['cupy']}), {day}: the sparse fp8 traces with "
           f"--timing-warmup runs --timing-before l1-reset --timing-repeats 5,4 (as recorded on the H100), the "
           f"others with the defaults; per configuration \"ilp,warps,reps\" the cycles of each launch after the "
           f"first (the warps' mean end - start)")
    files = sorted(f for d in folders for f in glob.glob(os.path.join(d, "timing", "*.npz")))
    doc = {"how": how, "traces": {os.path.basename(f)[:-4]: cycles(f) for f in files}}
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(json.dumps(doc, indent=0) + "\n")
    os.replace(tmp, path)


def load(path: str = PATH) -> dict:
    from warpsim.timing import measurement
    doc = measurement.load(path, "timing_again", ("how", "traces"))
    if not doc["traces"] or any(not runs for runs in doc["traces"].values()):
        raise ValueError(f"{path}: no traces, or a trace without runs")
    return doc


def compare(doc: dict | None = None, folder: str = H100) -> dict:
    """``{trace: {"ilp,warps,reps": H200 / H100 - 1}}`` (medians of the launches)."""
    doc = doc or load()
    out = {}
    for name, runs in sorted(doc["traces"].items()):
        h100 = cycles(os.path.join(folder, f"{name}.npz"))
        out[name] = {k: float(np.median(v) / np.median(h100[k]) - 1) for k, v in runs.items() if k in h100}
    return out


def main(argv=None) -> int:
    from warpsim.timing import measurement
    doc = measurement.opened(argv, __doc__, load, PATH)
    if doc is None:
        return 0
    every = []
    for name, diffs in compare(doc).items():
        d = np.array(list(diffs.values()))
        every += list(d)
        worst = max(diffs, key=lambda k: abs(diffs[k]))
        print(f"{name:24} {len(d):3} configurations  median {100 * np.median(d):+.2f} %  within 1 % "
              f"{np.sum(np.abs(d) <= 0.01):3}  worst {worst} {100 * diffs[worst]:+.2f} %")
    e = np.abs(np.array(every))
    print(f"all: {len(e)} configurations, {np.sum(e <= 0.01)} within 1 %, {np.sum(e <= 0.05)} within 5 %, "
          f"median |H200 / H100 - 1| {100 * np.median(e):.2f} %, max {100 * e.max():.2f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
