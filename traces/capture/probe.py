"""What the CUDA C microbenchmark scripts (``l1_rate.py``, ``l1_fill.py``, ``ifetch.py``) share: building their
cubin, reading its SASS and loops, their raw and summary files, and the ``--build`` / ``--device OUT`` /
``--json OUT`` / ``--source`` command line."""
from __future__ import annotations

import argparse
import json
import struct
import subprocess
import sys
import time
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


def builder(source, cubin: Path):
    """The ``--build`` step of a probe: ``source()`` compiled to ``cubin`` (:func:`nvcc_cubin`)."""
    def build() -> int:
        nvcc_cubin(source(), cubin)
        return 0
    return build


def code_section(cubin: bytes, fn: str) -> tuple[int, int]:
    """File offset and size of kernel ``fn``'s code section (``.text.<fn>``) in an ELF64 cubin."""
    shoff = struct.unpack_from("<Q", cubin, 0x28)[0]
    size, num, names = struct.unpack_from("<HHH", cubin, 0x3A)
    secs = [struct.unpack_from("<IIQQQQ", cubin, shoff + i * size) for i in range(num)]
    strtab = secs[names][4]
    for name, _typ, _flags, _addr, off, length in secs:
        end = cubin.index(b"\0", strtab + name)
        if cubin[strtab + name:end].decode() == ".text." + fn:
            return off, length
    raise ValueError(f"no .text.{fn} in the cubin")


def code_offset(cubin: bytes, fn: str) -> int:
    """File offset of kernel ``fn``'s code section (``.text.<fn>``) in an ELF64 cubin."""
    return code_section(cubin, fn)[0]


#: an sm_90 instruction's operand-reuse bits (122-125) in its high word
REUSE_BITS = 0xF << 58


def with_control(hi: int, stall: int | None = None, yields: bool | None = None) -> int:
    """An sm_90 instruction's high word (bits 64-127) with its stall count (bits 105-108) set to ``stall``
    and its yield flag set as ``yields`` says (None: left as is). Yielding clears the no-yield bit (109) and the
    operand-reuse bits (:data:`REUSE_BITS`) with it: nvdisasm rejects a yielding instruction that keeps them."""
    if stall is not None:
        hi = hi & ~(0xF << 41) | (stall << 41)
    if yields is not None:
        hi = hi & ~(1 << 45) & ~REUSE_BITS if yields else hi | (1 << 45)
    return hi


def with_sources(lo: int, hi: int, b: int, c: int) -> tuple[int, int]:
    """An sm_90 three-register instruction's words (``op Rd, Ra, Rb, Rc``: FFMA, LOP3.LUT) reading ``Rb`` (bits
    32-39) and ``Rc`` (bits 64-71) instead, its operand-reuse bits cleared."""
    return lo & ~(0xFF << 32) | (b << 32), hi & ~0xFF & ~REUSE_BITS | c


def kernels_sass(cubin: Path) -> dict:
    """``{kernel: [(address, text, control bits)]}`` of the cubin's SASS (cuobjdump,
    ``warpsim.timing.sass_profile.parse_sass``)."""
    sys.path.insert(0, str(REPO))
    from warpsim.timing import sass_profile
    text = subprocess.run([sass_profile._tool("cuobjdump"), "-sass", str(cubin)], check=True, capture_output=True,
                          text=True).stdout
    return sass_profile.parse_sass(text)


