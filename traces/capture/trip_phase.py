#!/usr/bin/env python3
"""Where is each warp of an s4 timing kernel at the end of every loop trip? A clock read per trip.

    python traces/capture/trip_phase.py --device OUT      # on the GPU (CuPy): OUT/trip_phase.json
    python traces/capture/trip_phase.py --ptx-only DIR    # the patched kernels only (no GPU)
    python traces/capture/trip_phase.py --reps OUT        # the recorded kernels, loop counts 1-32: OUT/trip_phase_reps.json

Two warps of an s4 loop on one sub-partition (warps w and w + 4) run it in one of the phase modes that
``warpsim.timing.pair_modes`` describes; the timing traces hold only each warp's start and end clocks, so how
the two warps' offset moves over the trips is not in them. Here every kernel of the recorded s4 timing modules
(traces/capture/kernels/timing_{sp_s4_k64,sp_s4_k128,dense_s4_k64}.ptx) gets, at the end of each loop trip
(before its trip counter's add), a clock read that lane 0 stores at ``sink + ntid.x * 16 + (warp * REPS +
trip) * 8``: three instructions a trip beside the hundreds of the emulated mma's routine. Runs: ILP 1 and 4,
1, 4, 5, 6, 8 and 9 warps, reps 32, 3 launches each in turn (as capture.py), the input of the recorded timing
trace. Summarised by ``python -m warpsim.timing.pair_modes --trips``.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from trips import write_atomic  # noqa: E402
FORMS = ("sp_s4_k64", "sp_s4_k128", "dense_s4_k64")
WARPS = (1, 4, 5, 6, 8, 9)
REPS = 32
LAUNCHES = 3


def patch(ptx: str) -> str:
    """Every kernel of a timing module with a clock read stored at the end of each loop trip."""
    parts = re.split(r"(?=\n\t// \.globl)", ptx)
    out = [parts[0]]
    for body in parts[1:]:
        name = re.search(r"\.entry (\w+)\(", body).group(1)
        clk = re.search(r"mov\.u64 (%rd\d+), %clock64;", body).group(1)
        loop = re.search(r"\n(\tadd\.s32 \t(%r\d+), \2, 1;\n\tsetp\.lt\.s32 \t%p\d+, \2, %r\d+;\n\t@%p\d+ bra \t"
                         r"\$L__BB\d+_2;)", body)
        if not loop:
            raise ValueError(f"{name}: no loop back-branch of the expected shape")
        regs = re.search(r"\t\.reg \.b64 \t%rd<\d+>;\n", body)
        setup = ["\t{", "\t.reg .b32 ln, wq, nq;", "\t.reg .b64 oq;", "\tmov.u32 \tln, %tid.x;",
                 "\tand.b32 \tln, ln, 31;", "\tsetp.eq.u32 \t%tql, ln, 0;", "\tmov.u32 \twq, %tid.x;", "\tshr.u32 \twq, wq, 5;", "\tmov.u32 \tnq, %ntid.x;",
                 "\tmul.wide.u32 \toq, nq, 16;", f"\tld.param.u64 \t%tqa, [{name}_param_4];",
                 "\tcvta.to.global.u64 \t%tqa, %tqa;", "\tadd.s64 \t%tqa, %tqa, oq;",
                 f"\tmul.wide.u32 \toq, wq, {8 * REPS};", "\tadd.s64 \t%tqa, %tqa, oq;", "\t}"]
        trip = ["\tmov.u64 \t%tqc, %clock64;", "\t@%tql st.global.u64 \t[%tqa], %tqc;",
                "\tadd.s64 \t%tqa, %tqa, 8;"]
        body = body.replace(regs.group(0), regs.group(0) + "\t.reg .b64 \t%tqa, %tqc;\n\t.reg .pred \t%tql;\n", 1)
        body = body.replace(f"mov.u64 {clk}, %clock64;\n\t// end inline asm\n",
                            f"mov.u64 {clk}, %clock64;\n\t// end inline asm\n" + "\n".join(setup) + "\n", 1)
        body = body.replace("\n" + loop.group(1), "\n" + "\n".join(trip) + "\n" + loop.group(1), 1)
        out.append(body)
    return "".join(out)


def write_ptx(folder: Path) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for form in FORMS:
        paths[form] = folder / f"trip_phase_{form}.ptx"
        paths[form].write_text(patch((HERE / "kernels" / f"timing_{form}.ptx").read_text()))
    return paths


def device(out: Path) -> None:
    import cupy as cp
    import numpy as np
    sys.path.insert(0, str(REPO))
    from warpsim import tracefile
    paths = write_ptx(out / "ptx")
    rows = []
    for form in FORMS:
        inp = tracefile.read_trace(REPO / "traces" / "h100" / "timing" / f"{form}.npz").arrays["input"]
        mod, d_in = cp.RawModule(path=str(paths[form])), cp.asarray(inp)
        for ilp in (1, 4):
            fn = mod.get_function(f"{form}_ilp{ilp}")
            for w in WARPS:
                for rep in range(LAUNCHES):
                    d_s, d_e, d_sm = cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint32)
                    d_sink = cp.zeros((32 * 16 * 16 + 16 * REPS * 8) // 4, cp.uint32)
                    fn((1,), (32 * w,), (d_in, d_s, d_e, d_sm, d_sink, np.int32(REPS)))
                    cp.cuda.runtime.deviceSynchronize()
                    at = 32 * w * 16 // 8
                    trips = cp.asnumpy(d_sink).view(np.uint64)[at:at + w * REPS].reshape(w, REPS)
                    rows.append({"form": form, "ilp": ilp, "warps": w, "repeat": rep,
                                 "start": cp.asnumpy(d_s)[:w].tolist(), "trips": trips.tolist(),
                                 "end": cp.asnumpy(d_e)[:w].tolist(), "smid": cp.asnumpy(d_sm)[:w].tolist()})
            print(form, ilp, "done", flush=True)
    doc = {"how": __doc__.strip().splitlines()[0] + " traces/capture/trip_phase.py --device, CuPy "
                  f"{cp.__version__}, {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, reps {REPS}",
           "rows": rows}
    write_atomic(out / "trip_phase.json", json.dumps(doc))


def device_reps(out: Path) -> None:
    """The recorded kernels unchanged, launched with every loop count from 1 to REPS: each warp's end clock
    after n trips (the same launch conditions every time), so the pair's offset trip by trip without a
    change to the loop's code."""
    import cupy as cp
    import numpy as np
    sys.path.insert(0, str(REPO))
    from warpsim import tracefile
    rows = []
    for form in FORMS:
        inp = tracefile.read_trace(REPO / "traces" / "h100" / "timing" / f"{form}.npz").arrays["input"]
        mod, d_in = cp.RawModule(path=str(HERE / "kernels" / f"timing_{form}.ptx")), cp.asarray(inp)
        for ilp in (1, 4):
            fn = mod.get_function(f"{form}_ilp{ilp}")
            for w in (5, 8):
                for reps in range(1, REPS + 1):
                    for rep in range(2):
                        d_s, d_e, d_sm = cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint32)
                        d_sink = cp.zeros(16 * 32 * 16, cp.uint32)
                        fn((1,), (32 * w,), (d_in, d_s, d_e, d_sm, d_sink, np.int32(reps)))
                        cp.cuda.runtime.deviceSynchronize()
                        rows.append({"form": form, "ilp": ilp, "warps": w, "reps": reps, "repeat": rep,
                                     "start": cp.asnumpy(d_s)[:w].tolist(), "end": cp.asnumpy(d_e)[:w].tolist(),
                                     "smid": cp.asnumpy(d_sm)[:w].tolist()})
            print(form, ilp, "done", flush=True)
    doc = {"how": "the recorded s4 timing kernels (unchanged) with every loop count 1-32, 5 and 8 warps, two "
                  "launches each in turn: traces/capture/trip_phase.py --reps, CuPy "
                  f"{cp.__version__}, {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}",
           "rows": rows}
    write_atomic(out / "trip_phase_reps.json", json.dumps(doc))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--device", type=Path, metavar="OUT")
    g.add_argument("--ptx-only", type=Path, metavar="DIR")
    g.add_argument("--reps", type=Path, metavar="OUT", help="the recorded kernels with loop counts 1-32")
    args = ap.parse_args(argv)
    if args.reps:
        device_reps(args.reps)
    elif args.ptx_only:
        for form, p in write_ptx(args.ptx_only).items():
            print(form, p)
    else:
        device(args.device)
    return 0


if __name__ == "__main__":
    sys.exit(main())
