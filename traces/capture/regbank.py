#!/usr/bin/env python3
"""Whether warps of one sub-partition slow each other by the registers they read: one to four warps on
sub-partition 0 (warps 0, 4, 8, 12) each run 8 trips of a chain of 264 dependent ``FFMA R12, R12, Rb, Rc`` (one
every 4 cycles a warp, the FMA's latency) or of two such chains (one FFMA every 2 cycles), clock64 stamped at
every trip. ptxas reads b and c from R2 and R3;
patched copies of the cubin read them from other registers of the kernel's (the chain's values do not matter to
its timing), their operand-reuse flags cleared, so that the three sources fall in the same or in different banks of the
register file whichever way it is banked.

``branch_fetch.json`` found two warps of this loop on one sub-partition 1.25x one warp's trip, where ``ifetch``'s
twin, whose FFMA reads a uniform register for c, runs two at 1.01x.

    python traces/capture/regbank.py --build        # here: traces/capture/build/regbank.{cu,cubin}
    python traces/capture/regbank.py --device OUT   # on the GPU: OUT/regbank_raw.json
    python traces/capture/regbank.py --json OUT     # here: traces/h100/regbank.json from OUT

Read by ``python -m warpsim.timing.regbank``.
"""
from __future__ import annotations

import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from branch_fetch import kernel_source  # noqa: E402
from ifetch import TRIPS, Launcher, loops_of  # noqa: E402
from probe import (BUILD, builder, cli, code_section, kernel_sass, save_raw, summarise_raw, with_control,  # noqa: E402
                   with_sources)

N = 264
#: the loops: kernel -> its chains (one: an FFMA every 4 cycles a warp; two: every 2)
KERNELS = {f"bfetch1_{N}": 1, f"bfetch2_{N}": 2}
CUBIN = BUILD / "regbank.cubin"
FFMA = 0x223      # FFMA R, R, R, R (bits 0-11 of the instruction's low word)
LOP3 = 0x212      # LOP3.LUT R, R, R, R
LATENCY = 4       # the stall count ptxas gives a chain's FFMA followed by the next step
COMPILED = (2, 3)  # ptxas's b and c in both loops; the chains are R12 (one chain), R10, R12, R14 (two)
#: the copies: name -> (Rb, Rc), or None for the cubin as ptxas made it (its reuse flags kept)
VARIANTS = {"ptxas": None, "b2c3": (2, 3), "b13c10": (13, 10), "b13c11": (13, 11), "b1c7": (1, 7),
            "b9c6": (9, 6), "b13c9": (13, 9), "b8c13": (8, 13), "b2c6": (2, 6), "b4c8": (4, 8), "b12c12": (12, 12)}
#: the variants the two-chain loop runs
VARIANTS_TWO = ("ptxas", "b2c3", "b13c11", "b4c8")
#: the highest register a copy may read (ptxas's code of the one-chain loop reads R0-R13; a copy reading R14
#: stopped with an illegal instruction on the H100)
TOP = 13
#: (name, warps launched, active warps)
PLACEMENTS = (("one", 1, (0,)), ("sp0x2", 5, (0, 4)), ("sp0x3", 9, (0, 4, 8)), ("sp0x4", 13, (0, 4, 8, 12)))
REPEATS = 3


def source() -> str:
    return "\n".join(kernel_source(N, chains) for chains in KERNELS.values())


def runs() -> list:
    """``(kernel, variant)`` of every copy run, in order."""
    return [(k, v) for k, chains in KERNELS.items() for v in VARIANTS if chains == 1 or v in VARIANTS_TWO]


