"""The order in which ptxas puts a kernel's instructions: the timed engine issues in this order.

The hardware runs the SASS that ptxas makes from the PTX, and ptxas moves instructions. Which moves
matter for timing was read off the SASS ptxas 13.0 makes from every recorded timing kernel
(``traces/capture/build/timing_*.cubin``, disassembled with cuobjdump 13.5; the same order in all 192
kernels) and of the H200 probes' kernels, and is modelled as five deterministic rules on the PTX, applied per
basic block (rules 2, 3, 5, 4 in that order after rule 1):

1. **Loads sink into the one successor that uses them.** A ``ld`` from global, const or param memory
   whose destination registers are read neither later in its block nor on any other path out of the
   block (liveness), whose successor ``S`` has this block as its only predecessor, and which no later
   instruction of the block could disturb (a write to one of its registers or a store/barrier/fence),
   moves to the start of ``S``. Evidence: the A/B/E fragment loads of every timing kernel are read only
   inside the mma loop, and ptxas places their ``LDG`` after the ``%clock64`` read and the ``reps < 1``
   branch, at the top of the loop preheader (``timing_sp_f16_k16_f32_ilp1``: ``CS2R R14, SR_CLOCKLO`` at
   0x0c0, ``@!P0 BRA`` at 0x0f0, the 5 ``LDG`` at 0x100-0x140); the C loads, also read on the bypass path,
   stay in the entry block before the clock read.
2. **Cheap instructions go next to their first use.** A parameter load (``LDC``) or an integer/float ALU
   instruction that does not read a special register, whose first reader in the block comes after a
   ``%clock`` read, moves down to just before that reader. Evidence: ``ld.param`` of ``reps`` is written
   before the first clock read in the PTX and is ``LDC R3, c[0x0][0x238]`` after ``CS2R`` in every kernel;
   the ``and.b32 %r271, %tid, 31`` before the final clock read is ``LOP3.LUT P0`` after it, while the
   ``S2R SR_TID.X`` (a special-register read, long latency) stays before it.
3. **Loads are hoisted within a region.** Between two volatile instructions (clock reads, barriers,
   stores, fences, branches), a load or special-register read moves up past the instructions it does
   not depend on (no register hazard; loads keep their order among themselves). Evidence: the C loads
   interleaved with their ``xor`` copies in the PTX are four back-to-back ``LDG`` followed by the
   ``LOP3``s in the SASS (``timing_sp_f16_k16_f32_ilp4`` 0x070-0x170). A load also moves up past a
   store to another state space (the two cannot alias: ``ld.global`` past ``st.shared``), taking along
   the cheap instructions that compute its operands. Evidence: the tiled sparse GEMM
   (``traces/capture/kernels/prog_spgemm_clock.ptx``) stages B with ``ld.global; st.shared`` four times
   a K step, each load's address computed just before it; ptxas issues the four ``LDG`` back to back at
   the top of the step, their address arithmetic before them, and the four ``STS`` after (``spgemm_clock_k256``
   0x5a0-0x7b0). Kept in PTX order the four L2 round trips ran one after another and the replay's K
   step took 2.2x the H200's (``warpsim.timing.spgemm_clock``).

4. **A loop's compare moves up.** The cheap instructions that compute a conditional branch's predicate
   move up to just behind the first instruction of the block, but not above a load (nor a parameter or
   special-register read). Evidence: every mma
   loop has ``UIADD3`` (the trip counter) and ``ISETP`` right after its first ``HMMA``, 13+ cycles before
   the ``BRA``; a predicate computed from loaded data stays behind the loads (``gmem_load_p8`` of
   ``traces/capture/kernels/gmem_rate.ptx``: 32 ``ld.global`` each xor-ed into the value a branch tests,
   ptxas's 32 ``LDG`` back to back with the ``LOP3``s after them; moved up, each ``xor`` had waited for its
   load before the next load issued, 32 L2 round trips in a row).

5. **A stretch is list-scheduled.** Each stretch of cheap instructions, loads and plain stores of a named
   state space (between the block's other instructions: clock reads, barriers, branches, mma ...) issues as
   a list scheduler with one issue a cycle puts it: a store as soon as its operands are ready, else the ready
   instruction on the longest path to the stretch's end (a load's result counted as a round trip, so what
   feeds a load goes first), ties in program order; memory accesses keep their order where they may alias
   (a store after every earlier access to its space and every earlier store, a load after the earlier
   stores to its space and the load before it); an instruction moves above a store only when it feeds a
   memory access; and at most ``LOADS_AHEAD`` (21) loads issue ahead of the first instruction that reads one
   of them. Evidence: the GEMM's K step (``spgemm_clock_k1024`` 0x5b0-0x6b0: the four B addresses' ``LEA.HI``,
   ``LEA.HI.SX32`` and ``IMAD.WIDE`` one step of each chain at a time, each ``LDG`` right behind its address,
   the ``STS`` addresses computed before the first ``STS``); 32 independent loads xor-ed together
   (``traces/capture/kernels/gmem_rate.ptx``, ``l2_latency.ptx``): 20-22 ``LDG`` (p1: 20; p8, p32, burst_32_l32:
   21; burst_32_l1: 22), then a ``LOP3`` on the first ones, then the rest between further ``LOP3``s, so a
   burst of 32 takes two round trips on the H200 (812 cycles, 16 loads 450; ``warpsim.timing.l2_latency``).
   The loop counter after a clock store keeps its place behind the store (the ``trips_*`` kernels).

A diverged warp's lanes at the lowest pc run their whole block before any other lane runs, so they issue
in the block's order too (``if (lane >= n) return;``: lane 0's 32 loads of ``burst_32_l1`` had run in PTX
order, one round trip each).

Nothing moves up across a volatile instruction but a load across a store to another space and, within a
stretch (rule 5), what feeds a memory access across a plain store, so when the engine times an instruction
every instruction before it in program order has been executed functionally, and a ``%clock`` read runs
exactly at its issue cycle. A store an instruction moved above may run (functionally) before it is timed,
with the instructions up to that one: what the engine needs of it, the lanes that stored and their
addresses, is taken as it runs. Moves never change what a program computes (the
same rules a compiler must obey); the functional engine keeps executing in program order.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from isa.ptx.ast import Reg, Sym

CLOCK_REGS = ("%clock", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi")
TERMINATORS = ("bra", "brx", "ret", "exit", "trap")
#: never moved, and nothing moves across them
VOLATILE_OPS = TERMINATORS + ("bar", "barrier", "membar", "fence", "st", "red", "atom", "call", "nanosleep",
                              "tcgen05", "mbarrier", "cp", "griddepcontrol", "prefetch", "shfl", "vote", "match",
                              "redux", "activemask", "elect", "ldmatrix", "stmatrix")
CHEAP_CLASSES = ("alu", "fma", "mul", "mul_wide", "cvt")
#: the state spaces a load or store may name; two different ones never alias
SPACES = ("global", "shared", "local", "param", "const")
#: an access with one of these is not moved past another space's (memory-model order)
ORDERED_MODS = frozenset({"volatile", "relaxed", "acquire", "release", "mmio"})


@dataclass
class Order:
    """Where each instruction issues.

    ``entry[pc]`` for the first pc of a basic block: the pcs to issue, in order, when a converged warp
    enters the block there (instructions sunk into the block first). ``block_of[pc]``: the first pc of
    pc's block. ``sunk_from[b]``: the pcs block ``b`` gives away, with the block they go to."""

    entry: dict = field(default_factory=dict)
    block_of: list = field(default_factory=list)
    sunk_to: dict = field(default_factory=dict)   # block start -> (target block start, (pcs...))
    nsunk: dict = field(default_factory=dict)     # block start -> how many of entry[start] were sunk into it
    moved: int = 0                                 # instructions not at their program position


