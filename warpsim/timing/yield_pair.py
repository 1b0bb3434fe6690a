"""Two warps of a sub-partition, both on the ALU, yielding once a block: who goes after a yield
(``traces/h100/yield_pair.json``, ``traces/capture/yield_pair.py``).

Warps 0 and 4 each run 32 blocks of a clock read and n independent LOP3 at stall count 2 (2n + 2 cycles a block
alone). Variants ``"a/b"`` (n = 6): the yield flag on each block's 6th LOP3 (``6``), its 3rd (``3``) or none
(``-``) in warp 0's / warp 4's blocks; ``len<n>``: each block's last LOP3 yielding in both warps, n = 2-12;
``6/6+<k>``: ``6/6`` with warp 4's code k instructions further down its 128-byte lines (k = 1-7), warp 0's where
it was; ``len<n>s<m>``: blocks of n LOP3 at stall count m (3, 4, 6) instead of ptxas's 2; ``6/6w``: ``6/6``'s blocks
run twice in a loop, the second pass stamped (its code cached by the first). What the H100 does:

* **a warp often keeps the turn through the first yield after it takes the turn, and hardly ever through the
  next**: with the yield at each block's end the blocks do not interleave (83-100 % of the stamps a block's length
  after the one before, whoever runs), and a warp runs one block or two. Of the first yields after taking the turn,
  the share that pass it moves with the block's length and not monotonically (warp 0 / warp 4: n = 2 8 / 0 %, 3 0 /
  7 %, 4 68 / 67 %, 5 64 / 68 %, 6 55 / 30 %, 7 22 / 14 %, 8 99 / 54 %, 9-10 100 / 75-80 %, 12 100 / 100 %); the
  second passes it (of 2,441 in ``6/6`` every one; with n = 4-12 and in the moved layouts 19 kept it of 4,627,
  17 of them warp 4's with its code moved 7 instructions), and with n = 2 or 3 the third;
* **where n is 6 or more the younger warp (4) keeps the turn more often**: n = 6 70 % of its first yields against
  45 %, with its code moved by 1-7 instructions 57-73 % against 42-62 %, n = 7 86 % against 78 %, n = 8-10 20-46 %
  against 0-1 % (n = 3-5: alike, or the older more). So with n = 6 it finishes first (``6/6``: its 32nd block
  starts 92 cycles before the older's, the median over launches), as in ``age_swap``;
* what decides a first yield is not found: not the clock's phase, and not where the two warps' next instructions
  lie in their code lines: by those slots the first yields of one layout fall in cells that pass nearly always
  or nearly never (``6/6``: 99 %), but with warp 4's code moved only half the cells shared with ``6/6`` agree
  (82 of 163, :func:`slots_kept`): within a layout the slot stands for the block, not for a rule;
* a warp that never yields keeps the turn to its last block, whichever warp it is (``6/-`` and ``-/6``: 121 of
  122 launches each, in the first the other warp gets a block in);
* **at a stall count of 3 or more the blocks interleave** (``len<n>s<m>``: 0-5 % whole): the waiting warp issues
  in the turn's warp's stall counts from 3 on (as ``gap_stall``'s FFMA hog does), and at 2 it does not. There
  the replay follows (its 32nd blocks within 1 % of the H100's at stall 4 and 6, 7-10 % early at 3). A warp that
  has not yielded does issue in stall-2 gaps (``fill_probe``); with the code cached (``6/6w``) the blocks are
  still 89 % whole and the first yields pass as before (58 / 36 %), so what holds the waiting warp is its yield,
  not its code's fetch.

The table passes the turn at every yield, and lets the waiting warp issue its clock read in the turn's warp's
stall (``gap_turn`` takes the turn with it): its blocks interleave (2-29 % whole), where the H100's do not
(:func:`table`).

    python -m warpsim.timing.yield_pair      # pass rates and last block starts, the H100 and the replay
"""
from __future__ import annotations

import collections
import os
import sys

import numpy as np

from warpsim.timing import measurement, sass_sim

PATH = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "h100", "yield_pair.json")


