#!/usr/bin/env python3
"""Whether the register banks' lost cycle (``regbank_slack.py``: an FFMA's second read from a bank costs each
other warp of its sub-partition a cycle) is the ALU's too: a chain of 264 dependent ``LOP3.LUT R12, R12, Rb, Rc``
a trip (ptxas: a stall count of 4), b and c patched to R2, R3 (two reads of the chain's bank) or R12, R12 (one),
the chain's stall count raised to 6 or 8, one to four warps on sub-partition 0.

The ALU takes a warp's instruction every 2 cycles, so the pipe's rate is the banks' (two reads a warp): three
warps at 8 cycles leave both room (FFMA there: 10 cycles a round, not 8).

    python traces/capture/regbank_alu.py --build        # here: traces/capture/build/regbank_alu.{cu,cubin}
    python traces/capture/regbank_alu.py --device OUT   # on the GPU: OUT/regbank_alu_raw.json
    python traces/capture/regbank_alu.py --json OUT     # here: traces/h100/regbank_alu.json from OUT

Read by ``python -m warpsim.timing.ifetch --alu``.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from branch_fetch import _head  # noqa: E402
from ifetch import TRIPS, loop_source, loops_of, wrap  # noqa: E402
from probe import BUILD, builder, cli, summarise_raw  # noqa: E402
from regbank import LOP3, N, REPEATS, operands, patch, run_copies  # noqa: E402

KERNEL = f"balu1_{N}"
CUBIN = BUILD / "regbank_alu.cubin"
#: the copies: name -> (Rb, Rc, stall count of the chain's LOP3)
VARIANTS = {"b2c3s4": (2, 3, 4), "b2c3s6": (2, 3, 6), "b2c3s8": (2, 3, 8), "b12c12s4": (12, 12, 4),
            "b12c12s8": (12, 12, 8)}


def source() -> str:
    step = 'asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+f"(r[0]) : "f"(a), "f"(b));'
    return wrap(_head(KERNEL), "warp & 3", "warp", 1, loop_source("warp", [step] * N, "  "))


def copies() -> dict:
    plain = CUBIN.read_bytes()
    return {(KERNEL, name): patch(plain, KERNEL, b, c, stall, LOP3) for name, (b, c, stall) in VARIANTS.items()}


def device(out: Path) -> int:
    return run_copies(out, "regbank_alu", copies())


def summarise(out: Path) -> int:
    how = (f"a loop of {N} dependent LOP3.LUT R12, R12, Rb, Rc a trip ({KERNEL}) in copies of its cubin whose chain "
           "LOP3 read Rb, Rc with every reuse flag cleared and the stall count set (loops.variants: name -> [Rb, Rc, "
           f"stall]); one CTA, warps 0 / 0, 4 / 0, 4, 8 / 0, 4, 8, 12 active, {TRIPS} trips, lane 0 stamping clock64 "
           f"at every trip start and after the last; each copy's placements in turn, {REPEATS} times")
    loops = {KERNEL: loops_of(CUBIN)[KERNEL], "variants": {k: list(v) for k, v in VARIANTS.items()},
             "operands": operands(copies())[KERNEL]}
    return summarise_raw(out, "regbank_alu", how, source(), loops)


def main(argv=None) -> int:
    return cli(argv, __doc__, source, builder(source, CUBIN), device, summarise)


if __name__ == "__main__":
    sys.exit(main())