def _branch_target(program, ins):
    if ins.opcode != "bra" or not ins.operands:
        return None
    op = ins.operands[0]
    name = getattr(op, "name", None) if isinstance(op, (Sym, Reg)) else None
    return program.labels.get(name)


def compute(program, info) -> Order:
    """The issue order of ``program`` (``info``: :func:`warpsim.timing.analysis.analyse` records)."""
    n = len(info)
    ins_list = program.instructions
    if n == 0:
        return Order(block_of=[])
    # ---------------------------------------------------------------- basic blocks and edges
    leaders = {0}
    leaders.update(pc for pc in program.labels.values() if pc < n)
    for pc, ins in enumerate(ins_list):
        if ins.opcode in TERMINATORS and pc + 1 < n:
            leaders.add(pc + 1)
    starts = sorted(leaders)
    ends = starts[1:] + [n]
    block_of = [0] * n
    for s, e in zip(starts, ends):
        for pc in range(s, e):
            block_of[pc] = s
    succ: dict[int, list] = {s: [] for s in starts}
    pred: dict[int, list] = {s: [] for s in starts}
    for s, e in zip(starts, ends):
        last = ins_list[e - 1]
        out = []
        if last.opcode == "bra":
            tgt = _branch_target(program, last)
            if tgt is not None and tgt < n:
                out.append(tgt)
            if last.guard is not None and e < n:
                out.append(e)
        elif last.opcode in ("ret", "exit", "trap", "brx"):
            if last.guard is not None and e < n:
                out.append(e)
        elif e < n:
            out.append(e)
        for t in dict.fromkeys(out):
            succ[s].append(t)
            pred[t].append(s)
    # ---------------------------------------------------------------- liveness (registers)
    reads = [set(it.reads) for it in info]
    writes = [set(it.writes) for it in info]
    kills = [writes[pc] if ins_list[pc].guard is None else set() for pc in range(n)]
    use_b, def_b = {}, {}
    for s, e in zip(starts, ends):
        u, d = set(), set()
        for pc in range(s, e):
            u |= reads[pc] - d
            d |= kills[pc]
        use_b[s], def_b[s] = u, d
    live_in = {s: set() for s in starts}
    changed = True
    while changed:
        changed = False
        for s in reversed(starts):
            lo = set()
            for t in succ[s]:
                lo |= live_in[t]
            li = use_b[s] | (lo - def_b[s])
            if li != live_in[s]:
                live_in[s] = li
                changed = True
    # ---------------------------------------------------------------- kinds
    kind = []
    read = {r for it in info for r in it.reads}
    for pc, (it, ins) in enumerate(zip(info, ins_list)):
        if _dead_clock_read(it, read):
            kind.append("cheap")  # ptxas drops a clock read nothing reads (traces/h200/branch_tail.json)
        elif ins.opcode in VOLATILE_OPS or it.timing in ("barrier", "exit", "branch", "async", "tmem") \
                or any(r in CLOCK_REGS for r in it.reads) or "volatile" in ins.mods:
            kind.append("volatile")
        elif ins.opcode == "ld" and it.timing in ("mem_global", "mem_param"):
            kind.append("param" if it.timing == "mem_param" else "load")
        elif ins.opcode == "ld":
            kind.append("load_other")
        elif any(r.startswith("%") and r not in program.regs for r in it.reads):
            kind.append("special")
        elif it.timing in CHEAP_CLASSES:
            kind.append("cheap")
        else:
            kind.append("other")
    is_clock = [any(r in CLOCK_REGS for r in it.reads) and kind[pc] == "volatile" for pc, it in enumerate(info)]
    space = [_space(ins) if kind[pc] in ("volatile", "load", "load_other") else None
             for pc, ins in enumerate(ins_list)]
    # ---------------------------------------------------------------- rule 1: sink loads
    order = Order(block_of=block_of)
    body = {s: list(range(s, e)) for s, e in zip(starts, ends)}
    sunk_in: dict[int, list] = {s: [] for s in starts}
    for s, e in zip(starts, ends):
        targets = [t for t in succ[s] if t != s and len(pred[t]) == 1]
        if not targets:
            continue
        moved = []
        for pc in range(e - 1, s - 1, -1):
            if kind[pc] not in ("load", "param") or ins_list[pc].guard is not None or not writes[pc]:
                continue
            later = [q for q in body[s] if q > pc]
            if any(kind[q] == "volatile" and not is_clock[q] and q != e - 1 for q in later):
                continue  # a store, barrier or fence after it: memory order
            if any(reads[q] & writes[pc] or writes[q] & (writes[pc] | reads[pc]) for q in later):
                continue
            dest = writes[pc]
            into = [t for t in succ[s] if dest & live_in[t]]
            if len(into) != 1 or into[0] not in targets:
                continue
            moved.append((pc, into[0]))
            body[s].remove(pc)
        for pc, t in reversed(moved):
            sunk_in[t].append(pc)
            order.sunk_to.setdefault(s, (t, []))[1].append(pc)
    # ---------------------------------------------------------------- rules 2 and 3 inside a block
    lat_of = [it.lat for it in info]
    for s in starts:
        seq = _place_cheap(body[s], kind, reads, writes, is_clock)
        seq = _hoist_loads(seq, kind, reads, writes, space)
        seq = _list_schedule(seq, kind, reads, writes, space, ins_list, lat_of)
        seq = _hoist_branch_condition(seq, ins_list, kind, reads, writes)
        full = sunk_in[s] + seq
        order.entry[s] = tuple(full)
        order.nsunk[s] = len(sunk_in[s])
        order.moved += sum(1 for i, pc in enumerate(full) if pc != s + i)
    for s, (t, pcs) in list(order.sunk_to.items()):
        order.sunk_to[s] = (t, tuple(pcs))
    return order


