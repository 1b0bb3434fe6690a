#!/usr/bin/env python3
"""What a taken branch costs the H100's instruction fetch, by how much code the warp ran since it last ran the
target. One warp of one CTA runs 8 trips of a loop of straight-line ``fma.rn.f32`` on 8 independent chains
(about one instruction a cycle), clock64 stamped at every trip:

* ``bfetch_<n>``: n FMA a trip (200 .. 520: 26 .. 66 code lines of 128 bytes), the loop closed by its backward
  branch. ``ifetch.json`` had a trip of 264 instructions (34 lines) pay the branch ~9 cycles as the replay does
  and one of 520 (66 lines) ~21; Nsight's samples put the sparse fp8 ILP 1 loop's (51 lines) at 22 against the
  replay's 12 (``stall_reasons_source.json``).
* ``bfetch1_<n>``: the same on one chain (one instruction every FMA latency), one warp alone and two on one
  sub-partition (warps 0 and 4): whether a line the other warp fetched is as good as one's own.
* ``bskip_<a>_<k>``: a FMA a trip with a block of k FMA in their middle that the warp branches over every trip
  (``it == never``, never true; the loop cannot be unswitched): its backward branch jumps over a + k
  instructions of code but the warp runs only a of them. If the cost follows how far back the target lies, these
  loops pay it twice a trip (the forward branch too) from some k; if it follows the code run since, never.

    python traces/capture/branch_fetch.py --build        # here: traces/capture/build/branch_fetch.{cu,cubin}
    python traces/capture/branch_fetch.py --device OUT   # on the GPU: OUT/branch_fetch_raw.json
    python traces/capture/branch_fetch.py --json OUT     # here: traces/h100/branch_fetch.json from OUT

Read by ``python -m warpsim.timing.ifetch --branch``.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from ifetch import TRIPS, Launcher, loop_source, loops_of, wrap  # noqa: E402
from probe import BUILD, builder, cli, kernels_sass, save_raw, summarise_raw  # noqa: E402

SIZES = (200, 232, 248, 256, 264, 272, 280, 296, 312, 328, 344, 376, 408, 456, 520)
#: (a, k) of the skip loops
SKIPS = ((64, 0), (64, 128), (64, 256), (64, 512), (64, 1024), (256, 512))
#: the one-chain loops, run alone and two on sub-partition 0
SIZES_ONE_CHAIN = (264, 408, 520)
#: (name, warps launched, active warps)
PLACEMENTS = (("one", 1, (0,)), ("sp0x2", 5, (0, 4)))
CHAINS = 8
REPEATS = 3
CUBIN = BUILD / "branch_fetch.cubin"


def _fma(j: int, chains: int = CHAINS) -> str:
    return f'asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(r[{j % chains}]) : "f"(a), "f"(b));'


def _head(name: str) -> str:
    return (f"{name}(int trips, int never, float a, float b, unsigned long long* out,\n"
            f"{' ' * (len(name) + 1)}unsigned* smid, float* sink)")


def kernel_source(n: int, chains: int = CHAINS) -> str:
    name = f"bfetch_{n}" if chains == CHAINS else f"bfetch{chains}_{n}"
    return wrap(_head(name), "warp & 3", "warp", chains,
                loop_source("warp", [_fma(j, chains) for j in range(n)], "  "))


def _skip_kernel(a: int, k: int) -> str:
    half = [_fma(j) for j in range(a // 2)]
    skipped = ["if (it == never) {"] + ["  " + _fma(j) for j in range(k)] + ["}"] if k else []
    return wrap(_head(f"bskip_{a}_{k}"), "warp & 3", "warp", CHAINS, loop_source("warp", half + skipped + half, "  "))


def source() -> str:
    return "\n".join([kernel_source(n) for n in SIZES] + [kernel_source(n, 1) for n in SIZES_ONE_CHAIN]
                     + [_skip_kernel(a, k) for a, k in SKIPS])


def runs() -> list:
    """``(kernel, placement)`` of every launch of a pass: the 8-chain loops alone, the one-chain ones both ways."""
    return ([(f"bfetch_{n}", "one") for n in SIZES] + [(f"bskip_{a}_{k}", "one") for a, k in SKIPS]
            + [(f"bfetch1_{n}", p) for n in SIZES_ONE_CHAIN for p, _l, _a in PLACEMENTS])


def device(out: Path) -> int:
    import cupy as cp
    go = Launcher(CUBIN, 8)
    launched = {p: (n, active) for p, n, active in PLACEMENTS}
    rows = []
    for rep in range(REPEATS):
        for name, place in runs():
            n, active = launched[place]
            got = go.run(name, n, (cp.int32(TRIPS), cp.int32(-1), cp.float32(1.0), cp.float32(0.0)),
                         {str(w): w for w in active})
            rows.append({"kernel": name, "placement": place, "repeat": rep, **got})
    save_raw(out, "branch_fetch", rows)
    return 0


def skips() -> dict:
    """``{kernel: [i, j]}`` of the skip loops: the index in the loop (``loops_of``' body) of the forward branch a
    trip takes and of the instruction it goes to (cuobjdump)."""
    import re
    out = {}
    for name, sass in kernels_sass(CUBIN).items():
        at = {a: i for i, (a, _t, _c) in enumerate(sass)}
        back = [(i, at[int(m.group(1), 16)]) for i, (a, t, _c) in enumerate(sass)
                if (m := re.search(r"\bBRA\s+0x([0-9a-f]+)", t)) and int(m.group(1), 16) < a]
        if not name.startswith("bskip_") or not back:
            continue
        last, first = back[-1]
        fwd = [(i, at[int(m.group(1), 16)]) for i, (a, t, _c) in enumerate(sass[first:last], first)
               if (m := re.search(r"\bBRA\s+0x([0-9a-f]+)", t)) and int(m.group(1), 16) > a]
        if fwd:
            out[name] = [fwd[0][0] - first, fwd[0][1] - first]
    return out


def summarise(out: Path) -> int:
    how = (f"one CTA of one warp (placement 'one') or warps 0 and 4 of 5 ('sp0x2'); {TRIPS} trips of each "
           f"kernel's loop (straight-line fma.rn.f32 on {CHAINS} chains, bfetch1_*: one), lane 0 stamping clock64 "
           f"at every trip start and after the last; the kernels one after another, the whole list {REPEATS} times "
           "(the first pass is the process's first launch of each). loops: each kernel's loop (ifetch.loops_of) "
           "and, for the skip loops, 'skip': the loop indices of the forward branch a trip takes and of its target")
    loops = loops_of(CUBIN)
    for name, fwd in skips().items():
        loops[name]["skip"] = fwd
    return summarise_raw(out, "branch_fetch", how, source(), loops)


def main(argv=None) -> int:
    return cli(argv, __doc__, source, builder(source, CUBIN), device, summarise)


if __name__ == "__main__":
    sys.exit(main())
