#!/usr/bin/env python3
"""Does a warp that issues to another pipe while the turn's warp waits out a stall count take the turn?
(traces/capture/sched_gap.cu; recorded on the H100 into traces/h100/sched_gap.json, replayed by
``python -m warpsim.timing.sched_probe --gap``.)

    nvcc -cubin -gencode=arch=compute_90a,code=sm_90a -O3 -o traces/capture/build/sched_gap.cubin \
        traces/capture/sched_gap.cu
    python traces/capture/sched_gap.py --device OUT [--cubin CUBIN]   # on the GPU (default: that cubin)
    python traces/capture/sched_gap.py --json OUT       # here: traces/h100/sched_gap.json
    (built with -DHOG_IMAD, the hog issues IMAD, the FMA-heavy pipe alone, as the s4 routines' fillers; --imad
    then names the files: build/sched_gap_imad.cubin, traces/h100/sched_gap_imad.json)

One CTA of 5 warps, as sched_probe.py, with the hog's LOP3 replaced by independent FFMA (the FMA pipes, where
the probe's LOP3 go to the ALU): hog alone, probe alone and both, probe delays 0-2000 ns, three repeats. ptxas
sets the no-yield bit on every FFMA of the hog's loop; the same cubin with the yield flag on every 4th, 8th or
16th of them (``VARIANTS``, sched_probe.patch_yield) ran two repeats of seven runs each.
``--json`` adds the SASS of the hog's loop trip and the probe's 16 steps (``cuobjdump -sass``, encoded as
warpsim.timing.sass_profile.encode), found in the disassembly: the trip from the target of the hog's backward
branch to the branch, the probe from the clock read after its sleep to the 17th.
"""
from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from sched_probe import cli, patch_yield, plain_runs, variant_runs  # noqa: E402
sys.path.insert(0, str(REPO))
from warpsim.timing import sass_profile  # noqa: E402


#: cubins made from the plain one (whose hog never yields: ptxas sets the no-yield bit on all its FFMA): the
#: yield flag set on every n-th FFMA of the hog's trip
VARIANTS = {"yield4": 4, "yield8": 8, "yield16": 16}


def device(out: Path, cubin: Path) -> None:
    buf, sink, text = plain_runs(out, cubin, "gap")
    hog = sequences(sass_profile.parse_sass(text)["gap"])["hog_trip"]
    op = hog_op(hog)
    addrs = [a for a, t, _ in hog if sass_profile.opcode(t) == op]
    plain = cubin.read_bytes()
    variant_runs(out, "sched_gap", "gap", {k: patch_yield(plain, tuple((a, a) for a in addrs[n - 1::n]), False, "gap")
                                           for k, n in VARIANTS.items()},
                 ((64, 0, 0), (0, 1, 0), (0, 2, 0), (64, 1, 0), (64, 1, 1000), (64, 2, 0), (64, 2, 500)), buf, sink)


def sequences(ins: list) -> dict:
    """The hog's loop trip and the probe's steps of the parsed SASS ``ins`` (``[(addr, text, ctrl)]``)."""
    addr = [a for a, _, _ in ins]
    back = [(i, b) for i, (a, t, _) in enumerate(ins)
            if "BRA" in t.split()[:2] and (b := _target(t)) is not None and b < a]
    if not back:
        raise ValueError("no backward branch (the hog's loop) in the SASS")
    i, target = back[0]
    hog = ins[addr.index(target):i + 1]
    sleep = next(k for k, (_, t, _) in enumerate(ins) if t.startswith("NANOSLEEP"))
    clocks = [k for k, (_, t, _) in enumerate(ins) if k > sleep and t.startswith("CS2R") and "SR_CLOCK" in t]
    probe = ins[clocks[0]:clocks[16] + 1]
    return {"hog_trip": hog, "probe": probe}


def hog_op(hog: list) -> str:
    """The hog's instruction (FFMA, or IMAD built with -DHOG_IMAD): the most common opcode of its loop trip."""
    return Counter(sass_profile.opcode(t) for _, t, _ in hog).most_common(1)[0][0]


def _target(text: str):
    """The byte address a branch's text names (``BRA 0x2a0`` or ``BRA `(.L_x_3)``: None for a label)."""
    m = re.search(r"BRA (?:\S+ )?0x([0-9a-f]+)", text)
    return int(m.group(1), 16) if m else None


def to_json(src: Path) -> dict:
    def seqs(name):
        return sequences(sass_profile.parse_sass((src / name).read_text())["gap"])

    def encoded(seq):
        return {k: [sass_profile.encode(t, c) for _, t, c in v] for k, v in seq.items()}
    seq = seqs("sched_gap.sass")
    variants = json.loads((src / "sched_gap_variants.json").read_text())
    op = hog_op(seq["hog_trip"])
    return {"what": f"warp 0 issues independent {op} (the FMA pipes), warp 4 on the same sub-partition times 16 "
                    "steps of 4 LOP3 (the ALU) (traces/capture/sched_gap.py)",
            "device": "NVIDIA H100 80GB HBM3", "recorded": "2026-11-27",
            "built": "nvcc -cubin -gencode=arch=compute_90a,code=sm_90a -O3 (ptxas 13.0.88)",
            "hog_op": op, "per_hog_trip": sum(1 for _, t, _ in seq["hog_trip"] if sass_profile.opcode(t) == op),
            "sass": encoded(seq),
            "sass_text": {k: [t for _, t, _ in v] for k, v in seq.items()},
            "runs": json.loads((src / "sched_gap_runs.json").read_text()),
            "variants": {k: {"every": VARIANTS[k], "sass": encoded(seqs(f"sched_gap_{k}.sass")), "runs": v}
                         for k, v in variants.items()}}


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    imad = "--imad" in args  # the cubin built with -DHOG_IMAD: traces/h100/sched_gap_imad.json
    return cli([a for a in args if a != "--imad"], "sched_gap_imad" if imad else "sched_gap", device, to_json,
               __doc__)


if __name__ == "__main__":
    sys.exit(main())
