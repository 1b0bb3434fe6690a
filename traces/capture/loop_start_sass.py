#!/usr/bin/env python3
"""The recorded s4 timing kernels with their start clock moved, in the SASS, to where the loop's operands are back.

    python traces/capture/loop_start_sass.py --cubins DIR              # ptxas + patch + check (no GPU)
    python traces/capture/loop_start_sass.py --device OUT --cubins DIR # on the GPU (CuPy): OUT/loop_start_sass.json
    python traces/capture/loop_start_sass.py --device OUT --cubins DIR --before --launches 12

ptxas reads the start clock of the s4 timing kernels (kernels/timing_{sp_s4_k64,sp_s4_k128,dense_s4_k64}.ptx)
before the loads of the loop's operands; the first CALL of the loop waits on them, so a warp starts its loop
when its loads return, which the timing traces do not record. loop_start.py added a clock read in the PTX,
which changed the loops' SASS. Here the cubin ptxas makes of the recorded PTX (the driver's JIT makes the same,
``traces/h100/sass/jit_cache_check.json``) is patched instead: the start clock's CS2R moves down to just
after the last of those LDGs, waiting on their scoreboard, and the instructions between move up one slot (a
relative branch among them keeps its target). Nothing from the loop's first instruction on changes, so a
warp's ``end - start`` is its loop (and the few instructions before it) and the start clocks of a CTA's
warps are their loop starts. Each patched kernel is disassembled and checked against the original.

On the device, the patched and the original cubins (and the original PTX, loaded as capture.py loads it)
run the recorded runs' configurations (ILP 1 and 4, 1-16 warps, reps 32, the input of the recorded timing
trace), one-warp runs 3 launches, several-warp runs ``--launches`` (10) launches each: the launches of one
configuration of one kernel one after another (as capture.py records them), or with ``--alternate`` each
launch of one kernel beside one of each other. With ``--before`` (``OUT/loop_start_sass_before.json``): sp_s4_k64
ILP 1 with 8 and 9 warps, each launch right after one launch of each kind in :data:`BEFORE`. Summarised by
``warpsim.timing.pair_modes``.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))
from probe import code_offset  # noqa: E402
from trips import write_atomic  # noqa: E402

FORMS = ("sp_s4_k64", "sp_s4_k128", "dense_s4_k64")
ILPS = (1, 4)
WARPS = tuple(range(1, 17))
REPS = 32
#: the high word's control bits (bit 41 on): stall 4, yield 1, write scoreboard 3, read scoreboard 3, wait mask 6
WAIT_SHIFT = 41 + 11


def disassemble(cubin: Path) -> dict:
    """``sass_profile.parse_sass`` of cuobjdump's SASS of ``cubin``."""
    from warpsim.timing import sass_profile
    out = subprocess.run([sass_profile._tool("cuobjdump"), "-sass", str(cubin)], capture_output=True, text=True,
                         check=True).stdout
    return sass_profile.parse_sass(out)


def plan(code: list) -> tuple[int, int, int]:
    """``(clock, last_load, scoreboard)`` of a kernel's SASS (``[(addr, text, ctrl)]``): the start clock's
    CS2R, the last LDG between it and the first CALL, and the write scoreboard those LDGs set."""
    clock = next(a for a, t, _ in code if re.match(r"CS2R R\d+, SR_CLOCKLO", t))
    call = next(a for a, t, _ in code if t.startswith("CALL"))
    loads = [(a, c) for a, t, c in code if clock < a < call and t.startswith("LDG")]
    if not loads:
        raise ValueError("no LDG between the start clock and the first CALL")
    boards = {(c >> 5) & 7 for _, c in loads}
    if len(boards) != 1:
        raise ValueError(f"the LDGs set several scoreboards {sorted(boards)}")
    return clock, loads[-1][0], boards.pop()


