"""Two warps of an s4 ILP 1 loop on one sub-partition started a set number of cycles apart: where the pair locks.

``traces/h100/loop_delay.json`` (``traces/capture/loop_delay.py``): the recorded timing kernels with a spin on
the clock before their operand loads (warps 0-3 spin 100 cycles, warps 4-7 spin D) and the start clock moved,
in the SASS, to after those loads, so each warp's start clock is its loop start; the code from the first load
on is the recorded SASS (checked by disassembly). Runs of 5 warps (one pair, warps 0 and 4) and 8 (four pairs)
with D from 0 to 500 cycles, 3 launches each. The loads return in a few clusters, so the loop-start offsets
(``offset``: warp w + 4's loop start less warp w's) fall between -145 and +155 cycles, not where D puts them.
``loop_delay_warm.json`` (``--warm``: each lane's operand sectors loaded before the spin, so the operand loads
hit the L1) reaches further, about -220 to +400.

A pair's ``lock`` is the offset of its end clocks (warp w + 4's less warp w's): after the first trip or two
it no longer moves, and it takes a few values only (:func:`locks` rounds them to 3 cycles). What the H100 shows
(5 warps, sp_s4_k64):

* the locks are +9 cycles (1.529 x one warp, or 1.50-1.52 after some trips elsewhere), +36 (1.476), -102 and
  +102 (1.394-1.397), -183 and +183 (1.380-1.386): in phase only with the older warp (w) ahead;
* the offset picks the lock by its sign as much as its size: every pair whose younger warp started 10 or more
  cycles first locks out of phase (-102, one at -183); started -9 to +22 cycles apart, +9 (103 of 106); 23-63
  apart, +9 or +36 (or +102 at 63); 64 or more, +102 or +183; in the warmed runs 183 apart from 114 to 320
  cycles, never in phase again;
* the same offset does not always give the same lock (at +63: 6 pairs at +102, 18 at +9 or +36), and with 8
  warps (four pairs) the locks spread more at each offset: the offset is not all that sets it.

sp_s4_k128 ILP 1 alike: in phase only at +15 (1.422), out of phase at -81 or +81 (1.371-1.373), -171 or +231.
dense_s4_k64 ILP 1 is in phase (+9, 1.336) from -156 to +252 cycles, and faster beyond (+207, 1.280).

sass_sim (the table) has no such asymmetry: two warps of a sub-partition are alike to it but for their turn, so
its map is mirrored (``replayed``): whichever warp leads, locked 33 cycles apart (1.507) for offsets up to 72
either way, 87 apart (1.396) at 73-117, 160 apart (1.384) at 120-210, and in phase again (1.49-1.50) from
about 240; it puts 224 of the 378 five-warp pairs within 2 % of the H100's time.

    python -m warpsim.timing.loop_delay                 # the H100's locks and the replay's, by offset
    python -m warpsim.timing.loop_delay '{"hold": 2}'   # the replay under table overrides (JSON)
"""
from __future__ import annotations

import collections
import os
import sys

import numpy as np

from warpsim.timing import measurement, sass_sim

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "h100", "loop_delay.json")
#: the same with every warp's operand sectors loaded before the spin (``loop_delay.py --warm``): offsets to +370
WARM = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "h100", "loop_delay_warm.json")
FORMS = ("sp_s4_k64", "sp_s4_k128", "dense_s4_k64")
TRIPS = 32


def load(path: str = DATA) -> dict:
    """The measurement file, checked: its rows and the build that made its kernels."""
    doc = measurement.load(path, "loop_delay.py --device", ("rows", "base", "build"))
    need = ("form", "warps", "delay", "repeat", "start", "end")
    for r in doc["rows"]:
        if any(k not in r for k in need) or len(r["start"]) != r["warps"] or len(r["end"]) != r["warps"]:
            raise ValueError(f"{path}: a row without {need} for each of its warps: {r}")
    return doc


def one_warp(form: str, doc: dict | None = None) -> float:
    """The median loop time of one warp alone (launches after the first)."""
    doc = doc or load()
    got = [r["end"][0] - r["start"][0] for r in doc["rows"] if (r["form"], r["warps"]) == (form, 1) and r["repeat"]]
    if not got:
        raise ValueError(f"no one-warp run of {form}")
    return float(np.median(got))


