#!/usr/bin/env python3
"""Whether the register banks' lost cycle needs the FFMA's latency to be the binding limit too: regbank.py's
one-chain loop (``FFMA R12, R12, Rb, Rc``, 264 a trip) in copies whose chain FFMA read Rb, Rc with their stall
count raised from ptxas's 4 (the FMA's latency) to 5, 6 or 8 cycles, one to four warps on sub-partition 0.

``regbank.json``: two warps each reading two registers of one bank every 4 cycles (the bank's exact rate) run
1.256x one warp, where three (beyond the rate) run at the rate. With a longer stall the exact rate falls to
other warp counts: b2c3 (R12, R2 in one bank) at 6 cycles with three warps, at 8 with four; b2c6 (three in one
bank) at 6 with two. If the lost cycle is the bank's, those lose it too; if it needs the FFMA's latency, they
run at the rate.

    python traces/capture/regbank.py --build              # here: the cubin (traces/capture/build/regbank.cubin)
    python traces/capture/regbank_slack.py --device OUT   # on the GPU: OUT/regbank_slack_raw.json
    python traces/capture/regbank_slack.py --json OUT     # here: traces/h100/regbank_slack.json from OUT

Read by ``python -m warpsim.timing.ifetch --slack``.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from ifetch import TRIPS, loops_of  # noqa: E402
from probe import cli, summarise_raw  # noqa: E402
from regbank import CUBIN, N, REPEATS, patch, run_copies, source  # noqa: E402

KERNEL = f"bfetch1_{N}"
#: the copies: name -> (Rb, Rc, stall count of the chain's FFMA)
VARIANTS = {"b2c3s4": (2, 3, 4), "b2c3s5": (2, 3, 5), "b2c3s6": (2, 3, 6), "b2c3s8": (2, 3, 8),
            "b2c6s6": (2, 6, 6), "b12c12s4": (12, 12, 4)}


def device(out: Path) -> int:
    plain = CUBIN.read_bytes()
    return run_copies(out, "regbank_slack", {(KERNEL, name): patch(plain, KERNEL, b, c, stall)
                                             for name, (b, c, stall) in VARIANTS.items()})


def summarise(out: Path) -> int:
    how = (f"regbank.py's one-chain loop ({KERNEL}) in copies whose chain FFMA read Rb, Rc with every reuse flag "
           "cleared and the stall count set (loops.variants: name -> [Rb, Rc, stall]); one CTA, warps 0 / 0, 4 / "
           f"0, 4, 8 / 0, 4, 8, 12 active, {TRIPS} trips, lane 0 stamping clock64 at every trip start and after the "
           f"last; each copy's placements in turn, {REPEATS} times")
    loops = {KERNEL: loops_of(CUBIN)[KERNEL], "variants": {k: list(v) for k, v in VARIANTS.items()}}
    return summarise_raw(out, "regbank_slack", how, source(), loops)


def main(argv=None) -> int:
    return cli(argv, __doc__, None, None, device, summarise)


if __name__ == "__main__":
    sys.exit(main())