def patch_kernel(elf: bytearray, fn: str, code: list) -> dict:
    """Move ``fn``'s start clock after its operand loads in ``elf`` (in place); what moved."""
    clock, last, board = plan(code)
    off = code_offset(bytes(elf), fn)
    text = {a: t for a, t, _ in code}
    dest = int(re.match(r"CS2R R(\d+)", text[clock]).group(1))
    for a in range(clock + 16, last + 16, 16):
        if re.search(rf"\bR({dest}|{dest + 1})\b", text[a]):
            raise ValueError(f"{fn}: {text[a]!r} at {a:#x} uses the clock's registers")
    words = [bytes(elf[off + a:off + a + 16]) for a in range(clock, last + 16, 16)]
    moved = words[1:] + [words[0]]
    for i, w in enumerate(moved[:-1]):
        if re.match(r"(@!?P\d+ )?BRA ", text[clock + 16 * (i + 1)]):
            lo, hi = struct.unpack("<QQ", w)
            moved[i] = struct.pack("<QQ", lo + (4 << 16), hi)  # 16 bytes further: the word offset + 4
    lo, hi = struct.unpack("<QQ", moved[-1])
    moved[-1] = struct.pack("<QQ", lo, hi | (1 << (WAIT_SHIFT + board)))
    for i, w in enumerate(moved):
        elf[off + clock + 16 * i:off + clock + 16 * (i + 1)] = w
    return {"clock_from": clock, "clock_to": last, "waits_on": board}


def check(fn: str, before: list, after: list, moved: dict) -> None:
    """The patched kernel is the original with only the clock moved (and waiting on the loads)."""
    a, b = moved["clock_from"], moved["clock_to"]
    want = []
    for x, t, c in before:
        if a < x <= b:
            want.append((x - 16, t, c))
        elif x == a:
            want.append((b, t, c | (1 << (11 + moved["waits_on"]))))
        else:
            want.append((x, t, c))
    want.sort()
    if want != sorted(after):
        bad = [(w, g) for w, g in zip(want, sorted(after)) if w != g][:3]
        raise RuntimeError(f"{fn}: the patched SASS is not the original with the clock moved: {bad}")


def ptxas_version() -> tuple[str, str]:
    """``(ptxas, its version line)``."""
    ptxas = shutil.which("ptxas") or "ptxas"
    return ptxas, subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]


def recorded_cubin(form: str, cubin: Path) -> dict:
    """The recorded timing module of ``form`` built by ptxas into ``cubin``; its kernels' SASS
    (:func:`disassemble`), checked against the recorded kernels' SASS on file (the driver's JIT output)."""
    from warpsim.timing import sass_profile
    ptxas, version = ptxas_version()
    subprocess.run([ptxas, "-arch=sm_90a", str(HERE / "kernels" / f"timing_{form}.ptx"), "-o", str(cubin)],
                   check=True)
    before = disassemble(cubin)
    for fn, code in before.items():
        on_file = REPO / "traces" / "h100" / "sass" / f"timing_{fn}.sass"
        if on_file.exists() and sass_profile.parse_sass(on_file.read_text())[fn] != code:
            raise RuntimeError(f"{fn}: ptxas ({version}) does not make the SASS of {on_file}")
    return before


def build(folder: Path) -> dict:
    """Original and patched cubins of the three s4 timing modules in ``folder``; per kernel what moved."""
    folder.mkdir(parents=True, exist_ok=True)
    ptxas, version = ptxas_version()
    done = {"ptxas": version, "kernels": {}}
    for form in FORMS:
        orig, patched = folder / f"{form}.cubin", folder / f"{form}_loop_start.cubin"
        before = recorded_cubin(form, orig)
        elf = bytearray(orig.read_bytes())
        moves = {f"{form}_ilp{i}": patch_kernel(elf, f"{form}_ilp{i}", before[f"{form}_ilp{i}"]) for i in ILPS}
        patched.write_bytes(bytes(elf))
        after = disassemble(patched)
        for fn, mv in moves.items():
            check(fn, before[fn], after[fn], mv)
        done["kernels"].update(moves)
    write_atomic(folder / "build.json", json.dumps(done, indent=1))
    return done


