#!/usr/bin/env python3
"""Does a warp's age (its slot: the CTA's warp 0 before warp 4 on one sub-partition) change who takes the turn?
``loop_delay.json`` found the s4 pairs asymmetric: they lock in phase only with the older warp ahead. Every
scheduler probe so far had the hog on warp 0 (older) and the probe on warp 4. This runs them again with the two
warps swapped (the probe on warp 0, the hog on warp 4), beside the unswapped build, in one call:

* ``gap_stall.py``'s kernel (an FFMA hog and a LOP3 chain) in every copy of ``gap_stall.py`` and ``gap_bank.py``
  (stall counts, yields, register-bank forms), built twice: as recorded (``built``) and swapped (``swapped``);
* ``sched_probe.cu`` (two ALU warps) and ``sched_gap.cu`` (an FFMA hog, an ALU probe) built with
  ``-DHOG_WARP=4 -DPROBE_WARP=0`` beside their plain builds, the plain runs of ``sched_probe.py``, and
  ``sched_gap.py``'s copies with the hog yielding every 4th, 8th or 16th FFMA.

The model (``warpsim.timing.sass_sim``) tells the two warps apart only by their turn, so it gives a swapped run
the time of the unswapped one: any difference here is the H100's.

    python traces/capture/age_swap.py --build          # here (nvcc, cuobjdump): the cubins in build/age_swap/
    python traces/capture/age_swap.py --device OUT     # on the GPU (carry build/age_swap): OUT/age_swap_raw.json
    python traces/capture/age_swap.py --json OUT       # here: traces/h100/age_swap.json from OUT

Read by ``python -m warpsim.timing.age_swap``.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))
import gap_bank  # noqa: E402
import gap_stall  # noqa: E402
from ifetch import TRIPS, Launcher  # noqa: E402
from probe import BUILD, kernels_sass, nvcc_cubin, save_raw, summarise_raw  # noqa: E402

FOLDER = BUILD / "age_swap"
REPEATS = 2
#: the warps of each build: (probe's warp, hog's warp)
BUILDS = {"built": (4, 0), "swapped": (0, 4)}
#: sched_probe.py's plain runs: (hog trips of 64, chain 1 dependent / 2 independent, probe delay ns)
SCHED_RUNS = tuple((64, c, d) for c in (1, 2) for d in (0, 500, 1000, 2000)) + ((0, 1, 0), (64, 0, 0))
SCHED_GAP_YIELDS = {"yield4": 4, "yield8": 8, "yield16": 16}
NVCC = ["nvcc", "-cubin", "-gencode=arch=compute_90a,code=sm_90a", "-O3"]


def _cubin(kind: str, build: str) -> Path:
    return FOLDER / f"{kind}_{build}.cubin"


def build() -> int:
    """The cubins: gap_stall's kernel built and swapped, sched_probe.cu and sched_gap.cu plain and swapped, and
    sched_gap's copies yielding every n-th FFMA (found in each build's SASS); checks that a swapped build's loops
    are the unswapped one's, instruction for instruction."""
    import sched_gap
    from sched_probe import patch_yield
    from warpsim.timing import sass_profile
    FOLDER.mkdir(parents=True, exist_ok=True)
    for b, (probe_warp, hog_warp) in BUILDS.items():
        nvcc_cubin(gap_stall.source(probe_warp, hog_warp), _cubin("gap_stall", b))
        swap = ["-DHOG_WARP=4", "-DPROBE_WARP=0"] if b == "swapped" else []
        for kind in ("sched_probe", "sched_gap"):
            subprocess.run(NVCC + swap + ["-o", str(_cubin(kind, b)), str(HERE / f"{kind}.cu")], check=True)
        seq = sched_gap.sequences(kernels_sass(_cubin("sched_gap", b))["gap"])
        addrs = [a for a, t, _ in seq["hog_trip"] if sass_profile.opcode(t) == sched_gap.hog_op(seq["hog_trip"])]
        plain = _cubin("sched_gap", b).read_bytes()
        for k, n in SCHED_GAP_YIELDS.items():
            _cubin(f"sched_gap_{k}", b).write_bytes(patch_yield(plain, tuple((a, a) for a in addrs[n - 1::n]), False,
                                                                "gap"))
    for kind in loops():
        print(f"{kind}: the swapped build's loops are the built one's")
    return 0


