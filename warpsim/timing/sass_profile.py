"""What ptxas makes of a kernel's emulated mma loop: per-kernel SASS of the loop trip, read off ptxas's output.

The H100 has no pipe for the s4/u4 and e4m3/e5m2 ``mma`` forms: ptxas expands each into a sequence (a CALL
to an unpack routine with two IMMA for s4; F2FP unpacking, SHFL fragment exchange, two HMMA and FADDs for
fp8), and how it schedules that sequence, how many glue moves it adds around the calls and how much it
spills depends on the whole kernel (its ILP, its register pressure), not on the instruction alone.
:mod:`warpsim.timing.sass_sim` runs that SASS on the SM's pipes.

``profile(ptx)`` compiles a PTX module with ptxas (sm_90a), disassembles it with cuobjdump, and returns
for every kernel that has a loop: counts of one trip (calls followed) and the trip itself (``code``: one
line per instruction with its control bits, yield bit included, see ``encode``), keyed by the SHA-256 of the kernel's ``.entry`` text.
``warpsim/timing/sass_sm90.json`` holds the profiles of the recorded timing kernels, made with

    python -m warpsim.timing.sass_profile traces/h100/timing/*.npz > warpsim/timing/sass_sm90.json

(ptxas 13.0.88, cuobjdump 13.5). This is the SASS the H100 ran: the driver's JIT cache of the recorded
modules (cupy.RawModule(path=ptx), as traces/capture/capture.py loads them; driver 580.159.04, made with
traces/capture/jit_sass.py) holds the same instructions and control bits for all 48 emulated kernels.
The timed engine uses a profile only for the emulated mma of a kernel whose entry text it matches exactly;
every other kernel uses the table's generic emulation stages.
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
#: per kernel with a tensor-op loop, the non-tensor instructions of the loop ptxas left without the yield
#: flag (``loop_yield``), made with ``python -m warpsim.timing.sass_profile --yield traces/h100/timing/*.npz``
YIELD = {"sm_90": os.path.join(HERE, "loop_yield_sm90.json")}

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
    """``{function: [(addr, text, control bits), ...]}`` from ptxas + cuobjdump."""
    with tempfile.TemporaryDirectory() as d:
        src, cub = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
        with open(src, "w") as fh:
            fh.write(ptx)
        subprocess.run([_tool("ptxas"), "-arch=sm_90a", src, "-o", cub], check=True, capture_output=True)
        text = subprocess.run([_tool("cuobjdump"), "-sass", cub], check=True, capture_output=True,
                              text=True).stdout
    return parse_sass(text)


def parse_sass(text: str) -> dict[str, list]:
    """``{function: [(addr, text, control bits), ...]}`` of cuobjdump -sass output (the control bits are the
    high word's bits 41..57: stall count, yield, write and read scoreboard, wait mask)."""
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
            out[cur].append((pend[0], pend[1], int(m.group(1), 16) >> 41))
            pend = None
    return out


def _mnemonic(text):
    w = text.split()
    return w[1] if w[0].startswith("@") else w[0]


def opcode(text: str) -> str:
    """The opcode of an instruction's SASS text, its predicate and modifiers dropped (``@!P0 LOP3.LUT ...``: LOP3)."""
    return _mnemonic(text).split(".")[0]


def encode(text: str, ctrl: int) -> str:
    """One instruction as ``op stall noyield wb rb wait [offset bytes]``: op is the opcode (tensor ops with
    their shape, e.g. ``HMMA.SP.16832``; a last-use fill ``LDL.LU``), then the control bits (stall count, the
    yield bit: 1 = the warp does not yield after it, write / read scoreboard, 7 = none, wait mask), and for a
    local-memory access ``[R1+offset]`` its byte offset and bytes per lane."""
    mn = _mnemonic(text)
    parts = mn.split(".")
    op = parts[0]
    if op in ("HMMA", "IMMA"):
        op = ".".join(parts[:3] if parts[1] == "SP" else parts[:2])
    elif op == "LDL" and "LU" in parts[1:]:
        op = "LDL.LU"  # last use: ptxas's fill of a spill slot whose value is not read again before a store
    f = [op, ctrl & 0xF, (ctrl >> 4) & 1, (ctrl >> 5) & 7, (ctrl >> 8) & 7, (ctrl >> 11) & 0x3F]
    if parts[0] in ("LDL", "STL"):
        m = re.search(r"\[R\d+(?:\+UR\d+)?(?:\+0x([0-9a-f]+))?\]", text)  # spills: [R1+off]
        width = next((int(x) for x in parts[1:] if x in ("64", "128")), 32) // 8
        f += [int(m.group(1) or "0", 16), width]
    return " ".join(str(x) for x in f)


#: opcodes whose first operand after any predicate destinations is a source, not a register destination
NO_DESTINATION = frozenset({"ISETP", "FSETP", "DSETP", "HSETP2", "PSETP", "STL", "STG", "STS", "ST", "RED", "BRA",
                            "CALL", "RET", "EXIT", "BAR", "WARPSYNC", "NOP", "BSYNC", "BSSY", "DEPBAR", "MEMBAR"})
_REGISTER = re.compile(r"(?<![\w])R(\d+)((?:\.\w+)*)")


def _operands(text: str) -> list[str]:
    """The operands of an instruction's SASS text (its predicate guard and mnemonic dropped)."""
    words = text.split(None, 2 if text.startswith("@") else 1)
    rest = words[-1] if len(words) > (2 if text.startswith("@") else 1) else ""
    return [o.strip() for o in re.split(r",(?![^\[]*\])", rest) if o.strip()]


def operand_slots(text: str) -> list[tuple[int, int, int, bool]]:
    """``(operand slot, first register, registers, reuse flag)`` of every general register operand an instruction
    reads: its operands after the destination (predicate destinations first, then a register one unless the
    opcode has none: :data:`NO_DESTINATION`), addresses included, a ``.64`` / ``.128`` operand (and a 64- /
    128-bit store's data, IMAD.WIDE's C) as its 2 / 4 registers and a tensor op's A, B and C as register pairs
    at least; one register an operand (RZ, uniform registers, constants and predicates read none)."""
    op, ops = opcode(text), _operands(text)
    i = 0
    while i < len(ops) and re.fullmatch(r"!?U?P(?:T|\d+)", ops[i]):
        i += 1
    if op not in NO_DESTINATION and i < len(ops):
        i += 1
    mods_op = _mnemonic(text).split(".")[1:]
    store_width = 4 if "128" in mods_op else 2 if "64" in mods_op else 1
    srcs = ops[i:]
    out = []
    for slot, o in enumerate(srcs):
        m = _REGISTER.search(o)
        if not m:
            continue
        mods = m.group(2)
        n = 4 if ".128" in mods else 2 if ".64" in mods else 1
        if op in ("HMMA", "IMMA") and slot < 3:
            n = max(n, 2)
        elif op in ("STL", "STG", "STS", "ST") and slot == len(srcs) - 1 and "[" not in o:
            n = store_width  # the data of a 64- or 128-bit store
        elif op == "IMAD" and "WIDE" in mods_op and slot == 2:
            n = 2  # IMAD.WIDE adds a 64-bit C
        out.append((slot, int(m.group(1)), n, ".reuse" in mods))
    return out


def encode_operands(text: str) -> str:
    """:func:`operand_slots` as ``slot:register:count:reuse`` words (what ``sass_sim``'s ``banks`` reads)."""
    return " ".join(f"{s}:{r}:{n}:{int(f)}" for s, r, n, f in operand_slots(text))


def decode_operands(word: str) -> list[tuple[int, int, int, int]]:
    """The ``(slot, register, count, reuse)`` of an :func:`encode_operands` string."""
    return [tuple(int(v) for v in x.split(":")) for x in word.split()]


def loop_body(sass: list) -> list | None:
    """The instructions of a kernel's loop (from the target of its last backward branch to that branch), or
    None without one."""
    at = {a: i for i, (a, _t, _c) in enumerate(sass)}
    loop = None
    for i, (a, t, _c) in enumerate(sass):
        m = re.search(r"\bBRA\s+(?:`\()?0x([0-9a-f]+)", t)
        if m and int(m.group(1), 16) < a:
            loop = (at[int(m.group(1), 16)], i)
    return None if loop is None else sass[loop[0]:loop[1] + 1]


def kernel_profile(sass: list) -> dict | None:
    """One kernel's loop trip: the loop block and the routine its CALLs go to, encoded, and counts of a trip
    (calls followed). None without a backward branch."""
    body = loop_body(sass)
    if body is None:
        return None
    targets = {int(re.search(r"0x([0-9a-f]+)", t).group(1), 16) for _a, t, _c in body if opcode(t) == "CALL"}
    if len(targets) > 1:
        raise ValueError(f"CALLs to {len(targets)} routines in one loop")
    routine = []
    at = {a: i for i, (a, _t, _c) in enumerate(sass)}
    for a, t, c in sass[at[targets.pop()]:] if targets else ():
        routine.append((a, t, c))
        if opcode(t) == "RET":
            break
    calls = sum(1 for _a, t, _c in body if opcode(t) == "CALL")
    ops = [opcode(t) for _a, t, _c in body] + [opcode(t) for _a, t, _c in routine] * calls
    return {"sass": len(ops), "calls": calls, "ldl": ops.count("LDL"), "stl": ops.count("STL"),
            "shfl": ops.count("SHFL"), "body": [encode(t, c) for _a, t, c in body],
            "routine": [encode(t, c) for _a, t, c in routine],
            "body_operands": [encode_operands(t) for _a, t, _c in body],
            "routine_operands": [encode_operands(t) for _a, t, _c in routine]}


def loop_yield(sass: list) -> list[str] | None:
    """The non-tensor instructions of a kernel's loop (its last backward branch) whose yield flag is not set
    (control bit 4 of ``parse_sass``: 1 = the warp does not yield after it), in order; None without a loop
    or without a tensor op (HMMA/IMMA) in it."""
    body = loop_body(sass)
    if body is None:
        return None
    if not any("MMA" in opcode(t) for _a, t, _c in body):
        return None
    return [opcode(t) for _a, t, c in body if "MMA" not in opcode(t) and (c >> 4) & 1]


@lru_cache(maxsize=None)
def yield_table(arch: str) -> dict:
    """``{entry key: non-yielding loop instructions}`` on file for ``arch`` (empty if none)."""
    got = _committed(YIELD, arch)
    return {k: v["nonyield"] for k, v in got["kernels"].items()} if got else {}


def _committed(paths: dict, arch: str) -> dict | None:
    """The JSON file ``paths`` holds for ``arch``, or None."""
    path = paths.get(arch)
    if not path or not os.path.exists(path):
        return None
    with open(path) as fh:
        return json.load(fh)


def nonyield_loop(program, arch: str) -> bool | None:
    """Whether ptxas's loop of ``program``'s kernel has a non-tensor instruction without the yield flag
    (None: this entry text is not on file)."""
    got = yield_table(arch).get(program_key(program))
    return None if got is None else bool(got)


def program_key(program) -> str | None:
    """The :func:`entry_key` of ``program``'s kernel text (None: no module source or kernel name)."""
    src = getattr(getattr(program, "module", None), "source", None)
    name = getattr(program.fn, "name", None)
    return _source_key(src, name) if src and name else None


@lru_cache(maxsize=256)
def _source_key(src: str, name: str) -> str | None:
    text = entries(src).get(name)
    return None if text is None else entry_key(text)


def trip(prof: dict) -> list[str]:
    """The encoded instructions of one loop trip of a profile, its routine followed at every CALL."""
    return _calls_followed(prof, "body", "routine")


def _calls_followed(prof: dict, body: str, routine: str) -> list:
    """``prof[body]`` (a list parallel to the loop block) with ``prof[routine]`` after every CALL's entry."""
    out = []
    for x, y in zip(prof["body"], prof[body]):
        out.append(y)
        if x.startswith("CALL"):
            out += prof[routine]
    return out


def trip_operands(prof: dict) -> list[str] | None:
    """The register operands (:func:`encode_operands`) of each instruction of :func:`trip`, or None if the profile
    has none."""
    return _calls_followed(prof, "body_operands", "routine_operands") if "body_operands" in prof else None


def trip_lines(prof: dict) -> list[int]:
    """The 128-byte code line (8 instructions) of each instruction of :func:`trip`: the loop block from a line
    boundary, its routine from the next one after it (the instruction fetch, ``sass_sim``'s ``fetch``)."""
    body = len(prof["body"])
    base = -(-body // 8) * 8
    out = []
    for j, x in enumerate(prof["body"]):
        out.append(j // 8)
        if x.startswith("CALL"):
            out += [(base + r) // 8 for r in range(len(prof["routine"]))]
    return out


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
    """The committed profiles of ``arch`` (empty if none), their code blocks resolved."""
    got = _committed(DATA, arch)
    if not got:
        return {}
    code = got["code"]
    for k in got["kernels"].values():
        for part in ("body", "routine", "body_operands", "routine_operands"):
            if part in k["loop"]:
                k["loop"][part] = code[k["loop"][part]].split(";") if code[k["loop"][part]] else []
    return got["kernels"]


def kernel_loop(kernel: str, arch: str) -> dict:
    """The loop profile of the kernel named ``kernel`` (e.g. ``sp_s4_k64_ilp1``) among ``arch``'s committed
    profiles."""
    got = next((k for k in table(arch).values() if k["kernel"] == kernel), None)
    if got is None:
        raise KeyError(f"{kernel}: no SASS on file for {arch} (warpsim/timing/sass_{arch.replace('_', '')}.json)")
    return got["loop"]


def lookup(program, arch: str) -> dict | None:
    """The loop profile of ``program``'s kernel if ptxas's SASS of exactly this entry text is on file."""
    got = table(arch).get(program_key(program))
    return got["loop"] if got else None


def main(argv=None) -> int:
    from warpsim.timing import measurement
    paths = measurement.arguments(argv, __doc__)
    if paths is None:
        return 0
    sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
    from warpsim.tracefile import read_trace
    if paths and paths[0] == "--yield":
        kernels = {}
        for p in paths[1:]:
            tr = read_trace(p)
            sass = _sass(tr.ptx)
            for name, text in entries(tr.ptx).items():
                got = loop_yield(sass.get(name, []))
                if got is not None:
                    kernels[entry_key(text)] = {"kernel": name, "trace": tr.name, "nonyield": sorted(set(got))}
        ver = subprocess.run([_tool("ptxas"), "--version"], capture_output=True, text=True).stdout.strip()
        json.dump({"made_by": "python -m warpsim.timing.sass_profile --yield " +
                   " ".join(os.path.basename(p) for p in paths[1:]),
                   "ptxas": ver.splitlines()[-1] if ver else "", "arch": "sm_90a", "kernels": kernels},
                  sys.stdout, indent=1, sort_keys=True)
        print()
        return 0
    kernels, code = {}, {}
    for p in paths:
        tr = read_trace(p)
        for k, v in profile(tr.ptx).items():
            for part in ("body", "routine", "body_operands", "routine_operands"):  # blocks shared by kernels
                text = ";".join(v["loop"][part])
                key = hashlib.sha256(text.encode()).hexdigest()[:16]
                code[key] = text
                v["loop"][part] = key
            kernels[k] = dict(v, trace=tr.name)
    ver = subprocess.run([_tool("ptxas"), "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    json.dump({"made_by": "python -m warpsim.timing.sass_profile " + " ".join(os.path.basename(p) for p in paths),
               "ptxas": ver[-1] if ver else "", "arch": "sm_90a", "encoding": encode.__doc__.split(":")[0],
               "kernels": kernels, "code": code}, sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
