"""The H100's L1 measured directly (``traces/h100/l1_probe.json``, ``traces/capture/l1_probe.py``).

One warp runs sequences of ``ld.global.ca`` / ``ld.local`` / stores, one 128-byte line each, and times every
load (a load slower than 100 cycles missed the L1). What the runs show:

* a hit takes 35 (local) / 37 (global) cycles with the clock reads, an L2 hit 267-321, DRAM 517 and more; a
  load of one lane fills only its 32-byte sector (the next sector of the line then misses);
* the L1 a launch gets depends on the launch (the driver's carveout), not only on the dynamic shared memory:
  with none, a CTA of 32-256 threads and 29 or 128 registers (the recorded fp8 kernels: 32 registers, 1-8
  warps) gets 224 KB, 512 threads 240 KB (4 CTAs an SM) or 248 KB (1), 1024 threads 248 KB; with S KB of
  dynamic shared memory 124 / 92 / 60 / 28 KB as ``l1_carveout`` infers;
* a sequential pass over N lines re-reads all of them from the L1 up to N = L1 - 64 lines (1,728 of 1,792
  at 224 KB, 928 of 992 at 124 KB, 160 of 224 at 28 KB); past that the misses grow over about 20 % more
  lines, in 512-byte runs scattered over the whole range, and a third pass misses fewer than the second
  (at 224 KB, N = 1,856: 889 then 501): not LRU over sets of a plain index; 96 lines at any power-of-two
  stride up to 512 KB all stay (no plain modulo index), random lines of 1 or 8 MB start to miss at 512;
* stores allocate (64 lines stored then loaded: no miss; 200 stored lines evict 150 loaded ones), a line
  re-read or stored before 100 new lines survive more often than one not touched again (hits promote);
* the outcome of a run depends on the launches before it (the same sequence, run twice in a row, evicts a
  line at different N, and a repeat of the whole series repeats the same pattern): replacement state
  outlives the kernel, and so do lines of local memory (a warp's 196-line frame, launched again, hits in its
  first pass; a 1,428-line frame of one warp stays whole in one launch and misses 1,416 of 1,428 a pass in the
  next); `ld.local.lu` compiles to a plain LDL (ptxas drops the .lu), so what LDL.LU does was not measured;
* every warp streaming its own local frame (:func:`frames`): two warps of 622 lines (the ILP 4 spill
  frame; 1,244 lines of a 1,792-line L1) already miss 46-121 lines a pass where two global frames miss none,
  four miss 143-616 each, and from 7 warps the first four keep 20-40 % of theirs while the later ones miss
  every line: thrash-resistant insertion (a BIP-like cache of 1,344 lines, 4-way, matches these runs within
  9 % of a frame on average; LRU does not), but that cache makes the recorded ILP 4 kernels with 3-16 warps
  run 10-100 % long in the replay (their LDL.LU fills and access order are not these passes).

:func:`replay` runs the sequential scans through ``sass_sim``'s cache with the model's L1 options.

    python -m warpsim.timing.l1_probe            # the measured geometry and the scans, H100 vs model
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

from warpsim.timing import measurement

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "traces", "h100", "l1_probe.json")


def load(path: str = DATA) -> dict:
    with open(path) as fh:
        return json.load(fh)


def usable(rows) -> int:
    """The largest N below the first whose second pass over N sequential lines missed more than 2 % over the
    fewest misses of the rows (a few misses at small N right after a carveout change are noise; the runs of
    2026-11-26 with 256-480 threads miss 256 lines of every pass at any N up to their capacity)."""
    base = min(r["miss"][1] for r in rows)
    first = min((r["lines"] for r in rows if r["lines"] >= 128 and r["miss"][1] - base > 0.02 * r["lines"]),
                default=None)
    return max(r["lines"] for r in rows if first is None or r["lines"] < first)


def geometry(doc: dict | None = None) -> dict:
    """What the runs measured: latencies, the sector, the lines a sequential pass keeps per launch shape
    and per dynamic shared-memory request, whether stores allocate."""
    doc = doc or load()
    cal = {str(r["op"]) + ("/%d" % r["nl"] if "nl" in r else ""): r for r in doc["calibrate"]["rows"]}
    launch = {}
    for r in doc["capacity_launch"]:
        launch.setdefault((r["variant"], r["threads"]), []).append(r)
    carve = {}
    for r in doc["capacity_carveout"]:
        if r["op"] == 0 and r["variant"] == "plain" and r["threads"] == 32 and r["smem_kb"] in (0, 16, 48, 80, 128):
            carve.setdefault(r["smem_kb"], []).append(r)
    st = {(r["op"], r["case"]): r["miss"] for r in doc["stores_reuse"] if r.get("rep", 0) == 0}
    return {
        "hit_cycles": {"global": cal["0/32"]["1"]["min"], "local": cal["2/32"]["1"]["min"]},
        "l2_cycles": cal["cg_then_ca/32"]["1"]["min"],
        "sector_bytes": 32 if doc["sector"][1]["bits"] == [1, 1] and doc["sector"][0]["bits"] == [1, 0] else None,
        "usable_lines_launch": {k: usable(v) for k, v in launch.items()},
        "usable_lines_smem": {k: usable(v) for k, v in carve.items()},
        "store_allocates": st[(0, "store_then_load")] == 0 and st[(0, "load150_store200_load150")] == 150,
    }


def replay(l1: dict | None = None, doc: dict | None = None, lo: float = 0.9, hi: float = 1.2) -> list[dict]:
    """The sequential scans of the 29-register probe (32 threads, no shared memory: a 224 KB L1) and of the
    dynamic shared-memory runs (124 / 28 KB) through ``sass_sim``'s cache: ``l1`` as in ``params_sm90``
    (``lines`` is the 224 KB L1's, scaled for the others; ``ways``, ``policy``, ``hash``). Rows for N within
    ``lo``..``hi`` of the L1's lines: the H100's and the model's misses of the second and third pass."""
    from warpsim.timing import sass_sim
    doc = doc or load()
    l1 = dict({"lines": 1792, "ways": 4, "policy": "lru", "hash": "fold"}, **(l1 or {}))
    scans = {224: [r for r in doc["capacity_launch"] if r["variant"] == "plain" and r["threads"] == 32]}
    for smem, kb in ((128, 124), (16, 28)):
        scans[kb] = [r for r in doc["capacity_carveout"] if r["op"] == 0 and r["variant"] == "plain"
                     and r["threads"] == 32 and r["smem_kb"] == smem]
    rows = []
    for kb, rr in scans.items():
        lines = int(l1["lines"]) * kb // 224
        sets, ways = max(lines // int(l1["ways"]), 1), int(l1["ways"])
        for r in rr:
            n = r["lines"]
            if not lo * kb * 8 <= n <= hi * kb * 8:
                continue
            tags = -np.ones((sets, ways), np.int64)
            stamp = np.zeros((sets + 1, ways), np.int64)
            fill = np.zeros((sets, ways), np.int64)
            use, miss = 0, []
            for _p in range(3):
                m = 0
                for ln in range(n):
                    use += 1
                    m += sass_sim._touch(tags, stamp, fill, ln, use, sass_sim.POLICIES[l1["policy"]],
                                         sass_sim.HASHES[l1["hash"]]) < 0
                miss.append(m)
            rows.append({"l1_kb": kb, "lines": n, "h100": r["miss"][1:], "model": miss[1:]})
    return rows


def frames(l1: dict | None = None, doc: dict | None = None, op: int = 2, sizes=(196, 622),
           warps=None) -> list[dict]:
    """The frame runs (every warp of a CTA streams its own frame of F lines four times; op 2: local memory,
    0: global) beside ``sass_sim``'s cache fed the same passes, the warps' accesses interleaved one by one
    (frames one after another in line space, as ``sass_sim`` lays out spill frames): the last pass's misses
    per warp, the H100's the mean over warps and its two launches."""
    from warpsim.timing import sass_sim
    doc = doc or load()
    l1 = dict({"lines": 1792, "ways": 4, "policy": "lru", "hash": "fold", "local": 1.0}, **(l1 or {}))
    got = {}
    for r in doc["frames"]:
        if r["op"] == op and r["frame"] in sizes and (warps is None or r["warps"] in warps):
            got.setdefault((r["frame"], r["warps"]), []).append([m[3] for m in r["miss"]])
    rows = []
    for (f, w), reps in sorted(got.items()):
        lines = int(int(l1["lines"]) * float(l1["local"]))
        sets, ways = max(lines // int(l1["ways"]), 1), int(l1["ways"])
        tags = -np.ones((sets, ways), np.int64)
        stamp = np.zeros((sets + 1, ways), np.int64)
        fill = np.zeros((sets, ways), np.int64)
        use, last = 0, np.zeros(w, np.int64)
        for p in range(4):
            for i in range(f):
                for k in range(w):
                    use += 1
                    m = sass_sim._touch(tags, stamp, fill, k * f + i, use, sass_sim.POLICIES[l1["policy"]],
                                        sass_sim.HASHES[l1["hash"]]) < 0
                    last[k] += m if p == 3 else 0
        rows.append({"frame": f, "warps": w, "h100": float(np.mean([np.mean(x) for x in reps])),
                     "h100_launches": reps, "model": float(last.mean())})
    return rows


def main(argv=None) -> int:
    argv = measurement.arguments(argv, __doc__)
    if argv is None:
        return 0
    g = geometry()
    for k, v in g.items():
        print(f"{k}: {v}")
    l1 = measurement.options(argv[0]) if argv else None
    print(f"{'L1 KB':>5} {'lines':>5} {'H100 pass 2/3':>14} {'model pass 2/3':>15}")
    for r in replay(l1):
        print(f"{r['l1_kb']:5d} {r['lines']:5d} {r['h100'][0]:6d} {r['h100'][1]:6d}  {r['model'][0]:6d} {r['model'][1]:6d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
