#!/usr/bin/env python3
"""The recorded s4 ILP 1 loops started a set number of cycles apart: the phase a pair takes, by its loop-start offset.

    python traces/capture/loop_delay.py --cubins DIR              # ptxas + patch + check (no GPU)
    python traces/capture/loop_delay.py --device OUT --cubins DIR # on the GPU (CuPy): OUT/loop_delay.json

Two warps of an s4 loop on one sub-partition (warps w and w + 4) run it in phase or out of phase, and which
follows how far apart they start it (``loop_start_sass.json``); there the offsets were what the launches before
left, 18-75 cycles in a few clusters. Here they are set. Each recorded timing module
(kernels/timing_{sp_s4_k64,sp_s4_k128,dense_s4_k64}.ptx) gets, at the top of every kernel, before its operand
loads: ``bar.sync 0``, then a spin on ``%clock64`` of ``BASE`` cycles for warps 0-3 (8-11) and of D cycles for
warps 4-7 (12-15), D read from the launch's dynamic shared memory size (``SMEM + D`` bytes, so the L1's carveout
does not move with D). No branch depends on the warp (a ``selp`` picks the spin's length, the spin's branch is
``bra.uni``), so ptxas makes the ILP 1 kernels' code from their first operand load on exactly the recorded SASS
(checked by disassembly, branch and call targets relative, and at the same offset within a 128-byte line); only
the ILP 1 kernels are run (ptxas's code for ILP 4 differs in a few register moves). The start clock's CS2R is then
moved in the binary to after the operand loads, as ``loop_start_sass.py`` does, so each warp's start clock is its
loop start. Runs: ILP 1 with 5 and 8 warps, D from 0 to ``BASE`` + 400 in steps of 4 cycles, 3 launches of each D
one after another (as capture.py launches a configuration); one warp, 3 launches. Summarised by ``python -m
warpsim.timing.loop_delay``.

    python traces/capture/loop_delay.py --cubins DIR --warm       # the same with the operands' sectors loaded first
    python traces/capture/loop_delay.py --device OUT --cubins DIR # its runs: OUT/loop_delay_warm.json

The loads return in clusters, so the loop starts land in a few steps rather than at D - BASE. With ``--warm``
each lane first loads (``ld.global.ca``) a word of every sector of the operands it loads later, and the
``bar.sync`` (its thread count, ``max(ntid.x, v)``, made of the loaded data) waits for them: the operand loads
then hit the L1 and the loop starts spread over about -150 to +380 cycles (D every 2 cycles from 0 to BASE + 300,
2 launches each).
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from loop_start import kernels  # noqa: E402
from loop_start_sass import (FORMS, REPS, _Launcher, check, compact, disassemble, patch_kernel,  # noqa: E402
                             ptxas_version, recorded_cubin)
from trips import write_atomic  # noqa: E402

#: the spin of warps 0-3 (cycles); warps 4-7 spin D, so their loops start about D - BASE cycles later
BASE = 100
#: dynamic shared memory of every launch besides D (bytes): the carveout is the same for every D
SMEM = 1024
DELAYS = tuple(range(0, BASE + 401, 4))
WARPS = (5, 8)
LAUNCHES = 3
#: the recorded code moves down by whole 128-byte lines: up to 7 ``nanosleep`` (and with ``--warm`` one ``popc``)
#: pad the added code
LINE = 128


def operand_span(body: str) -> int:
    """The bytes of input each lane of a timing kernel loads: its words a lane (``mul.lo.s32 .., lane, N``
    before the ``mul.wide.u32 .., 4``) times 4."""
    m = re.search(r"mul\.lo\.s32 \t(%r\d+), %r\d+, (\d+);\n(?:[^\n]*\n){0,3}?\tmul\.wide\.u32 \t%rd\d+, \1, 4;", body)
    if not m:
        raise ValueError("no lane * words-a-lane address in the kernel")
    return 4 * int(m.group(2))


def warm_offsets(span: int) -> list[int]:
    """Byte offsets of the words to load first so that every 32-byte sector of a lane's ``span`` bytes is
    touched: every 32 bytes, and the last word."""
    return sorted(set(range(0, span - 3, 32)) | {span - 4})


def prologue(pad: int, warm: tuple | None = None, odd: bool = False) -> list[str]:
    """The added PTX: align the CTA's warps, then spin BASE (warps 0-3) or D cycles (warps 4-7); ``pad``
    ``nanosleep.u32 0`` before the spin (to keep the recorded code's offset within its lines). With ``warm``
    (the kernel's name and :func:`operand_span`) each lane first loads (``ld.global.ca``) a word of every sector
    of the operands it loads later and the spin waits for them, so that every warp's operand loads hit the L1
    (``odd``: one instruction more, a ``popc`` of the 0 or 1 those loads leave, for the padding)."""
    name, span = warm or (None, 0)
    words = [f"\tld.global.ca.u32 \t{r}, [aq+{o}];" for r, o in zip(("vq", "uq", "wq"), warm_offsets(span))]
    if len(words) > 3:
        raise ValueError(f"{name}: {span} bytes a lane, more sectors than the three words loaded first")
    pre = [] if warm is None else [
        "\t.reg .b32 \tlq, vq, uq;", "\t.reg .b64 \taq;", f"\tld.param.u64 \taq, [{name}_param_0];",
        "\tcvta.to.global.u64 \taq, aq;", "\tmov.u32 \tlq, %tid.x;", "\tand.b32 \tlq, lq, 31;",
        f"\tmul.lo.u32 \tlq, lq, {span};", "\tcvt.u64.u32 \toq, lq;", "\tadd.s64 \taq, aq, oq;", *words,
        "\txor.b32 \tvq, vq, uq;", *(["\txor.b32 \tvq, vq, wq;"] if len(words) > 2 else []),
        "\tshr.u32 \tvq, vq, 31;"] + ["\tpopc.b32 \tvq, vq;"] * odd + [
        "\tmov.u32 \tuq, %ntid.x;", "\tmax.u32 \tuq, uq, vq;"]  # uq: ntid.x, once the loads are back
    spin = ["\tmov.u32 \twq, %tid.x;", "\tand.b32 \twq, wq, 128;", "\tsetp.ne.u32 \tpw, wq, 0;",
            "\tmov.u32 \tdq, %dynamic_smem_size;", f"\tsub.u32 \tdq, dq, {SMEM};", f"\tselp.u32 \tdq, dq, {BASE}, pw;"]
    head = ["\t{", "\t.reg .b32 \tdq, wq;", "\t.reg .pred \tpw, ps;", "\t.reg .b64 \tcq, tq, oq;"]
    body = head + ["\tbar.sync \t0;"] + spin if warm is None else \
        head + pre + spin + ["\tadd.u32 \tdq, dq, vq;", "\tbar.sync \t0, uq;"]  # the bar once the loads are back
    return (body + ["\tcvt.u64.u32 \toq, dq;"] + ["\tnanosleep.u32 \t0;"] * pad +
            ["\tmov.u64 \tcq, %clock64;", "\tadd.s64 \tcq, cq, oq;",
             "$DLY_SPIN:", "\tmov.u64 \ttq, %clock64;", "\tsetp.lt.u64 \tps, tq, cq;", "\t@ps bra.uni \t$DLY_SPIN;",
             "\t}", ""])


def patch(ptx: str, pad: int = 0, warm: bool = False, odd: bool = False) -> str:
    """Every kernel of a timing module with :func:`prologue` after its register declarations."""
    head, bodies = kernels(ptx)
    out = [head]
    for name, _clk, body in bodies:
        regs = re.search(r"\t\.reg \.b64 \t%rd<\d+>;\n", body)
        if not regs:
            raise ValueError(f"{name}: no .reg .b64 declaration")
        added = prologue(pad, (name, operand_span(body)) if warm else None, odd)
        out.append(body.replace(regs.group(0), regs.group(0) + "\n".join(added), 1))
    return "".join(out)


def _relative(code: list) -> list:
    """``[(text, ctrl)]`` with branch, call, BSSY and return-address targets relative to the instruction."""
    pat = r"(BRA|CALL\.REL\.NOINC|BSSY B\d,|MOV R\d+,) 0x([0-9a-f]+)"
    return [(re.sub(pat, lambda m: f"{m.group(1)} +{int(m.group(2), 16) - x:#x}", t), c) for x, t, c in code]


def _spin(code: list) -> int:
    """The index of the added spin's closing branch: the first predicated BRA of a delayed kernel."""
    return next(i for i, (_, t, _) in enumerate(code) if re.match(r"@!?P\d BRA", t))


def recorded_from(before: list, after: list, skip: int = 0) -> tuple[int, int] | None:
    """The indices of the first LDG in ``before`` (the recorded SASS) and in ``after`` (the delayed) from its
    instruction ``skip`` on, if from there on ``after`` is ``before`` (targets relative; trailing NOP / BRA
    padding aside), else None."""
    ia = next(i for i, (_, t, _) in enumerate(before) if t.startswith("LDG"))
    ib = next(i for i, (_, t, _) in enumerate(after) if t.startswith("LDG") and i >= skip)
    a, b = _relative(before[ia:]), _relative(after[ib:])
    n = min(len(a), len(b))
    pad = all(t.startswith(("NOP", "BRA")) for t, _ in a[n:] + b[n:])
    return (ia, ib) if a[:n] == b[:n] and pad else None


def build(folder: Path, warm: bool = False) -> dict:
    """The delayed and start-clock-moved cubins of the three s4 timing modules in ``folder`` (``warm``: with the
    operands' sectors loaded before the spin); what was checked."""
    folder.mkdir(parents=True, exist_ok=True)
    ptxas, version = ptxas_version()
    done = {"ptxas": version, "base": BASE, "smem": SMEM, "warm": warm, "kernels": {}}
    for form in FORMS:
        orig, delayed = folder / f"{form}.cubin", folder / f"{form}_delay.cubin"
        before = recorded_cubin(form, orig)
        fn = f"{form}_ilp1"
        for odd, pad in [(odd, pad) for odd in ((False, True) if warm else (False,)) for pad in range(LINE // 16)]:
            ptx = patch((HERE / "kernels" / f"timing_{form}.ptx").read_text(), pad, warm, odd)
            (folder / f"{form}_delay.ptx").write_text(ptx)
            subprocess.run([ptxas, "-arch=sm_90a", str(folder / f"{form}_delay.ptx"), "-o", str(delayed)], check=True)
            after = disassemble(delayed)
            spin = _spin(after[fn])
            at = recorded_from(before[fn], after[fn], spin + 1)
            if at and (after[fn][at[1]][0] - before[fn][at[0]][0]) % LINE == 0:
                break
        else:
            raise RuntimeError(f"{fn}: no padding keeps the recorded SASS at its place in its lines")
        elf = bytearray(delayed.read_bytes())
        moved = patch_kernel(elf, fn, after[fn][spin + 1:])
        delayed.write_bytes(bytes(elf))
        check(fn, after[fn], disassemble(delayed)[fn], moved)
        done["kernels"][fn] = {"pad": pad, "odd": odd, "shift": after[fn][at[1]][0] - before[fn][at[0]][0], **moved,
                               "same_sass_from_first_load": [f for f in before if recorded_from(before[f], after[f],
                                                                                                  _spin(after[f]) + 1)]}
    write_atomic(folder / "build.json", json.dumps(done, indent=1))
    return done


def device(out: Path, folder: Path) -> None:
    """The runs of the cubins :func:`build` left in ``folder``: ``OUT/loop_delay.json``, or with the warmed
    kernels ``OUT/loop_delay_warm.json`` (D every 2 cycles from 0 to ``BASE`` + 300, 2 launches each)."""
    import cupy as cp
    built = json.loads((folder / "build.json").read_text())
    warm = built.get("warm", False)
    delays, launches = (tuple(range(0, BASE + 301, 2)), 2) if warm else (DELAYS, LAUNCHES)
    run = _Launcher(cp)
    rows = []
    for form in FORMS:
        fn = cp.RawModule(path=str(folder / f"{form}_delay.cubin")).get_function(f"{form}_ilp1")
        for w in (1,) + WARPS:
            for d in (delays if w > 4 else (BASE,)):
                for rep in range(launches):
                    rows.append({"form": form, "ilp": 1, "warps": w, "delay": d, "repeat": rep,
                                 **run.timed(fn, form, w, shared_mem=SMEM + d)})
        print(form, "done", flush=True)
    doc = {"how": (__doc__.strip().splitlines()[0] + f" traces/capture/loop_delay.py --device, CuPy {cp.__version__}, "
                   f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, reps {REPS}; start = the loop start, "
                   f"warps 0-3 spin {BASE} cycles and warps 4-7 'delay' cycles after a bar.sync, before their loads"
                   + ("; each lane's operand sectors loaded (ld.global.ca) before the bar.sync" if warm else "")),
           "base": BASE, "build": built, "rows": rows}
    write_atomic(out / f"loop_delay{'_warm' if warm else ''}.json", json.dumps(compact(doc), separators=(",", ":")))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cubins", type=Path, required=True, metavar="DIR")
    ap.add_argument("--device", type=Path, metavar="OUT")
    ap.add_argument("--warm", action="store_true", help="build: load the operands' sectors before the spin")
    args = ap.parse_args(argv)
    if args.device:
        device(args.device, args.cubins)
    else:
        for fn, k in build(args.cubins, args.warm)["kernels"].items():
            same = ", ".join(k["same_sass_from_first_load"])
            print(f"{fn}: pad {k['pad']}, shift {k['shift']} bytes, CS2R {k['clock_from']:#06x} -> "
                  f"{k['clock_to']:#06x}; recorded SASS from the first load: {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
