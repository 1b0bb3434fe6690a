"""What ptxas makes of a kernel's emulated mma loop: per-kernel profiles read off its SASS.

The H100 has no pipe for the s4/u4 and e4m3/e5m2 ``mma`` forms: ptxas expands each into a sequence (a CALL
to an unpack routine with two IMMA for s4; F2FP unpacking, SHFL fragment exchange, two HMMA and FADDs for
fp8), and how it schedules that sequence, how many glue moves it adds around the calls and how much it
spills depends on the whole kernel (its ILP, its register pressure), not on the instruction alone. For
one warp the hardware runs that SASS at its stall counts: the cycles of a loop trip of every recorded
emulated kernel are the sum of the stall counts of the loop body and of the routines it calls, plus a
fixed cost per CALL/RET pair and per local-memory load (``traces/h100/timing/{sp_s4_*,dense_s4_*,
sp_e*m*}``: within 2% for the 24 s4 kernels, 8% for the 16 fp8 ones).

``profile(ptx)`` compiles a PTX module with ptxas (sm_90a), disassembles it with cuobjdump, and returns
for every kernel that has a loop: the stall cycles of one trip (calls followed), the number of CALLs,
LDL, STL and SHFL, the SASS instruction counts per pipe, keyed by the SHA-256 of the kernel's ``.entry``
text. ``warpsim/timing/sass_sm90.json`` holds the profiles of the recorded timing kernels, made with

    python -m warpsim.timing.sass_profile traces/h100/timing/*.npz > warpsim/timing/sass_sm90.json

(ptxas 13.0.88, cuobjdump 13.5). The timed engine uses a profile only for the emulated mma of a kernel
whose entry text it matches exactly; every other kernel uses the table's generic emulation stages.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from functools import lru_cache

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = {"sm_90": os.path.join(HERE, "sass_sm90.json")}

INT_PIPE = ("LOP3", "SHF", "IADD3", "IMAD", "SEL", "PRMT", "ISETP", "LEA", "MOV", "IABS", "POPC", "FLO", "BMSK",
            "SGXT", "F2FP", "I2F", "F2I", "VIADD", "IMNMX", "PLOP3", "P2R", "R2P")
FP_PIPE = ("FADD", "FFMA", "FMUL", "FSEL", "FSETP", "FMNMX", "HADD2", "HFMA2", "HMUL2")
MIO = ("LDL", "STL", "SHFL", "LDS", "STS", "LDG", "STG", "S2R", "LDC", "ATOM", "RED")


def entries(ptx: str) -> dict[str, str]:
    """``{kernel name: its .entry text}`` (from ``.entry name(`` to the closing brace)."""
    out = {}
    for m in re.finditer(r"\.entry\s+([\w$]+)\s*\(", ptx):
        end = ptx.find("\n}", m.start())
        out[m.group(1)] = ptx[m.start():end + 2 if end >= 0 else len(ptx)]
    return out


def entry_key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _tool(name):
    p = shutil.which(name)
    if p:
        return p
    try:
        import nvidia  # the pip nvidia-cuda-cuobjdump package keeps it under nvidia/cu13/bin
        for base in nvidia.__path__:
            for sub in ("cu13", "cu12", "cuda_cuobjdump"):
                c = os.path.join(base, sub, "bin", name)
                if os.path.exists(c):
                    return c
    except ImportError:
        pass
    raise FileNotFoundError(f"{name} not found (PATH, or pip nvidia-cuda-cuobjdump)")


def _sass(ptx: str) -> dict[str, list]:
    """``{kernel: [(addr, text, stall), ...]}`` from ptxas + cuobjdump."""
    with tempfile.TemporaryDirectory() as d:
        src, cub = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
        with open(src, "w") as fh:
            fh.write(ptx)
        subprocess.run([_tool("ptxas"), "-arch=sm_90a", src, "-o", cub], check=True, capture_output=True)
        text = subprocess.run([_tool("cuobjdump"), "-sass", cub], check=True, capture_output=True,
                              text=True).stdout
    out, cur, pend = {}, None, None
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = m.group(1)
            out[cur] = []
            continue
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);\s*/\* (0x[0-9a-f]+) \*/", line)
        if m and cur:
            pend = (int(m.group(1), 16), m.group(2).strip())
            continue
        m = re.match(r"\s+/\* (0x[0-9a-f]+) \*/", line)
        if m and pend is not None:
            hi = int(m.group(1), 16)
            out[cur].append((pend[0], pend[1], (hi >> 41) & 0xF))  # the stall count of the control bits
            pend = None
    return out


def _op(text):
    w = text.split()
    op = w[1] if w[0].startswith("@") else w[0]
    return op.split(".")[0]


def kernel_profile(sass: list) -> dict | None:
    """One kernel's loop trip: stall cycles (calls followed), counts. None without a backward branch."""
    at = {a: i for i, (a, _t, _s) in enumerate(sass)}
    loop = None
    for i, (a, t, _s) in enumerate(sass):
        m = re.search(r"\bBRA\s+(?:`\()?0x([0-9a-f]+)", t)
        if m and int(m.group(1), 16) < a:
            loop = (at[int(m.group(1), 16)], i)
    if loop is None:
        return None
    ops = []
    stall = 0
    calls = 0
    for i in range(loop[0], loop[1] + 1):
        a, t, s = sass[i]
        stall += s
        ops.append(_op(t))
        if _op(t) == "CALL":
            calls += 1
            j = at.get(int(re.search(r"0x([0-9a-f]+)", t).group(1), 16))
            while j is not None and j < len(sass):
                stall += sass[j][2]
                ops.append(_op(sass[j][1]))
                if _op(sass[j][1]) == "RET":
                    break
                j += 1
    count = {k: ops.count(k) for k in ("LDL", "STL", "SHFL", "HMMA", "IMMA")}
    return {"stall_cycles": stall, "branch_stall": sass[loop[1]][2], "calls": calls, "sass": len(ops),
            "ldl": count["LDL"], "stl": count["STL"], "shfl": count["SHFL"],
            "tensor": count["HMMA"] + count["IMMA"],
            "int_pipe": sum(1 for o in ops if o in INT_PIPE), "fp_pipe": sum(1 for o in ops if o in FP_PIPE),
            "mio": sum(1 for o in ops if o in MIO)}


def profile(ptx: str) -> dict:
    """``{entry key: {"kernel": name, "loop": kernel_profile}}`` for every kernel of ``ptx`` with a loop."""
    sass = _sass(ptx)
    out = {}
    for name, text in entries(ptx).items():
        got = kernel_profile(sass.get(name, []))
        if got is not None:
            out[entry_key(text)] = {"kernel": name, "loop": got}
    return out


@lru_cache(maxsize=None)
def table(arch: str) -> dict:
    """The committed profiles of ``arch`` (empty if none)."""
    path = DATA.get(arch)
    if not path or not os.path.exists(path):
        return {}
    with open(path) as fh:
        return json.load(fh)["kernels"]


def lookup(program, arch: str) -> dict | None:
    """The loop profile of ``program``'s kernel if ptxas's SASS of exactly this entry text is on file."""
    kernels = table(arch)
    if not kernels:
        return None
    src = getattr(getattr(program, "module", None), "source", None)
    name = getattr(program.fn, "name", None)
    if not src or not name:
        return None
    text = entries(src).get(name)
    if text is None:
        return None
    got = kernels.get(entry_key(text))
    return got["loop"] if got else None


def main(argv=None) -> int:
    paths = (argv if argv is not None else sys.argv[1:])
    sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
    from warpsim.tracefile import read_trace
    kernels = {}
    for p in paths:
        tr = read_trace(p)
        for k, v in profile(tr.ptx).items():
            kernels[k] = dict(v, trace=tr.name)
    ver = subprocess.run([_tool("ptxas"), "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    json.dump({"made_by": "python -m warpsim.timing.sass_profile " + " ".join(os.path.basename(p) for p in paths),
               "ptxas": ver[-1] if ver else "", "arch": "sm_90a", "kernels": kernels}, sys.stdout, indent=1,
              sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
