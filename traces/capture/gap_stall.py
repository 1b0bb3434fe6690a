#!/usr/bin/env python3
"""When does a warp that fills another's stall count take the sub-partition's turn from it, and for how long?
(``sched_gap.json`` found that it does, but less often than the replay's ``gap_turn``, by which it keeps the
turn to its own next yield.) Warp 0 (the hog) issues independent FFMA, one a cycle to the FMA pipes; warp 4 (the
probe, the same sub-partition) runs a chain of 264 dependent ``LOP3.LUT`` a trip on the ALU, clock64 stamped at
every trip. Copies of the cubin set the probe's stall count (2-8, 10) and its yield flag (ptxas yields on
every chain step; the copies ``...n`` keep the turn), and the hog's yield flag on every 4th, 8th or 16th FFMA
(ptxas: none). A probe that keeps the turn is slowed by the hog only if the hog's FFMA, issued in the probe's
stall count, takes the turn: by how much, against the stall count, tells the rule.

    python traces/capture/gap_stall.py --build        # here: traces/capture/build/gap_stall.{cu,cubin}
    python traces/capture/gap_stall.py --device OUT   # on the GPU: OUT/gap_stall_raw.json
    python traces/capture/gap_stall.py --json OUT     # here: traces/h100/gap_stall.json from OUT

Read by ``python -m warpsim.timing.gap_stall``.
"""
from __future__ import annotations

import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from ifetch import TRIPS, runs_of  # noqa: E402
from probe import BUILD, builder, cli, code_section, kernel_sass, save_raw, summarise_raw, with_control  # noqa: E402

KERNEL = "gstall"
CUBIN = BUILD / "gap_stall.cubin"
N = 264          # the probe's chain steps a trip
HOG_TRIPS = 6000  # the hog's trips of 64 FFMA: longer than the slowest probe
LOP3, FFMA = 0x212, 0x223
STALLS = (2, 3, 4, 5, 6, 7, 8, 10)  # (12 without the yield flag is an encoding nvdisasm rejects: not tried on the GPU)
HOG_YIELDS = (0, 4, 8, 16)  # the hog's FFMA yielding every n-th (0: never, as ptxas made it)
REPEATS = 3


def source(probe_warp: int = 4, hog_warp: int = 0) -> str:
    """The kernel's CUDA source: the probe on warp ``probe_warp``, the hog on ``hog_warp`` (one sub-partition:
    both 0 mod 4; ``age_swap.py`` swaps them)."""
    step = 'asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+f"(r) : "f"(a), "f"(b));'
    fma = "".join(f'asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(f[{j % 8}]) : "f"(a), "f"(b)); '
                  for j in range(64))
    return f"""
extern "C" __global__ void {KERNEL}(int trips, int hog_trips, float a, float b, unsigned long long* out,
                                  unsigned* smid, float* sink) {{
  const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (warp & 3) return;
  if (threadIdx.x == 0) {{ unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); *smid = s; }}
  float acc = 0.f;
  if (warp == {probe_warp}) {{
    float r = threadIdx.x;
#pragma unroll 1
    for (int it = 0; it < trips; it++) {{
      const unsigned long long t = clock64();
      if (lane == 0) out[it] = t;
      {" ".join([step] * N)}
    }}
    const unsigned long long t = clock64();
    if (lane == 0) out[trips] = t;
    acc = r;
  }} else if (warp == {hog_warp} && hog_trips > 0) {{
    float f[8];
#pragma unroll
    for (int j = 0; j < 8; j++) f[j] = threadIdx.x + j;
    const unsigned long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < hog_trips; it++) {{ {fma} }}
    const unsigned long long t1 = clock64();
    if (lane == 0) {{ out[{TRIPS + 1}] = t0; out[{TRIPS + 2}] = t1; }}
#pragma unroll
    for (int j = 0; j < 8; j++) acc += f[j];
  }}
  sink[threadIdx.x] = acc;
}}"""


def variants() -> dict:
    """``{name: (probe stall count, probe yields, hog yields every n-th FFMA or 0)}``."""
    return {f"s{s}{'y' if y else 'n'}_h{h}": (s, y, h) for s in STALLS for y in (True, False) for h in HOG_YIELDS}


