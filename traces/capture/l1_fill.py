#!/usr/bin/env python3
"""How fast the H100's L1 takes lines it misses from the L2, and in what order a warp's loads return: what
``sass_sim``'s ``l1["miss"]``, ``l1["fill_ii"]`` and ``l1["in_order"]`` stand for.

* ``stream_<name>``: every active warp of one CTA runs trips of 32 independent loads (``ldl``: ``ld.local``;
  ``cg``: ``ld.global.cg``, which the L1 does not keep; ``ca``: ``ld.global.ca``), 16 such local loads and
  16 ``st.local`` (``ldst``), n local loads (``ldl_n<n>``) or 16 / 8 vector loads of 2 / 4 lines
  (``ldl_v2`` / ``ldl_v4``), each to lines of its own 1 MB frame (8,192 lines, walked in order: past the
  224 KB L1, so the loads miss; the frame was written before, so the L2 holds it), a trip's addresses
  taking the trip before's values, clock64 before and after the loop. Lines a cycle per SM: the L1's fill
  rate.
* ``chase``: warp 0 alone, dependent local loads (each address takes the loaded value, 0), one a line of the
  frame in order: the latency of a miss, unloaded.
* ``order``: warp 0 alone, per step a load that misses (the next line of the frame) then one that hits (a line
  it keeps using), clock64 when the hit's value is used and again when the miss's is: if a warp's loads
  return in order the hit waits for the miss.

    python traces/capture/l1_fill.py --build        # here: traces/capture/build/l1_fill.{cu,cubin} (nvcc -O3)
    python traces/capture/l1_fill.py --device OUT   # on the GPU (CuPy loads that cubin): OUT/l1_fill_raw.json
    python traces/capture/l1_fill.py --json OUT     # here: traces/h100/l1_fill.json from OUT, with the SASS

Read by ``python -m warpsim.timing.l1_fill``.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from probe import BUILD, builder, cli, kernel_loops, open_module, save_raw, summarise_raw, timed_launch  # noqa: E402
WARPS = (1, 2, 3, 4, 6, 8, 12, 16)
FRAME = 16384          # 4-byte words a thread: every other one used, one 128-byte line of the warp's each
LINES = 32             # accesses a trip
ITERS = 512            # trips: 16,384 lines a warp, two passes over its frame
STEPS = 1024           # chase / order steps
REPEATS = 3


#: stream kernels: name -> (op, accesses a trip, words an access). The first four: 32 one-line accesses a
#: trip; ldl_n*: fewer loads a trip (what a warp keeps outstanding); ldl_v2 / ldl_v4: 16 / 8 vector loads of
#: 2 / 4 adjacent lines (lines or instructions)
STREAMS = {"ldl": ("ldl", LINES, 1), "cg": ("cg", LINES, 1), "ca": ("ca", LINES, 1), "ldst": ("ldst", LINES, 1),
           **{f"ldl_n{n}": ("ldl", n, 1) for n in (4, 8, 12, 14, 16, 18, 20, 24)},
           "ldl_v2": ("ldl", LINES // 2, 2), "ldl_v4": ("ldl", LINES // 4, 4)}


def _access(op: str, j: int, vec: int) -> str:
    if op in ("cg", "ca"):  # 2 x 32 words: every other line of the warp's region
        return f'asm volatile("ld.global.{op}.u32 %0, [%1];" : "=r"(v[{j}]) : "l"(g + {j * 64}) : "memory");'
    if op == "ldst" and j % 2:
        return f'asm volatile("st.local.u32 [%0], %1;" :: "r"(b + {8 * j}), "r"(acc) : "memory");'
    if vec == 1:
        return f'asm volatile("ld.local.u32 %0, [%1];" : "=r"(v[{j}]) : "r"(b + {8 * j}) : "memory");'
    regs = ", ".join(f"%{k}" for k in range(vec))
    outs = ", ".join(f'"=r"(v[{vec * j + k}])' for k in range(vec))
    return f'asm volatile("ld.local.v{vec}.u32 {{{regs}}}, [%{vec}];" : {outs} : "r"(b + {8 * vec * j}) : "memory");'


def _body(op: str, n: int, vec: int) -> str:
    """One trip: ``n`` accesses with no dependence between them, to the next used lines of the frame, once the
    trip before has its values."""
    # the trip's addresses take acc (through zero, 0 at run time): its loads wait for the trip before
    out = ["const unsigned b = base + ((((unsigned)it * 256u) & FRAME_MASK) | (acc & (unsigned)zero));"]
    if op in ("cg", "ca"):
        out = ["const unsigned* g = gw + ((((unsigned)it * 2048u) & GMASK) | (acc & (unsigned)zero));"]
    out += [_access(op, j, vec) for j in range(n)]
    out.append(f"#pragma unroll\n      for (int j = 0; j < {LINES}; j++) acc ^= v[j];")
    out.append("acc += 1;")
    return "\n      ".join(out)


PRELUDE = f"""
#define FRAME {FRAME}
#define FRAME_MASK {FRAME * 4 - 1}u
#define GMASK {FRAME * 32 - 1}u   // words of a warp's global region: as many lines as its local frame
__device__ __forceinline__ void fill_frame(unsigned base) {{
  // every used word of the frame written (0): the L2 then holds the frame's lines
  for (int j = 0; j < FRAME / 2; j++) asm volatile("st.local.u32 [%0], %1;" :: "r"(base + 8 * j), "r"(0u) : "memory");
}}
"""


def _stream(name: str) -> str:
    op, n, vec = STREAMS[name]
    return f"""