def _place_cheap(seq, kind, reads, writes, is_clock):
    """Rule 2: a cheap instruction whose first reader follows a clock read moves to just before it."""
    seq = list(seq)
    i = 0
    while i < len(seq):
        pc = seq[i]
        if kind[pc] not in ("cheap", "param") or not writes[pc]:
            i += 1
            continue
        first = None
        for j in range(i + 1, len(seq)):
            if reads[seq[j]] & writes[pc]:
                first = j
                break
            if writes[seq[j]] & (writes[pc] | reads[pc]) or kind[seq[j]] == "volatile" and not is_clock[seq[j]]:
                break
        if first is None or not any(is_clock[seq[j]] for j in range(i + 1, first)):
            i += 1
            continue
        seq.insert(first - 1, seq.pop(i))
        # the instruction now sits after the clock read; look at the one that took its place
    return seq


def _hoist_branch_condition(seq, ins_list, kind, reads, writes):
    """Rule 4: the cheap instructions that compute a conditional branch's predicate move up, behind the
    block's first instruction (not above a volatile instruction or anything they depend on)."""
    if len(seq) < 3:
        return seq
    term = seq[-1]
    ins = ins_list[term]
    if ins.opcode != "bra" or ins.guard is None:
        return seq
    need = set(reads[term])
    chain = []
    for i in range(len(seq) - 2, 0, -1):
        pc = seq[i]
        if kind[pc] == "volatile":
            break
        if writes[pc] & need and kind[pc] in ("cheap", "param"):
            chain.append(pc)
            need |= reads[pc]
        elif writes[pc] & need:
            break
    if not chain:
        return seq
    out = list(seq)
    for pc in reversed(chain):  # program order
        i = out.index(pc)
        j = i
        while j > 1:
            q = out[j - 1]
            if kind[q] in ("volatile", "load", "load_other", "special", "param") \
                    or writes[q] & reads[pc] or reads[q] & writes[pc] or writes[q] & writes[pc]:
                break  # nor above a load: ptxas keeps the loads ahead of the arithmetic that waits on them
            j -= 1
        out.insert(j, out.pop(i))
    return out


