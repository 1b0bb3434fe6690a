"""Per-instruction timing facts, derived once per (program, table) from the AST operands.

``InsTiming`` says which registers an instruction reads and writes (vector items, address bases and the
guard included; also as integer slots of the engine's per-warp ready-time array), what kind of control
it is, and the stages it runs as: one stage for an ordinary instruction, several for an emulated mma (a
sequence of hardware ops, see ``params.TABLE["emulated"]``). :func:`analyse` also attaches the issue
order (:mod:`warpsim.timing.sched`) as ``program._timing_cache[...][2]``.
"""
from __future__ import annotations

from dataclasses import dataclass

from isa.ptx.ast import Addr, Imm, Reg, Vec
from warpsim.timing import sched

NO_DEST = {"bra", "call", "bar", "barrier", "membar", "fence", "nanosleep", "exit", "ret", "trap", "prefetch",
           "st", "red", "tcgen05", "cp", "griddepcontrol"}

#: unit names with a fixed index (the engine keeps per-sub-partition / per-SM free times in lists)
UNITS = ("int", "fp", "sfu", "branch", "tensor", "mio")


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
    warp_busy: float = 0.0  # cycles before the warp issues again (0: count x ii, or 1 for a single op)
    uidx: int = 0      # index of ``unit`` in the engine's unit lists
    sm: bool = False   # the unit is shared by the SM (else one per sub-partition)
    sass: object = None  # sass_sim.SassStage: 1/n of ptxas's loop trip (then no unit is occupied)


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
    # engine fast path (filled by analyse)
    rs: tuple = ()          # read slots
    ws: tuple = ()          # write slots
    rs_ab: tuple = ()
    rs_c: tuple = ()
    single: bool = True     # one stage that waits for all operands
    uidx: int = 0
    sm_unit: bool = False
    ii: float = 1.0
    lat: float = 1.0
    local: bool = True      # touches and reads nothing outside its warp's sub-partition: may issue ahead of the
                            # event order
    gload: tuple | None = None   # (address register, offset) of a global load (the L1 model)
    exit: bool = False
    pred_ws: tuple = ()     # predicate registers it writes (slots)
    guard_slot: int = -1    # a branch's guard predicate (slot)
    fast: bool = False      # one stage on one pipe, no emulation, barrier, exit or L1 model
    store: bool = False     # a store: reads its source registers after it issues (``issue.store_read``)
    store_wait: bool = False  # a branch that ends a block with a store: waits for the store's register read
    gstore: bool = False    # a global store: its register read waits for other warps' tensor ops (store_read_other)
    gsaddr: tuple | None = None  # a global store's (base register, offset, space, bytes a lane): the store port
    sass: dict | None = None  # the kernel's SASS loop profile, when an emulated mma follows it
    taken_cost: bool = True  # a taken branch costs ``issue.branch_taken``; not that closing a SASS-timed loop,
                             # whose trip sass_sim times with its own branch
    bar_id: object = None    # a barrier instruction's barrier: its number, or the register or name that gives it
    defer: bool = False     # may issue while its warp waits at a barrier (``issue.barrier_defer``)
    slot: float = 1.0       # issue cycles it takes of its sub-partition and warp (0: not in the SASS, :func:`_fused`)


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
    return _analysed(program, params)[0]


def issue_order(program, params) -> sched.Order:
    """The ptxas issue order of ``program`` (cached with :func:`analyse`)."""
    return _analysed(program, params)[1]


def slot_count(program, params) -> int:
    return _analysed(program, params)[2]