def load(path: str = PATH) -> dict:
    doc = measurement.load(path, "yield_pair", ("rows", "loops"))
    loops = doc["loops"]
    if set(loops.get("loops", ())) != set(loops.get("variants", ())) or not doc["rows"] or \
            any(len(r.get("w0", ())) != loops.get("blocks", 0) + 1 or len(r.get("w4", ())) != len(r["w0"])
                for r in doc["rows"]):
        raise ValueError(f"{path}: variants without loops, no runs, or a run without a clock per block")
    return doc


def events(row: dict) -> list:
    """``[(cycle, warp, block)]``: the block starts of a launch's two warps (0 and 4), in the order they came."""
    return sorted([(t, 0, k) for k, t in enumerate(row["w0"][:-1])] + [(t, 4, k) for k, t in enumerate(row["w4"][:-1])])


def order(row: dict) -> str:
    """The warps ("0" / "4") of a launch's blocks in the order they started."""
    return "".join(str(w) for _t, w, _k in events(row))


def runs(row: dict) -> list:
    """``[(warp, blocks)]``: the launch's blocks as runs of one warp, the last two (a warp alone) left out."""
    out: list = []
    for w in order(row):
        if out and out[-1][0] == w:
            out[-1][1] += 1
        else:
            out.append([w, 1])
    return [tuple(x) for x in out[:-2]]


def passes(rows: list) -> dict:
    """``{(warp, k): (yields, passed)}``: of each warp's k-th yield after taking the turn (k = 1, 2, ...), how many
    passed it on, in ``rows`` (launches of a variant whose yields end its blocks, or their replays)."""
    got: dict = collections.defaultdict(lambda: [0, 0])
    for r in rows:
        for w, n in runs(r)[1:]:  # the first run starts with the launch, not with a pass
            for k in range(1, n + 1):
                got[(w, k)][0] += 1
                got[(w, k)][1] += k == n
    return {k: tuple(v) for k, v in sorted(got.items())}


def by_slots(doc: dict, variant: str) -> dict:
    """``{(warp, s, o): (first yields, passed)}``: ``warp``'s first yields after taking the turn in ``variant``'s
    launches, by the slot (16-byte instruction, 0-7) in its 128-byte code line of the yielder's next instruction
    (``s``) and of the other warp's (``o``): each warp's next block's clock read (``loops.w<k>_blocks``)."""
    code = doc["loops"]["loops"][variant]
    got: dict = collections.defaultdict(lambda: [0, 0])
    for r in launches(doc, variant):
        ev = events(r)
        for i in range(1, len(ev) - 1):
            _t, w, k = ev[i]
            if ev[i - 1][1] == w:
                continue  # not the first block since the warp took the turn
            other = [e for e in ev[i + 1:] if e[1] != w]
            if not other or k + 1 >= len(code[f"w{w}_blocks"]):
                break  # one warp left
            s = code[f"w{w}_blocks"][k + 1] % 128 // 16
            o = code[f"w{4 - w}_blocks"][other[0][2]] % 128 // 16
            got[(w, s, o)][0] += 1
            got[(w, s, o)][1] += ev[i + 1][1] != w
    return {k: tuple(v) for k, v in sorted(got.items())}


def slots_kept(doc: dict, k: int) -> tuple[int, int]:
    """``(agree, shared)``: of the :func:`by_slots` cells (3 first yields or more) that ``6/6+<k>`` shares with
    ``6/6``, those whose pass share is within 20 points of ``6/6``'s."""
    def shares(variant):
        return {c: p / n for c, (n, p) in by_slots(doc, variant).items() if n >= 3}
    base, moved = shares("6/6"), shares(f"6/6+{k}")
    common = [c for c in moved if c in base]
    return sum(abs(moved[c] - base[c]) < 0.2 for c in common), len(common)


def launches(doc: dict, variant: str) -> list:
    return [r for r in doc["rows"] if r["variant"] == variant]


def last_blocks(rows: list) -> tuple[float, float]:
    """The median over ``rows`` (launches, or replays as rows) of each warp's 32nd block start, from the first
    block's start."""
    e = [(r["w0"][-2] - min(r["w0"][0], r["w4"][0]), r["w4"][-2] - min(r["w0"][0], r["w4"][0])) for r in rows]
    return float(np.median([x for x, _ in e])), float(np.median([y for _, y in e]))


