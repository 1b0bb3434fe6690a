#!/usr/bin/env python3
"""How long a local load and a shuffle take on the H100 when the next one waits for it, alone and beside the
other kinds of access the emulated fp8 loops mix in: every active warp of one CTA runs a loop of dependent steps,
timed with clock64 around the loop.

* ``ldl``: a pointer chase through 32 lines of the warp's frame that stay in the L1 (``p = ld.local [p]``);
* ``shfl``: a chain of ``shfl.sync.bfly`` (``x = shfl(x)``);
* ``stl_ldl``: a store and a load of the same word, the load's value the next store's (store to load);
* ``ldl_stl<k>``: the chase with ``k`` stores to other lines before each load (the spill stores);
* ``ldl_shfl<k>``: the chase with ``k`` shuffles of other values before each load;
* ``shfl_ldl<k>``: the shuffle chain with ``k`` loads of other lines before each shuffle;
* ``ldc``: a chase through a constant table (``LDC R, c[3][R]``); ``s2r``: ``@P S2R R, SR_VIRTID`` whose
  predicate the step before set from the S2R's result (``ISETP``), ``s2r_alu`` the same with an add for the S2R;
* ``ldl_stnext<d>``: the chase, each step storing the chase slot it loads ``d`` steps later (with the value it
  holds): every load reads a line stored ``d`` steps before (the spill slots' store, then fill);
* ``war<k>``: the chase, each step storing the pointer before loading the next (``k`` loads of other lines
  first); ``war<k>_same``: the same with the cubin patched so that every load of the chase writes the register
  its step's store reads, and waits for the store to have read it (ptxas's spill-and-fill pattern
  ``STL [slot], Rx; LDL.LU Rx, [other slot]``, which a CUDA C chase does not make);
* ``lu_<kernel>``: the chase kernels again with the loop's loads patched, in the cubin, to ``LDL.LU`` (ptxas's
  last-use fill of a spill slot, which CUDA C does not make: the loads of the emulated fp8 loops).

    python traces/capture/chain_latency.py --build        # here: traces/capture/build/chain_latency.{cu,cubin}
    python traces/capture/chain_latency.py --device OUT   # on the GPU: OUT/chain_latency_raw.json
    python traces/capture/chain_latency.py --json OUT     # here: traces/h100/chain_latency.json, with the SASS

Read by ``python -m warpsim.timing.chain_latency``.
"""
from __future__ import annotations

import re
import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from probe import (BUILD, builder, cli, code_offset, kernel_loops, open_module, save_raw, summarise_raw,  # noqa: E402
                   timed_launch)

STEPS = 16      # dependent steps a loop trip (unrolled)
ITERS = 128     # loop trips
REPEATS = 3
WARPS = (1, 2, 4, 8, 16)
#: the kernels: (chain, other accesses a step)
KINDS = (("ldl", 0), ("shfl", 0), ("stl_ldl", 0), ("ldl_stl", 1), ("ldl_stl", 2), ("ldl_stl", 4),
         ("ldl_shfl", 1), ("ldl_shfl", 2), ("ldl_shfl", 4), ("shfl_ldl", 1), ("shfl_ldl", 2), ("shfl_ldl", 4),
         ("ldl_stnext", 1), ("ldl_stnext", 4), ("ldl_stnext", 15), ("war", 0), ("war", 2), ("war", 4),
         ("ldc", 0), ("s2r", 0), ("s2r_alu", 0))
CHASE, OTHER, SAME = 0, 256, 512  # byte offsets in the frame: the chase's 32 lines, the others', store-to-load


def name(chain: str, k: int) -> str:
    return f"{chain}{k}" if k else chain


