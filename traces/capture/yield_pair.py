#!/usr/bin/env python3
"""Who goes after a yield when two warps of a sub-partition both want the ALU, and does the older or the younger?
(``age_swap.json``: where both warps yield on stall-2 ALU ops the younger does better; sched_probe's probe steps
take 16, 28, 40 or 52 cycles in a mix no replay rule gave.) Warps 0 and 4 (one sub-partition) each run 32 blocks
of a clock read (``CS2R``) and 6 independent ``LOP3.LUT`` at ptxas's stall count 2 (the ALU's rate: one every 2
cycles), the same code in two copies (warp 0's LUT 0x96, warp 4's 0x69), after a ``bar.sync`` and a spin of
``d0`` / ``d4`` cycles on the clock. Every block's start is stamped, so the two warps' blocks interleave on one
clock: who ran when, yield by yield. Copies of the cubin set the yield flag in each block of each warp on its
6th LOP3 (``6``, the one before the next clock read), on its 3rd (``3``) or on none (``-``), every other
instruction of the blocks not yielding (``VARIANTS``: warp 0's pattern, then warp 4's).

    python traces/capture/yield_pair.py --build        # here: build/yield_pair.{cu,cubin}
    python traces/capture/yield_pair.py --device OUT   # on the GPU (cuobjdump too: it patches the copies there)
    python traces/capture/yield_pair.py --json OUT     # here: traces/h100/yield_pair.json from OUT

Read by ``python -m warpsim.timing.yield_pair``.
"""
from __future__ import annotations

import re
import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))
from probe import (BUILD, builder, cli, code_section, kernel_sass, kernels_sass, lut_lops, save_raw,  # noqa: E402
                   summarise_raw, with_control)

KERNEL = "ypair"
CUBIN = BUILD / "yield_pair.cubin"
BLOCKS, LOPS = 32, 6
LUTS = {0: "0x96", 4: "0x69"}  # each warp's copy of the code
#: ``{name: (warp 0's yield, warp 4's)}``: the LOP3 of each block that yields (1-based), 0 for none (the json's
#: ``variants`` add the block's LOP3 count before them: ``[6, warp 0's, warp 4's]``)
VARIANTS = {"6/6": (6, 6), "6/-": (6, 0), "-/6": (0, 6), "3/3": (3, 3), "6/3": (6, 3), "3/6": (3, 6), "-/-": (0, 0)}
OFFSETS = range(-30, 31)  # d4 - d0, cycles
#: the block lengths (LOP3 a block) of the second part, each block's last LOP3 yielding in both warps
LENGTHS = (2, 3, 4, 5, 7, 8, 9, 10, 12)
LENGTH_OFFSETS = range(-30, 31, 6)
#: the fourth part: ``(n, stall)``: blocks of n LOP3 (kernel ``ypair_<n>``, ``ypair`` for 6) at another stall
#: count than ptxas's 2, each block's last LOP3 yielding in both warps (variants ``len<n>s<stall>``): as many
#: cycles a block with fewer instructions, or more cycles with as many
STALLED = ((2, 6), (3, 4), (4, 3), (6, 3), (6, 4))
#: the fifth part: ``6/6`` with the 32 blocks run twice in a loop, the second pass's stamps kept (variant
#: ``6/6w``): the code the same, cached from the first pass
WARM = f"{KERNEL}_warm"
#: the third part: ``6/6`` with warp 4's code moved down its code lines by k instructions (k LOP3 before its
#: blocks; 8 - k before warp 0's, whose code follows, so that warp 0's stays where it was in its lines)
PADS = (1, 2, 3, 4, 5, 6, 7)
SPIN = 40  # the spin of the warp that goes first
REPEATS = 2


def source() -> str:
    """``ypair`` (blocks of 6 LOP3, the copies of :data:`VARIANTS`) and ``ypair_<n>`` for each of :data:`LENGTHS`
    (blocks of n LOP3, each block's last yielding in both warps)."""
    return "".join([_kernel(name(n), n) for n in (LOPS,) + LENGTHS] + [_kernel(padded(k), LOPS, k) for k in PADS]
                   + [_kernel(WARM, LOPS, passes=2)])


