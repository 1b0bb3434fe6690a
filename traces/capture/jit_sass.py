#!/usr/bin/env python3
"""Is the SASS on file (ptxas 13.0.88, warpsim/timing/sass_sm90.json) the SASS the H100 ran?

    python traces/capture/jit_sass.py --device OUT          # on the GPU (CuPy): OUT/jit_attrs.json, OUT/jitcache.tgz
    python traces/capture/jit_sass.py --compare OUT         # here (ptxas + cuobjdump): traces/h100/sass/jit_cache_check.json

The timing kernels are loaded as capture.py loads them, ``cupy.RawModule(path=<recorded PTX>)``: the driver
JIT-compiles the PTX and keeps the cubin in its cache (CUDA_CACHE_PATH). ``--device`` loads the six emulated
timing modules into an empty cache and saves it with each kernel's registers and local bytes; ``--compare``
disassembles the cached cubins and compares every kernel's instructions and control bits with ptxas's
output for the same PTX. (A cubin made with cuLinkCreate instead is relocatable code: the emulation routine
stays a separate function behind CALL.ABS, and it spills less; that is not what cuModuleLoad runs.)
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
FORMS = ("sp_s4_k64", "sp_s4_k128", "dense_s4_k64", "dense_e4m3_k32_f32", "sp_e4m3_k64_f32", "sp_e5m2_k64_f32")


def device(out: Path):
    cache = Path(tempfile.mkdtemp())
    os.environ.update(CUDA_CACHE_PATH=str(cache), CUDA_CACHE_MAXSIZE=str(2 ** 31), CUDA_CACHE_DISABLE="0")
    import cupy as cp
    sys.path.insert(0, str(HERE))
    import trips
    tf = trips._tracefile()
    attrs = {}
    for form in FORMS:
        src = tf.read_trace(REPO / "traces" / "h100" / "timing" / f"{form}.npz")
        p = cache.parent / f"{form}.ptx"
        p.write_text(src.ptx)
        mod = cp.RawModule(path=str(p))
        for k in src.meta["kernels"]:
            a = mod.get_function(k["name"]).attributes
            attrs[k["name"]] = {"regs": a["num_regs"], "local": a["local_size_bytes"]}
    (out / "jit_attrs.json").write_text(json.dumps(attrs, indent=1))
    with tarfile.open(out / "jitcache.tgz", "w:gz") as t:
        t.add(cache, arcname="jitcache")


def _fingerprints(funcs: dict) -> dict:
    """sha256 of each kernel's (instruction, control bits) list; E5M2 written as E4M3 (one F2FP mode)."""
    return {k: hashlib.sha256(json.dumps([(t.replace("E5M2", "E4M3"), c) for _a, t, c in v]).encode()).hexdigest()
            for k, v in funcs.items() if not k.startswith("__")}


def compare(out: Path):
    sys.path.insert(0, str(REPO))
    from warpsim.timing import sass_profile
    from warpsim.tracefile import read_trace
    with tempfile.TemporaryDirectory() as d:
        with tarfile.open(out / "jitcache.tgz") as t:
            t.extractall(d)
        jit = {}
        for f in glob.glob(os.path.join(d, "jitcache", "*", "*", "*")):
            b = open(f, "rb").read()
            if b.find(b"\x7fELF") < 0:
                continue
            cub = os.path.join(d, "x.cubin")
            open(cub, "wb").write(b[b.find(b"\x7fELF"):])
            text = subprocess.run([sass_profile._tool("cuobjdump"), "-sass", cub], capture_output=True, text=True,
                                  check=True).stdout
            jit.update(_fingerprints(sass_profile.parse_sass(text)))
    attrs = json.loads((out / "jit_attrs.json").read_text())
    res = {}
    for form in FORMS:
        ptxas = _fingerprints(sass_profile._sass(read_trace(REPO / "traces" / "h100" / "timing" / f"{form}.npz").ptx))
        for k, fp in ptxas.items():
            res[k] = dict(attrs.get(k, {}), same_sass=jit.get(k) == fp)
    ver = subprocess.run([sass_profile._tool("ptxas"), "--version"], capture_output=True, text=True).stdout
    doc = {"how": __doc__.split("\n\n")[2].replace("\n", " "), "ptxas": ver.strip().splitlines()[-1],
           "driver": "580.159.04 (H100 80GB HBM3)", "kernels": res}
    path = REPO / "traces" / "h100" / "sass" / "jit_cache_check.json"
    path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(path, sum(v["same_sass"] for v in res.values()), "of", len(res), "kernels the same")


def main(argv=None):
    sys.path.insert(0, str(HERE))
    from fp8_trips import device_json_cli
    return device_json_cli(device, compare, argv, json_flag="compare")


if __name__ == "__main__":
    sys.exit(main())
