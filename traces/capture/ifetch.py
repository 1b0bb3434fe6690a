#!/usr/bin/env python3
"""How the H100's SM fetches instructions: every active warp of one CTA runs a loop whose trip is N
straight-line ``fma.rn.f32`` (N = 256 .. 16,384, 4 KB .. 262 KB of SASS), on 8 independent chains (about one
instruction a cycle) or on one (one every FMA latency), with clock64 stamped at every trip. The first trip
of a launch shows what fetching the code from the L2 (or, for a kernel's first launch, from memory) costs;
the later trips show the loop's rate once the code is as cached as it will be, and where that rate breaks,
how large the instruction caches are. Warps: one alone, two on sub-partition 0 (warps 0 and 4), four (one a
sub-partition), eight (two a sub-partition).

    python traces/capture/ifetch.py --build        # here: traces/capture/build/ifetch.{cu,cubin} (nvcc -O3)
    python traces/capture/ifetch.py --device OUT   # on the GPU (CuPy loads that cubin): OUT/ifetch_raw.json
    python traces/capture/ifetch.py --json OUT     # here: traces/h100/ifetch.json from OUT

Read by ``python -m warpsim.timing.ifetch``.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from probe import BUILD, cli, kernels_sass, nvcc_cubin, save_raw  # noqa: E402
from trips import write_atomic  # noqa: E402

SIZES = (256, 512, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384)
CHAINS = (8, 1)
#: (name, warps launched, active warps)
PLACEMENTS = (("one", 1, (0,)), ("sp0x2", 5, (0, 4)), ("spread4", 4, (0, 1, 2, 3)),
              ("spread8", 8, tuple(range(8))))
TRIPS = 8
REPEATS = 3


def name(n: int, chains: int) -> str:
    return f"ifetch_{n}_{chains}"


def wrap(head: str, guard: str, slot: str, chains: int, inner: str) -> str:
    """A kernel: ``head`` its signature, ``guard`` the warps that exit at once, ``slot`` the warp's row of
    ``out``, ``chains`` FMA chains in ``r``, ``inner`` the timed loop(s), the clock after the last trip."""
    return f"""
extern "C" __global__ void {head} {{
  const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if ({guard}) return;
  float r[{chains}];
#pragma unroll
  for (int j = 0; j < {chains}; j++) r[j] = threadIdx.x + j;
  if (threadIdx.x == 0) {{ unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); *smid = s; }}
{inner}
  const unsigned long long t = clock64();
  if (lane == 0) out[{slot} * {TRIPS + 1} + trips] = t;
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < {chains}; j++) s += r[j];
  sink[threadIdx.x] = s;
}}"""


def loop_source(slot: str, body: list, indent: str) -> str:
    """The timed loop: lane 0 stamps clock64 at every trip's start, then ``body``."""
    lines = ["#pragma unroll 1", "for (int it = 0; it < trips; it++) {", "  const unsigned long long t = clock64();",
             f"  if (lane == 0) out[{slot} * {TRIPS + 1} + it] = t;"] + ["  " + x for x in body] + ["}"]
    return "\n".join(x if x.startswith("#") else indent + x for x in lines)


def _kernel(n: int, chains: int) -> str:
    body = [f'asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(r[{j % chains}]) : "f"(a), "f"(b));'
            for j in range(n)]
    head = (f"{name(n, chains)}(int trips, float a, float b, unsigned long long* out,\n"
            f"{' ' * 46}unsigned* smid, float* sink)")
    return wrap(head, "blockDim.x == 160 && (warp & 3)", "warp", chains, loop_source("warp", body, "  "))


def source() -> str:
    return "\n".join(_kernel(n, c) for c in CHAINS for n in SIZES)


#: the second experiment: warps on one sub-partition running copies of a loop that share no code
DISTINCT_SIZES = (1536, 3072)
COPIES = 4
#: (active warps on sub-partition 0, copies of the loop among them)
DISTINCT = ((1, 1), (2, 1), (2, 2), (4, 1), (4, 2), (4, 4))