def _step(chain: str, k: int, j: int) -> list[str]:
    """One dependent step ``j`` of the trip: its ``k`` independent accesses, then the link of the chain."""
    out = []
    if chain == "ldl_stnext":  # slot s + k of the chase (p: slot s's address) gets the address of slot s + k + 1
        out.append(f'asm volatile("{{\\n\\t.reg .u32 a, v;\\n\\tsub.u32 a, %0, %1;\\n\\tadd.u32 v, a, {8 * (k + 1)};'
                   f'\\n\\tadd.u32 a, a, {8 * k};\\n\\tand.b32 a, a, 255;\\n\\tand.b32 v, v, 255;\\n\\tadd.u32 a, a, %1;'
                   f'\\n\\tadd.u32 v, v, %1;\\n\\tst.local.u32 [a], v;\\n\\t}}" :: "r"(p), "r"(basez) : "memory");')
        k = 0
    for m in range(k):
        slot = OTHER + 8 * ((j * k + m) % 32)
        if chain == "ldl_stl":
            out.append(f'asm volatile("st.local.u32 [%0+{slot}], %1;" :: "r"(base), "r"(ci) : "memory");')
        elif chain == "ldl_shfl":
            out.append(f'asm volatile("shfl.sync.bfly.b32 %0, %1, {1 + m}, 0x1f, 0xffffffff;" : "=r"(v[{m}]) '
                       f': "r"(ci + {j}));')
        else:
            out.append(f'asm volatile("ld.local.u32 %0, [%1+{slot}];" : "=r"(v[{m}]) : "r"(b) : "memory");')
    if chain.startswith("ldl"):
        out.append('asm volatile("ld.local.u32 %0, [%0];" : "+r"(p) :: "memory");')
    elif chain == "ldc":  # a chase through a constant table of byte offsets: LDC R, c[bank][R]
        out.append("y = *reinterpret_cast<const unsigned*>(reinterpret_cast<const char*>(ctab) + y);")
    elif chain in ("s2r", "s2r_alu"):  # a predicated S2R (or add) whose predicate the step before set
        op = "mov.u32 %0, %%warpid" if chain == "s2r" else "add.u32 %0, %0, 1"  # %warpid: not hoisted
        out.append(f'asm volatile("{{\\n\\t.reg .pred q;\\n\\tsetp.ne.u32 q, %0, 77777;\\n\\t@q {op};\\n\\t}}" '
                   ': "+r"(x));')
    elif chain == "war":
        out.append(f'asm volatile("st.local.u32 [%0+{SAME + 8 * (j % 16)}], %1;" :: "r"(base), "r"(p) : "memory");')
        out.append('asm volatile("ld.local.u32 %0, [%0];" : "+r"(p) :: "memory");')
    elif chain == "stl_ldl":
        out.append(f'asm volatile("st.local.u32 [%1+{SAME + 8 * (j % 16)}], %0;\\n\\tld.local.u32 %0, '
                   f'[%2+{SAME + 8 * (j % 16)}];" : "+r"(p) : "r"(base), "r"(b) : "memory");')
    else:
        out.append('asm volatile("shfl.sync.bfly.b32 %0, %0, 1, 0x1f, 0xffffffff;" : "+r"(x));')
    if k and chain != "ldl_stl":
        out.append(" ".join(f"y ^= v[{m}];" for m in range(k)))
    return out


def _kernel(chain: str, k: int) -> str:
    body = "\n      ".join(x for j in range(STEPS) for x in _step(chain, k, j))
    return f"""
extern "C" __global__ void chain_{name(chain, k)}(int iters, int zero, unsigned long long* out, unsigned* sink) {{
  const unsigned warp = threadIdx.x >> 5;
  unsigned loc[160];  // words 0, 2, .. 62: the chase; 64, 66, .. 126: other lines; 128, 130, .. 158: store to load
  const unsigned base = (unsigned)__cvta_generic_to_local(&loc[0]);
  unsigned x = threadIdx.x, y = 0, c = threadIdx.x * 3u + 1u;
  unsigned v[4] = {{0, 0, 0, 0}};
  for (int s = 0; s < 32; s++) {{  // slot s of the chase holds the address of slot s + 1
    asm volatile("st.local.u32 [%0], %1;" :: "r"(base + {CHASE} + 8 * s), "r"(base + {CHASE} + 8 * ((s + 1) & 31)) : "memory");
    asm volatile("st.local.u32 [%0], %1;" :: "r"(base + {OTHER} + 8 * s), "r"(c + s) : "memory");
  }}
  for (int s = 0; s < 80; s++) {{  // every line of the frame in the L1
    unsigned t;
    asm volatile("ld.local.u32 %0, [%1];" : "=r"(t) : "r"(base + 4 * s) : "memory");
    y ^= t & (unsigned)zero;
  }}
  const unsigned basez = base + ((unsigned)zero & x);  // base, but not to ptxas: its loads stay loads
  unsigned p = basez + {CHASE};
  __syncthreads();
  const unsigned long long t0 = clock64();
  for (int it = 0; it < iters; it++) {{
      const unsigned b = basez + ((unsigned)it & (unsigned)zero), ci = c ^ (unsigned)it;  // new each trip
      {body}
  }}
  const unsigned long long t1 = clock64();
  if ((threadIdx.x & 31) == 0) {{ out[2 * warp] = t0; out[2 * warp + 1] = t1; }}
  sink[threadIdx.x] = p + x + y + v[0] + v[1] + v[2] + v[3];
}}"""