class _Launcher:
    """One CTA launches of a timing kernel ``fn(in, t_start, t_end, smid, sink, reps)`` with the recorded input of
    its form, its clocks read back (``cp``: cupy)."""

    def __init__(self, cp):
        from warpsim import tracefile
        self.cp, self.inputs = cp, {}
        self.start, self.end = cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint64)
        self.smid, self.sink = cp.zeros(16, cp.uint32), cp.zeros(16 * 32 * 16, cp.uint32)
        self._read = lambda form: tracefile.read_trace(REPO / "traces" / "h100" / "timing" / f"{form}.npz")

    def launch(self, fn, form: str, warps: int, shared_mem: int = 0) -> None:
        if form not in self.inputs:
            self.inputs[form] = self.cp.asarray(self._read(form).arrays["input"])
        fn((1,), (32 * warps,), (self.inputs[form], self.start, self.end, self.smid, self.sink, np.int32(REPS)),
           shared_mem=shared_mem)

    def timed(self, fn, form: str, warps: int, shared_mem: int = 0) -> dict:
        """One launch (``shared_mem`` bytes of dynamic shared memory) from zeroed clock buffers: ``{"start",
        "end", "smid"}`` of its warps."""
        for buf in (self.start, self.end, self.smid):
            buf.fill(0)
        self.launch(fn, form, warps, shared_mem)
        self.cp.cuda.runtime.deviceSynchronize()
        return {k: self.cp.asnumpy(buf)[:warps].tolist()
                for k, buf in (("start", self.start), ("end", self.end), ("smid", self.smid))}