def distinct_name(n: int, chains: int) -> str:
    return f"ifetchd_{n}_{chains}"


def _distinct_kernel(n: int, chains: int) -> str:
    """Warps 0, 4, 8, 12 (the others exit) run copy (warp / 4) mod ``copies`` of the loop: the copies differ in
    the FMA's addend (an immediate of its own), so ptxas keeps them apart."""
    cases = []
    for c in range(COPIES):
        body = [f'asm volatile("fma.rn.f32 %0, %0, %1, 0f0000000{c + 1};" : "+f"(r[{j % chains}]) : "f"(a));'
                for j in range(n)]
        cases.append(f"    case {c}:\n{loop_source('(warp >> 2)', body, '    ')}\n    break;")
    head = (f"{distinct_name(n, chains)}(int trips, int copies, float a, unsigned long long* out,\n"
            f"{' ' * 55}unsigned* smid, float* sink)")
    inner = "  switch ((warp >> 2) % copies) {\n" + "\n".join(cases) + "\n  }"
    return wrap(head, "warp & 3", "(warp >> 2)", chains, inner)


def source_distinct() -> str:
    return "\n".join(_distinct_kernel(n, c) for c in CHAINS for n in DISTINCT_SIZES)


CUBIN = BUILD / "ifetch.cubin"
CUBIN_DISTINCT = BUILD / "ifetch_distinct.cubin"


def build() -> int:
    nvcc_cubin(source(), CUBIN)
    nvcc_cubin(source_distinct(), CUBIN_DISTINCT)
    return 0


def runs_of(lines: list) -> list:
    runs = []
    for x in lines:
        if runs and runs[-1][0] == x:
            runs[-1][1] += 1
        else:
            runs.append([x, 1])
    return runs