def _analysed(program, params):
    cache = program.__dict__.setdefault("_timing_cache", {})
    got = cache.get(id(params))
    if got is not None and got[0] is params:
        return got[1]
    slots: dict[str, int] = {}

    def slot(names):
        return tuple(slots.setdefault(n, len(slots)) for n in names)

    scope = {u: v.get("scope", "sp") for u, v in params.units.items()}
    unit_index = {u: i for i, u in enumerate(UNITS)}
    for u in params.units:
        unit_index.setdefault(u, len(unit_index))
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
        if cls == "alu" and ins.opcode == "mov" and any(r.startswith("%") and r not in program.regs
                                                         and r not in sched.CLOCK_REGS for r in reads):
            cls = "special"  # S2R: a special-register read
        c = params.classes.get(cls) or params.classes["alu"]
        unit = params.units.get(c["unit"], {"ii": 1.0})
        it = InsTiming(pc, _text(ins), ins.opcode, cls, tuple(dict.fromkeys(reads)), writes, [],
                       branch=cls == "branch", barrier=cls == "barrier", tensor=cls == "tensor")
        if it.barrier:
            it.bar_id = _bar_id(ins)
        if cls == "tensor" and ins.opcode == "mma":
            _tensor_stages(it, ins, params)
        else:
            it.stages = [Stage(ins.opcode, c["unit"], 1, c.get("ii", unit["ii"]), c["latency"], "all")]
        for st in it.stages:
            st.uidx = unit_index.setdefault(st.unit, len(unit_index))
            st.sm = scope.get(st.unit, "sp") == "sm"
        it.rs, it.ws = slot(it.reads), slot(it.writes)
        it.rs_ab, it.rs_c = slot(it.reads_ab), slot(it.reads_c)
        st0 = it.stages[0]
        it.single = len(it.stages) == 1 and st0.after == "all" and st0.count == 1
        it.uidx, it.sm_unit, it.ii, it.lat = st0.uidx, st0.sm, st0.ii, st0.latency
        it.exit = cls == "exit"
        it.pred_ws = tuple(slots[r] for r in it.writes if program.regs.get(r) == "pred")
        if it.branch and guard is not None:
            it.guard_slot = slots[guard]
        # a load from global or shared memory is not local: another warp's store may come first, and a global
        # load goes through the SM's L1 (TimedEngine._l1_load)
        it.local = not (any(s.sm for s in it.stages) or it.barrier or it.exit
                        or cls in ("async", "tmem", "mem_global", "mem_shared")
                        or ins.opcode in sched.VOLATILE_OPS and ins.opcode not in ("bra",))
        it.fast = it.single and not it.emulated and not it.barrier and not it.exit
        if ins.opcode == "ld" and cls == "mem_global":
            a = ops[1] if len(ops) > 1 else None
            if isinstance(a, Addr) and type(a.base) is Reg:
                it.gload = _global_access(ins, a)
                it.fast = False
        out.append(it)
    _uniform_clock_reads(params, out)
    _renames(program, out)
    leaders = set(program.labels.values())  # the first instructions of the blocks a branch goes to
    _fused(program, out, leaders)
    _pipe_crossings(params, out, leaders)
    order = sched.compute(program, out)
    _store_waits(program, out, order)
    _store_port(program, params, out, unit_index)
    _ptxas_sequences(program, params, out, order, unit_index)
    _deferred(params, out)
    res = (out, order, len(slots))
    cache[id(params)] = (params, res)
    return res


def _bar_id(ins):
    """The barrier a ``bar`` / ``barrier`` instruction names (its number, or its register's name); the
    instruction's text for one without operands (``barrier.cluster``)."""
    if not ins.operands:
        return _text(ins)
    a = ins.operands[0]
    return a.value if isinstance(a, Imm) else getattr(a, "name", _text(ins))


