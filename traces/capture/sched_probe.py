#!/usr/bin/env python3
"""Does a warp that keeps its sub-partition's ALU pipe busy let another warp of the sub-partition in?
(traces/capture/sched_probe.cu; recorded on the H100 2026-11-23 into traces/h100/sched_probe.json,
replayed by ``python -m warpsim.timing.sched_probe``.)

    nvcc -cubin -gencode=arch=compute_90a,code=sm_90a -O3 -o sched_probe.cubin traces/capture/sched_probe.cu
    python traces/capture/sched_probe.py --device OUT [--cubin sched_probe.cubin]   # on the GPU
    python traces/capture/sched_probe.py --json OUT       # here: traces/h100/sched_probe.json

One CTA of 5 warps: warp 0 (the hog) runs 64 x 64 independent LOP3, warp 4 (the probe, same sub-partition)
16 steps of 4 LOP3 with a %clock64 read after each, hog alone, probe alone and both, probe delays 0-2000 ns,
three repeats. ``--json`` adds the SASS of the two sequences (``cuobjdump -sass`` of the same cubin, encoded
as warpsim.timing.sass_profile.encode: op, stall count, no-yield bit, scoreboards): the hog's loop trip and
one probe step, which the replay runs.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
#: byte offsets in the SASS ptxas 13.0 / cuobjdump 13.5 made of sched_probe.cu (sm_90a): the hog's loop trip
#: (128 LOP3, ISETP, BRA) and one probe step (8 LOP3 of which 4 predicated off, IMAD.MOV, CS2R)
HOG_TRIP = (0xD20, 0x1540)
PROBE_STEP = (0x280, 0x300)


def device(out: Path, cubin: Path) -> None:
    import cupy as cp
    import numpy as np
    fn = cp.RawModule(path=str(cubin)).get_function("probe")
    buf = cp.zeros(16 * 64, cp.int64)
    sink = cp.zeros(1024, cp.uint32)
    runs = []
    for rep in range(3):
        for hog_n in (0, 64):
            for chain in (0, 1, 2):
                for delay in ((0, 500, 1000, 2000) if chain else (0,)):
                    if hog_n == 0 and chain == 0:
                        continue
                    buf.fill(0)
                    fn((1,), (160,), (buf, sink, np.int32(hog_n), np.int32(delay), np.int32(chain)))
                    cp.cuda.Device().synchronize()
                    o = buf.get().reshape(16, 64)
                    runs.append({"rep": rep, "hog_n": hog_n, "chain": chain, "delay_ns": delay,
                                 "hog": [int(o[0, 0]), int(o[0, 1])], "probe": [int(v) for v in o[4, 2:19]]})
    out.mkdir(parents=True, exist_ok=True)
    (out / "sched_probe_runs.json").write_text(json.dumps(runs))
    sass = subprocess.run(["cuobjdump", "-sass", str(cubin)], capture_output=True, text=True, check=True).stdout
    (out / "sched_probe.sass").write_text(sass)


def to_json(src: Path) -> dict:
    sys.path.insert(0, str(REPO))
    from warpsim.timing import sass_profile
    ins = sass_profile.parse_sass((src / "sched_probe.sass").read_text())["probe"]

    def seg(lo, hi):
        return [sass_profile.encode(t, c) for a, t, c in ins if lo <= a <= hi]
    runs = json.loads((src / "sched_probe_runs.json").read_text())
    return {"what": "warp 0 keeps the ALU busy (independent LOP3), warp 4 on the same sub-partition times 16 "
                    "steps of 4 LOP3 (traces/capture/sched_probe.py)",
            "device": "NVIDIA H100 80GB HBM3", "recorded": "2026-11-23",
            "built": "nvcc -cubin -gencode=arch=compute_90a,code=sm_90a -O3 (ptxas 13.0.88)",
            "sass": {"hog_trip": seg(*HOG_TRIP), "hog_trips": 32, "probe_step": seg(*PROBE_STEP)},
            "runs": runs}


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--device"]:
        cubin = Path(args[args.index("--cubin") + 1]) if "--cubin" in args else HERE / "build" / "sched_probe.cubin"
        device(Path(args[1]), cubin)
    elif args[:1] == ["--json"]:
        doc = to_json(Path(args[1]))
        dst = REPO / "traces" / "h100" / "sched_probe.json"
        tmp = dst.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(doc, indent=1) + "\n")
        os.replace(tmp, dst)
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
