"""Per-instruction timing facts, derived once per (program, table) from the AST operands.

``InsTiming`` says which registers an instruction reads and writes (vector items, address bases and the
guard included), what kind of control it is, and the stages it runs as: one stage for an ordinary
instruction, several for an emulated mma (a sequence of hardware ops, see ``params.TABLE["emulated"]``).
"""
from __future__ import annotations

from dataclasses import dataclass

from isa.ptx.ast import Addr, Reg, Vec

NO_DEST = {"bra", "call", "bar", "barrier", "membar", "fence", "nanosleep", "exit", "ret", "trap", "prefetch",
           "st", "red", "tcgen05", "cp", "griddepcontrol"}


@dataclass
class Stage:
    op: str
    unit: str          # unit name, "tensor" for a tensor pipe
    count: int
    ii: float          # cycles between this stage's ops on its unit
    latency: float     # last op issue -> result
    after: str         # "ab" | "prev" | "prev+c" | "none" | "all"
    hoisted: bool = False
    group: str = ""    # tensor group


@dataclass
class InsTiming:
    pc: int
    text: str
    opcode: str
    timing: str
    reads: tuple
    writes: tuple
    stages: list
    branch: bool
    barrier: bool
    tensor: bool
    reads_ab: tuple = ()
    reads_c: tuple = ()
    emulated: str = ""


def _regs(op, out):
    t = type(op)
    if t is Reg:
        if op.name != "_":
            out.append(op.name)
    elif t is Vec:
        for x in op.items:
            _regs(x, out)
    elif t is Addr:
        if type(op.base) is Reg:
            out.append(op.base.name)
    return out


def _text(ins) -> str:
    loc = ins.loc
    if loc is not None and loc.text and loc.text.count(";") <= 1:
        return loc.text.strip().rstrip(";")
    return ".".join((ins.opcode,) + tuple(ins.mods))


def emulated_key(form, params) -> str:
    """The ``emulated`` table key of a form the hardware has no pipe for (or "")."""
    if params.arch != "sm_90" or form.kind:
        return ""
    k = form.shape.k
    if form.atype in ("s4", "u4"):
        key = f"sp:s4k{k}" if form.sparse else f"dense:s4k{k}"
    elif form.atype in ("e4m3", "e5m2"):
        key = f"sp:f8k{k}" if form.sparse else f"dense:f8k{k}"
    else:
        return ""
    return key if key in params.emulated else ""


def analyse(program, params) -> list[InsTiming]:
    """``InsTiming`` for every pc of ``program`` under ``params`` (cached on the program)."""
    cache = program.__dict__.setdefault("_timing_cache", {})
    got = cache.get(id(params))
    if got is not None and got[0] is params:
        return got[1]
    out = []
    for pc, (body, ins, guard, _neg) in enumerate(program.ops):
        spec = program.spec(pc)
        ops = ins.operands
        dest = bool(ops) and ins.opcode not in NO_DEST and type(ops[0]) in (Reg, Vec)
        writes = tuple(_regs(ops[0], [])) if dest else ()
        reads = []
        for op in (ops[1:] if dest else ops):
            _regs(op, reads)
        if guard is not None:
            reads.append(guard)
        cls = spec.timing
        c = params.classes.get(cls) or params.classes["alu"]
        unit = params.units.get(c["unit"], {"ii": 1.0})
        it = InsTiming(pc, _text(ins), ins.opcode, cls, tuple(dict.fromkeys(reads)), writes, [],
                       branch=cls == "branch", barrier=cls == "barrier", tensor=cls == "tensor")
        if cls == "tensor" and ins.opcode == "mma":
            _tensor_stages(it, ins, params)
        else:
            it.stages = [Stage(ins.opcode, c["unit"], 1, unit["ii"], c["latency"], "all")]
        out.append(it)
    cache[id(params)] = (params, out)
    return out


def _tensor_stages(it, ins, params):
    from isa.semantics.mma_sp import decode
    form, variant, _sel = decode(ins)
    ops = ins.operands
    it.reads_ab = tuple(_regs(ops[1], []) + _regs(ops[2], []) + (_regs(ops[4], []) if form.sparse else []))
    it.reads_c = tuple(_regs(ops[3], []))
    key = emulated_key(form, params)
    if key:
        it.emulated = key
        for s in params.emulated[key]:
            if s["unit"] == "tensor":
                g = params.tensor[s["group"]]
                it.stages.append(Stage(s["op"], "tensor", s["count"], g["ii"], g["latency"], s["after"],
                                       s.get("hoisted", False), s["group"]))
            else:
                ii = s.get("ii", params.units[s["unit"]]["ii"])
                it.stages.append(Stage(s["op"], s["unit"], s["count"], ii, s["latency"], s["after"],
                                       s.get("hoisted", False)))
        return
    group = params.tensor_group(form.key, form.sparse)
    g = params.tensor[group]
    it.stages = [Stage(ins.opcode, "tensor", 1, g["ii"], g["latency"], "all", False, group)]