def _global_access(ins, a) -> tuple:
    """``(base register, offset, space, bytes a lane)`` of an ``ld`` / ``st`` at address ``a`` (its decoded
    state space, vector count and type; the engine's L1 and store port take its sectors from it)."""
    d = ins.__dict__.get("_warpsim_decoded")
    space, vec, t = d if isinstance(d, tuple) else ("generic", 1, "b32")
    nbytes = vec * max(1, int("".join(ch for ch in t if ch.isdigit()) or 32) // 8)
    return a.base.name, int(a.offset), space, nbytes


def _store_waits(program, out, order):
    """Stores (global ones marked), and the branch that ends a block holding one: ptxas releases a store's
    source registers by a read barrier that the block's branch waits on (P/trips_*: ``@!P1 BRA`` waits on SB1,
    set by the loop's ``STG``). Neither takes the engine's fast path (which does not track the read)."""
    blocks = set()
    for pc, (_body, ins, _guard, _neg) in enumerate(program.ops):
        if ins.opcode == "st":
            out[pc].store, out[pc].fast = True, False
            out[pc].gstore = out[pc].timing == "mem_global"
            blocks.add(order.block_of[pc])
    for it in out:
        if it.branch and order.block_of[it.pc] in blocks:
            it.store_wait, it.fast = True, False


def _store_port(program, params, out, unit_index):
    """With ``memory["store_queue"]``: a global store issues to a unit of its own ("gstore", as the MIO's ii),
    which the SM's store port can also hold shut (``TimedEngine._store_port``), and knows its address."""
    mem = getattr(params, "memory", None) or {}
    if not mem.get("store_queue"):
        return
    uidx = unit_index.setdefault("gstore", len(unit_index))
    for pc, (_body, ins, _guard, _neg) in enumerate(program.ops):
        it = out[pc]
        a = ins.operands[0] if ins.operands else None
        if not it.gstore or len(it.stages) != 1 or not (isinstance(a, Addr) and type(a.base) is Reg):
            continue
        st = it.stages[0]
        st.unit, st.uidx, st.sm = "gstore", uidx, False
        st.ii = it.ii = float(mem.get("store_ii", st.ii))
        it.uidx, it.sm_unit = uidx, False
        it.gsaddr = _global_access(ins, a)


def _ptxas_sequences(program, params, out, order, unit_index):
    """Emulated mma of a kernel whose SASS is on file (warpsim.timing.sass_profile): each runs as 1/n of the
    loop trip of ptxas's SASS (n emulated mma in the loop block), as :mod:`warpsim.timing.sass_sim` times it
    for the warps of the loop on the SM; the loop's own PTX instructions (counter, compare, branch) are
    timed by the engine, so their issue cycles come off the trip."""
    emu = [it for it in out if it.emulated]
    cfg = params.emulated.get("sass")
    if not emu or not cfg:
        return
    from warpsim.timing import sass_profile, sass_sim
    prof = sass_profile.lookup(program, params.arch)
    if prof is None:
        return
    per_block: dict = {}
    for it in emu:
        per_block.setdefault(order.block_of[it.pc], []).append(it)
    loop = max(per_block.values(), key=len)  # the profiled loop: the block with the emulated mma
    pcs = order.entry[order.block_of[loop[0].pc]]
    own = _own_issue_cycles(pcs, out)
    for pc in pcs:
        if pc < len(out) and out[pc].branch:
            out[pc].taken_cost = False
    stage = sass_sim.SassStage(sass_sim.profile_loop(prof, cfg, params.tensor), len(loop), own)
    u = "sass"  # a unit of its own: the SASS sequence's pipes are inside sass_sim
    uidx = unit_index.setdefault(u, len(unit_index))
    for it in loop:
        it.stages = [Stage(f"ptxas sequence ({prof['sass'] / len(loop):.0f} SASS per mma)", u, 1, 0.0, 0.0, "all",
                           uidx=uidx, sass=stage)]
        it.single, it.fast = False, False
        it.uidx, it.sm_unit, it.ii, it.lat = uidx, False, 0.0, 0.0
        it.sass = prof


def _deferred(params, out) -> None:
    """The instructions a warp may issue while it waits at a barrier: those of the classes in
    ``issue.barrier_defer`` (ptxas's BAR.SYNC.DEFER_BLOCKING holds the warp only at its next instruction of
    another class), a single stage each (an emulated mma's SASS has branches and calls)."""
    classes = set(params.issue.get("barrier_defer", ()))
    for it in out:
        it.defer = it.timing in classes and not it.emulated and it.sass is None and len(it.stages) == 1


_ADD32 = ("u32", "s32", "b32")
_ADD64 = ("u64", "s64", "b64")


def _is(ins, opcodes, *mods) -> bool:
    """``ins`` is one of ``opcodes`` with exactly the modifiers given (each a tuple of the spellings allowed)."""
    return ins.opcode in opcodes and len(ins.mods) == len(mods) and all(m in ok for m, ok in zip(ins.mods, mods))


def _shift_by_imm(ins) -> bool:
    return type(ins.operands[2]) is Imm


#: Two dependent PTX instructions ptxas makes one SASS instruction of, the first's result read by the second
#: alone (the idioms of nvcc's address arithmetic; the SASS of traces/capture/kernels/prog_spgemm_clock.ptx's
#: K step: ``shr.u32 x, 31; add`` LEA.HI, ``shr.s32 x, 1; add`` LEA.HI.SX32, ``mul.wide; add.s64`` IMAD.WIDE;
#: each measured by traces/h200/op_latency.json's chain_* kernels): ``(SASS, is first, is second, timed as)``,
#: the fused instruction timed as the ``"first"``'s class (a multiply) or the ``"second"``'s
FUSED = (
    ("IADD3", lambda i: _is(i, ("add", "sub"), _ADD32), lambda i: _is(i, ("add", "sub"), _ADD32), "second"),
    ("IADD3 + IADD3.X", lambda i: _is(i, ("add", "sub"), _ADD64), lambda i: _is(i, ("add", "sub"), _ADD64),
     "second"),
    ("LEA", lambda i: _is(i, ("shl",), ("b32",)) and _shift_by_imm(i), lambda i: _is(i, ("add",), _ADD32),
     "second"),
    ("LEA.HI", lambda i: _is(i, ("shr",), ("u32", "s32", "b32")) and _shift_by_imm(i),
     lambda i: _is(i, ("add",), _ADD32), "second"),
    ("IMAD", lambda i: _is(i, ("mul",), ("lo",), ("u32", "s32")), lambda i: _is(i, ("add",), _ADD32), "first"),
    ("IMAD.WIDE", lambda i: _is(i, ("mul",), ("wide",), ("u32", "s32")), lambda i: _is(i, ("add",), _ADD64),
     "first"),
    ("LOP3", lambda i: _is(i, ("and", "or", "xor"), ("b32",)), lambda i: _is(i, ("and", "or", "xor"), ("b32",)),
     "second"),
)


def _fused(program, out, leaders) -> None:
    """Two dependent instructions ptxas makes one (:data:`FUSED`), the first's result read by the second alone
    (or written again before it is read): the first is not in the SASS, so it takes no issue cycle and no pipe
    cycle and passes its result to the second at once; the second is timed as the SASS instruction (op_latency:
    dependent add.u32 pairs 2.0 cycles an add, shr.u32 + add.u32 1.94, mul.wide.u32 + add.s64 8.25 a pair, as
    one IMAD.WIDE). Pairs only: a SASS instruction takes three operands."""
    ins_of = program.instructions
    writers: dict = {}
    readers: dict = {}
    for it in out:
        for r in it.writes:
            writers[r] = writers.get(r, 0) + 1
        for r in it.reads:
            readers.setdefault(r, []).append(it.pc)
    fused = -1
    for it in out[:-1]:
        ins = ins_of[it.pc]
        if it.pc == fused or len(it.writes) != 1 or ins.guard is not None:
            continue
        r = it.writes[0]
        nxt = _next_in_sass(out, it.pc)
        if nxt is None or r not in nxt.reads or ins_of[nxt.pc].guard is not None:
            continue
        if not (writers.get(r) == 1 and readers.get(r) == [nxt.pc]
                or _dead_after(out, nxt.pc, r, leaders, readers.get(r, ()))):
            continue
        pair = next((p for p in FUSED if p[1](ins) and p[2](ins_of[nxt.pc])), None)
        if pair is None:
            continue
        if pair[3] == "first":
            _timed_as(nxt, it)
        _not_in_sass(it)
        fused = nxt.pc


#: the pipe of each class whose results cross between the ALU and the FMA pipes (IMAD: the FMA pipe)
PIPES = {"alu": "alu", "mul": "fma", "mul_wide": "fma"}


def _pipe_crossings(params, out, leaders) -> None:
    """A result read first by an instruction on the other of the ALU and FMA pipes (LOP3 -> IMAD.WIDE, IADD3 ->
    IMAD.X, IMAD -> LOP3) comes ``issue.pipe_crossing`` cycles later (op_latency: LOP3 -> IMAD.IADD 5.03 cycles an
    instruction, LOP3 -> LOP3 4.07; ptxas's stall counts 5 across, 4 along)."""
    extra = float(params.issue.get("pipe_crossing", 0.0))
    if not extra:
        return
    for it in out:
        pipe = PIPES.get(it.timing)
        if pipe is None or not it.writes or not it.lat:
            continue
        reader = _first_reader(out, it, leaders)
        other = reader is not None and PIPES.get(reader.timing)
        if other and other != pipe:
            it.lat += extra
            it.stages[0].latency += extra


def _first_reader(out, it, leaders):
    """The first instruction after ``it`` in its block that reads one of its results, or None."""
    results = set(it.writes)
    for o in out[it.pc + 1:]:
        if o.pc in leaders:
            return None
        if not results.isdisjoint(o.reads):
            return o
        if o.branch or o.exit:
            return None
    return None


def _next_in_sass(out, pc):
    """The instruction after ``pc`` that is in the SASS (past the renames, :func:`_renames`), or None."""
    for it in out[pc + 1:]:
        if it.slot:
            return it
    return None


def _timed_as(it, other) -> None:
    """``it`` takes ``other``'s class, pipe and latency."""
    it.timing = other.timing
    it.uidx, it.sm_unit, it.ii, it.lat = other.uidx, other.sm_unit, other.ii, other.lat
    st, o = it.stages[0], other.stages[0]
    st.unit, st.uidx, st.sm, st.ii, st.latency = o.unit, o.uidx, o.sm, o.ii, o.latency


def _dead_after(out, pc, r, leaders, readers) -> bool:
    """Register ``r`` is not read after ``pc`` before it is written again: in the straight line of instructions
    that follows, or, past its end, because every read of ``r`` (``readers``: the pcs that read it) has a write of
    it before it in its own block (an inline asm block's scoped temporary)."""
    if r in out[pc].writes:
        return True
    for it in out[pc + 1:]:
        if r in it.reads:
            return False
        if r in it.writes:
            return True
        if it.branch or it.barrier or it.exit or it.pc in leaders:
            break
    return all(_written_before(out, q, r, leaders) for q in readers)


def _written_before(out, pc, r, leaders) -> bool:
    """``r`` is written before ``pc`` in ``pc``'s block."""
    for q in range(pc - 1, -1, -1):
        it = out[q]
        if q + 1 in leaders or it.branch or it.exit:
            return False
        if r in it.writes:
            return True
    return False


def _renames(program, out) -> None:
    """What ptxas's register allocation makes nothing: a ``mov`` from one register to another (nvcc's bit casts
    between ``%r`` and ``%f``, its copies), the packing of two 32-bit registers into a 64-bit one or its unpacking
    (``mov.b64 d, {lo, hi}``), and the low word of a 64-bit integer (``cvt.u32.u64``). It takes no issue cycle and
    no pipe cycle, and its value is there at once. traces/h200/reduce_clock.json: a warp's shuffle step
    (shfl.sync, mov.b32, add.f32, mov.b32) 24.2 cycles on the H200, as SHFL and FADD."""
    for it in out:
        ins = program.instructions[it.pc]
        if ins.guard is None and (_copy(program, ins) or _low_word(ins)):
            _not_in_sass(it)


def _copy(program, ins) -> bool:
    o = ins.operands
    if ins.opcode != "mov" or len(o) != 2:
        return False
    if type(o[0]) is Reg and type(o[1]) is Reg:
        return o[1].name in program.regs and program.regs.get(o[1].name) != "pred"
    vec = o[0] if type(o[0]) is Vec else o[1]
    reg = o[1] if vec is o[0] else o[0]
    return (type(vec) is Vec and type(reg) is Reg and ins.mods in (("b64",), ("b32",))
            and all(type(x) is Reg and x.name in program.regs for x in vec.items + (reg,)))


def _low_word(ins) -> bool:
    return ins.opcode == "cvt" and ins.mods in (("u32", "u64"), ("s32", "s64"), ("u32", "s64"), ("s32", "u64"))


def _not_in_sass(it) -> None:
    """``it`` (one stage) is not in ptxas's code (:func:`_fused`, :func:`_renames`): it takes no issue cycle and no
    cycle of its pipe, and its result is there when it issues."""
    it.lat, it.ii, it.slot = 0.0, 0.0, 0.0
    it.stages[0].latency, it.stages[0].ii = 0.0, 0.0


def _uniform_clock_reads(params, out) -> None:
    """A 32-bit ``%clock`` read whose readers are all integer or float arithmetic: ptxas reads the (warp-uniform)
    clock into a uniform register with S2UR for them to take as an operand, and they wait for it on the
    scoreboard (``classes["clock32"]``, traces/h200/branch_tail.json). A read that a store or a copy takes is a
    CS2R.32, whose value comes as soon as an ALU result's (traces/h200/spgemm_phase.json's stamps)."""
    c = params.classes.get("clock32")
    if c is None:
        return
    for it in out:
        if it.opcode != "mov" or "%clock" not in it.reads or not it.writes:
            continue
        readers = [o for o in out if o is not it and set(o.reads) & set(it.writes)]
        if readers and all(o.timing in ("alu", "mul", "mul_wide", "fma") and o.opcode not in ("mov", "cvt") for o in readers):
            it.timing, it.lat = "clock32", c["latency"]
            it.stages[0].latency = c["latency"]


def _own_issue_cycles(pcs, out) -> float:
    """Cycles the engine spends per trip on a profiled loop's own instructions (issued in ``pcs`` order
    between the emulated mma): one issue cycle each, and a dependent one waits for the one just before it."""
    cyc, prev = 0.0, None
    for pc in pcs:
        it = out[pc] if pc < len(out) else None
        if it is None or it.emulated:
            prev = None
            continue
        cyc += 1.0
        if prev is not None and set(it.reads) & set(prev.writes):
            cyc += prev.lat - 1.0
        prev = it
    return cyc


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
