"""What the CUDA C microbenchmark scripts (``l1_rate.py``, ``ifetch.py``) share: building their cubin,
reading its SASS, and the ``--build`` / ``--device OUT`` / ``--json OUT`` / ``--source`` command line."""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
BUILD = HERE / "build"


def nvcc_cubin(source: str, cubin: Path) -> None:
    """``source`` written beside ``cubin`` (``.cu``) and compiled for sm_90a (nvcc -O3)."""
    BUILD.mkdir(exist_ok=True)
    cu = cubin.with_suffix(".cu")
    cu.write_text(source)
    subprocess.run(["nvcc", "-cubin", "-gencode=arch=compute_90a,code=sm_90a", "-O3", "-o", str(cubin), str(cu)],
                   check=True)
    print(f"wrote {cubin}")


def kernels_sass(cubin: Path) -> dict:
    """``{kernel: [(address, text, control bits)]}`` of the cubin's SASS (cuobjdump,
    ``warpsim.timing.sass_profile.parse_sass``)."""
    sys.path.insert(0, str(REPO))
    from warpsim.timing import sass_profile
    text = subprocess.run([sass_profile._tool("cuobjdump"), "-sass", str(cubin)], check=True, capture_output=True,
                          text=True).stdout
    return sass_profile.parse_sass(text)


def cli(argv, doc: str, source, build, device, summarise, part=None) -> int:
    """The scripts' command line: ``--build`` (here), ``--device OUT`` (on the GPU), ``--json OUT`` (here,
    from OUT), ``--source``; ``part``: ``(choices, help)`` of a ``--part`` option passed to ``device``."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--build", action="store_true")
    g.add_argument("--device", type=Path)
    g.add_argument("--json", type=Path)
    g.add_argument("--source", action="store_true", help="print the CUDA source")
    if part:
        ap.add_argument("--part", choices=part[0], default=part[0][0], help=part[1])
    a = ap.parse_args(argv)
    if a.source:
        print(source())
        return 0
    if a.build:
        return build()
    if a.device:
        return device(a.device, a.part) if part else device(a.device)
    return summarise(a.json)
