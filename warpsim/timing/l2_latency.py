"""The latency of a global load as one warp sees it (``traces/h200/l2_latency.json``, ``traces/capture/l2_latency.py``,
``traces/capture/kernels/l2_latency.ptx``), run by the GPU and by warpsim's timed engine from the same PTX file.

``chase_ca`` / ``chase_cg``: lane 0 follows a chain of links, each in a line of its own (:data:`VARIANTS`: the
lines' stride and how many), two passes, and times every load by itself (a clock read, the load, a shared store
of what it loaded, a clock read). ``chase_ca`` loads through the L1 (its second pass hits), ``chase_cg`` from the
L2 every time. ``burst_<N>_l<LANES>``: 32 lanes (a whole line a request) or one lane issue N independent loads, each
from a line of its own, and wait for all. Each is launched once to bring its lines into the L2, then after the L1
reset of the timing traces, then back to back.

    python -m warpsim.timing.l2_latency [FILE]    # the GPU's cycles beside warpsim's (default: the H200 file)
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
PTX = os.path.join(REPO, "traces", "capture", "kernels", "l2_latency.ptx")
PATH = os.path.join(REPO, "traces", "h200", "l2_latency.json")
MB = 1 << 20
SEED = 20261129


@dataclass(frozen=True)
class Variant:
    """A chain: ``links`` lines ``stride`` bytes apart from byte ``offset`` of the buffer, in a random cycle."""
    stride: int
    links: int
    offset: int


VARIANTS = {
    "s128_n64": Variant(128, 64, 0),                # 8 KB: one page, a few L2 sets
    "s256_n256": Variant(256, 256, 1 * MB),         # 64 KB, gmem_rate's spacing
    "s4k_n256": Variant(4096, 256, 2 * MB),         # 1 MB
    "s64k_n128": Variant(64 * 1024, 128, 4 * MB),   # 8 MB: four 2 MB pages
    "s2m_n32": Variant(2 * MB + 128, 32, 16 * MB),  # 64 MB: a page a link
}
CHASES = ("chase_ca", "chase_cg")
BURST_N = (1, 2, 4, 8, 16, 32)
BURSTS = tuple(f"burst_{n}_l{lanes}" for lanes in (32, 1) for n in BURST_N)
BURST_OFFSET = 96 * MB
WORDS = (BURST_OFFSET + MB) // 4
BEFORE = ("first", "l1-reset", "none")  # the launch that brings the lines into the L2, then the two conditions


def chain(name: str, seed: int = SEED) -> tuple[np.ndarray, np.ndarray, int]:
    """``(index, next, start)`` of a variant's chain: the word index of each link and the word its line holds
    (the next link's index), and the first link's index."""
    v = VARIANTS[name]
    idx = (v.offset + v.stride * np.arange(v.links, dtype=np.int64)) // 4
    order = np.random.default_rng([seed, sorted(VARIANTS).index(name)]).permutation(v.links)
    nxt = np.empty(v.links, np.int64)
    nxt[order] = idx[np.roll(order, -1)]
    return idx.astype(np.uint32), nxt.astype(np.uint32), int(idx[order[0]])


def buffer() -> np.ndarray:
    """The buffer every kernel reads: each variant's chain written in."""
    buf = np.zeros(WORDS, np.uint32)
    for name in VARIANTS:
        idx, nxt, _ = chain(name)
        buf[idx] = nxt
    return buf


def simulate_chase(kernel: str, variant: str, buf: np.ndarray | None = None) -> np.ndarray:
    """The cycles of each load ``[pass][link]`` of a chase run by warpsim."""
    from warpsim.timing import measurement
    buf = buffer() if buf is None else buf
    _, _, start = chain(variant)
    n = VARIANTS[variant].links
    t = np.zeros(2 * n, np.int64)
    fn = measurement.h200_module(PTX).get_function(kernel)
    fn((1, 1, 1), (32, 1, 1), (buf, np.uint32(start), np.int32(n), t))
    return t.reshape(2, n)


def simulate_burst(kernel: str, buf: np.ndarray | None = None) -> float:
    """The cycles of a burst run by warpsim."""
    from warpsim.timing import measurement
    buf = buffer() if buf is None else buf
    t = np.zeros(2, np.int64)
    fn = measurement.h200_module(PTX).get_function(kernel)
    fn((1, 1, 1), (32, 1, 1), (buf[BURST_OFFSET // 4:], t, np.zeros(32, np.uint32)))
    return float(t[1] - t[0])


def load(path: str = PATH) -> dict:
    from warpsim.timing import measurement

    def bad(r):
        k, v = r.get("kernel"), r.get("variant")
        want = (2, VARIANTS[v].links) if k in CHASES and v in VARIANTS else (2,) if k in BURSTS and v is None else None
        if want is None or r.get("before") not in BEFORE or measurement.shape(r.get("t")) != want:
            return (f"a row ({k!r}, {v!r}, {r.get('before')!r}) is not a chase of a known variant with a clock "
                    "count a link and pass, nor a burst with two clocks")
    return measurement.load_rows(path, "l2_latency", bad)


def measured(doc: dict) -> dict:
    """``{(kernel, variant, before): array}``: a chase's cycles ``[launch][pass][link]``, a burst's
    ``[launch]`` (second clock less first)."""
    got: dict = {}
    for r in doc["rows"]:
        t = np.asarray(r["t"], np.int64)
        got.setdefault((r["kernel"], r["variant"], r["before"]), []).append(t if r["variant"] else t[1] - t[0])
    return {k: np.array(v) for k, v in got.items()}


def summary(lat: np.ndarray) -> str:
    """min / median / 90th percentile / max of some loads' cycles."""
    q = np.percentile(lat, [0, 50, 90, 100])
    return " ".join(f"{x:5.0f}" for x in q)


def main(argv=None) -> int:
    from warpsim.timing import measurement
    doc = measurement.opened(argv, __doc__, load, PATH)
    if doc is None:
        return 0
    got = measured(doc)
    buf = buffer()
    print("chase: a load's cycles, min / median / p90 / max over the links (and launches)")
    print(f"{'kernel':9} {'variant':10} {'before':9} {'pass 1 (from the L2)':>24} {'pass 2':>24}   warpsim pass 1 / 2")
    for k in CHASES:
        for v in VARIANTS:
            sim = simulate_chase(k, v, buf)
            for b in BEFORE:
                lat = got.get((k, v, b))
                if lat is None:
                    continue
                print(f"{k:9} {v:10} {b:9} {summary(lat[:, 0]):>24} {summary(lat[:, 1]):>24}   "
                      f"{np.median(sim[0]):5.0f} / {np.median(sim[1]):5.0f}")
    print("burst: cycles from the first load to the data of all, median over the launches")
    print(f"{'kernel':14} {'first':>7} {'l1-reset':>9} {'none':>7} {'warpsim':>8}")
    for k in BURSTS:
        row = [np.median(got[(k, None, b)]) if (k, None, b) in got else float("nan") for b in BEFORE]
        print(f"{k:14} {row[0]:7.0f} {row[1]:9.0f} {row[2]:7.0f} {simulate_burst(k, buf):8.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