def source() -> str:
    table = ", ".join(str(4 * ((i + 1) % 32)) for i in range(32))
    return (f"__constant__ unsigned ctab[32] = {{{table}}};  // entry i: the byte offset of entry i + 1\n"
            + "\n".join(_kernel(chain, k) for chain, k in KINDS))


CUBIN = BUILD / "chain_latency.cubin"
PATCHED = BUILD / "chain_latency_patched.cubin"
#: the kernels whose loop loads are patched to LDL.LU (``lu_<kernel>``) and those patched to fill the register
#: their step's store reads (``<kernel>_same``), in :data:`PATCHED`
LU_KERNELS = ("ldl", "ldl_stl1", "ldl_stnext1", "ldl_stnext4", "ldl_stnext15")
WAR_KERNELS = ("war", "war2", "war4")
#: the high word's bit that makes an LDL an LDL.LU (sm_90: LDL 0x...100800, LDL.LU 0x...300800)
LU_BIT = 1 << 21
#: the control bits in the high word (from bit 41): stall 4, yield 1, write scoreboard 3, read scoreboard 3, wait 6
RB_SHIFT, WAIT_SHIFT = 41 + 8, 41 + 11
CHASE_LDL = re.compile(r"LDL R(\d+), \[R(\d+)\]$")
STORE = re.compile(r"STL \[R\d+(?:\+0x[0-9a-f]+)?\], R(\d+)$")


def _timed(code: list) -> list:
    """The instructions between the kernel's two clock reads (``CS2R Rx, SR_CLOCKLO``)."""
    at = [i for i, (_a, t, _c) in enumerate(code) if "SR_CLOCKLO" in t]
    return code[at[0] + 1:at[1]]


def _set_byte(elf: bytearray, at: int, byte: int, value: int) -> None:
    elf[at + byte] = value


def _ctrl(elf: bytearray, at: int) -> int:
    return struct.unpack_from("<Q", elf, at + 8)[0] >> 41


def _patch_war(elf: bytearray, off: int, code: list) -> list:
    """Every load of the chase writes and reads one register X, every store of the loop stores X with a read
    scoreboard of its own (one no other instruction there uses), and each load waits on it: for the store
    before it to have read X. X is a register the chase alone uses; the move that gives the chase its first
    address before the loop now writes X."""
    timed = _timed(code)
    chase = [(a, CHASE_LDL.match(t)) for a, t, _c in timed if CHASE_LDL.match(t)]
    stores = [a for a, t, _c in timed if STORE.match(t)]
    regs = {int(m.group(1)) for _a, m in chase}
    first = int(chase[0][1].group(2))
    loop = min([a for a, _m in chase] + stores)
    users = {int(r) for a, t, _c in timed for r in re.findall(r"\bR(\d+)\b", t)
             if not CHASE_LDL.match(t) and not STORE.match(t) and a >= loop}
    x = first if first not in users else max(regs - users - {first})
    boards = {b for a, t, c in timed if a >= loop and not STORE.match(t) for b in ((c >> 5) & 7, (c >> 8) & 7)}
    free = min(set(range(6)) - boards, default=None)  # for the stores with no read scoreboard of their own
    rb = None
    done = []
    moved = x == first
    for a, t, _c in timed:
        if a < loop and re.match(rf"\S+ R{first}, ", t) and x != first:  # the chase's first address: now in X
            _set_byte(elf, off + a, 2, x)
            done.append(a)
            moved = True
        elif STORE.match(t):
            _set_byte(elf, off + a, 4, x)
            rb = (_ctrl(elf, off + a) >> 8) & 7
            if rb == 7:
                if free is None:
                    raise SystemExit("no scoreboard free for the stores' register reads")
                rb = free
                lo, hi = struct.unpack_from("<QQ", elf, off + a)
                struct.pack_into("<QQ", elf, off + a, lo, (hi & ~(7 << RB_SHIFT)) | (rb << RB_SHIFT))
            done.append(a)
        elif CHASE_LDL.match(t):
            _set_byte(elf, off + a, 2, x)
            _set_byte(elf, off + a, 3, x)
            if rb is not None:
                lo, hi = struct.unpack_from("<QQ", elf, off + a)
                struct.pack_into("<QQ", elf, off + a, lo, hi | (1 << (WAIT_SHIFT + rb)))
            done.append(a)
    if not moved:
        raise SystemExit(f"the chase's first address (R{first}) is set outside the timed code")
    return done


