#!/usr/bin/env python3
"""Which instructions does a warp issue in the stall counts of a warp that keeps the sub-partition?
(``yield_pair.json``: beside a warp issuing LOP3 at stall count 2 the waiting warp's clock read does not go in
its one-cycle gaps, where at stall count 3 or more it does; replaying the recorded loops with no issue in any
stall-2 gap leaves them 5-14 % long, so some instructions do go in.) Warp 0 runs 384 independent ``LOP3.LUT``
(the ALU, one every 2 cycles at ptxas's stall count 2, every yield flag cleared: it never gives the turn up);
warp 4 (the same sub-partition) sleeps ~200 ns, then issues M instructions of one kind and reads the clock. If
warp 4's instructions go in warp 0's gaps, its end comes before warp 0's, whatever M; if not, M instructions
after it. Kinds (``KINDS``): independent FFMA, IMAD, LOP3 (warp 0's pipe), FADD (ptxas keeps only a few of 64
clock or lane-id reads, so those are not among them); M = 0 or 64; warp 0's LOP3 at stall count 2 (as built) or 3.

    python traces/capture/fill_probe.py --build        # here: build/fill_probe.{cu,cubin}
    python traces/capture/fill_probe.py --device OUT   # on the GPU (cuobjdump too): OUT/fill_probe_raw.json
    python traces/capture/fill_probe.py --json OUT     # here: traces/h100/fill_probe.json from OUT

Read by ``python -m warpsim.timing.fill_probe``.
"""
from __future__ import annotations

import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))
from probe import (BUILD, builder, cli, code_section, kernels_sass, lut_lops, save_raw, summarise_raw,  # noqa: E402
                   with_control)

CUBIN = BUILD / "fill_probe.cubin"
LOPS = 384  # warp 0's LOP3
#: warp 4's instruction kinds: ``{kind: (declarations, one instruction on register r{j}, its result as bits)}``
KINDS = {
    "ffma": ("float r{j} = threadIdx.x + {j};", 'asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(r{j}) : "f"(fy), '
             '"f"(fz));', "__float_as_uint(r{j})"),
    "imad": ("unsigned r{j} = threadIdx.x + {j};", 'asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(r{j}) : '
             '"r"(y), "r"(z));', "r{j}"),
    "lop3": ("unsigned r{j} = threadIdx.x + {j};", 'asm volatile("lop3.b32 %0, %0, %1, %2, 0x69;" : "+r"(r{j}) : '
             '"r"(y), "r"(z));', "r{j}"),
    "fadd": ("float r{j} = threadIdx.x + {j};", 'asm volatile("add.rn.f32 %0, %0, %1;" : "+f"(r{j}) : "f"(fz));',
             "__float_as_uint(r{j})"),
}
COUNTS = (0, 64)
STALLS = (2, 3)  # warp 0's LOP3
REPEATS = 3


def name(kind: str, m: int) -> str:
    return f"fill_{kind}_{m}"


def source() -> str:
    return "".join(_kernel(k, m) for k in KINDS for m in COUNTS)


def _kernel(kind: str, m: int) -> str:
    decl, ins, bits = KINDS[kind]
    a = "".join(f'asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x{j}) : "r"(y), "r"(z)); ' for j in range(6))
    b = "".join(ins.format(j=j % 4) + " " for j in range(m))
    return f"""
extern "C" __global__ void {name(kind, m)}(unsigned long long* out, unsigned* sink) {{
  const unsigned w = threadIdx.x >> 5;
  if (w & 3) return;
  unsigned y = threadIdx.x * 3 + 1, z = threadIdx.x ^ 0x55;
  float fy = 1.0f + threadIdx.x * 1e-7f, fz = 1e-9f * threadIdx.x;
  unsigned x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5;
  {" ".join(decl.format(j=j) for j in range(4))}
  __syncthreads();
  unsigned long long t0 = clock64(), t1;
  if (w == 0) {{
#pragma unroll
    for (int k = 0; k < {LOPS // 6}; ++k) {{ {a}}}
    t1 = clock64();
  }} else {{
    __nanosleep(200);
    t0 = clock64();
    {b}
    t1 = clock64();
  }}
  if ((threadIdx.x & 31) == 0) {{ out[w / 4 * 2] = t0; out[w / 4 * 2 + 1] = t1; }}
  sink[threadIdx.x] = x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ {" ^ ".join(bits.format(j=j) for j in range(4))} ^ (unsigned)fy;
}}"""


