#!/usr/bin/env python3
"""Does a warp that keeps its sub-partition's ALU pipe busy let another warp of the sub-partition in?
(traces/capture/sched_probe.cu; recorded on the H100 2026-11-23 into traces/h100/sched_probe.json,
replayed by ``python -m warpsim.timing.sched_probe``.)

    nvcc -cubin -gencode=arch=compute_90a,code=sm_90a -O3 -o traces/capture/build/sched_probe.cubin \
        traces/capture/sched_probe.cu
    python traces/capture/sched_probe.py --device OUT [--cubin CUBIN]   # on the GPU (default: that cubin)
    python traces/capture/sched_probe.py --json OUT       # here: traces/h100/sched_probe.json

One CTA of 5 warps: warp 0 (the hog) runs 64 x 64 independent LOP3, warp 4 (the probe, same sub-partition)
16 steps of 4 LOP3 with a %clock64 read after each, hog alone, probe alone and both, probe delays 0-2000 ns,
three repeats. Then the same cubin with the yield flags changed (``VARIANTS``: the no-yield bit, bit 45 of an
instruction's high word, set on every instruction of the hog's loop or of the probe's sequence, or cleared on
all of them together with the operand-reuse bits 58-61, which ptxas never sets on a yielding instruction and
the disassembler rejects there), two repeats of five runs each. ``--json`` adds the SASS of each cubin's two
sequences (``cuobjdump -sass``, encoded as warpsim.timing.sass_profile.encode: op, stall count, no-yield bit,
scoreboards): the hog's loop trip and the probe's 16 steps, which the replay runs. Recorded in two calls:
the plain cubin's runs, then the variants'.
"""
from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from probe import code_offset, with_control  # noqa: E402
from trips import write_atomic  # noqa: E402
#: byte offsets in the SASS ptxas 13.0 / cuobjdump 13.5 made of sched_probe.cu (sm_90a): the hog's loop trip
#: (128 LOP3, ISETP, BRA) and one probe step (8 LOP3 of which 4 predicated off, IMAD.MOV, CS2R)
HOG_TRIP = (0xD20, 0x1540)
PROBE = (0x1D0, 0xAF0)  # from the clock read before the first step to the one after the last
HOG_BODY = (0xD20, 0x1530)  # the trip without its branch
#: cubins made from the plain one: which range's yield flags change, and to what (True: no instruction yields)
VARIANTS = {"hog_noyield": (HOG_BODY, True), "hog_allyield": (HOG_BODY, False), "probe_noyield": (PROBE, True),
            "probe_allyield": (PROBE, False), "both_noyield": ((HOG_BODY, PROBE), True)}


def patch_yield(cubin: bytes, ranges, noyield: bool, fn: str = "probe") -> bytes:
    """The cubin with every instruction in ``ranges`` (byte offsets, inclusive) of kernel ``fn`` made
    non-yielding (no-yield bit set) or yielding (bit cleared, operand-reuse bits cleared with it)."""
    out = bytearray(cubin)
    base = code_offset(cubin, fn)
    for lo, hi in ((ranges,) if isinstance(ranges[0], int) else ranges):
        for a in range(lo, hi + 16, 16):
            hw = struct.unpack_from("<Q", out, base + a + 8)[0]
            hw = with_control(hw, yields=not noyield)
            struct.pack_into("<Q", out, base + a + 8, hw)
    return bytes(out)


def _launch(fn, buf, sink, hog_n, chain, delay, hog_warp=0, probe_warp=4):
    import cupy as cp
    import numpy as np
    buf.fill(0)
    fn((1,), (160,), (buf, sink, np.int32(hog_n), np.int32(delay), np.int32(chain)))
    cp.cuda.Device().synchronize()
    o = buf.get().reshape(16, 64)
    return {"hog_n": hog_n, "chain": chain, "delay_ns": delay, "hog": [int(o[hog_warp, 0]), int(o[hog_warp, 1])],
            "probe": [int(v) for v in o[probe_warp, 2:19]]}