extern "C" __global__ void stream_{name}(int iters, int zero, unsigned* gbuf, unsigned long long* out, unsigned* sink) {{
  const unsigned warp = threadIdx.x >> 5;
  unsigned loc[FRAME];
  const unsigned base = (unsigned)__cvta_generic_to_local(&loc[0]);
  const unsigned* gw = gbuf + (size_t)warp * (FRAME * 32) + (threadIdx.x & 31);
  unsigned acc = threadIdx.x;
  unsigned v[{LINES}];
#pragma unroll
  for (int j = 0; j < {LINES}; j++) v[j] = 0;
  fill_frame(base);
  __syncthreads();
  const unsigned long long t0 = clock64();
  for (int it = 0; it < iters; it++) {{
      {_body(op, n, vec)}
  }}
  const unsigned long long t1 = clock64();
  if ((threadIdx.x & 31) == 0) {{ out[2 * warp] = t0; out[2 * warp + 1] = t1; }}
  sink[threadIdx.x] = acc + v[0] + (unsigned)loc[(acc & (unsigned)zero)];
}}"""


CHASE = f"""
__device__ __forceinline__ unsigned timed_ldl(unsigned a, unsigned& acc) {{
  unsigned t0, t1;
  asm volatile("{{\\n\\t.reg .u32 v;\\n\\tmov.u32 %0, %%clock;\\n\\tld.local.u32 v, [%3];\\n\\tadd.u32 %2, %2, v;\\n\\t"
               "mov.u32 %1, %%clock;\\n\\t}}" : "=r"(t0), "=r"(t1), "+r"(acc) : "r"(a) : "memory");
  return t1 - t0;
}}

extern "C" __global__ void chase(int steps, int zero, unsigned* lat, unsigned* sink) {{
  // warp 0: each step one timed local load of the next used line (its address takes the value loaded before)
  if (threadIdx.x >= 32) return;
  unsigned loc[FRAME];
  const unsigned base = (unsigned)__cvta_generic_to_local(&loc[0]);
  fill_frame(base);
  unsigned acc = 0;
  for (int k = 0; k < steps; k++) {{
    const unsigned t = timed_ldl(base + ((8u * (unsigned)(k + 1)) & FRAME_MASK) + (acc & (unsigned)zero), acc);
    if (threadIdx.x == 0) asm volatile("st.global.cg.u32 [%0], %1;" :: "l"(lat + k), "r"(t) : "memory");
  }}
  sink[threadIdx.x] = acc + (unsigned)loc[(acc & (unsigned)zero)];
}}