def warp0_lops(sass: list) -> list:
    """The addresses of warp 0's LOP3 (LUT 0x96, reading the kernel's y and z), checked to be :data:`LOPS`."""
    got = [sass[i][0] for i in lut_lops(sass, "0x96")]
    if len(got) != LOPS:
        raise ValueError(f"{len(got)} LOP3 of warp 0, expected {LOPS}")
    return got


def patch(cubin: bytes, sass: list, fn: str, stall: int) -> bytes:
    """Kernel ``fn`` (its SASS ``sass``) with warp 0's LOP3 at stall count ``stall`` and none of them yielding."""
    out = bytearray(cubin)
    base, _size = code_section(cubin, fn)
    for a in warp0_lops(sass):
        lo, hi = struct.unpack_from("<QQ", out, base + a)
        struct.pack_into("<QQ", out, base + a, lo, with_control(hi, stall, yields=False))
    return bytes(out)


def device(out: Path) -> int:
    import cupy as cp
    out.mkdir(parents=True, exist_ok=True)
    plain, code = CUBIN.read_bytes(), kernels_sass(CUBIN)
    buf, sink = cp.zeros(4, cp.uint64), cp.zeros(160, cp.uint32)
    rows = []
    for kind in KINDS:
        for m in COUNTS:
            for stall in STALLS:
                path = out / f"fill_{kind}_{m}_s{stall}.cubin"
                path.write_bytes(patch(plain, code[name(kind, m)], name(kind, m), stall))
                fn = cp.RawModule(path=str(path)).get_function(name(kind, m))
                for rep in range(REPEATS):
                    buf.fill(0)
                    fn((1,), (160,), (buf, sink))
                    cp.cuda.Device().synchronize()
                    t = [int(x) for x in buf.get()]
                    rows.append({"kind": kind, "m": m, "stall": stall, "repeat": rep, "w0": t[:2], "w4": t[2:]})
                path.unlink()
    save_raw(out, "fill_probe", rows)
    return 0


def loops() -> dict:
    """``{kernel: warp 4's instructions between its two clock reads}`` (sass_profile encoded), as built."""
    from warpsim.timing import sass_profile
    got = {}
    sass_all = kernels_sass(CUBIN)
    for kind in KINDS:
        for m in COUNTS:
            sass = sass_all[name(kind, m)]
            sleep = next(i for i, (_a, t, _c) in enumerate(sass) if t.startswith("NANOSLEEP"))
            clocks = [i for i, (_a, t, _c) in enumerate(sass) if i > sleep and "SR_CLOCKLO" in t]
            got[name(kind, m)] = [sass_profile.encode(t, c) for _a, t, c in sass[clocks[0]:clocks[1] + 1]]
    return got


def summarise(out: Path) -> int:
    how = (f"one CTA of 5 warps: warp 0 {LOPS} independent LOP3.LUT (every yield flag cleared, stall count 2 as "
           "built or 3), clock64 before and after; warp 4 (the same sub-partition) after __nanosleep(200) reads the "
           f"clock, issues m instructions of one kind and reads it again; kinds {list(KINDS)}, m in {list(COUNTS)}, "
           f"{REPEATS} repeats; loops: warp 4's code between its clock reads")
    return summarise_raw(out, "fill_probe", how, source(), {"lops": LOPS, "loops": loops()})


def main(argv=None) -> int:
    return cli(argv, __doc__, source, builder(source, CUBIN), device, summarise)


if __name__ == "__main__":
    sys.exit(main())