def loops_of(cubin: Path) -> dict:
    """Per kernel of ``cubin``, its loop as ``warpsim.timing.sass_profile`` encodes it, run-length coded
    (``[line, count]`` runs: the bodies are thousands of one FFMA line), its instructions and bytes, and the index
    of its first instruction in the kernel's code (``at``: where its 128-byte lines start), from cuobjdump."""
    from warpsim.timing import sass_profile
    out = {}
    for kname, sass in kernels_sass(cubin).items():
        body = sass_profile.kernel_profile(sass)["body"]
        out[kname] = {"instructions": len(body), "bytes": 16 * len(body),
                      "at": sass_profile.loop_body(sass)[0][0] // 16, "body": runs_of(body)}
    return out


def _distinct_loops() -> dict:
    """Per kernel of the second experiment, its four loops (the copies, in the order of their code) as
    :func:`loops_of` gives one."""
    import re
    from warpsim.timing import sass_profile
    out = {}
    for kname, sass in kernels_sass(CUBIN_DISTINCT).items():
        at = {a: i for i, (a, _t, _c) in enumerate(sass)}
        loops = []
        for i, (a, t, _c) in enumerate(sass):
            m = re.search(r"\bBRA\s+(?:`\()?0x([0-9a-f]+)", t)
            if m and int(m.group(1), 16) < a:
                first = at[int(m.group(1), 16)]
                body = [sass_profile.encode(tt, cc) for _a, tt, cc in sass[first:i + 1]]
                loops.append({"instructions": len(body), "at": sass[first][0] // 16, "body": runs_of(body)})
        out[kname] = loops
    return out


class Launcher:
    """One cubin's kernels launched as one CTA, the clock stamps of each warp's row of ``out`` read back."""

    def __init__(self, cubin: Path, rows: int):
        import cupy as cp
        self.cp, self.mod = cp, cp.RawModule(path=str(cubin))
        self.out = cp.zeros(rows * (TRIPS + 1), cp.uint64)
        self.smid = cp.zeros(1, cp.uint32)
        self.sink = cp.zeros(16 * 32, cp.float32)

    def run(self, kernel: str, warps: int, args: tuple, slots: dict) -> dict:
        """``{"smid", "stamps": {key: the clocks of row slots[key]}}`` of one launch of ``warps`` warps."""
        cp = self.cp
        self.out[:] = 0
        self.mod.get_function(kernel)((1,), (32 * warps,), args + (self.out, self.smid, self.sink))
        cp.cuda.Device().synchronize()
        t = self.out.get().reshape(-1, TRIPS + 1)
        return {"smid": int(self.smid.get()[0]), "stamps": {k: [int(x) for x in t[r]] for k, r in slots.items()}}


def device_distinct() -> list:
    """Rows of the second experiment (``DISTINCT``: 1, 2 or 4 warps on sub-partition 0 running 1, 2 or 4 copies
    of the loop)."""
    import cupy as cp
    go = Launcher(CUBIN_DISTINCT, 4)
    rows = []
    for chains in CHAINS:
        for n in DISTINCT_SIZES:
            for rep in range(REPEATS):
                for warps, copies in DISTINCT:
                    got = go.run(distinct_name(n, chains), 4 * (warps - 1) + 1,
                                 (cp.int32(TRIPS), cp.int32(copies), cp.float32(1.0)),
                                 {str(4 * k): k for k in range(warps)})
                    rows.append({"n": n, "chains": chains, "warps": warps, "copies": copies, "repeat": rep, **got})
    return rows


def device(out: Path, part: str = "all") -> int:
    import cupy as cp
    out.mkdir(parents=True, exist_ok=True)
    if part in ("all", "distinct"):
        (out / "ifetch_distinct_raw.json").write_text(json.dumps({"rows": device_distinct()}))
        print(f"written {out / 'ifetch_distinct_raw.json'}")
    if part == "distinct":
        return 0
    go = Launcher(CUBIN, 8)
    rows = []
    for chains in CHAINS:
        for n in SIZES:
            for rep in range(REPEATS):
                for place, launched, active in PLACEMENTS:
                    got = go.run(name(n, chains), launched, (cp.int32(TRIPS), cp.float32(1.0), cp.float32(0.0)),
                                 {str(w): w for w in active})
                    rows.append({"n": n, "chains": chains, "placement": place, "repeat": rep, **got})
    save_raw(out, "ifetch", rows)
    return 0


def summarise(out: Path) -> int:
    raw = json.loads((out / "ifetch_raw.json").read_text())
    distinct = json.loads((out / "ifetch_distinct_raw.json").read_text())["rows"]
    doc = {"how": (f"traces/capture/ifetch.py --device, {raw['device']}, CuPy {raw['cupy']}, {raw['created']}: "
                   f"one CTA; every active warp runs {TRIPS} trips of N straight-line fma.rn.f32 on 8 or 1 "
                   "independent chains, lane 0 stamping clock64 at every trip start and after the last; per "
                   "kernel (sizes, chains, in that order) the placements one after another, repeated "
                   f"{REPEATS} times, the first launch of a kernel being the process's first of its code. "
                   "Placements: 'one' (warp 0), 'sp0x2' (warps 0 and 4 of 5), 'spread4', 'spread8'."),
           "how_distinct": ("the same, warps 0, 4, 8, 12 (1, 2 or 4 of them, all on sub-partition 0; the others "
                            "exit) running copies of the loop that share no code (copy = warp / 4 mod copies; "
                            f"N = {', '.join(map(str, DISTINCT_SIZES))}), stamps keyed by warp id"),
           "source_generator": "traces/capture/ifetch.py", "loops": loops_of(CUBIN), "rows": raw["rows"],
           "distinct_loops": _distinct_loops(), "distinct_rows": distinct}
    dest = REPO / "traces" / "h100" / "ifetch.json"
    write_atomic(dest, json.dumps(doc, indent=0) + "\n")
    print(f"wrote {dest}")
    return 0


def main(argv=None) -> int:
    return cli(argv, __doc__, lambda: source() + source_distinct(), build, device, summarise,
               part=(("all", "distinct"), "with --device: both experiments (the distinct-copies one first) or "
                                          "that one alone"))

if __name__ == "__main__":
    sys.exit(main())