def kernel_sass(cubin: bytes, fn: str) -> list:
    """Kernel ``fn``'s SASS (as :func:`kernels_sass` gives it) in the cubin whose bytes are ``cubin``."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "copy.cubin"
        path.write_bytes(cubin)
        return kernels_sass(path)[fn]


def lut_lops(sass: list, lut: str) -> list[int]:
    """The indices in a kernel's ``sass`` (:func:`kernels_sass`) of its ``LOP3.LUT Rd, Ra, Rb, Rc, <lut>`` that
    read, as Rb and Rc, the two registers most of them read: the kernel's own asm LOP3 on its y and z, not those
    ptxas makes of its other code with that LUT."""
    import re
    ops = {i: m.groups() for i, (_a, t, _c) in enumerate(sass)
           if (m := re.match(rf"LOP3\.LUT R\d+, R\d+, (R\d+)(?:\.reuse)?, (R\d+)(?:\.reuse)?, {lut}, ", t))}
    yz = max(set(ops.values()), key=list(ops.values()).count)
    return sorted(i for i, v in ops.items() if v == yz)


def kernel_loops(cubin: Path, keep=lambda name: True) -> dict:
    """Per kernel of ``cubin`` that ``keep`` takes, its loop as ``warpsim.timing.sass_profile`` encodes it
    (opcode and control bits, one line an instruction; the last backward branch's block, ptxas's unrolled
    trip) and its opcode counts: what the ``warpsim.timing`` module of the probe replays."""
    from collections import Counter
    from warpsim.timing import sass_profile
    out = {}
    for name, sass in kernels_sass(cubin).items():
        if keep(name):
            body = sass_profile.kernel_profile(sass)["body"]
            out[name] = {"body": body, "ops": dict(Counter(x.split()[0] for x in body).most_common())}
    return out


def open_module(cubin: Path):
    """On the GPU: CuPy, ``cubin`` loaded, a clock buffer (start and end of up to 64 warps, u64) and a sink for
    the kernels' results (64 x 32 u32)."""
    import cupy as cp
    return cp, cp.RawModule(path=str(cubin)), cp.zeros(2 * 64, cp.uint64), cp.zeros(64 * 32, cp.uint32)


def timed_launch(cp, fn, threads: int, args: tuple, buf, active) -> dict:
    """On the GPU: ``fn`` launched as one CTA of ``threads`` threads with ``args`` (its clock buffer ``buf``
    zeroed first); ``{"start": [...], "end": [...]}``, the clocks of the warps ``active``."""
    buf[:] = 0
    fn((1,), (threads,), args)
    cp.cuda.Device().synchronize()
    t = buf.get().reshape(-1, 2)
    return {"start": [int(t[k, 0]) for k in active], "end": [int(t[k, 1]) for k in active]}


def save_raw(out: Path, name: str, rows: list) -> None:
    """``OUT/<name>_raw.json`` on the GPU machine: the launches' ``rows`` with the device and CuPy version."""
    import cupy as cp
    dev = cp.cuda.runtime.getDeviceProperties(0)
    doc = {"device": dev["name"].decode(), "cupy": cp.__version__,
           "created": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "rows": rows}
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}_raw.json").write_text(json.dumps(doc))
    print(f"{len(rows)} launches written to {out / f'{name}_raw.json'}")


def summarise_raw(out: Path, name: str, how: str, source: str, loops: dict) -> int:
    """``traces/h100/<name>.json`` (written atomically) from ``OUT/<name>_raw.json``: ``how`` it was measured
    (after the script, device, CuPy and date), the CUDA ``source``, the kernels' ``loops`` and the rows."""
    from trips import write_atomic
    raw = json.loads((out / f"{name}_raw.json").read_text())
    doc = {"how": f"traces/capture/{name}.py --device, {raw['device']}, CuPy {raw['cupy']}, {raw['created']}: {how}",
           "source": source, "loops": loops, "rows": raw["rows"]}
    dest = REPO / "traces" / "h100" / f"{name}.json"
    write_atomic(dest, json.dumps(doc, indent=0) + "\n")
    print(f"wrote {dest}")
    return 0


def cli(argv, doc: str, source, build, device, summarise, part=None) -> int:
    """The scripts' command line: ``--build`` (here), ``--device OUT`` (on the GPU), ``--json OUT`` (here,
    from OUT), ``--source``; ``part``: ``(choices, help)`` of a ``--part`` option passed to ``device``. A script
    with no CUDA source of its own (``source`` and ``build`` None) has only ``--device`` and ``--json``."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    if build:
        g.add_argument("--build", action="store_true")
    g.add_argument("--device", type=Path)
    g.add_argument("--json", type=Path)
    if source:
        g.add_argument("--source", action="store_true", help="print the CUDA source")
    if part:
        ap.add_argument("--part", choices=part[0], default=part[0][0], help=part[1])
    a = ap.parse_args(argv)
    if source and a.source:
        print(source())
        return 0
    if build and a.build:
        return build()
    if a.device:
        return device(a.device, a.part) if part else device(a.device)
    return summarise(a.json)
