#!/usr/bin/env python3
"""When does each warp of an s4 timing kernel start its loop? A clock read after the loop's operands arrive.

    python traces/capture/loop_start.py --device OUT      # on the GPU (CuPy): OUT/loop_start.json
    python traces/capture/loop_start.py --ptx-only DIR    # the patched kernels only (no GPU)

The recorded s4 timing kernels (traces/capture/kernels/timing_{sp_s4_k64,sp_s4_k128,dense_s4_k64}.ptx) read
the start clock before their operand loads return (ptxas issues most LDGs after the CS2R; the first CALL
waits on them), so the offset at which two warps of a sub-partition start the loop is not in the timing
traces. Here each kernel gets, after its start clock: the xor of every loaded register, a trap on one
value of it (so the next clock read cannot issue before the loads are back), a second clock read, and lane 0
stores it at ``sink + ntid.x * 16 + warp * 8``. ptxas then issues the LDGs before the start clock, and the
loop's SASS differs in places from the recorded kernels' (pair times differ: these are other kernels), but
start clock, loop-start clock and end clock belong to one run. Runs: ILP 1 and 4, 1, 2, 4-10, 12 warps,
reps 32, 3 launches each, the input of the recorded timing trace. Summarised by warpsim.timing.pair_modes.
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
WARPS = (1, 2, 4, 5, 6, 7, 8, 9, 10, 12)
REPS = 32


def kernels(ptx: str) -> tuple:
    """A timing module's header and, per kernel, (its name, the register of its start clock, its text)."""
    parts = re.split(r"(?=\n\t// \.globl)", ptx)
    return parts[0], [(re.search(r"\.entry (\w+)\(", body).group(1),
                       re.search(r"mov\.u64 (%rd\d+), %clock64;", body).group(1), body) for body in parts[1:]]


def patch(ptx: str) -> str:
    """Every kernel of a timing module with the loop-start clock added after its start clock."""
    head, bodies = kernels(ptx)
    out = [head]
    for name, clk, body in bodies:
        pre, rest = body.split(f"mov.u64 {clk}, %clock64;", 1)
        regs = re.findall(r"ld\.global\.u32 \t(%r\d+),", pre)
        if not regs:
            raise ValueError(f"{name}: no operand loads before the start clock")
        block = [f"mov.u64 {clk}, %clock64;", "\t// end inline asm", "\t{", "\t.reg .b32 q, ln, wq, nq;",
                 "\t.reg .pred pq, pl;", "\t.reg .b64 cq, sq, oq;", f"\tmov.b32 \tq, {regs[0]};"]
        block += [f"\txor.b32 \tq, q, {r};" for r in regs[1:]]
        block += ["\tsetp.eq.u32 \tpq, q, 0x13572468;", "\t@pq trap;", "\tmov.u64 \tcq, %clock64;",
                  "\tmov.u32 \tln, %tid.x;", "\tand.b32 \tln, ln, 31;", "\tsetp.eq.u32 \tpl, ln, 0;",
                  "\tmov.u32 \twq, %tid.x;", "\tshr.u32 \twq, wq, 5;",
                  "\tmov.u32 \tnq, %ntid.x;", "\tmul.wide.u32 \toq, nq, 16;",
                  f"\tld.param.u64 \tsq, [{name}_param_4];", "\tcvta.to.global.u64 \tsq, sq;",
                  "\tadd.s64 \tsq, sq, oq;", "\tmul.wide.u32 \toq, wq, 8;", "\tadd.s64 \tsq, sq, oq;",
                  "\t@pl st.global.u64 \t[sq], cq;", "\t}", "\t// begin inline asm"]
        out.append(pre + "\n".join(block) + rest)
    return "".join(out)


def write_ptx(folder: Path, patched=patch, prefix: str = "loop_start") -> dict:
    """The s4 timing modules each through ``patched``, written to ``folder/<prefix>_<form>.ptx``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for form in FORMS:
        paths[form] = folder / f"{prefix}_{form}.ptx"
        paths[form].write_text(patched((HERE / "kernels" / f"timing_{form}.ptx").read_text()))
    return paths


def launches(paths: dict, warps, repeats: int, sink_words: int, loop_counts=(REPS,)):
    """Launch the ILP 1 and 4 kernels of each module in ``paths`` (``{form: PTX file}``) on one CTA, in turn: every
    warp count, loop count and repeat, the recorded timing trace's input; for each, its row (form, ilp, warps,
    reps, repeat, the warps' start and end clocks and SMs) and the sink (``sink_words`` words) as numpy."""
    import cupy as cp
    import numpy as np
    sys.path.insert(0, str(REPO))
    from warpsim import tracefile
    for form in FORMS:
        inp = tracefile.read_trace(REPO / "traces" / "h100" / "timing" / f"{form}.npz").arrays["input"]
        mod, d_in = cp.RawModule(path=str(paths[form])), cp.asarray(inp)
        for ilp in (1, 4):
            fn = mod.get_function(f"{form}_ilp{ilp}")
            for w in warps:
                for n in loop_counts:
                    for rep in range(repeats):
                        d_s, d_e, d_sm = cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint32)
                        d_sink = cp.zeros(sink_words, cp.uint32)
                        fn((1,), (32 * w,), (d_in, d_s, d_e, d_sm, d_sink, np.int32(n)))
                        cp.cuda.runtime.deviceSynchronize()
                        yield ({"form": form, "ilp": ilp, "warps": w, "reps": n, "repeat": rep,
                                "start": cp.asnumpy(d_s)[:w].tolist(), "end": cp.asnumpy(d_e)[:w].tolist(),
                                "smid": cp.asnumpy(d_sm)[:w].tolist()}, cp.asnumpy(d_sink))
            print(form, ilp, "done", flush=True)


def how(doc: str, command: str) -> str:
    """A measurement file's ``how``: the first line of ``doc``, the command, CuPy and the device."""
    import cupy as cp
    return (f"{doc.strip().splitlines()[0]} {command}, CuPy {cp.__version__}, "
            f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, reps {REPS}")


def device(out: Path) -> None:
    import numpy as np
    rows = []
    for row, sink in launches(write_ptx(out / "ptx"), WARPS, 3, 16 * 32 * 16 + 1024):
        at = row["warps"] * 32 * 16 // 8
        rows.append(dict(row, loop=sink.view(np.uint64)[at:at + row["warps"]].tolist()))
    write_atomic(out / "loop_start.json", json.dumps({"how": how(__doc__, "traces/capture/loop_start.py --device"),
                                                      "rows": rows}))


def cli(argv, doc: str, device, write, extra=None) -> int:
    """An s4 capture script's command line: ``--device OUT`` (``device(OUT)``) or ``--ptx-only DIR`` (``write(DIR)``:
    the patched kernels only), and ``extra`` (``(flag, help, function of OUT)``) if given."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--device", type=Path, metavar="OUT")
    g.add_argument("--ptx-only", type=Path, metavar="DIR")
    if extra:
        g.add_argument(extra[0], type=Path, metavar="OUT", help=extra[1])
    args = ap.parse_args(argv)
    if extra and getattr(args, extra[0].lstrip("-").replace("-", "_")):
        extra[2](getattr(args, extra[0].lstrip("-").replace("-", "_")))
    elif args.ptx_only:
        for form, p in write(args.ptx_only).items():
            print(form, p)
    else:
        device(args.device)
    return 0


def main(argv=None) -> int:
    return cli(argv, __doc__, device, write_ptx)


if __name__ == "__main__":
    sys.exit(main())