#: the kinds rule 5 reorders; any other instruction ends a stretch
SCHEDULED = ("cheap", "load", "load_other", "param", "special")
#: rule 5's cycles from an instruction to its result (only the order they give matters): a load's stands for a
#: round trip, so the instructions that feed loads go first and those that wait on them last
#: (a cheap instruction's are its class's latency in the table: a conversion's 11, a fused add's 0)
RESULT_CYCLES = {"param": 30, "special": 30, "load": 400, "load_other": 400}
#: at most this many loads issue ahead of the first instruction that reads one of them
LOADS_AHEAD = 21


def _list_schedule(seq, kind, reads, writes, space, ins_list, lat_of):
    """Rule 5: each stretch of cheap instructions, loads and stores is list-scheduled as ptxas does (``lat_of``:
    each instruction's latency in the table, a cheap one's cycles to its result)."""
    def movable(pc):
        return kind[pc] in SCHEDULED or ins_list[pc].opcode == "st" and space[pc] is not None

    out, i = [], 0
    while i < len(seq):
        if not movable(seq[i]):
            out.append(seq[i])
            i += 1
            continue
        j = i
        while j < len(seq) and movable(seq[j]):
            j += 1
        out += _schedule_stretch(seq[i:j], kind, reads, writes, space, lat_of)
        i = j
    return out


