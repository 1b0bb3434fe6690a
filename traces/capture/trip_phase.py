#!/usr/bin/env python3
"""Where is each warp of an s4 timing kernel at the end of every loop trip? A clock read per trip.

    python traces/capture/trip_phase.py --device OUT      # on the GPU (CuPy): OUT/trip_phase.json
    python traces/capture/trip_phase.py --ptx-only DIR    # the patched kernels only (no GPU)
    python traces/capture/trip_phase.py --reps OUT        # the recorded kernels, loop counts 1-32: OUT/trip_phase_reps.json
    python traces/capture/trip_phase.py --warpid OUT      # the same storing %warpid for %smid: OUT/trip_phase_warpid.json

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

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from loop_start import FORMS, cli, how, kernels, launches, write_ptx  # noqa: E402
from trips import write_atomic  # noqa: E402
WARPS = (1, 4, 5, 6, 8, 9)
REPS = 32
LAUNCHES = 3
#: the sink's words: the kernels' D stores (16 bytes a thread) and a clock a trip of every warp
SINK_WORDS = (32 * 16 * 16 + 16 * REPS * 8) // 4


def patch(ptx: str) -> str:
    """Every kernel of a timing module with a clock read stored at the end of each loop trip."""
    head, bodies = kernels(ptx)
    out = [head]
    for name, clk, body in bodies:
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


def write(folder: Path) -> dict:
    return write_ptx(folder, patch, "trip_phase")


def device(out: Path) -> None:
    import numpy as np
    rows = []
    for row, sink in launches(write(out / "ptx"), WARPS, LAUNCHES, SINK_WORDS):
        w, at = row["warps"], row["warps"] * 32 * 16 // 8
        rows.append(dict(row, trips=sink.view(np.uint64)[at:at + w * REPS].reshape(w, REPS).tolist()))
    write_atomic(out / "trip_phase.json", json.dumps({"how": how(__doc__, "traces/capture/trip_phase.py --device"),
                                                      "rows": rows}))


def device_reps(out: Path) -> None:
    """The recorded kernels unchanged, launched with every loop count from 1 to REPS: each warp's end clock
    after n trips (the same launch conditions every time), so the pair's offset trip by trip without a
    change to the loop's code."""
    paths = {form: HERE / "kernels" / f"timing_{form}.ptx" for form in FORMS}
    rows = [row for row, _sink in launches(paths, (5, 8), 2, 16 * 32 * 16, range(1, REPS + 1))]
    doc = {"how": how("the recorded s4 timing kernels (unchanged) with every loop count 1-32, 5 and 8 warps, two "
                      "launches each in turn:", "traces/capture/trip_phase.py --reps"), "rows": rows}
    write_atomic(out / "trip_phase_reps.json", json.dumps(doc))


def warpid(ptx: str) -> str:
    """A timing module whose kernels store ``%warpid`` (the warp's slot on its SM) where they stored ``%smid``."""
    if "%smid;" not in ptx:
        raise ValueError("no %smid read to replace")
    return ptx.replace("%smid;", "%warpid;")


def device_warpid(out: Path) -> None:
    """The recorded kernels with %warpid stored in place of %smid (the same SASS but for the S2R's special
    register), launched as ``--reps``: which warp slots a launch's warps get, beside where its pairs lock."""
    rows = [dict(row, warpid=row.pop("smid")) for row, _sink in
            launches(write_ptx(out / "ptx", warpid, "warpid"), (5, 8), 2, 16 * 32 * 16, range(1, REPS + 1))]
    doc = {"how": how("the recorded s4 timing kernels storing %warpid for %smid, every loop count 1-32, 5 and 8 "
                      "warps, two launches each in turn:", "traces/capture/trip_phase.py --warpid"), "rows": rows}
    write_atomic(out / "trip_phase_warpid.json", json.dumps(doc))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--warpid"] and len(argv) == 2:
        device_warpid(Path(argv[1]))
        return 0
    return cli(argv, __doc__, device, write,
               ("--reps", "the recorded kernels with loop counts 1-32", device_reps))


if __name__ == "__main__":
    sys.exit(main())