def plain_runs(out: Path, cubin: Path, name: str):
    """The plain cubin's runs of kernel ``name`` (hog alone, probe alone and both, probe delays 0-2000 ns, three
    repeats) into OUT/sched_<name>_runs.json, and its SASS into OUT/sched_<name>.sass; ``(buf, sink, sass)``."""
    import cupy as cp
    buf = cp.zeros(16 * 64, cp.int64)
    sink = cp.zeros(1024, cp.uint32)
    out.mkdir(parents=True, exist_ok=True)
    fn = cp.RawModule(path=str(cubin)).get_function(name)
    runs = [dict(_launch(fn, buf, sink, hog_n, chain, delay), rep=rep) for rep in range(3)
            for hog_n in (0, 64) for chain in (0, 1, 2) for delay in ((0, 500, 1000, 2000) if chain else (0,))
            if hog_n or chain]
    stem = "sched_probe" if name == "probe" else f"sched_{name}"
    (out / f"{stem}_runs.json").write_text(json.dumps(runs))
    text = _disassemble(cubin)
    (out / f"{stem}.sass").write_text(text)
    return buf, sink, text


def variant_runs(out: Path, stem: str, name: str, cubins: dict, configs, buf, sink) -> None:
    """Each patched cubin of ``cubins`` (``{variant: bytes}``) of kernel ``name`` run two repeats of ``configs``
    (``(hog_n, chain, delay_ns)``): the runs into OUT/<stem>_variants.json, each cubin's SASS into
    OUT/<stem>_<variant>.sass."""
    import cupy as cp
    variants = {}
    for variant, code in cubins.items():
        path = out / f"{stem}_{variant}.cubin"
        path.write_bytes(code)
        fn = cp.RawModule(path=str(path)).get_function(name)
        variants[variant] = [dict(_launch(fn, buf, sink, *cfg), rep=rep) for rep in range(2) for cfg in configs]
        (out / f"{stem}_{variant}.sass").write_text(_disassemble(path))
    (out / f"{stem}_variants.json").write_text(json.dumps(variants))


def device(out: Path, cubin: Path) -> None:
    plain = cubin.read_bytes()
    buf, sink, _ = plain_runs(out, cubin, "probe")
    variant_runs(out, "sched_probe", "probe", {k: patch_yield(plain, ranges, noyield)
                                               for k, (ranges, noyield) in VARIANTS.items()},
                 ((64, 0, 0), (0, 1, 0), (64, 1, 0), (64, 1, 1000), (64, 2, 500)), buf, sink)


def _disassemble(cubin: Path) -> str:
    return subprocess.run(["cuobjdump", "-sass", str(cubin)], capture_output=True, text=True, check=True).stdout


def to_json(src: Path) -> dict:
    sys.path.insert(0, str(REPO))
    from warpsim.timing import sass_profile

    def sass(name):
        ins = sass_profile.parse_sass((src / name).read_text())["probe"]
        return {part: [sass_profile.encode(t, c) for a, t, c in ins if lo <= a <= hi]
                for part, (lo, hi) in (("hog_trip", HOG_TRIP), ("probe", PROBE))}
    variants = json.loads((src / "sched_probe_variants.json").read_text())
    return {"what": "warp 0 keeps the ALU busy (independent LOP3), warp 4 on the same sub-partition times 16 "
                    "steps of 4 LOP3 (traces/capture/sched_probe.py)",
            "device": "NVIDIA H100 80GB HBM3", "recorded": "2026-11-23",
            "built": "nvcc -cubin -gencode=arch=compute_90a,code=sm_90a -O3 (ptxas 13.0.88); cuobjdump 13.0.85",
            "hog_trips": 32, "sass": sass("sched_probe.sass"),
            "runs": json.loads((src / "sched_probe_runs.json").read_text()),
            "variants": {k: {"sass": sass(f"sched_probe_{k}.sass"), "runs": v} for k, v in variants.items()}}


def cli(argv, name: str, device_fn, json_fn, doc: str) -> int:
    """The command line of a scheduler probe ``name`` (sched_probe, sched_gap): ``--device OUT [--cubin CUBIN]``
    runs ``device_fn`` on the GPU (default cubin build/<name>.cubin), ``--json OUT`` writes
    traces/h100/<name>.json from ``json_fn`` atomically; anything else prints ``doc``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--device"]:
        cubin = Path(args[args.index("--cubin") + 1]) if "--cubin" in args else HERE / "build" / f"{name}.cubin"
        device_fn(Path(args[1]), cubin)
    elif args[:1] == ["--json"]:
        write_atomic(REPO / "traces" / "h100" / f"{name}.json", json.dumps(json_fn(Path(args[1])), indent=1) + "\n")
    else:
        print(doc)
        return 2
    return 0


def main(argv=None) -> int:
    return cli(argv, "sched_probe", device, to_json, __doc__)


if __name__ == "__main__":
    sys.exit(main())
