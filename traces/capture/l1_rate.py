#!/usr/bin/env python3
"""How fast the H100's SM serves local-memory hits and shuffles: every active warp of one CTA runs a loop of 32
independent ``ld.local`` (or ``st.local``, ``shfl.sync``, or 16 of each of ld/st.local) to 32 lines of its own
frame that stay in the L1, timed with clock64 around the loop. With the warps spread over the four
sub-partitions the SM-wide rate shows the L1's; with the active warps all on sub-partition 0 (warp ids 0, 4,
8, ...; the others exit at once) it shows one sub-partition's hand-off to the shared unit (``mio_ii``).

    python traces/capture/l1_rate.py --build        # here: traces/capture/build/l1_rate.{cu,cubin} (nvcc -O3)
    python traces/capture/l1_rate.py --device OUT   # on the GPU (CuPy loads that cubin): OUT/l1_rate_raw.json
    python traces/capture/l1_rate.py --json OUT     # here: traces/h100/l1_rate.json from OUT, with the loops' SASS

Read by ``python -m warpsim.timing.l1_rate``.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from probe import BUILD, builder, cli, kernel_loops, open_module, save_raw, summarise_raw, timed_launch  # noqa: E402
OPS = ("ldl", "stl", "shfl", "ldst")
WARPS = (1, 2, 3, 4, 6, 8, 12, 16)
ITERS = 256
REPEATS = 3
LINES = 32


def _body(op: str) -> str:
    """One loop trip of ``op``: 32 accesses with no dependence between them. Every other word of the frame
    (one line each, none adjacent, so ptxas cannot merge them into vector accesses) from a base that depends
    on the trip through ``zero`` (0 at run time, unknown to ptxas, so it cannot keep a load or drop a store
    across trips)."""
    out = [] if op == "shfl" else ["const unsigned b = base + ((unsigned)it & (unsigned)zero);"]
    for j in range(LINES):
        if op == "ldl" or (op == "ldst" and j % 2 == 0):
            out.append(f'asm volatile("ld.local.u32 %0, [%1+{8 * j}];" : "=r"(v[{j}]) : "r"(b) : "memory");')
        elif op in ("stl", "ldst"):
            out.append(f'asm volatile("st.local.u32 [%0+{8 * j}], %1;" :: "r"(b), "r"(acc) : "memory");')
        else:
            out.append(f'asm volatile("shfl.sync.idx.b32 %0, %1, {j}, 0x1f, 0xffffffff;" : "=r"(v[{j}]) : "r"(acc));')
    if op != "stl":
        out.append(f"#pragma unroll\n      for (int j = 0; j < {LINES}; j++) acc ^= v[j];")
    out.append("acc += 1;")
    return "\n      ".join(out)


def source() -> str:
    kernels = []
    for op in OPS:
        kernels.append(f"""
extern "C" __global__ void rate_{op}(int iters, int sp0, int zero, unsigned long long* out, unsigned* sink) {{
  const unsigned warp = threadIdx.x >> 5;
  if (sp0 && (warp & 3)) return;
  unsigned loc[{2 * LINES}];  // lines 0, 2, ... 2 * LINES - 2 are used
  const unsigned base = (unsigned)__cvta_generic_to_local(&loc[0]);
  unsigned acc = threadIdx.x;
  unsigned v[{LINES}];
#pragma unroll
  for (int j = 0; j < {LINES}; j++) v[j] = 0;
  for (int j = 0; j < {LINES}; j++)
    asm volatile("st.local.u32 [%0], %1;" :: "r"(base + 8 * j), "r"(acc + j) : "memory");
  for (int j = 0; j < {LINES}; j++) {{
    unsigned t;
    asm volatile("ld.local.u32 %0, [%1];" : "=r"(t) : "r"(base + 8 * j) : "memory");
    acc ^= t;
  }}
  __syncthreads();
  const unsigned long long t0 = clock64();
  for (int it = 0; it < iters; it++) {{
      {_body(op)}
  }}
  const unsigned long long t1 = clock64();
  if ((threadIdx.x & 31) == 0) {{ out[2 * warp] = t0; out[2 * warp + 1] = t1; }}
  sink[threadIdx.x] = acc + v[0];
}}""")
    return "\n".join(kernels)


CUBIN = BUILD / "l1_rate.cubin"
build = builder(source, CUBIN)


def device(out: Path) -> int:
    cp, mod, buf, sink = open_module(CUBIN)
    rows = []
    for rep in range(REPEATS):
        for op in OPS:
            fn = mod.get_function(f"rate_{op}")
            for placement in ("spread", "sp0"):
                for w in WARPS:
                    if placement == "sp0" and 4 * (w - 1) + 1 > 32:
                        continue  # a CTA holds 32 warps
                    launched = w if placement == "spread" else 4 * (w - 1) + 1
                    active = [k for k in range(launched) if placement == "spread" or k % 4 == 0]
                    args = (cp.int32(ITERS), cp.int32(placement == "sp0"), cp.int32(0), buf, sink)
                    rows.append({"op": op, "placement": placement, "warps": w, "repeat": rep, "iters": ITERS,
                                 "accesses": LINES, **timed_launch(cp, fn, 32 * launched, args, buf, active)})
    save_raw(out, "l1_rate", rows)
    return 0


def summarise(out: Path) -> int:
    how = (f"one CTA, every active warp runs {ITERS} trips of {LINES} independent accesses "
           "(ld.local / st.local / shfl.sync.idx / 16 ld.local + 16 st.local) to lines of its own frame "
           "that stay in the L1, clock64 before and after the loop; 'spread': warps 0..n-1 (warp id mod 4 "
           "picks the sub-partition), 'sp0': warps 0, 4, ... 4(n-1) active (the others exit; n <= 8).")
    return summarise_raw(out, "l1_rate", how, source(), kernel_loops(CUBIN))


def main(argv=None) -> int:
    return cli(argv, __doc__, source, build, device, summarise)

if __name__ == "__main__":
    sys.exit(main())
