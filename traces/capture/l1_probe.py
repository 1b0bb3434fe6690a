#!/usr/bin/env python3
"""The H100's L1 data cache measured directly: one warp runs sequences of global (`ld.global.ca`) and local
(`ld.local`, `ld.local.lu`, `st.local`) accesses, each load timed with `%clock` around it and an instruction
that consumes its value (traces/capture/l1_probe.cu; hit/miss bits and per-group counts stay in registers
until the end, the sequence is read with `ld.global.cg`, so only the probed accesses touch the L1).

    python traces/capture/l1_probe.py --device OUT [--cubin l1_probe.cubin] [--stage 1|2]   # on the GPU
    python traces/capture/l1_probe.py --mock OUT      # here: the same driver over a set-associative LRU model
    python traces/capture/l1_probe.py --json OUT      # here: traces/h100/l1_probe.json (OUT: the three stage files)

The calls made (2026-11-22): --stage 12 (calibration, sectors, conflict scans, capacity against S; its later
rows are void, see HOW), --stage 3 (the fp8 kernels' registers, capacity against the launch's shape, miss
bitmaps, local and random-address capacity, eviction scans, stores), --stage 4 (eviction scans repeated with
one sequence buffer, local capacity repeated, 4-line granule conflicts), --stage 5 (every warp of a CTA of
1-16 streams its own frame of 196 / 622 / 1,428 lines, the fp8 kernels' ILP 2 / 4 / 8 spill frames, four
passes, local and global; each configuration launched twice in a row); 2026-11-26: --stage 6 (capacity against
CTAs of 256-512 threads in steps of 32; ``--merge6 OUT`` adds its rows to traces/h100/l1_probe.json).

Stage 1: a load's hit/miss latency, sector and line size; the capacity (lines of 128 B that a sequential
re-read still hits) for every dynamic shared-memory request of traces/capture/l1_carveout.py, global and
local; conflict scans (k lines at a stride of D lines, re-read four times: which miss in the last pass).
Stage 2 (uses what stage 1 found: ways W and a set stride D): which line of a full set a new line evicts,
after re-accessing some, after stores, after `ld.local.lu`.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = next(p for p in (HERE, *HERE.parents) if (p / "warpsim" / "tracefile.py").exists()) \
    if any((p / "warpsim" / "tracefile.py").exists() for p in (HERE, *HERE.parents)) else HERE.parent.parent

LDG, STG, LDL, STL, LDL_LU, LDG_CG, LDG_LU = range(7)
SMEM = (0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224)
LOCW = 16384
UNIT = {LDG: 4, STG: 4, LDG_CG: 4, LDG_LU: 4, LDL: 1, STL: 1, LDL_LU: 1}  # offset units per 128-byte line


def ent(line: int, op: int = LDG, rec: bool = False, group: int | None = None) -> int:
    off = line * UNIT[op]
    assert 0 <= off < (1 << 22)
    e = off | (op << 22)
    if rec:
        e |= 1 << 26
    if group is not None:
        e |= (group << 27) | (1 << 30)
    return e


class Cupy:
    def __init__(self, cubin: str):
        import cupy as cp
        self.cp = cp
        self.mods = {}
        self.cubin = cubin
        self.g = cp.zeros(48 << 20, cp.uint32)  # 192 MB of zeros
        self.out = cp.zeros(32 * 32 * 6, cp.uint64)
        self.fixed = None  # a preallocated sequence buffer (one address for every launch) when set
        self.thr = 100

    def func(self, variant):
        if variant not in self.mods:
            if not hasattr(self, "mod"):
                self.mod = self.cp.RawModule(path=self.cubin)
            f = self.mod.get_function({"plain": "seqk", "big": "seqk_big", "pref0": "seqk_pref0",
                                       "pref100": "seqk_pref100", "pad": "seqk_pad"}[variant])
            if variant == "big":
                f.max_dynamic_shared_size_bytes = 224 * 1024
            elif variant.startswith("pref"):
                f.preferred_shared_memory_carveout = int(variant[4:])
            self.mods[variant] = f
        return self.mods[variant]

    def run(self, seq, smem=0, nl=32, threads=32, variant="plain"):
        cp = self.cp
        if self.fixed is not None:
            a = np.asarray(seq, np.uint32)
            self.fixed[:len(a)].set(a)
            s = self.fixed
        else:
            s = cp.asarray(np.asarray(seq, np.uint32))
        f = self.func("big" if smem else variant)
        f((1,), (threads,), (s, np.int32(len(seq)), self.g, np.int32(nl), np.uint32(self.thr), self.out),
          shared_mem=smem * 1024)
        cp.cuda.Device().synchronize()
        o = cp.asnumpy(self.out).reshape(32, 32, 6)
        if nl & 256:
            return [decode(o[w], seq) for w in range(threads // 32)]
        return decode(o[0], seq)


class Mock:
    """Set-associative LRU (modulo sets) standing in for the GPU, to test the driver."""
    def __init__(self, kb=256, ways=4, hit=35, miss=300, local_ways=None):
        self.kb, self.ways, self.hit, self.miss, self.thr = kb, ways, hit, miss, 100

    def run(self, seq, smem=0, nl=32, threads=32, variant="plain"):
        if nl & 256:
            return [self.run(seq, smem, 32, 32, variant)] * (threads // 32)
        kb = {0: 256, 16: 28, 32: 28, 48: 60, 64: 60, 80: 92, 96: 60, 112: 28, 128: 124}.get(smem, 92)
        nsets = kb * 8 // self.ways
        sets = [[] for _ in range(nsets)]
        out = np.zeros((32, 6), np.uint64)
        out[:, 3] = 0xffffffff
        r = 0
        for e in seq:
            off, op = e & 0x3fffff, (e >> 22) & 15
            line = off // UNIT[op] + (10 ** 7 if op in (LDL, STL, LDL_LU) else 0)
            st = sets[line % nsets]
            hit = line in st
            if hit:
                st.remove(line)
            st.append(line)
            if len(st) > self.ways:
                st.pop(0)
            lat = 0 if op in (STG, STL) else (self.hit if hit else self.miss)
            miss = int(lat > self.thr)
            if e & (1 << 26):
                out[r >> 6, 0] |= np.uint64(miss << (r & 63))
                r += 1
            if e & (1 << 30):
                g = (e >> 27) & 7
                out[g, 1] += miss
                out[g, 2] += lat
                out[g, 3] = min(int(out[g, 3]), lat)
                out[g, 4] = max(int(out[g, 4]), lat)
        return decode(out, seq)


def decode(o, seq):
    nrec = sum(1 for e in seq if e & (1 << 26))
    bits = [int((int(o[r >> 6, 0]) >> (r & 63)) & 1) for r in range(nrec)]
    groups = {}
    for g in range(8):
        if any((e >> 30) & 1 and ((e >> 27) & 7) == g for e in seq):
            groups[g] = {"miss": int(o[g, 1]), "lat_sum": int(o[g, 2]), "min": int(o[g, 3]), "max": int(o[g, 4])}
    return {"bits": bits, "groups": groups}


# ---------------------------------------------------------------- stage 1

def calibrate(dev, res):
    rows = []
    for nl in (1, 32):
        for op in (LDG, LDL):
            seq = [ent(i, op, group=0) for i in range(64)] + [ent(i, op, group=1) for i in range(64)]
            rows.append({"nl": nl, "op": op, **dev.run(seq, nl=nl)["groups"]})
    # L2 hits: lines just read, re-read with ld.global.cg (L2 only), then with ld.global.ca
    seq = ([ent(i, LDG_CG, group=0) for i in range(64)] + [ent(i, LDG_CG, group=1) for i in range(64)]
           + [ent(i, LDG, group=2) for i in range(64)] + [ent(i, LDG, group=3) for i in range(64)])
    rows.append({"nl": 32, "op": "cg_then_ca", **dev.run(seq)["groups"]})
    res["calibrate"] = {"rows": rows, "thr": dev.thr}
    # sector / line: touch sector 0 of a line (one lane), then probe sector u (32-byte units) in a fresh launch
    sect = []
    for u in (0, 1, 2, 3, 4, 5, 8, 16, 32):
        seq = [(64 * 4) | (LDG << 22) | (1 << 26), (64 * 4 + u) | (LDG << 22) | (1 << 26)]
        sect.append({"probe_units32": u, "bits": dev.run(seq, nl=1)["bits"]})
    res["sector"] = sect


def capacity(dev, res, quick=False):
    rows = []
    sizes = list(range(32, 2304 + 1, 32))
    variants = [(s, "plain", 32, LDG) for s in SMEM]
    variants += [(0, "plain", 512, LDG), (0, "pref0", 32, LDG), (0, "pref100", 32, LDG)]
    variants += [(0, "plain", 32, LDL), (0, "plain", 512, LDL), (16, "plain", 32, LDL), (80, "plain", 32, LDL),
                 (128, "plain", 32, LDL)]
    if quick:
        variants = variants[:2] + variants[-1:]
    for smem, var, threads, op in variants:
        for n in sizes:
            seq = [ent(i, op, group=p) for p in range(3) for i in range(n)]
            g = dev.run(seq, smem=smem, threads=threads, variant=var)["groups"]
            rows.append({"smem_kb": smem, "variant": var, "threads": threads, "op": op, "lines": n,
                         "miss": [g[p]["miss"] for p in range(3)]})
    res["capacity"] = rows
    rng = np.random.default_rng(1)
    rows = []
    for smem in (0, 16, 128):
        for n in sizes[::2]:
            lines = rng.choice(1 << 16, n, replace=False)
            seq = [ent(int(x), LDG, group=p) for p in range(3) for x in lines]
            g = dev.run(seq, smem=smem)["groups"]
            rows.append({"smem_kb": smem, "op": LDG, "lines": n, "miss": [g[p]["miss"] for p in range(3)]})
    res["capacity_random"] = rows


def evict_scan(dev, res):
    """T, then N other lines (T+1..T+N), then T again: is T still there?"""
    rows = []
    for op, smem, targets, ns in ((LDG, 16, (0, 100000, 7, 54321), range(1, 401, 2)),
                                  (LDG, 0, (0, 100000), range(16, 2561, 16)),
                                  (LDL, 16, (0, 5000), range(1, 801, 4)),
                                  (LDL, 0, (0,), range(16, 2561, 16))):
        for t in targets:
            for rep in range(2 if t == 0 else 1):
                bits = []
                for n in ns:
                    seq = [ent(t, op)] + [ent(t + i, op) for i in range(1, n + 1)] + [ent(t, op, rec=True)]
                    bits.append(dev.run(seq, smem=smem)["bits"][0])
                rows.append({"op": op, "smem_kb": smem, "target": t, "rep": rep, "n": list(ns), "evicted": bits})
    res["evict_scan"] = rows


def set_mates(dev, res, op, smem, t=0, extra=10):
    """The lines of T's set: N* = the first N that evicts T; x < N* is a set-mate when T survives without it
    (deterministic policy assumed; repeated to see whether it is); then further lines y that evict T after
    T, the mates found (a full set)."""
    top = 2600
    nstar = None
    for n in range(1, top):
        seq = [ent(t, op)] + [ent(t + i, op) for i in range(1, n + 1)] + [ent(t, op, rec=True)]
        if dev.run(seq, smem=smem)["bits"][0]:
            nstar = n
            break
    out = {"op": op, "smem_kb": smem, "target": t, "nstar": nstar}
    if nstar is None:
        res.setdefault("set_mates", []).append(out)
        return None
    need = []
    for x in range(1, nstar):
        seq = [ent(t, op)] + [ent(t + i, op) for i in range(1, nstar + 1) if i != x] + [ent(t, op, rec=True)]
        if not dev.run(seq, smem=smem)["bits"][0]:
            need.append(x)
    out["needed"] = need
    mates = [t] + [t + x for x in need] + [t + nstar]
    more, y = [], t + nstar + 1
    lim = (LOCW - 1) if op != LDG else t + 200000
    while len(more) < extra and y < lim:
        seq = [ent(m, op) for m in mates[:-1]] + [ent(y, op), ent(t, op, rec=True)]
        if dev.run(seq, smem=smem)["bits"][0]:
            more.append(y)
        y += 1
    out["more"] = more
    res.setdefault("set_mates", []).append(out)
    return mates + more


def conflicts(dev, res):
    rows = []
    for op, strides in ((LDG, [2 ** j for j in range(13)] + [3, 96, 192, 384, 768]),
                        (LDL, [2 ** j for j in range(10)] + [3, 96, 192, 384])):
        for d in strides:
            kmax = (96 if d >= 64 else 48) if op == LDG else min(48, LOCW // d)
            for k in range(2, kmax + 1):
                seq = [ent(j * d, op, rec=(p == 3), group=p) for p in range(4) for j in range(k)]
                r = dev.run(seq)
                rows.append({"op": op, "stride": d, "k": k, "last_pass": r["bits"],
                             "miss": [r["groups"][p]["miss"] for p in range(4)]})
    res["conflicts"] = rows


def geometry(res, op):
    """From the conflict scan: the ways (largest k whose last pass all hits at the largest stride) and the
    smallest power-of-two stride that conflicts as much as the largest."""
    rows = [r for r in res["conflicts"] if r["op"] == op]
    strides = sorted({r["stride"] for r in rows if r["stride"] & (r["stride"] - 1) == 0})

    def ways(d):
        ok = [r["k"] for r in rows if r["stride"] == d and r["miss"][3] == 0]
        bad = [r["k"] for r in rows if r["stride"] == d and r["miss"][3] > 0]
        return (min(bad) - 1) if bad else max(ok)
    w = ways(strides[-1])
    d = min(s for s in strides if ways(s) == w)
    return w, d


# ---------------------------------------------------------------- stage 2

def victims(dev, fill, then, op, nprobe_lines, nl=32, probe_op=None, smem=0):
    """Run ``fill + then`` and probe each line of ``nprobe_lines`` in its own launch: 1 = miss."""
    probe_op = op if probe_op is None else probe_op
    out = []
    for ln in nprobe_lines:
        seq = fill + then + [ent(ln, probe_op, rec=True)]
        out.append(dev.run(seq, nl=nl, smem=smem)["bits"][0])
    return out


def policy(dev, res, op, w, d, reps=4, mates=None, smem=0):
    stl = STL if op == LDL else STG
    lu = LDL_LU if op == LDL else LDG_LU
    rows = []
    for rep in range(reps):
        b = 5 + 37 * rep
        L = mates if mates is not None else [b + j * d for j in range(w + 12)]
        if mates is not None and rep:
            break
        fill = [ent(x, op) for x in L[:w]]
        cases = {
            "new1": [ent(L[w], op)],
            "hit0_new1": [ent(L[0], op), ent(L[w], op)],
            "hit01_new1": [ent(L[0], op), ent(L[1], op), ent(L[w], op)],
            "hit0x3_new1": [ent(L[0], op)] * 3 + [ent(L[w], op)],
            "store_new": [ent(L[w], stl)],
            "store0_new1": [ent(L[0], stl), ent(L[w], op)],
            "lu_last_new1": [ent(L[w - 1], lu), ent(L[w], op)],
            "lu0": [ent(L[0], lu)],
            "lu_mid_new1": [ent(L[w // 2], lu), ent(L[w], op)],
        }
        for m in range(2, min(w, 8) + 2):
            cases[f"new{m}"] = [ent(L[w + i], op) for i in range(m)]
        for name, then in cases.items():
            rows.append({"rep": rep, "case": name, "op": op, "ways": w, "stride": d, "smem_kb": smem,
                         "missed": victims(dev, fill, then, op, L[:w + 1], smem=smem)})
        # stores alone: do they fill?
        rows.append({"rep": rep, "case": "stores_only", "op": op, "ways": w, "stride": d,
                     "smem_kb": smem, "missed": victims(dev, [ent(x, stl) for x in L[:w]], [], op, L[:w], smem=smem)})
        # one lane stores, then a full-warp load (partial line written)
        rows.append({"rep": rep, "case": "store1lane_then_load", "op": op, "ways": w, "stride": d,
                     "smem_kb": smem,
                     "missed": [dev.run([ent(L[0], stl), ent(L[0], op, rec=True)], nl=1, smem=smem)["bits"][0]]})
    res.setdefault("policy", []).extend(rows)


def stage3(dev, res, out):
    """Call 3: each variant its own kernel entry (calls 1-2 shared one function, so the carveout preference
    set for 'pref100' stayed on every later run: they ran with a 28 KB L1)."""
    cp = dev.cp if hasattr(dev, "cp") else None
    t0 = time.time()

    def save():
        (out / "l1_probe_stage3.json").write_text(json.dumps(res, separators=(",", ":")))
    # the fp8 kernels' registers, local frame and occupancy (which sets the carveout the driver picks)
    if cp is not None:
        sys.path.insert(0, str(HERE))
        from trips import _tracefile  # warpsim/tracefile.py loaded by path
        tf = _tracefile()
        kinfo = []
        for form in ("sp_e4m3_k64_f32", "sp_e5m2_k64_f32", "dense_e4m3_k32_f32"):
            try:
                src = tf.read_trace(REPO / "traces" / "h100" / "timing" / f"{form}.npz")
                pp = out / f"{form}.ptx"
                pp.write_text(src.ptx)
                mod = cp.RawModule(path=str(pp))
                for ilp in range(1, 9):
                    try:
                        f = mod.get_function(f"{form}_ilp{ilp}")
                    except Exception:
                        continue
                    row = {"form": form, "ilp": ilp, "regs": f.num_regs, "local_bytes": f.local_size_bytes,
                           "max_threads": f.max_threads_per_block}
                    try:
                        occ = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor
                        row["ctas_per_sm"] = {w: occ(f.ptr, 32 * w, 0) for w in range(1, 17)}
                    except Exception as ex:  # noqa: BLE001
                        row["occ_error"] = repr(ex)
                    kinfo.append(row)
                pp.unlink()
            except Exception as ex:  # noqa: BLE001
                kinfo.append({"form": form, "error": repr(ex)})
        mine = {}
        for v in ("plain", "pad"):
            f = dev.func(v)
            try:
                occ = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor
                mine[v] = {"regs": f.num_regs, "ctas_per_sm": {t: occ(f.ptr, t, 0) for t in (32, 64, 128, 256, 512)}}
            except Exception as ex:  # noqa: BLE001
                mine[v] = {"regs": f.num_regs, "occ_error": repr(ex)}
        res["kernels"] = kinfo
        res["probe_kernels"] = mine
        print("kernels", json.dumps(kinfo)[:1500], mine, flush=True)
    # capacity (sequential lines, three passes) at S = 0 against the launch's occupancy
    rows = []
    for var, threads in [("plain", t) for t in (32, 64, 128, 256, 512, 1024)] + [("pad", t) for t in (32, 64, 128, 256, 512)]:
        for n in range(1536, 2113, 16):
            seq = [ent(i, LDG, group=p) for p in range(3) for i in range(n)]
            g = dev.run(seq, threads=threads, variant=var)["groups"]
            rows.append({"variant": var, "threads": threads, "lines": n, "miss": [g[p]["miss"] for p in range(3)]})
    res["capacity_occupancy"] = rows
    print("capacity_occupancy", f"{time.time() - t0:.1f}s", flush=True)
    save()
    # which lines miss: a pass over N lines after one (pass 1) or two (pass 2) passes
    rows = []
    for op, smem, ns in ((LDG, 128, (976, 1024, 1088, 1152, 1280)), (LDG, 16, (200, 224, 256, 288)),
                         (LDG, 80, (720, 768, 832)), (LDG, 0, (1792, 1856, 1920, 2048)),
                         (LDL, 16, (128, 192, 256)), (LDL, 0, (1792, 1920)), (LDL, 128, (992, 1088))):
        for n in ns:
            for rp in (1, 2):
                seq = [ent(i, op, rec=(p == rp)) for p in range(rp + 1) for i in range(n)]
                rows.append({"op": op, "smem_kb": smem, "lines": n, "pass": rp, "bits": dev.run(seq, smem=smem)["bits"]})
    res["miss_bitmaps"] = rows
    print("bitmaps", f"{time.time() - t0:.1f}s", flush=True)
    save()
    # local capacity, each carveout its own entry
    rows = []
    for smem in (0, 16, 128):
        for n in range(32, 2305, 32):
            seq = [ent(i, LDL, group=p) for p in range(3) for i in range(n)]
            g = dev.run(seq, smem=smem)["groups"]
            rows.append({"smem_kb": smem, "op": LDL, "lines": n, "miss": [g[p]["miss"] for p in range(3)]})
    res["capacity_local"] = rows
    # random lines in 1 MB and 8 MB
    rng = np.random.default_rng(2)
    rows = []
    for smem in (0, 128):
        for span in (1 << 13, 1 << 16):
            for n in range(64, 2305, 64):
                lines = rng.choice(span, n, replace=False)
                seq = [ent(int(x), LDG, group=p) for p in range(3) for x in lines]
                g = dev.run(seq, smem=smem)["groups"]
                rows.append({"smem_kb": smem, "span_lines": span, "lines": n, "miss": [g[p]["miss"] for p in range(3)]})
    res["capacity_random"] = rows
    print("local/random capacity", f"{time.time() - t0:.1f}s", flush=True)
    save()
    # T, N more lines, T again
    rows = []
    for op, smem, ns in ((LDG, 0, range(16, 2401, 16)), (LDG, 128, range(8, 1401, 8)), (LDL, 128, range(8, 1401, 8)),
                         (LDL, 16, range(2, 401, 2))):
        for rep in range(2):
            bits = []
            for n in ns:
                seq = [ent(0, op)] + [ent(i, op) for i in range(1, n + 1)] + [ent(0, op, rec=True)]
                bits.append(dev.run(seq, smem=smem)["bits"][0])
            rows.append({"op": op, "smem_kb": smem, "rep": rep, "n": list(ns), "evicted": bits})
    res["evict_scan"] = rows
    print("evict scan", f"{time.time() - t0:.1f}s", flush=True)
    save()
    # stores and re-use, no set knowledge needed (S = 16: a 28 KB L1)
    rows = []
    for op, st in ((LDG, STG), (LDL, STL)):
        def cnt(seq, smem=16, nl=32):
            return dev.run(seq, smem=smem, nl=nl)["groups"]
        A, B, C = range(0, 100), range(100, 180), range(1000, 1100)
        cases = {
            "store_then_load": [ent(i, st) for i in range(64)] + [ent(i, op, group=0) for i in range(64)],
            "load_store_load": [ent(i, op) for i in range(64)] + [ent(i, st) for i in range(64)]
                               + [ent(i, op, group=0) for i in range(64)],
            "load150_store200_load150": [ent(i, op) for i in range(150)] + [ent(1000 + i, st) for i in range(200)]
                                        + [ent(i, op, group=0) for i in range(150)],
            "load150_load200_load150": [ent(i, op) for i in range(150)] + [ent(1000 + i, op) for i in range(200)]
                                       + [ent(i, op, group=0) for i in range(150)],
            "A_B_C_probeA": [ent(i, op) for i in A] + [ent(i, op) for i in B] + [ent(i, op) for i in C]
                            + [ent(i, op, group=0) for i in A],
            "A_B_C_probeB": [ent(i, op) for i in A] + [ent(i, op) for i in B] + [ent(i, op) for i in C]
                            + [ent(i, op, group=0) for i in B],
            "A_B_reA_C_probeA": [ent(i, op) for i in A] + [ent(i, op) for i in B] + [ent(i, op) for i in A]
                                + [ent(i, op) for i in C] + [ent(i, op, group=0) for i in A],
            "A_B_reA_C_probeB": [ent(i, op) for i in A] + [ent(i, op) for i in B] + [ent(i, op) for i in A]
                                + [ent(i, op) for i in C] + [ent(i, op, group=0) for i in B],
            "A_B_stA_C_probeA": [ent(i, op) for i in A] + [ent(i, op) for i in B] + [ent(i, st) for i in A]
                                + [ent(i, op) for i in C] + [ent(i, op, group=0) for i in A],
            "A_B_stA_C_probeB": [ent(i, op) for i in A] + [ent(i, op) for i in B] + [ent(i, st) for i in A]
                                + [ent(i, op) for i in C] + [ent(i, op, group=0) for i in B],
        }
        for name, seq in cases.items():
            for rep in range(3):
                g = cnt(seq)
                rows.append({"op": op, "case": name, "rep": rep, "miss": g[0]["miss"], "of": sum(1 for e in seq if e >> 30 & 1)})
        g = cnt([ent(5, st), ent(5, op, group=0)], nl=1)
        rows.append({"op": op, "case": "store1lane_then_load1lane", "miss": g[0]["miss"], "of": 1})
    res["stores_reuse"] = rows
    print("stores/reuse", json.dumps(rows)[:3000], f"{time.time() - t0:.1f}s", flush=True)
    save()


def stage4(dev, res, out):
    """Call 4: is the scatter (T's eviction not monotonic in N) the sequence buffer's doing (a new allocation per
    launch)? And which 512-byte granules share a set with granule b (b's four lines plus line x, four passes:
    all five miss in the last pass when they share a 4-way set)."""
    t0 = time.time()

    def save():
        (out / "l1_probe_stage4.json").write_text(json.dumps(res, separators=(",", ":")))
    rows = []
    for fixed in (True, False):
        dev.fixed = dev.cp.zeros(1 << 22, dev.cp.uint32) if fixed else None
        for op, smem, ns in ((LDG, 0, range(1696, 2401, 8)), (LDG, 128, range(880, 1401, 8))):
            for rep in range(2):
                bits = []
                for n in ns:
                    seq = [ent(0, op)] + [ent(i, op) for i in range(1, n + 1)] + [ent(0, op, rec=True)]
                    bits.append(dev.run(seq, smem=smem)["bits"][0])
                rows.append({"fixed_seq": fixed, "op": op, "smem_kb": smem, "rep": rep, "n": list(ns), "evicted": bits})
        rr = []
        for rep in range(2):
            for n in range(512, 2305, 32):
                seq = [ent(i, LDL, group=p) for p in range(3) for i in range(n)]
                g = dev.run(seq)["groups"]
                rr.append({"fixed_seq": fixed, "rep": rep, "lines": n, "miss": [g[p]["miss"] for p in range(3)]})
        res.setdefault("local_capacity_rep", []).extend(rr)
    res["evict_scan_fixed"] = rows
    print("evict fixed", f"{time.time() - t0:.1f}s", flush=True)
    save()
    dev.fixed = dev.cp.zeros(1 << 22, dev.cp.uint32)
    rows = []
    for op, smem, bases, xs in ((LDG, 0, (0, 1, 2, 3, 5, 8, 13, 64, 100, 447, 448), range(4, 4 * 1400, 4)),
                                (LDG, 0, (0,), range(4, 4 * 64)),
                                (LDG, 128, (0, 1, 2, 3), range(4, 4 * 800, 4)),
                                (LDG, 16, (0, 1, 2, 3), range(4, 4 * 300, 4)),
                                (LDL, 0, (0, 1, 2), range(4, LOCW - 8, 4)),
                                (LDL, 128, (0, 1), range(4, 4 * 1000, 4))):
        for b in bases:
            hit = []
            for x in xs:
                lines = [4 * b, 4 * b + 1, 4 * b + 2, 4 * b + 3, 4 * b + x]
                if op == LDL and lines[-1] >= LOCW:
                    break
                seq = [ent(ln, op, group=p) for p in range(4) for ln in lines]
                g = dev.run(seq, smem=smem)["groups"]
                if g[3]["miss"]:
                    hit.append([x, g[3]["miss"]])
            rows.append({"op": op, "smem_kb": smem, "base_granule": b, "x_step": xs.step, "x_max": xs.stop,
                         "conflicts": hit})
            print("granule", op, smem, b, hit[:12], f"{time.time() - t0:.1f}s", flush=True)
        save()
    res["granule_sets"] = rows
    save()


def stage5(dev, res, out):
    """Call 5: every warp of the CTA streams its own frame of F lines (local: its own local memory; global:
    F lines apart), four passes; the misses of each pass per warp (the spill frames' competition without
    the compute)."""
    t0 = time.time()
    rows = []
    for op, f, ws in ((LDL, 622, (1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16)), (LDG, 622, (1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16)),
                      (LDL, 196, (1, 2, 4, 6, 8, 9, 10, 12, 16)), (LDL, 1428, (1, 2, 3, 4)),
                      (LDG, 1428, (1, 2, 3, 4))):
        seq = [ent(i, op, group=p) for p in range(4) for i in range(f)]
        for w in ws:
            for rep in range(2):
                got = dev.run(seq, nl=32 | 256 | (f << 9), threads=32 * w)
                rows.append({"op": op, "frame": f, "warps": w, "rep": rep,
                             "miss": [[g["groups"][p]["miss"] for p in range(4)] for g in got]})
        print("frames", op, f, [(r["warps"], [m[3] for m in r["miss"]]) for r in rows if r["op"] == op and r["frame"] == f and r["rep"] == 0], f"{time.time() - t0:.1f}s", flush=True)
    res["frames"] = rows
    (out / "l1_probe_stage5.json").write_text(json.dumps(res, separators=(",", ":")))


#: stage 6: the CTA sizes between 256 threads (224 KB) and 512 (240 KB) whose L1 was not measured, and the two
#: ends again (labelled ``plain6``: this call's rows, apart from the earlier calls' ``plain`` rows)
THREADS6 = (256, 288, 320, 352, 384, 416, 448, 480, 512)


def stage6(dev, res, out):
    """The lines a sequential pass keeps for every CTA size of :data:`THREADS6` (one CTA, no shared memory;
    three passes over N lines, N 1,664-2,112): where the driver's carveout steps from 224 KB to 240 KB."""
    rows = []
    for threads in THREADS6:
        for n in range(1664, 2113, 16):
            seq = [ent(i, LDG, group=p) for p in range(3) for i in range(n)]
            g = dev.run(seq, threads=threads, variant="plain")["groups"]
            rows.append({"variant": "plain6", "threads": threads, "lines": n, "miss": [g[p]["miss"] for p in range(3)]})
        print("threads", threads, flush=True)
    res["capacity_launch"] = rows
    (out / "l1_probe_stage6.json").write_text(json.dumps(res, separators=(",", ":")))


def merge6(src: Path):
    """traces/h100/l1_probe.json with stage 6's rows added to its ``capacity_launch`` (written atomically)."""
    sys.path.insert(0, str(HERE))
    from trips import write_atomic
    path = REPO / "traces" / "h100" / "l1_probe.json"
    doc = json.loads(path.read_text())
    rows = json.loads((src / "l1_probe_stage6.json").read_text())["capacity_launch"]
    doc["capacity_launch"] = [r for r in doc["capacity_launch"] if r["variant"] != "plain6"] + rows
    doc["how_stage6"] = ("--stage 6 (2026-11-26, H100 80GB HBM3): capacity against the CTA size, 256-512 threads in "
                         "steps of 32, rows labelled plain6")
    write_atomic(path, json.dumps(doc, separators=(",", ":")) + "\n")


def device(out: Path, cubin: str, stage: int, mock: bool = False, geom: dict | None = None, thr: int = 100):
    geom = geom or {}
    dev = Mock() if mock else Cupy(cubin)
    dev.thr = thr
    t0 = time.time()
    res = {"stage": stage}
    calibrate(dev, res)
    print("calibrate", res["calibrate"]["thr"], json.dumps(res["sector"]), f"{time.time() - t0:.1f}s", flush=True)
    if stage in (1, 12):
        conflicts(dev, res)
        for op in (LDG, LDL):
            print("geometry op", op, geometry(res, op), f"{time.time() - t0:.1f}s", flush=True)
        capacity(dev, res, quick=mock)
        print("capacity done", f"{time.time() - t0:.1f}s", flush=True)
        out.mkdir(parents=True, exist_ok=True)
        (out / "l1_probe_stage1.json").write_text(json.dumps(res, separators=(",", ":")))
    if stage == 5:
        out.mkdir(parents=True, exist_ok=True)
        stage5(dev, res, out)
        return
    if stage == 6:
        out.mkdir(parents=True, exist_ok=True)
        stage6(dev, res, out)
        return
    if stage == 4:
        out.mkdir(parents=True, exist_ok=True)
        stage4(dev, res, out)
        return
    if stage == 3:
        out.mkdir(parents=True, exist_ok=True)
        stage3(dev, res, out)
        return
    if stage in (3, 12):
        evict_scan(dev, res)
        print("evict scan", f"{time.time() - t0:.1f}s", flush=True)
        (out / "l1_probe_stage1.json").write_text(json.dumps(res, separators=(",", ":")))
        for op, smem in ((LDG, 16), (LDL, 16), (LDG, 0)):
            m = set_mates(dev, res, op, smem)
            print("set mates", op, smem, res["set_mates"][-1], f"{time.time() - t0:.1f}s", flush=True)
            if m and len(m) <= 60:
                w = len(m) - len(res["set_mates"][-1]["more"]) - 1
                if len(m) >= w + 10:
                    policy(dev, res, op, w, None, mates=m, smem=smem)
                    print("policy", op, smem, f"{time.time() - t0:.1f}s", flush=True)
            (out / "l1_probe_stage1.json").write_text(json.dumps(res, separators=(",", ":")))
    if stage == 2:
        for op in (LDG, LDL):
            w, d = geom.get(str(op)) or geometry(res, op)
            res.setdefault("geometry_used", {})[op] = [w, d]
            if w > 128:
                print("policy op", op, "skipped: ways", w, flush=True)
                continue
            policy(dev, res, op, w, d)
            print("policy op", op, f"{time.time() - t0:.1f}s", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"l1_probe_stage{stage}.json").write_text(json.dumps(res, separators=(",", ":")))


HOW = (
    "One warp of traces/capture/l1_probe.cu (29 registers; seqk_pad: 128) runs a sequence of accesses, one line "
    "of 128 B each (32 lanes x 4 B; nl=1: lane 0 alone), each load timed with %clock around it and an add that "
    "consumes its value (S2UR SR_CLOCKLO / LDG.E.STRONG.SM or LDL / S2UR in the SASS); a load slower than 100 "
    "cycles missed the L1 (hits 35-37 cycles, L2 267-321, DRAM 517+). Hit/miss bits and per-group counts stay in "
    "registers until the kernel ends; the sequence is read with ld.global.cg (L2). One CTA, dynamic shared memory "
    "S KB as traces/capture/l1_carveout.py requests it. H100 80GB HBM3 (driver 580.159.04, nvcc 13.0), "
    "2026-11-22. Calls 1-2 (stage12) loaded one function for every variant, so the carveout preference of "
    "'pref100' stayed on all later runs of that call (their L1 was 28 KB): only the rows before it are kept "
    "from them; calls 3-4 (stage3, stage4) give every variant its own kernel entry.")


def _hexbits(bits):
    return "".join("0123456789abcdef"[int("".join(map(str, bits[i:i + 4])).ljust(4, "0"), 2)]
                   for i in range(0, len(bits), 4))


def to_json(src: Path):
    s12 = json.loads((src / "l1_probe_stage12.json").read_text())
    s3 = json.loads((src / "l1_probe_stage3.json").read_text())
    s4 = json.loads((src / "l1_probe_stage4.json").read_text())
    cap = []
    for r in s12["capacity"]:  # kept up to and including the first 'pref100' row set (see HOW)
        cap.append(r)
        if r["variant"] == "pref100" and r["lines"] == 2304:
            break
    for r in s3["miss_bitmaps"]:
        r["bits"] = _hexbits(r["bits"])
    doc = {
        "how": HOW, "device": "H100 80GB HBM3", "ops": {"0": "ld.global.ca", "1": "st.global", "2": "ld.local",
                                                      "3": "st.local"},
        "miss_threshold_cycles": 100,
        "calibrate": s3["calibrate"], "sector": s3["sector"],
        "fp8_kernels": s3["kernels"], "probe_kernels": {"seqk": {"regs": 29}, "seqk_pad": {"regs": 128}},
        "conflicts": [{k: r[k] for k in ("op", "stride", "k", "miss")} for r in s12["conflicts"]],
        "capacity_carveout": cap, "capacity_launch": s3["capacity_occupancy"],
        "capacity_local": s3["capacity_local"], "capacity_local_repeat": s4["local_capacity_rep"],
        "capacity_random": s3["capacity_random"], "miss_bitmaps": s3["miss_bitmaps"],
        "evict_scan": s3["evict_scan"] + s4["evict_scan_fixed"], "stores_reuse": s3["stores_reuse"],
        "granule_sets": s4["granule_sets"],
    }
    if (src / "l1_probe_stage5.json").exists():
        doc["frames"] = json.loads((src / "l1_probe_stage5.json").read_text())["frames"]
    path = REPO / "traces" / "h100" / "l1_probe.json"
    path.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(path, path.stat().st_size)


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", type=Path)
    ap.add_argument("--mock", type=Path)
    ap.add_argument("--json", type=Path, help="DIR with the stage files: write traces/h100/l1_probe.json")
    ap.add_argument("--merge6", type=Path, help="DIR with l1_probe_stage6.json: add its rows to traces/h100/l1_probe.json")
    ap.add_argument("--cubin", default=str(HERE / "l1_probe.cubin"))
    ap.add_argument("--stage", type=int, default=12)
    ap.add_argument("--thr", type=int, default=100, help="cycles: a load slower than this missed the L1")
    ap.add_argument("--geom", default="{}", help='stage 2: {"0": [ways, stride], "2": [ways, stride]} (op: lines)')
    a = ap.parse_args(argv)
    if a.device:
        device(a.device, a.cubin, a.stage, geom=json.loads(a.geom), thr=a.thr)
    if a.json:
        to_json(a.json)
    if a.merge6:
        merge6(a.merge6)
    if a.mock:
        device(a.mock, a.cubin, a.stage, mock=True, geom=json.loads(a.geom), thr=a.thr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