def replayed(doc: dict, variant: str, **options) -> list:
    """The replay (the table with ``options``) of ``variant``'s launches, each from the H100's two first stamps, as
    rows (``{"w0": block starts and the last issue, "w4": ...}``)."""
    from warpsim.timing.params_sm90 import TABLE
    cfg = sass_sim.probe_cfg(**options)
    loops = doc["loops"]["loops"][variant]
    size = doc["loops"]["variants"][variant][0] + 1  # a block's instructions: the clock read and its LOP3
    out = []
    for s in sorted({(r["w0"][0], r["w4"][0]) for r in doc["rows"] if r["variant"] == variant}):
        issued = sass_sim.issue([loops["w0"], loops["w4"]], [s[0] - min(s), s[1] - min(s)], [1, 1], cfg,
                                TABLE["tensor"])
        out.append({f"w{w}": [int(x) for x in v[::size]] + [int(v[-1])] for w, v in zip((0, 4), issued)})
    return out


def first_pass(got: dict, warp: str) -> float:
    """The share of ``warp``'s first yields after taking the turn that passed it (:func:`passes`' ``got``)."""
    n, p = got.get((warp, 1), (0, 0))
    return p / n if n else float("nan")


def block_cycles(doc: dict, variant: str) -> int:
    """A block's cycles alone (the stall counts of its clock read and its LOP3)."""
    n = doc["loops"]["variants"][variant][0]
    return sum(int(x.split()[1]) for x in doc["loops"]["loops"][variant]["w0"][:n + 1])


def whole(rows: list, cycles: int) -> float:
    """The share of block starts (of both warps, merged) a whole block (``cycles``) after the one before: blocks
    that did not interleave with the other warp's."""
    gaps = np.concatenate([np.diff([t for t, _w, _k in events(r)]) for r in rows])
    return float(np.mean(gaps == cycles))


def table(doc: dict | None = None, **options) -> list[dict]:
    """Per variant whose yields end its blocks in both warps (``6/6``, ``6/6+<k>``, ``6/6w``, ``len<n>``,
    ``len<n>s<m>``): the share of each warp's first yields after taking the turn that pass it (the H100's), the
    share of blocks run whole and each warp's last block start, the H100's and the replay's."""
    doc = doc or load()
    rows = []
    for variant, (n, y0, y4) in doc["loops"]["variants"].items():
        if not y0 == y4 == n:
            continue
        h100, model, cycles = launches(doc, variant), replayed(doc, variant, **options), block_cycles(doc, variant)
        got = passes(h100)
        rows.append({"variant": variant, "lops": n, "cycles": cycles,
                     "pass0": first_pass(got, "0"), "pass4": first_pass(got, "4"),
                     "h100_whole": whole(h100, cycles), "model_whole": whole(model, cycles),
                     **dict(zip(("h100_last0", "h100_last4"), last_blocks(h100))),
                     **dict(zip(("model_last0", "model_last4"), last_blocks(model)))})
    return sorted(rows, key=lambda r: (r["cycles"] != 2 * r["lops"] + 2, r["lops"]))


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    doc = load()
    print("yields at each block's end: the H100's share of first yields after taking the turn that pass it (warp 0 "
          "/ warp 4); blocks run whole and each warp's 32nd block start (cycles), the H100 and the replay")
    cells = by_slots(doc, "6/6")
    sure = sum(n for n, p in cells.values() if p <= 0.05 * n or p >= 0.95 * n)
    print(f"6/6: first yields by the slots of the two warps' next instructions in their code lines: {sure} of "
          f"{sum(n for n, _ in cells.values())} in cells that pass 95 % of the time or more, or 5 % or less; with "
          "warp 4's code moved by k instructions, the cells shared with 6/6 that agree within 20 points:")
    print("  " + ", ".join(f"+{k} {'%d of %d' % slots_kept(doc, k)}" for k in range(1, 8)))
    for r in table(doc, **measurement.options_in(argv)):
        shares = (f"{100 * r['pass0']:3.0f} / {100 * r['pass4']:3.0f} %" if r["h100_whole"] > 0.5 else
                  "(interleaved)")
        print(f"  {r['variant']:7s} {r['cycles']:2d} cycles  pass {shares:11s}  whole "
              f"{100 * r['h100_whole']:3.0f} / {100 * r['model_whole']:3.0f} %   last block H100 "
              f"{r['h100_last0']:4.0f} / {r['h100_last4']:4.0f}  replay {r['model_last0']:4.0f} / "
              f"{r['model_last4']:4.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