def _kernel(name: str, lops: int, pad: int = 0, passes: int = 1) -> str:
    """A kernel whose blocks hold ``lops`` LOP3, warp 4's code after ``pad`` other LOP3 (LUT 0x3c) and warp 0's,
    which follows it in the binary, after 8 - ``pad`` (mod 8): warp 4's code moves ``pad`` instructions down
    its 128-byte lines, warp 0's stays where it is in its lines."""

    def twice(code):  # the blocks run ``passes`` times, the stamps of the last kept: its code is cached
        loop = f"#pragma unroll 1\n    for (int r = 0; r < {passes}; ++r) {{\n    {code}\n    }}"
        return code if passes == 1 else loop

    def pads(k):
        return "".join('asm volatile("lop3.b32 %0, %0, %1, %2, 0x3c;" : "+r"(p) : "r"(y), "r"(z)); ' for _ in range(k))
    def blocks(lut):
        lop = "".join(f'asm volatile("lop3.b32 %0, %0, %1, %2, {lut};" : "+r"(x{j}) : "r"(y), "r"(z)); '
                      for j in range(lops))
        return f"#pragma unroll\n    for (int k = 0; k < {BLOCKS}; ++k) {{ s[k] = clock64(); {lop}}}"
    xs = ", ".join(f"x{j} = threadIdx.x + {j}" for j in range(lops))
    return f"""
extern "C" __global__ void {name}(int d0, int d4, unsigned long long* out, unsigned* sink) {{
  const unsigned w = threadIdx.x >> 5;
  if (w & 3) return;
  unsigned y = threadIdx.x * 3 + 1, z = threadIdx.x ^ 0x55, p = threadIdx.x, {xs};
  unsigned long long s[{BLOCKS + 1}];
  __syncthreads();
  const unsigned long long t0 = clock64();
  const int d = w == 0 ? d0 : d4;
  while (clock64() - t0 < (unsigned long long)d) {{}}
  if (w == 0) {{
    {pads((8 - pad) % 8)}
    {twice(blocks(LUTS[0]))}
  }} else {{
    {pads(pad)}
    {twice(blocks(LUTS[4]))}
  }}
  s[{BLOCKS}] = clock64();
  if ((threadIdx.x & 31) == 0)
    for (int k = 0; k <= {BLOCKS}; ++k) out[w / 4 * {BLOCKS + 1} + k] = s[k];
  sink[threadIdx.x] = p ^ {" ^ ".join(f"x{j}" for j in range(lops))};
}}"""


def name(lops_n: int) -> str:
    """The kernel whose blocks hold ``lops_n`` LOP3."""
    return KERNEL if lops_n == LOPS else f"{KERNEL}_{lops_n}"


def padded(k: int) -> str:
    """The kernel of :data:`PADS` whose warp 4's code is moved down by ``k`` instructions."""
    return f"{KERNEL}_pad{k}"


def block_code(sass: list, lops_n: int = LOPS) -> dict:
    """``{warp: [[(address, text) of a block's clock read and its LOP3], ...]}``: each warp's 32 blocks, found by
    their LUT and their two sources (``y``, ``z``: the registers most of the LUT's LOP3 read), each a clock read
    followed by its 6 LOP3 (checked). The clock read after the last block is the two warps' shared code."""
    out = {}
    for w, lut in LUTS.items():
        lops = lut_lops(sass, lut)
        blocks, cur = [], None
        for i in range(lops[0] - 1, lops[-1] + 1):
            a, t, _c = sass[i]
            if re.match(r"CS2R R\d+, SR_CLOCKLO", t):
                cur = [(a, t)]
                blocks.append(cur)
            elif i in lops:
                cur.append((a, t))
        if len(blocks) != BLOCKS or any(len(b) != lops_n + 1 for b in blocks):
            raise ValueError(f"warp {w}'s code is not {BLOCKS} blocks of a clock read and {lops_n} LOP3 "
                             f"({[len(b) for b in blocks]})")
        out[w] = blocks
    return out


def patch(cubin: bytes, sass: list, fn: str, yields: tuple, lops_n: int = LOPS, stall: int | None = None) -> bytes:
    """The cubin with every instruction of each warp's blocks in kernel ``fn`` (its SASS ``sass``, blocks of
    ``lops_n`` LOP3) not yielding but each block's ``yields[k]``-th LOP3 of warp 4k's (0: none); the reuse bits of a
    yielding one cleared (``probe.with_control``); with ``stall``, every LOP3 of the blocks at that stall count."""
    code = block_code(sass, lops_n)
    out = bytearray(cubin)
    base, _size = code_section(cubin, fn)
    for k, w in enumerate(LUTS):
        for block in code[w]:
            for j, (a, _t) in enumerate(block):
                lo, hi = struct.unpack_from("<QQ", out, base + a)
                hi = with_control(hi, stall if stall and j > 0 else None, yields=j > 0 and j == yields[k])
                struct.pack_into("<QQ", out, base + a, lo, hi)
    return bytes(out)


def copies() -> list:
    """``[(variant, kernel, LOP3 a block, (warp 0's yield, warp 4's), stall count or None, offsets)]``: every copy
    the device runs, in its order: :data:`VARIANTS`, :data:`LENGTHS`, :data:`PADS`, :data:`STALLED`, ``6/6w``."""
    six = (LOPS, LOPS)
    return ([(label, KERNEL, LOPS, v, None, OFFSETS) for label, v in VARIANTS.items()]
            + [(f"len{n}", name(n), n, (n, n), None, LENGTH_OFFSETS) for n in LENGTHS]
            + [(f"6/6+{k}", padded(k), LOPS, six, None, LENGTH_OFFSETS) for k in PADS]
            + [(f"len{n}s{stall}", name(n), n, (n, n), stall, LENGTH_OFFSETS) for n, stall in STALLED]
            + [("6/6w", WARM, LOPS, six, None, LENGTH_OFFSETS)])


