#!/usr/bin/env python3
"""Does the register file's banks decide when a warp filling another's stall count takes the turn?
(``gap_stall.json``: a chain of dependent ``LOP3.LUT`` at stall count 3-5 loses the turn to an FFMA hog part of
the time, at 2 never, and a chain that yields at stall 2 gets the turn back 2-3 cycles after its yield.) The same
kernel as ``gap_stall.py`` (``build/gap_stall.cubin``), its copies patched in the binary in the operands too:

* the hog's FFMA ``Rd, Rd, R4.reuse, R5.reuse`` as ptxas made them (``reuse``: its yielding FFMA, whose reuse
  bits a yield clears, read R4 from bank 0 beside Rd), with every reuse bit cleared (``conflict``: Rd and R4 in
  bank 0 on every FFMA), or as ``Rd, Rd, R7, R7`` without reuse (``free``: one register from each bank);
* the chain's ``LOP3.LUT R9, R9, R2, R3`` as built (``lop``: R9 and R3 both in bank 1) or ``R9, R9, R2, R2``
  (``lopfree``: one from each bank; ``xor3`` of R2 twice leaves R9, which no one reads);
* the chain's stall count 2, 3, 4 or 6, yielding or not; the hog yielding every 4th or 16th FFMA;
* and, both warps as built or both without conflicts, a chain that keeps the turn at stall count 3, 4 or 5 beside
  a hog yielding every 2nd to 32nd FFMA or never (how the turn the hog takes depends on its yields).

    python traces/capture/gap_bank.py --device OUT   # on the GPU (with build/gap_stall.cubin): OUT/gap_bank_raw.json
    python traces/capture/gap_bank.py --json OUT     # here: traces/h100/gap_bank.json from OUT

Read by ``python -m warpsim.timing.gap_stall --banks``.
"""
from __future__ import annotations

import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gap_stall import CUBIN, FFMA, HOG_TRIPS, KERNEL, LOP3, N, REPEATS, _loops, launch  # noqa: E402
from gap_stall import patch as patch_control  # noqa: E402
from ifetch import TRIPS, runs_of  # noqa: E402
from probe import REUSE_BITS, cli, code_section, kernel_sass, save_raw, summarise_raw, with_sources  # noqa: E402

STALLS = (2, 3, 4, 6)
HOG_YIELDS = (4, 16)
HOG_FORMS = ("reuse", "conflict", "free")
CHAIN_FORMS = ("lop", "lopfree")


PERIOD_STALLS = (3, 4, 5)
PERIODS = (0, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32)  # the hog yielding every n-th FFMA (0: never)
PERIOD_FORMS = (("free", "lopfree"), ("reuse", "lop"))


def _name(s: int, y: bool, h: int, f: str, c: str) -> str:
    return f"s{s}{'y' if y else 'n'}_h{h}_{f}_{c}"


def variants() -> dict:
    """``{name: (stall, probe yields, hog every, hog form, chain form)}``: every form at stall counts 2, 3, 4, 6
    beside a hog yielding every 4th or 16th FFMA, and chains that keep the turn at stall counts 3-5 beside a hog
    yielding every n-th of :data:`PERIODS`, without bank conflicts or as built."""
    grid = [(s, y, h, f, c) for s in STALLS for y in (True, False) for h in HOG_YIELDS for f in HOG_FORMS
            for c in CHAIN_FORMS]
    grid += [(s, False, h, f, c) for s in PERIOD_STALLS for h in PERIODS for f, c in PERIOD_FORMS]
    return {_name(*v): v for v in grid}


def patch(cubin: bytes, stall: int, probe_yields: bool, hog_every: int, hog_form: str, chain_form: str) -> bytes:
    """``gap_stall.patch``'s copy with the hog's FFMA and the chain's LOP3 in the operand forms named."""
    out = bytearray(patch_control(cubin, stall, probe_yields, hog_every))
    base, size = code_section(cubin, KERNEL)
    for a in range(base, base + size, 16):
        lo, hi = struct.unpack_from("<QQ", out, a)
        if lo & 0xFFF == FFMA and hog_form == "conflict":
            hi &= ~REUSE_BITS
        elif lo & 0xFFF == FFMA and hog_form == "free":
            lo, hi = with_sources(lo, hi, 7, 7)
        elif lo & 0xFFF == LOP3 and (lo >> 16) & 0xFF == (lo >> 24) & 0xFF and chain_form == "lopfree":
            lo, hi = with_sources(lo, hi, (lo >> 32) & 0xFF, (lo >> 32) & 0xFF)
        struct.pack_into("<QQ", out, a, lo, hi)
    return bytes(out)


def device(out: Path) -> int:
    from ifetch import Launcher
    out.mkdir(parents=True, exist_ok=True)
    plain = CUBIN.read_bytes()
    rows = []
    for name, v in variants().items():
        path = out / f"gap_bank_{name}.cubin"
        path.write_bytes(patch(plain, *v))
        go = Launcher(path, 2)
        for rep in range(REPEATS):
            alone = (v[1] and v[0] == 2 and v[4] == "lop") or (not v[1] and v[0] == 3 and v[2] not in HOG_YIELDS)
            for trips in ((TRIPS, 0) if alone else (TRIPS,)):  # the hog alone once a form and period
                rows.append({"variant": name, "probe_runs": trips > 0, "repeat": rep, **launch(go, trips, HOG_TRIPS)})
        path.unlink()
        save_raw(out, "gap_bank", rows)
    return 0


def loops() -> dict:
    """Each copy's probe and hog loops as ``warpsim.timing.sass_profile`` encodes them, with their register
    operands (``encode_operands``, for the replay's banks), run-length coded."""
    from warpsim.timing import sass_profile
    got: dict = {}
    for name, v in variants().items():
        bodies = _loops(kernel_sass(patch(CUBIN.read_bytes(), *v), KERNEL))
        got[name] = {k: runs_of([sass_profile.encode(t, c) for _a, t, c in body]) for k, body in bodies.items()}
        got[name].update({f"{k}_operands": runs_of([sass_profile.encode_operands(t) for _a, t, _c in body])
                          for k, body in bodies.items()})
    return got


def summarise(out: Path) -> int:
    how = ("gap_stall.py's kernel (one CTA of 5 warps: warp 4 the probe, 8 trips of 264 dependent LOP3.LUT, clock64 "
           "at each trip; warp 0 the hog, 6000 trips of 64 FFMA) in copies patched in the binary: the probe's stall "
           "count 2/3/4/6, yielding (y) or not (n); the hog's FFMA yielding every 4th / 16th (h4, h16); the hog's "
           "FFMA as built (reuse: Rd, Rd, R4.reuse, R5.reuse), without reuse bits (conflict) or Rd, Rd, R7, R7 "
           "(free); the chain's LOP3 as built (lop: R9, R9, R2, R3) or R9, R9, R2, R2 (lopfree); "
           "also chains at stall 3-5 that keep the turn beside a hog yielding every 2nd-32nd FFMA or never (h0), "
           "free/lopfree or reuse/lop. "
           f"{REPEATS} repeats; rows with probe_runs false ran the hog alone")
    return summarise_raw(out, "gap_bank", how, "(gap_stall.json's source)",
                         {"steps": N, "probe_trips": TRIPS, "hog_trips": HOG_TRIPS,
                          "variants": {k: list(v) for k, v in variants().items()}, "loops": loops()})


def main(argv=None) -> int:
    return cli(argv, __doc__, None, None, device, summarise)


if __name__ == "__main__":
    sys.exit(main())