def loops() -> dict:
    """``{kind: its loops}`` of each cubin kind (encoded as ``warpsim.timing.sass_profile`` does), the same in
    both builds (raises otherwise): gap_stall's probe and hog loops, sched_probe's and sched_gap's (and its yield
    copies') hog trip and probe steps."""
    import sched_gap
    from warpsim.timing import sass_profile

    def gap_loops(b):
        return {k: [sass_profile.encode(t, c) for _a, t, c in v]
                for k, v in gap_stall._loops(kernels_sass(_cubin("gap_stall", b))[gap_stall.KERNEL]).items()}

    def sched_loops(kind, fn, b):
        return {k: [sass_profile.encode(t, c) for _a, t, c in v]
                for k, v in sched_gap.sequences(kernels_sass(_cubin(kind, b))[fn]).items()}
    got = {}
    kinds = [("gap_stall", gap_loops), ("sched_probe", lambda b: sched_loops("sched_probe", "probe", b))]
    kinds += [(k, lambda b, k=k: sched_loops(k, "gap", b)) for k in ["sched_gap"] + [f"sched_gap_{y}" for y in
                                                                                      SCHED_GAP_YIELDS]]
    for kind, read in kinds:
        both = [read(b) for b in BUILDS]
        if both[0] != both[1]:
            raise ValueError(f"{kind}: the swapped build's loops differ from the built one's")
        got[kind] = both[0]
    return got


def _gap_rows(b: str, out: Path) -> list:
    """gap_stall's and gap_bank's copies of build ``b``, each launched :data:`REPEATS` times with the hog."""
    rows = []
    plain = _cubin("gap_stall", b).read_bytes()
    for exp, module in (("gap_stall", gap_stall), ("gap_bank", gap_bank)):
        for name, v in module.variants().items():
            path = out / f"{exp}_{name}_{b}.cubin"  # a path of its own: CuPy keeps a module by its path
            path.write_bytes(module.patch(plain, *v))
            go = Launcher(path, 2)
            rows += [{"build": b, "experiment": exp, "variant": name, "repeat": rep,
                      **gap_stall.launch(go, TRIPS, gap_stall.HOG_TRIPS)} for rep in range(REPEATS)]
            path.unlink()
    return rows


def _sched_rows(b: str) -> list:
    """sched_probe's and sched_gap's runs of build ``b`` (:data:`SCHED_RUNS`, three repeats each), and sched_gap's
    yield copies' (the runs with the hog, two repeats)."""
    import cupy as cp
    from sched_probe import _launch
    probe_warp, hog_warp = BUILDS[b]
    buf, sink = cp.zeros(16 * 64, cp.int64), cp.zeros(1024, cp.uint32)
    rows = []
    copies = [("sched_probe", "sched_probe", "probe", 3, SCHED_RUNS), ("sched_gap", "sched_gap", "gap", 3, SCHED_RUNS)]
    copies += [(f"sched_gap_{k}", "sched_gap", "gap", 2, [r for r in SCHED_RUNS if r[0]]) for k in SCHED_GAP_YIELDS]
    for kind, exp, fn_name, reps, runs in copies:
        fn = cp.RawModule(path=str(_cubin(kind, b))).get_function(fn_name)
        rows += [{"build": b, "experiment": exp, "variant": kind, "repeat": rep,
                  **_launch(fn, buf, sink, *r, hog_warp=hog_warp, probe_warp=probe_warp)}
                 for rep in range(reps) for r in runs]
    return rows


def device(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for rep in range(2):  # the builds in turn, two rounds: a drift between them would show
        for b in BUILDS:
            rows += [dict(r, round=rep) for r in _gap_rows(b, out) + _sched_rows(b)]
    save_raw(out, "age_swap", rows)
    return 0


def summarise(out: Path) -> int:
    how = ("the scheduler probes with the two warps swapped (probe on warp 0, hog on warp 4: build 'swapped') "
           "beside the recorded placement (probe on warp 4, hog on warp 0: 'built'), the two builds in turn, two "
           "rounds (round). experiment gap_stall / gap_bank: gap_stall.py's kernel in every copy of gap_stall.py "
           f"and gap_bank.py (their variant names), {REPEATS} repeats, the hog beside (rows as gap_stall.json's). "
           "experiment sched_probe / sched_gap: sched_probe.cu and sched_gap.cu (built with -DHOG_WARP=4 "
           "-DPROBE_WARP=0 when swapped), rows as sched_probe.json's runs (hog_n, chain, delay_ns; hog and probe "
           "clocks), variant sched_gap_yieldN: the hog's every N-th FFMA yielding. The loops are the same in both "
           "builds (checked instruction by instruction). source: the swapped gap_stall kernel (the built one is "
           "gap_stall.json's; sched_probe.cu and sched_gap.cu are in traces/capture)")
    return summarise_raw(out, "age_swap", how, gap_stall.source(0, 4),
                         {"steps": gap_stall.N, "probe_trips": TRIPS, "hog_trips": gap_stall.HOG_TRIPS,
                          "builds": {b: {"probe_warp": p, "hog_warp": h} for b, (p, h) in BUILDS.items()},
                          "variants": {**{k: list(v) for k, v in gap_stall.variants().items()},
                                       **{k: list(v) for k, v in gap_bank.variants().items()}},
                          "loops": loops()})


def main(argv=None) -> int:
    from probe import cli
    return cli(argv, __doc__, lambda: gap_stall.source(0, 4), build, device, summarise)


if __name__ == "__main__":
    sys.exit(main())