extern "C" __global__ void order(int steps, int zero, unsigned* lat, unsigned* sink) {{
  // warp 0, each step: clock; a load of the next used line (missing) into m; a load of line 0 (kept, hitting)
  // into h; h used (xor), clock; m used (add), clock. Cycles to the second load's issue, to h's use and to
  // m's use, three a step.
  if (threadIdx.x >= 32) return;
  unsigned loc[FRAME];
  const unsigned base = (unsigned)__cvta_generic_to_local(&loc[0]);
  fill_frame(base);
  unsigned acc = 0, h0;
  asm volatile("ld.local.u32 %0, [%1];" : "=r"(h0) : "r"(base) : "memory");
  acc += h0;
  unsigned ma = base + 8u;  // the next miss's address, ready before the hit's (which takes acc): ptxas keeps
  for (int k = 0; k < steps; k++) {{  // the miss first
    unsigned t0, t1, t2, tm;
    const unsigned z = acc & (unsigned)zero;
    asm volatile("{{\\n\\t.reg .u32 m, h;\\n\\t"
                 "mov.u32 %0, %%clock;\\n\\t"
                 "ld.local.u32 m, [%5];\\n\\t"
                 "mov.u32 %4, %%clock;\\n\\t"  // a clock read between: ptxas keeps the loads in order
                 "ld.local.u32 h, [%6];\\n\\t"
                 "xor.b32 %3, %3, h;\\n\\t"
                 "mov.u32 %1, %%clock;\\n\\t"
                 "add.u32 %3, %3, m;\\n\\t"
                 "mov.u32 %2, %%clock;\\n\\t}}"
                 : "=r"(t0), "=r"(t1), "=r"(t2), "+r"(acc), "=r"(tm)
                 : "r"(ma), "r"(base + z) : "memory");
    ma = base + ((8u * (unsigned)(k + 2)) & FRAME_MASK);
    if (threadIdx.x == 0) {{
      asm volatile("st.global.cg.u32 [%0], %1;" :: "l"(lat + 3 * k), "r"(tm - t0) : "memory");
      asm volatile("st.global.cg.u32 [%0], %1;" :: "l"(lat + 3 * k + 1), "r"(t1 - t0) : "memory");
      asm volatile("st.global.cg.u32 [%0], %1;" :: "l"(lat + 3 * k + 2), "r"(t2 - t0) : "memory");
    }}
  }}
  sink[threadIdx.x] = acc + (unsigned)loc[(acc & (unsigned)zero)];
}}
"""


def source() -> str:
    return PRELUDE + "".join(_stream(name) for name in STREAMS) + CHASE


CUBIN = BUILD / "l1_fill.cubin"
build = builder(source, CUBIN)


def device(out: Path) -> int:
    cp, mod, buf, sink = open_module(CUBIN)
    rows = []
    gbuf = cp.zeros(max(WARPS) * FRAME * 32, cp.uint32)
    lat = cp.zeros(3 * STEPS, cp.uint32)
    for rep in range(REPEATS):
        for name in STREAMS:
            fn = mod.get_function(f"stream_{name}")
            for w in WARPS:
                clocks = timed_launch(cp, fn, 32 * w, (cp.int32(ITERS), cp.int32(0), gbuf, buf, sink), buf, range(w))
                rows.append({"kernel": f"stream_{name}", "warps": w, "repeat": rep, "iters": ITERS,
                             "lines": STREAMS[name][1] * STREAMS[name][2], **clocks})
        for name in ("chase", "order"):
            lat[:] = 0
            mod.get_function(name)((1,), (32,), (cp.int32(STEPS), cp.int32(0), lat, sink))
            cp.cuda.Device().synchronize()
            t = lat.get()
            rows.append({"kernel": name, "warps": 1, "repeat": rep, "steps": STEPS,
                         "cycles": [int(x) for x in (t[:STEPS] if name == "chase" else t)]})
    save_raw(out, "l1_fill", rows)
    return 0


def summarise(out: Path) -> int:
    how = (f"one CTA; stream_*: every warp runs {ITERS} trips of {LINES} independent loads (or 16 loads "
           f"and 16 stores) to the next lines of its own {FRAME // 2}-line frame (written before: in the "
           "L2), clock64 before and after the loop; chase: warp 0 alone, "
           f"{STEPS} timed local loads a line apart, each address taking the value before (cycles a load); "
           f"order: warp 0 alone, {STEPS} steps of a missing then a hitting local load (cycles until the hit "
           "load issues, until its value is used, until the miss's is: three a step).")
    return summarise_raw(out, "l1_fill", how, source(), kernel_loops(CUBIN, lambda k: k.startswith("stream_")))


def main(argv=None) -> int:
    return cli(argv, __doc__, source, build, device, summarise)


if __name__ == "__main__":
    sys.exit(main())