def patch(cubin: bytes, stall: int, probe_yields: bool, hog_every: int) -> bytes:
    """The cubin with the probe's chain steps (``LOP3.LUT Rx, Rx, ...``) at stall count ``stall``, yielding or not,
    and the yield flag set on every ``hog_every``-th FFMA of the hog's (0: as ptxas made them); the control bits as
    ``probe.with_control`` sets them."""
    out = bytearray(cubin)
    base, size = code_section(cubin, KERNEL)
    steps = ffma = 0
    for a in range(base, base + size, 16):
        lo, hi = struct.unpack_from("<QQ", out, a)
        if lo & 0xFFF == LOP3 and (lo >> 16) & 0xFF == (lo >> 24) & 0xFF:
            hi = with_control(hi, stall, probe_yields)
            steps += 1
        elif lo & 0xFFF == FFMA:
            ffma += 1
            if hog_every and ffma % hog_every == 0:
                hi = with_control(hi, yields=True)
        struct.pack_into("<QQ", out, a, lo, hi)
    if steps < N or ffma < 64:
        raise ValueError(f"{steps} chain steps and {ffma} FFMA in {KERNEL}, expected {N} and 64")
    return bytes(out)


def launch(go, probe_trips: int, hog_trips: int) -> dict:
    """One launch of the kernel's 5 warps (``ifetch.Launcher`` ``go``): the SM, the probe's trip clocks (row 0)
    and the hog's first and last (row 1)."""
    import cupy as cp
    got = go.run(KERNEL, 5, (cp.int32(probe_trips), cp.int32(hog_trips), cp.float32(1.0), cp.float32(0.0)),
                 {"probe": 0, "hog": 1})
    return {"smid": got["smid"], "probe": got["stamps"]["probe"], "hog_clocks": got["stamps"]["hog"][:2]}


def device(out: Path) -> int:
    from ifetch import Launcher
    out.mkdir(parents=True, exist_ok=True)
    plain = CUBIN.read_bytes()
    rows = []
    for name, (s, y, h) in variants().items():
        path = out / f"gap_stall_{name}.cubin"
        path.write_bytes(patch(plain, s, y, h))
        go = Launcher(path, 2)
        for rep in range(REPEATS):
            for hog in ((0, HOG_TRIPS) if h == 0 else (HOG_TRIPS,)):  # alone once a probe copy
                rows.append({"variant": name, "hog": hog > 0, "repeat": rep, **launch(go, TRIPS, hog)})
        path.unlink()
        save_raw(out, "gap_stall", rows)
    return 0


def loops() -> dict:
    """The probe's and the hog's loop of each copy, as ``warpsim.timing.sass_profile`` encodes them (run-length
    coded), from cuobjdump's SASS of the copy."""
    from warpsim.timing import sass_profile
    got: dict = {}
    for name, v in variants().items():
        bodies = _loops(kernel_sass(patch(CUBIN.read_bytes(), *v), KERNEL))
        got[name] = {k: runs_of([sass_profile.encode(t, c) for _a, t, c in body]) for k, body in bodies.items()}
    return got


def _loops(sass: list) -> dict:
    """``{"probe": ..., "hog": ...}``: the blocks of the kernel's two backward branches (target to branch), the
    probe's the one with the LOP3 chain."""
    import re
    at = {a: i for i, (a, _t, _c) in enumerate(sass)}
    out = {}
    for i, (a, t, _c) in enumerate(sass):
        m = re.search(r"\bBRA\s+(?:`\()?0x([0-9a-f]+)", t)
        if m and int(m.group(1), 16) < a:
            body = sass[at[int(m.group(1), 16)]:i + 1]
            out["probe" if sum(x[1].startswith("LOP3") for x in body) >= N else "hog"] = body
    if set(out) != {"probe", "hog"}:
        raise ValueError(f"expected the probe's and the hog's loops, found {sorted(out)}")
    return out


def summarise(out: Path) -> int:
    how = (f"one CTA of 5 warps: warp 4 (the probe) {TRIPS} trips of {N} dependent LOP3.LUT (lop3.b32 r, r, a, b) "
           f"stamping clock64 at each trip start and after the last; warp 0 (the hog, the same sub-partition) "
           f"{HOG_TRIPS} trips of 64 independent FFMA (8 chains), or none; copies of the cubin (loops: variant -> "
           "the probe's and the hog's loop) with the probe's chain steps at stall count 2-8 or 10, yielding "
           "(y, as ptxas) or not (n), and the hog's FFMA yielding every 4th / 8th / 16th (h4, h8, h16) or never "
           f"(h0, as ptxas); {REPEATS} repeats of each copy, the probe alone once a repeat in the h0 copies")
    return summarise_raw(out, "gap_stall", how, source(), {"steps": N, "probe_trips": TRIPS, "hog_trips": HOG_TRIPS,
                                                          "variants": {k: list(v) for k, v in variants().items()},
                                                          "loops": loops()})


def main(argv=None) -> int:
    return cli(argv, __doc__, source, builder(source, CUBIN), device, summarise)


if __name__ == "__main__":
    sys.exit(main())