def device(out: Path) -> int:
    import cupy as cp
    out.mkdir(parents=True, exist_ok=True)
    plain, code = CUBIN.read_bytes(), kernels_sass(CUBIN)
    buf = cp.zeros(2 * (BLOCKS + 1), cp.uint64)
    rows = []
    for i, (label, fn, n, yields, stall, offsets) in enumerate(copies()):
        path = out / f"yield_pair_{i}.cubin"  # a path of its own: CuPy keeps a module by its path
        path.write_bytes(patch(plain, code[fn], fn, yields, n, stall))
        kernel = cp.RawModule(path=str(path)).get_function(fn)
        rows += [dict(_launch(cp, kernel, buf, off), variant=label, repeat=rep)
                 for rep in range(REPEATS) for off in offsets]
        path.unlink()
    save_raw(out, "yield_pair", rows)
    return 0


def _launch(cp, fn, buf, off: int) -> dict:
    """One launch, warp 4 spinning ``off`` cycles more than warp 0 (less if negative): d0, d4 and each warp's
    clocks."""
    d0, d4 = (SPIN, SPIN + off) if off >= 0 else (SPIN - off, SPIN)
    buf.fill(0)
    fn((1,), (160,), (cp.int32(d0), cp.int32(d4), buf, cp.zeros(160, cp.uint32)))
    cp.cuda.Device().synchronize()
    t = buf.get().reshape(2, BLOCKS + 1)
    return {"d0": d0, "d4": d4, "w0": [int(x) for x in t[0]], "w4": [int(x) for x in t[1]]}


def loops() -> dict:
    """``{variant: {"w0": [...], "w4": [...], "w0_blocks": [...], "w4_blocks": [...]}}``: each warp's 32 blocks
    (a clock read and n LOP3 each) in each copy (:func:`_encoded`)."""
    plain, code = CUBIN.read_bytes(), kernels_sass(CUBIN)
    got = {}
    for label, fn, n, yields, stall, _offsets in copies():
        sass = kernel_sass(patch(plain, code[fn], fn, yields, n, stall), fn)
        got[label] = _encoded(sass, block_code(sass, n))
    return got


def _encoded(sass: list, code: dict) -> dict:
    """A copy's blocks as ``warpsim.timing.sass_profile`` encodes them (``w0``, ``w4``) and the byte address of
    each block's clock read in the kernel's code (``w0_blocks``, ``w4_blocks``)."""
    from warpsim.timing import sass_profile
    ctrl = {a: c for a, _t, c in sass}
    got = {f"w{w}": [sass_profile.encode(t, ctrl[a]) for b in blocks for a, t in b] for w, blocks in code.items()}
    got.update({f"w{w}_blocks": [b[0][0] for b in blocks] for w, blocks in code.items()})
    return got


def summarise(out: Path) -> int:
    how = (f"one CTA of 5 warps: warps 0 and 4 (one sub-partition) each stamp clock64 before each of {BLOCKS} blocks "
           f"of {LOPS} independent LOP3.LUT and after the last, after a bar.sync and a spin of d0 / d4 cycles "
           f"(the earlier one {SPIN}); copies of the cubin (variants 'a/b': the LOP3 of each block of warp 0 / "
           "warp 4 that yields, - none; every other instruction of the blocks not yielding), d4 - d0 from "
           f"{OFFSETS.start} to {OFFSETS.stop - 1}, {REPEATS} repeats; and kernels ypair_<n> with blocks of n "
           f"LOP3 (variants len<n>, n in {list(LENGTHS)}), each block's last LOP3 yielding in both warps, d4 - d0 "
           f"from {LENGTH_OFFSETS.start} to {LENGTH_OFFSETS.stop - 1} by {LENGTH_OFFSETS.step}, {REPEATS} repeats; and "
           "kernels ypair_pad<k> (variants 6/6+<k>, k in 1-7): ypair's 6/6 with k LOP3 (LUT 0x3c) before warp 4's "
           "blocks and 8 - k before warp 0's (which follow warp 4's in the code): warp 4's code k instructions "
           "further down its 128-byte lines, warp 0's where it was, the same offsets; and variants len<n>s<m>: "
           f"blocks of n LOP3 at stall count m, each block's last yielding in both warps, (n, m) in {list(STALLED)}, "
           "the same offsets; and variant 6/6w: 6/6's blocks run twice in a loop (kernel ypair_warm), the second "
           "pass's stamps kept, its code cached by the first")
    variants = {label: [n, *yields] for label, _fn, n, yields, _stall, _offsets in copies()}
    return summarise_raw(out, "yield_pair", how, source(), {"blocks": BLOCKS, "variants": variants,
                                                            "loops": loops()})


def main(argv=None) -> int:
    return cli(argv, __doc__, source, builder(source, CUBIN), device, summarise)


if __name__ == "__main__":
    sys.exit(main())
