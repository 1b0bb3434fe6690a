#!/usr/bin/env python3
"""How the H100's SM fetches instructions: every active warp of one CTA runs a loop whose trip is N
straight-line ``fma.rn.f32`` (N = 256 .. 16,384, 4 KB .. 256 KB of SASS), on 8 independent chains (about one
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

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
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


def _kernel(n: int, chains: int) -> str:
    body = [f'asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(r[{j % chains}]) : "f"(a), "f"(b));'
            for j in range(n)]
    return f"""
extern "C" __global__ void {name(n, chains)}(int trips, float a, float b, unsigned long long* out,
                                              unsigned* smid, float* sink) {{
  const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (blockDim.x == 160 && (warp & 3)) return;
  float r[{chains}];
#pragma unroll
  for (int j = 0; j < {chains}; j++) r[j] = threadIdx.x + j;
  if (threadIdx.x == 0) {{ unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); *smid = s; }}
#pragma unroll 1
  for (int it = 0; it < trips; it++) {{
    const unsigned long long t = clock64();
    if (lane == 0) out[warp * {TRIPS + 1} + it] = t;
    {chr(10).join('    ' + x for x in body).lstrip()}
  }}
  const unsigned long long t = clock64();
  if (lane == 0) out[warp * {TRIPS + 1} + trips] = t;
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < {chains}; j++) s += r[j];
  sink[threadIdx.x] = s;
}}"""


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
        body = "\n      ".join(f'asm volatile("fma.rn.f32 %0, %0, %1, 0f0000000{c + 1};" : "+f"(r[{j % chains}]) '
                                f': "f"(a));' for j in range(n))
        cases.append(f"""    case {c}:
#pragma unroll 1
    for (int it = 0; it < trips; it++) {{
      const unsigned long long t = clock64();
      if (lane == 0) out[(warp >> 2) * {TRIPS + 1} + it] = t;
      {body}
    }}
    break;""")
    return f"""