def _memory_order(part, kind, space):
    """``{b: [a, ...]}``: the memory accesses of ``part`` each must follow: a store every earlier access to its
    state space and every earlier store, a load the earlier stores to its space and the load before it."""
    before: dict = {}
    accesses = []  # (index, is_store, space)
    last_load = None
    for b, pc in enumerate(part):
        if kind[pc] in ("cheap", "param", "special"):
            continue
        store = kind[pc] == "volatile"
        sp = space[pc]
        before[b] = [a for a, a_store, a_sp in accesses
                     if (store and a_store) or (store or a_store) and (a_sp == sp or a_sp is None or sp is None)]
        if not store:
            if last_load is not None:
                before[b].append(last_load)
            last_load = b
        accesses.append((b, store, sp))
    return before


def _schedule_stretch(part, kind, reads, writes, space, lat_of):
    """One issue a cycle: a ready store, else the ready instruction on the longest path to the stretch's end
    (ties: program order); memory accesses in the order :func:`_memory_order` gives, and no more than LOADS_AHEAD
    loads whose readers wait."""
    n = len(part)
    if n < 3:
        return part
    is_load = [kind[pc] in ("load", "load_other") for pc in part]
    is_store = [kind[pc] == "volatile" for pc in part]  # a store frees its registers: it goes once it can
    raw, after = _dependences(part, reads, writes)
    for b, mem in _memory_order(part, kind, space).items():
        after[b].update(mem)
    # an instruction moves above a store only to feed a memory access (ptxas computes the addresses of a
    # stretch's loads and stores ahead; the rest stays behind the store: the loop counter after a clock store)
    feeds = [False] * n
    for b in range(n - 1, -1, -1):
        if is_load[b] or is_store[b]:
            feeds[b] = True
        for a in raw[b]:
            feeds[a] = feeds[a] or feeds[b]
    stores = []
    for b in range(n):
        if not feeds[b]:
            after[b].update(stores)
        if is_store[b]:
            stores.append(b)
    lat = [lat_of[pc] if kind[pc] == "cheap" else RESULT_CYCLES.get(kind[pc], 1) for pc in part]
    height = [0] * n
    for b in range(n - 1, -1, -1):
        for a in raw[b]:
            height[a] = max(height[a], lat[a] + height[b])
    readers = [0] * n
    followers = [[] for _ in range(n)]
    for b in range(n):
        for a in raw[b]:
            readers[a] += 1
        for a in after[b]:
            followers[a].append(b)
    pending = [len(after[b]) for b in range(n)]  # predecessors not yet placed
    placed_at = [0] * n
    ready_at = {b: 0 for b in range(n) if not pending[b]}  # the free instructions, when their operands are ready
    waiting = set()  # loads placed whose readers are not all placed
    order, t = [], 0
    while ready_at:
        free = ready_at
        if len(waiting) >= LOADS_AHEAD and not all(is_load[b] for b in free):
            free = {b: r for b, r in free.items() if not is_load[b]}
        now = [b for b, r in free.items() if r <= t]
        if not now:
            t = min(free.values())
            continue
        b = max(now, key=lambda x: (is_store[x], height[x], -x))
        del ready_at[b]
        placed_at[b] = t
        order.append(b)
        t += 1
        if is_load[b] and readers[b]:
            waiting.add(b)
        for a in raw[b]:
            readers[a] -= 1
            if readers[a] == 0:
                waiting.discard(a)
        for c in followers[b]:
            pending[c] -= 1
            if not pending[c]:
                ready_at[c] = max((placed_at[a] + lat[a] for a in raw[c]), default=0)
    return [part[b] for b in order]


