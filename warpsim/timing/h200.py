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
"""
from __future__ import annotations

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(HERE, "..", "..", "traces", "h200", "timing_again.json")
H100 = os.path.join(HERE, "..", "..", "traces", "h100", "timing")


def cycles(arrays) -> dict:
    """``{"ilp,warps,reps": [cycles of each launch after the first]}`` of a timing trace's arrays (its npz)."""
    got: dict = {}
    for r in range(len(arrays["run_ilp"])):
        if arrays["run_repeat"][r] == 0:
            continue
        w = int(arrays["run_warps"][r])
        key = f"{int(arrays['run_ilp'][r])},{w},{int(arrays['run_reps'][r])}"
        got.setdefault(key, []).append(float(np.mean(arrays["end"][r, :w].astype(float) - arrays["start"][r, :w])))
    return got


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
        h100 = cycles(np.load(os.path.join(folder, f"{name}.npz")))
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