def patch(cubin: bytes, kernel: str, b: int, c: int, stall: int | None = None, opcode: int = FFMA) -> bytes:
    """The cubin with every ``FFMA Rx, Rx, R2, R3`` (a chain's step; ``opcode`` :data:`LOP3`: ``LOP3.LUT Rx, Rx,
    R2, R3``) of ``kernel`` reading ``Rb``, ``Rc`` instead, operand-reuse flags cleared (bits 32-39: Rb; 64-71: Rc;
    122-125: reuse), and with ``stall`` the stall count (bits 105-108) of those that wait the latency (ptxas's
    :data:`LATENCY`) for the next."""
    if b > TOP or c > TOP:
        raise ValueError(f"R{max(b, c)} is past the kernel's registers (R0-R{TOP})")
    out = bytearray(cubin)
    base, size = code_section(cubin, kernel)
    done = 0
    for a in range(base, base + size, 16):
        lo, hi = struct.unpack_from("<QQ", out, a)
        if lo & 0xFFF == opcode and (lo >> 16) & 0xFF == (lo >> 24) & 0xFF \
                and ((lo >> 32) & 0xFF, hi & 0xFF) == COMPILED:
            lo, hi = with_sources(lo, hi, b, c)
            if stall is not None and (hi >> 41) & 0xF == LATENCY:  # a step that waits for the one before
                hi = with_control(hi, stall)
            struct.pack_into("<QQ", out, a, lo, hi)
            done += 1
    if done < N - 2:
        raise ValueError(f"{done} steps Rx, Rx, R{COMPILED[0]}, R{COMPILED[1]} in {kernel}, expected {N}")
    return bytes(out)


def variant_cubins() -> dict:
    """``{(kernel, variant): cubin}`` of :func:`runs`."""
    plain = CUBIN.read_bytes()
    return {(k, v): plain if VARIANTS[v] is None else patch(plain, k, *VARIANTS[v]) for k, v in runs()}


def run_copies(out: Path, name: str, copies: dict) -> int:
    """On the GPU: each of ``copies`` (``{(kernel, variant): cubin}``) at every placement, :data:`REPEATS` times,
    into ``OUT/<name>_raw.json``."""
    import cupy as cp
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for (kernel, variant), data in copies.items():
        path = out / f"{name}_{kernel}_{variant}.cubin"
        path.write_bytes(data)
        go = Launcher(path, 16)
        for rep in range(REPEATS):
            for place, launched, active in PLACEMENTS:
                got = go.run(kernel, launched, (cp.int32(TRIPS), cp.int32(-1), cp.float32(1.0), cp.float32(0.0)),
                             {str(w): w for w in active})
                rows.append({"kernel": kernel, "variant": variant, "placement": place, "repeat": rep, **got})
        path.unlink()
        save_raw(out, name, rows)  # after each copy: a copy that faults leaves the ones before
    return 0


def device(out: Path) -> int:
    return run_copies(out, "regbank", variant_cubins())


def summarise(out: Path) -> int:
    how = (f"branch_fetch.py's loops of {N} dependent FFMA a trip on one chain (bfetch1_{N}) and on two "
           f"(bfetch2_{N}), in copies of their cubin whose FFMA read other registers for b and c (loops.variants: "
           "name -> [Rb, Rc]; 'ptxas': as compiled, R2, R3 with ptxas's reuse flags; the others with every reuse "
           "flag of those FFMA cleared; the two-chain loop runs " + ", ".join(VARIANTS_TWO) + "); one CTA, warps "
           f"0 / 0, 4 / 0, 4, 8 / 0, 4, 8, 12 active (the others exit), {TRIPS} trips, lane 0 stamping clock64 at "
           f"every trip start and after the last; each copy's placements in turn, {REPEATS} times")
    loops = loops_of(CUBIN)
    loops["variants"] = {k: list(v) if v else None for k, v in VARIANTS.items()}
    loops["operands"] = operands()
    return summarise_raw(out, "regbank", how, source(), loops)


def operands(copies: dict | None = None) -> dict:
    """``{kernel: {variant: [[operands, count], ...]}}``: per instruction of the loop of each copy
    (``{(kernel, variant): cubin}``, :func:`variant_cubins` by default), its register operands
    (``sass_profile.encode_operands`` of the copy's SASS, cuobjdump), run-length coded as ``loops_of`` codes the
    loop."""
    from ifetch import runs_of
    from warpsim.timing import sass_profile
    out: dict = {}
    for (kernel, name), data in (copies or variant_cubins()).items():
        body = sass_profile.loop_body(kernel_sass(data, kernel))
        out.setdefault(kernel, {})[name] = runs_of([sass_profile.encode_operands(t) for _a, t, _c in body])
    return out


def main(argv=None) -> int:
    return cli(argv, __doc__, source, builder(source, CUBIN), device, summarise)


if __name__ == "__main__":
    sys.exit(main())