def _dependences(part, reads, writes):
    """``(raw, after)`` of a stretch, each a list of sets of earlier positions: ``raw[b]`` those that write a
    register ``b`` reads, ``after[b]`` those too and those that read or write a register ``b`` writes."""
    writers: dict = {}  # register -> earlier positions writing it
    readers: dict = {}  # register -> earlier positions reading it
    raw, after = [], []
    for b, pc in enumerate(part):
        r = {a for reg in reads[pc] for a in writers.get(reg, ())}
        raw.append(r)
        after.append(r | {a for reg in writes[pc] for a in writers.get(reg, []) + readers.get(reg, [])})
        for reg in reads[pc]:
            readers.setdefault(reg, []).append(b)
        for reg in writes[pc]:
            writers.setdefault(reg, []).append(b)
    return raw, after


def _dead_clock_read(it, read: set) -> bool:
    """A clock read whose value no instruction reads: ptxas drops it, so it orders nothing."""
    return bool(it.writes) and any(r in CLOCK_REGS for r in it.reads) and not set(it.writes) & read


def _space(ins) -> str | None:
    """The state space of a plain ``ld`` / ``st`` that names one (``global``, ``shared``, ``local``, ``param``,
    ``const``); None for a generic address, a volatile or ordered access, or another instruction."""
    if ins.opcode not in ("ld", "st") or ins.modset & ORDERED_MODS:
        return None
    return next((m for m in ins.mods if m in SPACES), None)


def _hoist_loads(seq, kind, reads, writes, space):
    """Rule 3: loads and special-register reads move up inside their region, past a store to another state
    space with the cheap instructions that compute their operands."""
    out: list = []
    for pc in seq:
        if kind[pc] not in ("load", "load_other", "special") or not out:
            out.append(pc)
            continue
        group, g_reads, g_writes = [pc], set(reads[pc]), set(writes[pc])
        j = len(out)
        while j > 0:
            q = out[j - 1]
            if kind[q] in ("load", "load_other", "special", "param"):
                break
            if kind[q] == "volatile" and not (space[q] and space[pc] and space[q] != space[pc]
                                              and not writes[q]):
                break
            if reads[q] & g_writes or writes[q] & g_writes:
                break
            if writes[q] & g_reads:
                if kind[q] != "cheap":
                    break
                group.append(q)  # computes an operand of the load: it moves up with it
                g_reads |= reads[q]
                g_writes |= writes[q]
            j -= 1
        rest = out[j:]
        out = out[:j] + [q for q in rest if q in group] + [pc] + [q for q in rest if q not in group]
    return out
