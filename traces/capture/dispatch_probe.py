#!/usr/bin/env python3
"""Which instructions cost the other warps of a sub-partition a dispatch stall on the H100: 1-4 warps on
sub-partition 0 run a loop of 8 independent chains of one kind of instruction (``KINDS``) beside 8 chains of ALU
filler, timed with clock64; run under Nsight Compute, its warp-state counters say how many of the warps' cycles
are ``dispatch_stall`` with each kind (the sparse fp8 ILP 1 loop loses ~63 cycles a trip to them for each other
warp of its sub-partition, traces/h100/stall_reasons.json, where shuffles alone do not,
traces/h100/l1_rate_stalls.json).

    python traces/capture/dispatch_probe.py --build        # here: traces/capture/build/dispatch_probe.{cu,cubin}
    python traces/capture/dispatch_probe.py --device OUT   # on the GPU (CuPy): OUT/dispatch_probe_raw.json
    python traces/capture/dispatch_probe.py --json OUT     # here: traces/h100/dispatch_probe.json

Under ncu (the counters, one row per launch in launch order, OUT/ncu_dp.csv)::

    ncu --kernel-name regex:disp_ --metrics <the stall counters of stall_reasons.RATE_STALLS>,smsp__warps_active.sum \\
        --csv --page raw --log-file OUT/ncu_dp.csv python3 traces/capture/dispatch_probe.py --device OUT
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from probe import BUILD, builder, cli, kernel_loops, open_module, save_raw, summarise_raw, timed_launch  # noqa: E402

WARPS = (1, 2, 3, 4)
ITERS = 256
REPEATS = 2
CHAINS = 8
#: one step of chain j of each kind (x: the chain's u32 registers; a: the filler's; z: 0 at run time)
KINDS = {
    "alu": None,
    "shfl": 'asm volatile("shfl.sync.idx.b32 %0, %0, {j}, 0x1f, 0xffffffff;" : "+r"(x[{j}]));',
    "f2fp": 'asm volatile("{{ .reg .b16 h; cvt.u16.u32 h, %0; cvt.rn.f16x2.e4m3x2 %0, h; }}" : "+r"(x[{j}]));',
    "sel": 'asm volatile("{{ .reg .pred p; setp.ne.u32 p, %1, 0; selp.b32 %0, %2, %0, p; }}" : "+r"(x[{j}]) '
           ': "r"(z), "r"(a[{j}]));',
    "fadd": 'asm volatile("add.f32 %0, %0, %1;" : "+r"(x[{j}]) : "r"(a[{j}]));',
    "imad": 'asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x[{j}]) : "r"(a[{j}]), "r"(z));',
    "hmma_sp": 'asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 '
               '{{%0, %1, %2, %3}}, {{%4, %5, %6, %7}}, {{%8, %9, %10, %11}}, {{%0, %1, %2, %3}}, %12, 0x0;" '
               ': "+r"(d[{j}][0]), "+r"(d[{j}][1]), "+r"(d[{j}][2]), "+r"(d[{j}][3]) : "r"(x[0]), "r"(x[1]), '
               '"r"(x[2]), "r"(x[3]), "r"(x[4]), "r"(x[5]), "r"(x[6]), "r"(x[7]), "r"(e));',
}


def _body(kind: str) -> str:
    """One loop trip: a step of each of the kind's chains, then two ALU ops on each filler chain."""
    out = [] if KINDS[kind] is None else [KINDS[kind].format(j=j) for j in range(CHAINS)]
    for j in range(CHAINS):
        out.append(f'asm volatile("shr.u32 %0, %0, 1;" : "+r"(a[{j}]));')
        out.append(f'asm volatile("xor.b32 %0, %0, %1;" : "+r"(a[{j}]) : "r"(it));')
    return "\n      ".join(out)


def source() -> str:
    kernels = []
    for kind in KINDS:
        kernels.append(f"""
extern "C" __global__ void disp_{kind}(int iters, int zero, unsigned long long* out, unsigned* sink) {{
  const unsigned warp = threadIdx.x >> 5;
  if (warp & 3) return;  // the active warps all on sub-partition 0
  const unsigned z = (unsigned)zero;
  unsigned x[{CHAINS}], a[{CHAINS}], d[{CHAINS}][4], e = 0x44444444u;
#pragma unroll
  for (int j = 0; j < {CHAINS}; j++) {{ x[j] = threadIdx.x + j; a[j] = threadIdx.x * 3 + j;
    d[j][0] = d[j][1] = d[j][2] = d[j][3] = 0; }}
  __syncwarp();
  const unsigned long long t0 = clock64();
  for (unsigned it = 0; it < (unsigned)iters; it++) {{
      {_body(kind)}
  }}
  const unsigned long long t1 = clock64();
  if ((threadIdx.x & 31) == 0) {{ out[2 * warp] = t0; out[2 * warp + 1] = t1; }}
  unsigned acc = 0;
#pragma unroll
  for (int j = 0; j < {CHAINS}; j++) acc ^= x[j] ^ a[j] ^ d[j][0] ^ d[j][1] ^ d[j][2] ^ d[j][3];
  sink[threadIdx.x] = acc;
}}""")
    return "\n".join(kernels)


CUBIN = BUILD / "dispatch_probe.cubin"
build = builder(source, CUBIN)


def device(out: Path) -> int:
    cp, mod, buf, sink = open_module(CUBIN)
    rows = []
    for rep in range(REPEATS):
        for kind in KINDS:
            fn = mod.get_function(f"disp_{kind}")
            for w in WARPS:
                launched = 4 * (w - 1) + 1
                clocks = timed_launch(cp, fn, 32 * launched, (cp.int32(ITERS), cp.int32(0), buf, sink), buf,
                                      range(0, launched, 4))
                rows.append({"kind": kind, "warps": w, "repeat": rep, "iters": ITERS, **clocks})
    save_raw(out, "dispatch_probe", rows)
    return 0


def summarise(out: Path) -> int:
    """traces/h100/dispatch_probe.json from OUT: the launches of ``--device`` run under ncu (module docstring),
    each row with ncu's counters of that launch (``OUT/ncu_dp.csv``, in launch order)."""
    import json
    from l1_counters import _ncu_rows
    from stall_reasons import _number
    raw_path = out / "dispatch_probe_raw.json"
    raw = json.loads(raw_path.read_text())
    got = _ncu_rows(out / "ncu_dp.csv")
    if len(got) != len(raw["rows"]):
        raise SystemExit(f"{out}: {len(got)} profiled kernels, {len(raw['rows'])} launches")
    for r, row in zip(got, raw["rows"]):
        if r["Kernel Name"] != f"disp_{row['kind']}":
            raise SystemExit(f"ncu row {r['ID']}: {r['Kernel Name']}, expected disp_{row['kind']}")
        row["counters"] = {k: _number(v) for k, v in r.items() if k.startswith("smsp__")}
    raw_path.write_text(json.dumps(raw))
    how = (f"one CTA, warps 0, 4, ... 4(n-1) active (sub-partition 0, n = 1-4), each {ITERS} trips of {CHAINS} "
           f"independent chains of one kind of instruction and {CHAINS} chains of two ALU ops, clock64 around "
           "the loop; run under Nsight Compute 2025.3.1 (the module docstring's command): 'counters' are its "
           "warp-state counters of the launch, summed over the SM's sub-partitions (warp-cycles)")
    return summarise_raw(out, "dispatch_probe", how, source(), kernel_loops(CUBIN))


def main(argv=None) -> int:
    return cli(argv, __doc__, source, build, device, summarise)


if __name__ == "__main__":
    sys.exit(main())