def pairs(form: str, warps: int = 5, doc: dict | None = None) -> list:
    """Every pair of sub-partition-sharing warps (w, w + 4) of the ``warps``-warp runs of ``form``:
    ``(offset, ratio, lock)``: loop starts' and end clocks' offsets (w + 4 less w), and the pair's mean loop
    time over one warp's."""
    doc = doc or load()
    one = one_warp(form, doc)
    out = []
    for r in doc["rows"]:
        if (r["form"], r["warps"]) != (form, warps):
            continue
        s, e = np.array(r["start"], np.int64), np.array(r["end"], np.int64)
        for w in range(min(4, warps - 4)):
            ws = [w, w + 4]
            if max(s[ws]) >= min(e[ws]):  # one warp's loop started after the other's ended: not a pair
                continue
            out.append((int(s[w + 4] - s[w]), float(np.mean(e[ws] - s[ws])) / one, int(e[w + 4] - e[w])))
    return out


def rounded(lock: int) -> int:
    """A lock to the nearest multiple of 3 cycles (the same lock measured a cycle or two apart)."""
    return 3 * round(lock / 3)


def locks(form: str, warps: int = 5, doc: dict | None = None) -> dict:
    """``{lock: (pairs, median ratio, least offset, greatest offset)}`` of :func:`pairs`, each lock
    :func:`rounded`."""
    by = collections.defaultdict(list)
    for off, ratio, lock in pairs(form, warps, doc):
        by[rounded(lock)].append((off, ratio))
    return {k: (len(v), float(np.median([r for _, r in v])), min(o for o, _ in v), max(o for o, _ in v))
            for k, v in sorted(by.items())}


def replayed(form: str, offsets, **overrides) -> dict:
    """``{offset: (ratio, lock)}``: two warps of ``form``'s ILP 1 loop on one sub-partition under the table
    (with ``overrides``), warp 4 starting ``offset`` cycles after warp 0 (before it if negative), 32 trips."""
    one = sass_sim.table_loop(f"{form}_ilp1", **overrides).trip_ends((1, 0, 0, 0), TRIPS)[0, -1]
    out = {}
    for off in sorted(set(offsets)):
        ends = sass_sim.table_loop(f"{form}_ilp1", **dict(overrides, stagger=int(off))).trip_ends((2, 0, 0, 0), TRIPS)
        start = np.array([max(0, -off), max(0, off)], np.int64)
        out[off] = (float(np.mean(ends[:, -1] - start)) / one, int(ends[1, -1] - ends[0, -1]))
    return out


def fit(form: str = "sp_s4_k64", warps: int = 5, doc: dict | None = None, **overrides) -> tuple[int, int]:
    """``(pairs whose replay from their own offset is within 2 % of the H100's time, pairs)``."""
    got = pairs(form, warps, doc)
    model = replayed(form, [o for o, _, _ in got], **overrides)
    return int(sum(abs(model[o][0] / r - 1) < 0.02 for o, r, _ in got)), len(got)


def table(form: str, warps: int = 5, doc: dict | None = None, **overrides) -> list[str]:
    """Lines: per offset bin of 10 cycles, the H100's locks (lock x pairs) and the replay's lock at the bin's
    pairs' median offset."""
    got = pairs(form, warps, doc)
    bins = collections.defaultdict(list)
    for off, _, lock in got:
        bins[10 * (off // 10)].append((off, rounded(lock)))
    model = replayed(form, [int(np.median([o for o, _ in v])) for v in bins.values()], **overrides)
    lines = []
    for lo, v in sorted(bins.items()):
        mid = int(np.median([o for o, _ in v]))
        hw = collections.Counter(k for _, k in v)
        cells = ", ".join(f"{k:+d} x{n}" for k, n in sorted(hw.items()))
        lines.append(f"  {lo:>5}..{lo + 9:<5} {len(v):>4}   {cells:<38} {mid:>5}: {model[mid][1]:+d} "
                     f"({model[mid][0]:.3f})")
    return lines


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    overrides = measurement.options(argv[0]) if argv else {}
    doc = load()
    for form in FORMS[:2]:
        print(f"{form} ILP 1, 5 warps: locks (end-clock offset of warp 4 less warp 0: pairs, median x one warp, "
              "loop-start offsets)")
        for lock, (n, ratio, lo, hi) in locks(form, 5, doc).items():
            print(f"  {lock:+5d}: {n:>4} pairs  {ratio:.3f}  started {lo:+d}..{hi:+d}")
        print("  loop-start offset, pairs, the H100's locks (lock x pairs); the replay's lock (x one warp) from "
              "the bin's median offset")
        print("\n".join(table(form, 5, doc, **overrides)))
        n, k = fit(form, 5, doc, **overrides)
        print(f"  replayed from their own offsets: {n} of {k} pairs within 2 %")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