def _how(cp, flag: str) -> str:
    """The opening of a file's ``how``: what made it, on what."""
    return (__doc__.strip().splitlines()[0] + f" traces/capture/loop_start_sass.py {flag}, CuPy {cp.__version__}, "
            f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, reps {REPS}; ")


def device(out: Path, folder: Path, launches: int, alternate: bool) -> None:
    import cupy as cp
    run = _Launcher(cp)
    rows = []
    for form in FORMS:
        mods = {k: cp.RawModule(path=str(folder / f"{form}{s}.cubin"))
                for k, s in (("patched", "_loop_start"), ("original", ""))}
        mods["ptx"] = cp.RawModule(path=str(HERE / "kernels" / f"timing_{form}.ptx"))  # as capture.py loads it
        for ilp in ILPS:
            fns = {k: m.get_function(f"{form}_ilp{ilp}") for k, m in mods.items()}
            for w in WARPS:
                n = 3 if w == 1 else launches
                order = [(rep, kind) for rep in range(n) for kind in fns] if alternate else \
                    [(rep, kind) for kind in fns for rep in range(n)]
                for rep, kind in order:
                    rows.append({"form": form, "ilp": ilp, "warps": w, "repeat": rep, "kernel": kind,
                                 **run.timed(fns[kind], form, w)})
            print(form, ilp, "done", flush=True)
    how = ("each launch of one kernel beside one of each other" if alternate else
           "the launches of one configuration of a kernel one after another, as capture.py makes them")
    doc = {"how": _how(cp, "--device") + "'patched': start = the loop start, 'original': the recorded kernel's "
                  f"cubin (start before the loads), 'ptx': its PTX, loaded as capture.py loads it; {how}",
           "alternate": alternate, "build": json.loads((folder / "build.json").read_text()), "rows": rows}
    name = f"loop_start_sass{'_alternate' if alternate else ''}.json"
    write_atomic(out / name, json.dumps(compact(doc), separators=(",", ":")))


TINY = r"""
extern "C" __global__ void tiny(unsigned* sink) { if (threadIdx.x == 0) sink[blockIdx.x] = clock(); }
"""
#: --before: what runs just before each launch of the measured sp_s4_k64 ILP 1 kernel
BEFORE = ("none", "patched", "other_function", "other_module", "tiny", "l1_reset", "one_warp")


def before(out: Path, folder: Path, launches: int, warps=(8, 9)) -> None:
    """sp_s4_k64 ILP 1 (its PTX as capture.py loads it, and the patched cubin) with ``warps`` warps, each launch
    right after one launch of each of :data:`BEFORE`: nothing, the other of the two, sp_s4_k64 ILP 4 (the same
    module), dense_s4_k64 ILP 1 (another module), a one-thread-block kernel of a few instructions, capture.py's
    L1 reset on every SM, the same kernel with one warp."""
    import cupy as cp
    from capture import l1_resetter
    run = _Launcher(cp)
    ptx = {f: cp.RawModule(path=str(HERE / "kernels" / f"timing_{f}.ptx")) for f in ("sp_s4_k64", "dense_s4_k64")}
    fns = {"ptx": ptx["sp_s4_k64"].get_function("sp_s4_k64_ilp1"),
           "patched": cp.RawModule(path=str(folder / "sp_s4_k64_loop_start.cubin")).get_function("sp_s4_k64_ilp1")}
    tiny = cp.RawModule(code=TINY).get_function("tiny")
    reset = l1_resetter(cp)
    rows = []
    for w in warps:
        runs = {"none": lambda: None,
                "other_function": lambda: run.launch(ptx["sp_s4_k64"].get_function("sp_s4_k64_ilp4"), "sp_s4_k64", w),
                "other_module": lambda: run.launch(ptx["dense_s4_k64"].get_function("dense_s4_k64_ilp1"),
                                                   "dense_s4_k64", w),
                "tiny": lambda: tiny((1,), (32,), (run.sink,)), "l1_reset": reset}
        for kind, fn in fns.items():
            other = fns["patched" if kind == "ptx" else "ptx"]
            runs.update(patched=lambda: run.launch(other, "sp_s4_k64", w),
                        one_warp=lambda: run.launch(fn, "sp_s4_k64", 1))
            for what in BEFORE:
                for rep in range(launches):
                    runs[what]()
                    rows.append({"form": "sp_s4_k64", "ilp": 1, "warps": w, "repeat": rep, "kernel": kind,
                                 "before": what, **run.timed(fn, "sp_s4_k64", w)})
        print(w, "warps done", flush=True)
    doc = {"how": _how(cp, "--before") + "sp_s4_k64 ILP 1 ('ptx': as capture.py loads it, 'patched': its start "
                  "clock the loop start), each launch right after one launch of 'before': none, the other of the "
                  "two, sp_s4_k64 ILP 4 (same module), dense_s4_k64 ILP 1 (another module), a tiny kernel, the L1 "
                  "reset, itself with one warp",
           "build": json.loads((folder / "build.json").read_text()), "rows": rows}
    write_atomic(out / "loop_start_sass_before.json", json.dumps(compact(doc), separators=(",", ":")))


def compact(doc: dict) -> dict:
    """``doc`` with each row's clocks relative to its first start (``t0``) and one ``smid`` (every warp of the
    CTA runs on one SM)."""
    rows = []
    for r in doc["rows"]:
        t0, sms = min(r["start"]), set(r["smid"])
        if len(sms) != 1:
            raise ValueError(f"a CTA on several SMs: {r}")
        keys = ("form", "ilp", "warps", "repeat", "kernel", "before", "delay")
        rows.append({**{k: r[k] for k in keys if k in r}, "t0": t0, "smid": sms.pop(),
                     "start": [x - t0 for x in r["start"]], "end": [x - t0 for x in r["end"]]})
    return {**doc, "rows": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cubins", type=Path, required=True, metavar="DIR")
    ap.add_argument("--device", type=Path, metavar="OUT")
    ap.add_argument("--launches", type=int, default=10)
    ap.add_argument("--before", action="store_true", help="sp_s4_k64 ILP 1, 8 and 9 warps, after other launches")
    ap.add_argument("--alternate", action="store_true",
                    help="launch the patched and the original kernel in turn (default: each one's launches together)")
    args = ap.parse_args(argv)
    if args.device and args.before:
        before(args.device, args.cubins, args.launches)
    elif args.device:
        device(args.device, args.cubins, args.launches, args.alternate)
    else:
        for fn, mv in build(args.cubins)["kernels"].items():
            print(f"{fn}: CS2R {mv['clock_from']:#06x} -> {mv['clock_to']:#06x}, waits on scoreboard {mv['waits_on']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