def patch(cubin: Path = CUBIN, dest: Path = PATCHED) -> dict:
    """``dest``: ``cubin`` with the loads of the loops of :data:`LU_KERNELS` made LDL.LU and the chase of
    :data:`WAR_KERNELS` made to fill its store's register (:func:`_patch_war`); per kernel the addresses
    patched, checked by disassembling ``dest``."""
    from loop_start_sass import disassemble
    from warpsim.timing import sass_profile
    elf = bytearray(cubin.read_bytes())
    code = disassemble(cubin)
    done = {}
    for k in LU_KERNELS:
        fn = f"chain_{k}"
        body = sass_profile.loop_body(code[fn])
        off = code_offset(bytes(elf), fn)
        done[fn] = []
        for addr, text, _c in code[fn]:
            if body[0][0] <= addr <= body[-1][0] and text.split()[0] == "LDL":
                lo, hi = struct.unpack_from("<QQ", elf, off + addr)
                struct.pack_into("<QQ", elf, off + addr, lo, hi | LU_BIT)
                done[fn].append(addr)
    for k in WAR_KERNELS:
        fn = f"chain_{k}"
        done[fn] = _patch_war(elf, code_offset(bytes(elf), fn), code[fn])
    dest.write_bytes(bytes(elf))
    after = disassemble(dest)
    for k in LU_KERNELS:
        got = {a: t for a, t, _c in after[f"chain_{k}"]}
        bad = [a for a in done[f"chain_{k}"] if not got[a].startswith("LDL.LU ")]
        if bad or not done[f"chain_{k}"]:
            raise SystemExit(f"{dest}: chain_{k}: the patch did not make LDL.LU at {bad or 'any load'}")
    for k in WAR_KERNELS:
        regs = {CHASE_LDL.match(t).groups() for _a, t, _c in _timed(after[f"chain_{k}"]) if CHASE_LDL.match(t)}
        stored = {STORE.match(t).group(1) for _a, t, _c in _timed(after[f"chain_{k}"]) if STORE.match(t)}
        if len(regs) != 1 or len(set(*regs)) != 1 or stored != set(*regs):
            raise SystemExit(f"{dest}: chain_{k}: the chase does not fill its stores' register ({regs}, {stored})")
    print(f"wrote {dest}: " + ", ".join(f"{fn} {len(a)}" for fn, a in done.items()))
    return done


def build() -> int:
    builder(source, CUBIN)()
    patch()
    return 0


def device(out: Path) -> int:
    cp, mod, buf, sink = open_module(CUBIN)
    patched = cp.RawModule(path=str(PATCHED))
    runs = ([(name(c, k), mod) for c, k in KINDS] + [(f"lu_{k}", patched) for k in LU_KERNELS]
            + [(f"{k}_same", patched) for k in WAR_KERNELS])
    rows = []
    try:  # the patched kernels run last: a fault there keeps the rows before it
        for kernel, module in runs:
            fn = module.get_function(f"chain_{kernel.removeprefix('lu_').removesuffix('_same')}")
            for rep in range(REPEATS):
                for w in WARPS:
                    args = (cp.int32(ITERS), cp.int32(0), buf, sink)
                    rows.append({"kernel": kernel, "warps": w, "repeat": rep, "iters": ITERS, "steps": STEPS,
                                 **timed_launch(cp, fn, 32 * w, args, buf, list(range(w)))})
    finally:
        save_raw(out, "chain_latency", rows)
    return 0


def summarise(out: Path) -> int:
    how = (f"one CTA of 1-16 warps (warp id mod 4: the sub-partition), each runs {ITERS} trips of {STEPS} "
           "dependent steps (a local-load pointer chase through lines in the L1, a shfl.sync.bfly chain, or a "
           "store and load of one word), with 0-4 independent stores, shuffles or loads before each step; "
           "clock64 before and after the loop; lu_<kernel>: the chase kernels with the loop's LDL patched to LDL.LU "
           "in the cubin; war<k>_same: the war<k> chase patched so that each load fills the register its step's "
           "store reads and waits on the store's read scoreboard.")
    loops = kernel_loops(CUBIN)
    for k, v in kernel_loops(PATCHED).items():
        k = k.removeprefix("chain_")
        if k in LU_KERNELS:
            loops[f"chain_lu_{k}"] = v
        elif k in WAR_KERNELS:
            loops[f"chain_{k}_same"] = v
    return summarise_raw(out, "chain_latency", how, source(), loops)


def main(argv=None) -> int:
    return cli(argv, __doc__, source, build, device, summarise)


if __name__ == "__main__":
    sys.exit(main())