extern "C" __global__ void {distinct_name(n, chains)}(int trips, int copies, float a, unsigned long long* out,
                                                       unsigned* smid, float* sink) {{
  const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (warp & 3) return;
  float r[{chains}];
#pragma unroll
  for (int j = 0; j < {chains}; j++) r[j] = threadIdx.x + j;
  if (threadIdx.x == 0) {{ unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); *smid = s; }}
  switch ((warp >> 2) % copies) {{
{chr(10).join(cases)}
  }}
  const unsigned long long t = clock64();
  if (lane == 0) out[(warp >> 2) * {TRIPS + 1} + trips] = t;
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < {chains}; j++) s += r[j];
  sink[threadIdx.x] = s;
}}"""


def source_distinct() -> str:
    return "\n".join(_distinct_kernel(n, c) for c in CHAINS for n in DISTINCT_SIZES)


BUILD = HERE / "build"
CUBIN = BUILD / "ifetch.cubin"
CUBIN_DISTINCT = BUILD / "ifetch_distinct.cubin"


def build() -> int:
    import subprocess
    BUILD.mkdir(exist_ok=True)
    for src, cubin in ((source(), CUBIN), (source_distinct(), CUBIN_DISTINCT)):
        cu = cubin.with_suffix(".cu")
        cu.write_text(src)
        subprocess.run(["nvcc", "-cubin", "-gencode=arch=compute_90a,code=sm_90a", "-O3", "-o", str(cubin),
                        str(cu)], check=True)
        print(f"wrote {cubin}")
    return 0


def _runs(lines: list) -> list:
    runs = []
    for x in lines:
        if runs and runs[-1][0] == x:
            runs[-1][1] += 1
        else:
            runs.append([x, 1])
    return runs


def _loops() -> dict:
    """Per kernel, its loop as ``warpsim.timing.sass_profile`` encodes it, run-length coded (``[line, count]``
    runs: the bodies are thousands of one FFMA line), its instructions and bytes, and the index of its first
    instruction in the kernel's code (``at``: where its 128-byte lines start), from cuobjdump."""
    import subprocess
    sys.path.insert(0, str(REPO))
    from warpsim.timing import sass_profile
    text = subprocess.run([sass_profile._tool("cuobjdump"), "-sass", str(CUBIN)], check=True, capture_output=True,
                          text=True).stdout
    out = {}
    for kname, sass in sass_profile.parse_sass(text).items():
        body = sass_profile.kernel_profile(sass)["body"]
        out[kname] = {"instructions": len(body), "bytes": 16 * len(body),
                      "at": sass_profile.loop_body(sass)[0][0] // 16, "body": _runs(body)}
    return out


def _distinct_loops() -> dict:
    """Per kernel of the second experiment, its four loops (the copies, in the order of their code) as
    :func:`_loops` gives one."""
    import re
    import subprocess
    sys.path.insert(0, str(REPO))
    from warpsim.timing import sass_profile
    text = subprocess.run([sass_profile._tool("cuobjdump"), "-sass", str(CUBIN_DISTINCT)], check=True,
                          capture_output=True, text=True).stdout
    out = {}
    for kname, sass in sass_profile.parse_sass(text).items():
        at = {a: i for i, (a, _t, _c) in enumerate(sass)}
        loops = []
        for i, (a, t, _c) in enumerate(sass):
            m = re.search(r"\bBRA\s+(?:`\()?0x([0-9a-f]+)", t)
            if m and int(m.group(1), 16) < a:
                first = at[int(m.group(1), 16)]
                body = [sass_profile.encode(tt, cc) for _a, tt, cc in sass[first:i + 1]]
                loops.append({"instructions": len(body), "at": sass[first][0] // 16, "body": _runs(body)})
        out[kname] = loops
    return out


def device_distinct() -> list:
    """Rows of the second experiment (``DISTINCT``: 1, 2 or 4 warps on sub-partition 0 running 1, 2 or 4 copies
    of the loop)."""
    import cupy as cp
    mod = cp.RawModule(path=str(CUBIN_DISTINCT))
    buf = cp.zeros(4 * (TRIPS + 1), cp.uint64)
    smid = cp.zeros(1, cp.uint32)
    sink = cp.zeros(13 * 32, cp.float32)
    rows = []
    for chains in CHAINS:
        for n in DISTINCT_SIZES:
            fn = mod.get_function(distinct_name(n, chains))
            for rep in range(REPEATS):
                for warps, copies in DISTINCT:
                    buf[:] = 0
                    fn((1,), (32 * (4 * (warps - 1) + 1),),
                       (cp.int32(TRIPS), cp.int32(copies), cp.float32(1.0), buf, smid, sink))
                    cp.cuda.Device().synchronize()
                    t = buf.get().reshape(4, TRIPS + 1)
                    rows.append({"n": n, "chains": chains, "warps": warps, "copies": copies, "repeat": rep,
                                 "smid": int(smid.get()[0]),
                                 "stamps": {str(4 * k): [int(x) for x in t[k]] for k in range(warps)}})
    return rows


def device(out: Path, part: str = "all") -> int:
    import cupy as cp
    out.mkdir(parents=True, exist_ok=True)
    if part in ("all", "distinct"):
        (out / "ifetch_distinct_raw.json").write_text(json.dumps({"rows": device_distinct()}))
        print(f"written {out / 'ifetch_distinct_raw.json'}")
    if part == "distinct":
        return 0
    mod = cp.RawModule(path=str(CUBIN))
    buf = cp.zeros(8 * (TRIPS + 1), cp.uint64)
    smid = cp.zeros(1, cp.uint32)
    sink = cp.zeros(8 * 32, cp.float32)
    rows = []
    for chains in CHAINS:
        for n in SIZES:
            fn = mod.get_function(name(n, chains))
            for rep in range(REPEATS):
                for place, launched, active in PLACEMENTS:
                    buf[:] = 0
                    fn((1,), (32 * launched,), (cp.int32(TRIPS), cp.float32(1.0), cp.float32(0.0), buf, smid, sink))
                    cp.cuda.Device().synchronize()
                    t = buf.get().reshape(8, TRIPS + 1)
                    rows.append({"n": n, "chains": chains, "placement": place, "repeat": rep,
                                 "smid": int(smid.get()[0]),
                                 "stamps": {str(w): [int(x) for x in t[w]] for w in active}})
    dev = cp.cuda.runtime.getDeviceProperties(0)
    doc = {"device": dev["name"].decode(), "cupy": cp.__version__,
           "created": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "rows": rows}
    (out / "ifetch_raw.json").write_text(json.dumps(doc))
    print(f"{len(rows)} launches written to {out / 'ifetch_raw.json'}")
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
           "source_generator": "traces/capture/ifetch.py", "loops": _loops(), "rows": raw["rows"],
           "distinct_loops": _distinct_loops(), "distinct_rows": distinct}
    dest = REPO / "traces" / "h100" / "ifetch.json"
    write_atomic(dest, json.dumps(doc, indent=0) + "\n")
    print(f"wrote {dest}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--build", action="store_true")
    g.add_argument("--device", type=Path)
    ap.add_argument("--part", choices=("all", "distinct"), default="all",
                    help="with --device: both experiments (the distinct-copies one first) or that one alone")
    g.add_argument("--json", type=Path)
    g.add_argument("--source", action="store_true", help="print the CUDA source")
    a = ap.parse_args(argv)
    if a.source:
        print(source())
        return 0
    if a.build:
        return build()
    return device(a.device, a.part) if a.device else summarise(a.json)


if __name__ == "__main__":
    sys.exit(main())
