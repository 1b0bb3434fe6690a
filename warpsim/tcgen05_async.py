"""The asynchronous side of tcgen05 (PTX ISA 9.7.16.6): queued operations, completion, ordering, hazards.

**Queue.** ``tcgen05.mma``, ``.cp`` and ``.shift`` are queued on the cluster's :class:`TensorUnit` and
complete later, in issue order. An operation computes its result at issue from the TMEM state after every
earlier queued operation (``Tmem.future``; that is the order the pipelined pairs of 9.7.16.6.2 guarantee,
and it lets an illegal operand be reported at the instruction that supplied it) but its writes reach the
cells that ``tcgen05.ld`` reads (``Tmem.cells``) only when it completes. ``tcgen05.commit`` queues one
mbarrier arrival that happens when every earlier mma/cp/shift of the committing thread has completed
(``.multicast::cluster``: one arrival at the same offset in each CTA of ``ctaMask``). ``tcgen05.ld``/``st``
read/write the cells when issued and complete at the warp's ``tcgen05.wait::ld``/``wait::st``.

**When operations complete.** In the functional engine an operation completes ``FUNCTIONAL_LATENCY``
warp instructions (counted over the whole cluster) after it starts, and the pipe starts one every
``FUNCTIONAL_II``; in the timed engine at the cycle that :mod:`warpsim.timing.tcgen05` gives (B200
figures, literature-calibrated). Completions and arrivals are applied whenever a warp of the cluster
executes a tcgen05 or mbarrier instruction, and when a CTA finishes.

**Ordering and hazards.** Each warp carries what it knows: which asynchronous operations it may treat as
*complete* and which as *issued before* (vector clocks over issuing threads). It learns completion from
``wait::ld``/``wait::st`` (its own ld/st) and from a completed mbarrier phase it observes (``try_wait``/
``test_wait`` true) whose arrivals carried a commit; it learns from other warps through thread
synchronisation (``bar.sync``, ``barrier.cluster``, mbarrier arrive -> wait), transitively; a warp
publishes its tcgen05 knowledge (its own operations included) only as of its last
``tcgen05.fence::before_thread_sync`` (``tcgen05.commit`` implies one), and its asynchronous tcgen05
instructions use knowledge received through a thread synchronisation only after its
``tcgen05.fence::after_thread_sync`` (synchronous ones such as ``dealloc`` use it at once).
Every TMEM cell remembers the last asynchronous operation that wrote it and the last that read it. An
access conflicting with an operation the accessing warp does not know complete is a **hazard**, unless it
is an asynchronous operation that forms a pipelined pair with the earlier one (mma -> mma on the same
accumulator, shape and kind; cp -> mma; shift -> mma; shift -> cp.4x256b; mma -> shift; same cta_group)
and the warp knows that one was issued before: reading D (``tcgen05.ld``) before commit -> mbarrier wait
-> fence, a second mma or a ``tcgen05.st`` touching cells an unfinished operation uses, ``tcgen05.ld``
after ``tcgen05.st`` without ``wait::st``, a write over cells an unwaited ``tcgen05.ld`` reads, and a
``tcgen05.dealloc`` of columns an unfinished operation uses.

Under ``ub_policy="error"`` a hazard raises :class:`Tcgen05Hazard` naming the rule, the instruction and
its line, and the earlier operation. Under ``ub_policy="hardware"`` the access simply happens at that
moment: ``tcgen05.ld`` returns the cells as they are (an unfinished operation has not written them yet),
a queued operation computes from the state after the operations queued before it, a ``tcgen05.st``
lands at once (an unfinished operation that writes the same cells overwrites it when it completes).
Assumptions: a warp is one unit of knowledge (its 32 threads learn together); each cell keeps only its
last reader; operations of one cluster complete in issue order.
"""
from __future__ import annotations

import bisect
from collections import deque

import numpy as np

from isa.errors import LocatedUndefinedBehavior, WarpsimError

FUNCTIONAL_LATENCY = 48  # warp instructions (whole cluster) from an operation's start to its completion
FUNCTIONAL_II = 8  # warp instructions between the starts of two operations on one CTA's tensor pipe
RULE = "PTX ISA 9.7.16.6"


class Tcgen05Hazard(LocatedUndefinedBehavior):
    """Two tcgen05 accesses to the same Tensor Memory cells that the program does not order."""


class Op:
    __slots__ = ("index", "kind", "issuer", "seq", "where", "warp", "info", "writes", "reads", "complete_at",
                 "done", "cta_group", "text")

    def __init__(self, index, kind, issuer, seq, where, warp, info, cta_group):
        self.index, self.kind, self.issuer, self.seq, self.where = index, kind, issuer, seq, where
        self.warp, self.info, self.cta_group = warp, info, cta_group
        self.writes: list = []
        self.reads: list = []
        self.complete_at = 0.0
        self.done = False
        self.text = info.get("text", f"tcgen05.{kind}")


def _join(a: dict, b: dict) -> None:
    for k, v in b.items():
        if a.get(k, -1) < v:
            a[k] = v


class Clock:
    """(done, ordered): issuer -> highest sequence number known complete / known issued before."""

    __slots__ = ("done", "ordered")

    def __init__(self, done=None, ordered=None):
        self.done = dict(done or {})
        self.ordered = dict(ordered or {})

    def join(self, other: "Clock") -> "Clock":
        _join(self.done, other.done)
        _join(self.ordered, other.ordered)
        return self

    def copy(self) -> "Clock":
        return Clock(self.done, self.ordered)


class Knowledge:
    """What one warp knows. ``act``: usable by its asynchronous tcgen05 instructions; ``sync``: learned through
    thread synchronisation (transitive); ``pub``: what it published at its last fence::before_thread_sync."""

    __slots__ = ("act", "sync", "pub", "waited", "fenced_after")

    def __init__(self):
        self.act, self.sync, self.pub = Clock(), Clock(), Clock()
        self.waited: dict = {}  # issuer -> (seq, mbarrier where) learned through an mbarrier wait
        self.fenced_after = False

    def published(self) -> Clock:
        return self.sync.copy().join(self.pub)


class _Future:
    """A Tmem as the queued operations see it (``future``/``fdefined``), recording what the running op touches."""

    def __init__(self, tmem):
        self.__dict__["t"] = tmem
        self.__dict__["op"] = None

    def __getattr__(self, name):
        return getattr(self.__dict__["t"], name)

    @property
    def cells(self):
        return self.t.future

    @property
    def defined(self):
        return self.t.fdefined

    def cp(self, *args, **kw):  # Tmem.cp / shift running on this view
        return type(self.t).cp(self, *args, **kw)

    def shift(self, *args, **kw):
        return type(self.t).shift(self, *args, **kw)

    def read_cells(self, where, lanes, cols):
        t = self.t
        t.check(where, lanes, cols)
        lanes, cols = np.broadcast_arrays(np.asarray(lanes), np.asarray(cols))
        if self.op is not None:
            self.op.reads.append((t.rank_in_cluster, lanes.ravel().copy(), cols.ravel().copy()))
        return t.future[lanes, cols]

    def write_cells(self, where, lanes, cols, values):
        t = self.t
        t.check(where, lanes, cols)
        lanes, cols, values = np.broadcast_arrays(np.asarray(lanes), np.asarray(cols), np.asarray(values))
        t.future[lanes, cols] = values
        t.fdefined[lanes, cols] = True
        if self.op is not None:
            self.op.writes.append((t.rank_in_cluster, lanes.ravel().copy(), cols.ravel().copy(),
                                   np.asarray(values, dtype=np.uint32).ravel().copy()))


def future(tmem) -> _Future:
    return _Future(tmem)


def _plain(v):
    """A comparable image of unit state (the debugger's full_state)."""
    if isinstance(v, np.ndarray):
        return ("nd", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, dict):
        return tuple(sorted((repr(k), _plain(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple, deque)):
        return tuple(_plain(x) for x in v)
    if isinstance(v, Op):
        return ("op", v.index, v.done)
    if isinstance(v, (Clock, Knowledge)):
        return tuple(_plain(getattr(v, f)) for f in type(v).__slots__)
    return v


def _span(x) -> str:
    x = np.asarray(x)
    lo, hi = int(x.min()), int(x.max())
    return str(lo) if lo == hi else f"{lo}..{hi}"


class TensorUnit:
    """The asynchronous tcgen05 machinery shared by the CTAs of one cluster."""

    def __init__(self, cluster, launch):
        self.cluster, self.launch = cluster, launch
        self.policy = launch.ub_policy
        self.ops: list[Op] = []
        self.queue: deque[Op] = deque()
        self.arrivals: list = []
        self.seq: dict = {}
        self.know: dict[tuple, Knowledge] = {}
        self.bars: dict[tuple, dict] = {}  # (rank, shared offset) -> {"acc": Clock, "phase": {parity: Clock}}
        self.cbar_acc = Clock()
        self.cbar_done: dict[int, Clock] = {}
        self.busy: dict[int, float] = {}
        self.last_complete = 0.0
        self.timing = getattr(launch, "tc_timing", None)
        self.commit_log: list[dict] = []

    # ------------------------------------------------------------------ time
    def now(self) -> float:
        cyc = getattr(self.launch, "cycle", None)
        if cyc is not None:
            return float(cyc())
        return float(sum(w.steps for w in self.cluster.warps()))

    def advance(self, drain: bool = False) -> None:
        """Complete every queued operation whose time has come (all of them with ``drain``), then deliver the
        mbarrier arrivals whose operations have all completed."""
        now = self.now()
        q = self.queue
        while q and (drain or q[0].complete_at <= now):
            self._complete(q.popleft())
        if self.arrivals:
            pending, self.arrivals = self.arrivals, []
            for a in pending:
                if a["op"] is None or a["op"].done:
                    self._arrive(a)
                else:
                    self.arrivals.append(a)

    def tmem(self, rank: int):
        return self.cluster.ctas[rank].tmem

    def _complete(self, op: Op) -> None:
        for r, lanes, cols, vals in op.writes:
            t = self.tmem(r)
            t.cells[lanes, cols] = vals
            t.defined[lanes, cols] = True
        op.writes, op.reads = [], []
        op.done = True

    def knowledge(self, key) -> Knowledge:
        k = self.know.get(key)
        if k is None:
            k = self.know[key] = Knowledge()
        return k

    # ------------------------------------------------------------------ issuing
    def new_op(self, port, kind: str, issuer, info: dict, cta_group: int = 1) -> Op:
        seq = self.seq.get(issuer, 0) + 1
        self.seq[issuer] = seq
        op = Op(len(self.ops), kind, issuer, seq, port.warp.where(), port.key, info, cta_group)
        self.ops.append(op)
        port.k.act.ordered[issuer] = seq  # a warp knows its own operations were issued before its later ones
        return op

    def run_async(self, port, kind: str, lane: int, info: dict, cta_group: int, tmems, fn) -> Op:
        """Issue an mma/cp/shift: ``fn(views)`` computes it on the future views of ``tmems``; its footprint is
        checked for hazards, recorded, and the op is queued."""
        self.advance()
        op = self.new_op(port, kind, (port.key[0], port.key[1], lane), info, cta_group)
        views = [future(t) for t in tmems]
        for v in views:
            v.__dict__["op"] = op
        try:
            fn(views)
        except BaseException:
            self._abandon(op)
            raise
        finally:
            for v in views:
                v.__dict__["op"] = None
        self.check(port, op.text, op.reads, op.writes, new=op)
        self._mark(op)
        t = self.now()
        ranks = sorted({getattr(tm, "rank_in_cluster", 0) for tm in tmems})
        lat, ii = self._cost(op)
        start = max([t] + [self.busy.get(r, 0.0) for r in ranks])
        for r in ranks:
            self.busy[r] = start + ii
        op.complete_at = max(start + lat, self.last_complete)
        self.last_complete = op.complete_at
        self.queue.append(op)
        return op

    def _abandon(self, op: Op) -> None:
        """The op raised while computing: undo what it wrote into the future view."""
        for r, lanes, cols, _ in op.writes:
            t = self.tmem(r)
            t.future[lanes, cols] = t.cells[lanes, cols]
            t.fdefined[lanes, cols] = t.defined[lanes, cols]
        op.writes, op.reads, op.done = [], [], True

    def _cost(self, op: Op):
        if self.timing is not None:
            return self.timing.cost(op)
        return FUNCTIONAL_LATENCY, FUNCTIONAL_II

    def _mark(self, op: Op) -> None:
        for r, lanes, cols in op.reads:
            self.tmem(r).r_op[lanes, cols] = op.index
        for r, lanes, cols, _ in op.writes:
            self.tmem(r).w_op[lanes, cols] = op.index

    # ------------------------------------------------------------------ hazards
    def check(self, port, what: str, reads, writes, new: Op | None = None, synchronous: bool = False,
              verb: str = "writes") -> None:
        """Raise (ub_policy 'error') if an access of ``port``'s warp conflicts with an operation it does not
        know complete. ``reads``/``writes``: lists of (tmem, lanes, cols[, values])."""
        if self.policy != "error":
            return
        k = port.k
        for items, write in ((reads, False), (writes, True)):
            for item in items:
                t, lanes, cols = item[0], item[1], item[2]
                if isinstance(t, (int, np.integer)):
                    t = self.tmem(int(t))
                ids = t.w_op[lanes, cols]
                if write:
                    ids = np.concatenate([ids.ravel(), t.r_op[lanes, cols].ravel()])
                for i in np.unique(ids):
                    if i < 0:
                        continue
                    o = self.ops[int(i)]
                    if o is new or self._known_complete(k, o, synchronous):
                        continue
                    if new is not None and _pipelined(o, new) and (o.warp == port.key
                                                                  or k.act.ordered.get(o.issuer, -1) >= o.seq):
                        continue
                    self._hazard(port, what, o, t, lanes, cols, write, new, synchronous, verb)

    @staticmethod
    def _known_complete(k: Knowledge, o: Op, synchronous: bool) -> bool:
        if k.act.done.get(o.issuer, -1) >= o.seq:
            return True
        return synchronous and k.sync.done.get(o.issuer, -1) >= o.seq

    def _hazard(self, port, what, o: Op, t, lanes, cols, write, new, synchronous, verb="writes"):
        k = port.k
        sel = (t.w_op[lanes, cols] == o.index) | (t.r_op[lanes, cols] == o.index)
        ls, cs = np.asarray(lanes)[sel], np.asarray(cols)[sel]
        cta = f" of CTA rank {t.rank_in_cluster}" if self.cluster.size > 1 else ""
        cells = f"TMEM lanes {_span(ls)}, columns {_span(cs)}{cta}"
        used = "writes" if (t.w_op[ls, cs] == o.index).any() else "reads"
        me = f"{what} {verb if write else 'reads'} {cells}, which {o.text} (at {o.where}) {used}"
        by = f"issued by thread {o.issuer[2]} of warp {o.issuer[1]}" if isinstance(o.issuer[2], (int, np.integer)) \
            else f"issued by warp {o.issuer[1]}"
        if self.cluster.size > 1:
            by += f" of CTA rank {o.issuer[0]}"
        if o.kind in ("mma", "cp", "shift"):
            if not o.done and o not in self.queue:
                why = "it is not queued"
            elif not any(a["issuer"] == o.issuer and a["seq"] >= o.seq for a in self._commits(o)):
                why = (f"no tcgen05.commit by the issuing thread tracks it yet; its results become visible through "
                       f"tcgen05.commit -> mbarrier wait -> tcgen05.fence::after_thread_sync")
            elif k.sync.done.get(o.issuer, -1) >= o.seq and not synchronous:
                why = ("this warp observed its completion through a thread synchronisation but has not executed "
                       "tcgen05.fence::after_thread_sync since")
            else:
                c = [a for a in self._commits(o) if a["issuer"] == o.issuer and a["seq"] >= o.seq][0]
                why = (f"it is committed (tcgen05.commit at {c['where']}) but this warp has not waited for that "
                       f"mbarrier phase (mbarrier.try_wait loop, then tcgen05.fence::after_thread_sync)")
        else:
            kind = "ld" if o.kind == "ld" else "st"
            owner = self.know.get(o.warp)
            if o.warp == port.key:
                why = f"this warp has not executed tcgen05.wait::{kind} since"
            elif owner is not None and owner.act.done.get(o.issuer, -1) >= o.seq:
                why = (f"warp {o.warp[1]} waited (tcgen05.wait::{kind}) but that is not known to this warp: it needs "
                       f"tcgen05.fence::before_thread_sync in warp {o.warp[1]}, a thread synchronisation, then "
                       "tcgen05.fence::after_thread_sync here")
            else:
                why = (f"warp {o.warp[1]} has not executed tcgen05.wait::{kind} (then tcgen05.fence::before_thread_sync"
                       ", a thread synchronisation and tcgen05.fence::after_thread_sync here)")
        pipe = ""
        if new is not None and _pipelined(o, new):
            pipe = " (the two form a pipelined pair, but this warp does not know the first was issued before it)"
        elif new is not None and o.kind == "mma" and new.kind == "mma":
            pipe = (" (an mma -> mma pair is pipelined only on the same accumulator address, shape and kind: "
                    f"{_acc(o)} vs {_acc(new)})")
        rule = f"tcgen05 ordering hazard ({RULE}): an access to Tensor Memory that the program does not order " \
               f"after an unfinished asynchronous operation"
        msg = f"{port.warp.where()}: undefined behaviour: {rule}: {me}, {by}; the operation is not known complete " \
              f"to this warp: {why}{pipe}"
        raise Tcgen05Hazard(msg, rule=rule, where=port.warp.where(), detail=why)

    def _commits(self, o: Op):
        return [c for c in self.commit_log if c["issuer"] == o.issuer]

    # ------------------------------------------------------------------ ld / st (complete at wait::ld / wait::st)
    def ld_st(self, port, kind: str, tmem, lanes, cols, text: str) -> None:
        """A tcgen05.ld / st of ``port``'s warp touching (lanes, cols) of ``tmem``: checked, then recorded."""
        self.advance()
        if kind == "ld":
            self.check(port, text, [(tmem, lanes, cols)], [])
        else:
            self.check(port, text, [], [(tmem, lanes, cols)])
        op = self.new_op(port, kind, (port.key[0], port.key[1], kind), {"text": text})
        op.done = True  # nothing queued: it completes for the warp at its wait::ld / wait::st
        (tmem.r_op if kind == "ld" else tmem.w_op)[lanes, cols] = op.index

    def wait(self, port, kind: str) -> None:
        issuer = (port.key[0], port.key[1], kind)
        s = self.seq.get(issuer, 0)
        _join(port.k.act.done, {issuer: s})

    # ------------------------------------------------------------------ fences and thread synchronisation
    def fence(self, port, kind: str) -> None:
        k = port.k
        if kind == "before":
            k.pub = k.act.copy()
        else:
            k.act.join(k.sync)

    def thread_sync(self, senders, receivers) -> None:
        """A thread synchronisation: every warp in ``receivers`` learns what every warp in ``senders`` published."""
        acc = Clock()
        for key in senders:
            k = self.know.get(key)
            if k is not None:
                acc.join(k.published())
        if not acc.done and not acc.ordered:
            return
        for key in receivers:
            self.knowledge(key).sync.join(acc)

    def cluster_arrive(self, key) -> None:
        k = self.know.get(key)
        if k is not None:
            self.cbar_acc.join(k.published())

    def cluster_phase_done(self, phase: int) -> None:
        self.cbar_done[phase] = self.cbar_acc
        self.cbar_acc = Clock()

    def cluster_acquire(self, key, phase: int) -> None:
        c = self.cbar_done.get(phase)
        if c is not None:
            self.knowledge(key).sync.join(c)

    # ------------------------------------------------------------------ mbarriers
    def mbar_init(self, rank: int, off: int) -> None:
        self.bars[(rank, off)] = {"acc": Clock(), "phase": {}}

    def mbar_arrive(self, rank: int, off: int, clock: Clock, completed: bool, parity: int) -> None:
        """An arrival carrying ``clock`` on the mbarrier at (rank, off); ``completed``: it completed the phase of
        parity ``parity``."""
        b = self.bars.setdefault((rank, off), {"acc": Clock(), "phase": {}})
        b["acc"].join(clock)
        if completed:
            b["phase"][parity] = b["acc"]
            b["acc"] = Clock()

    def mbar_acquire(self, port, rank: int, off: int, parity: int) -> None:
        """``port``'s warp observed the completion of the phase of parity ``parity`` (try_wait/test_wait true)."""
        b = self.bars.get((rank, off))
        if b is not None and parity in b["phase"]:
            port.k.sync.join(b["phase"][parity])

    def commit(self, port, lane: int, targets, where: str, cta_group: int) -> None:
        """tcgen05.commit by ``lane``: one arrival on each (cta, offset) of ``targets`` once every earlier mma/cp/
        shift of this thread has completed. Implies tcgen05.fence::before_thread_sync."""
        self.advance()
        issuer = (port.key[0], port.key[1], lane)
        seq = self.seq.get(issuer, 0)
        last = None
        for o in reversed(self.queue):
            if o.issuer == issuer:
                last = o
                break
        port.k.pub = port.k.act.copy()
        clock = port.k.published()
        if seq:
            _join(clock.done, {issuer: seq})
            _join(clock.ordered, {issuer: seq})
        self.commit_log.append({"issuer": issuer, "seq": seq, "where": where})
        for cta, off in targets:
            self.arrivals.append({"op": last, "rank": cta.rank, "off": off, "clock": clock, "where": where,
                                  "issuer": issuer, "seq": seq})
        self.advance()

    def _arrive(self, a) -> None:
        from isa.semantics.mbarrier import arrive_bytes
        cta, off = self.cluster.ctas[a["rank"]], a["off"]
        from warpsim.cluster import shared_bytes
        completed, parity, _ = arrive_bytes(shared_bytes(cta), off, 1, a["where"], "tcgen05.commit")
        self.mbar_arrive(cta.rank, off, a["clock"], completed, parity)

    # ------------------------------------------------------------------ end of a CTA
    def finish(self, cta) -> None:
        self.advance(drain=True)

    # ------------------------------------------------------------------ the debugger's snapshots
    _FIXED = ("cluster", "launch", "timing", "policy")

    def state(self):
        """A copy of everything that changes (for reverse execution)."""
        import copy
        return copy.deepcopy({k: v for k, v in vars(self).items() if k not in self._FIXED})

    def set_state(self, state) -> None:
        import copy
        vars(self).update(copy.deepcopy(state))

    def image(self):
        ops = tuple((o.index, o.kind, o.issuer, o.seq, o.done, o.complete_at, _plain(o.writes)) for o in self.ops)
        return (ops, _plain({k: v for k, v in vars(self).items() if k not in self._FIXED and k != "ops"}))


def _acc(o: Op) -> str:
    i = o.info
    return f"[d-tmem] {i.get('acc', 0):#x} M{i.get('m')} N{i.get('n')} .kind::{i.get('kind')}"


def _pipelined(first: Op, second: Op) -> bool:
    """The pipelined pairs of PTX ISA 9.7.16.6.2 (same cta_group)."""
    if first.cta_group != second.cta_group:
        return False
    a, b = first.kind, second.kind
    if a == "mma" and b == "mma":
        i, j = first.info, second.info
        return (i.get("acc"), i.get("m"), i.get("n"), i.get("kind")) == (j.get("acc"), j.get("m"), j.get("n"),
                                                                       j.get("kind"))
    if b == "mma" and a in ("cp", "shift"):
        return True
    if a == "shift" and b == "cp" and second.info.get("shape") == "4x256b":
        return True
    return a == "mma" and b == "shift"


# ---------------------------------------------------------------------- shared memory: generic vs async proxy
class ProxyTracker:
    """Generic-proxy writes to one CTA's shared memory, for the async-proxy reads of tcgen05.mma and tcgen05.cp
    (PTX ISA 9.7.16.6.5): a byte that a warp wrote with an ordinary store must be covered by a later
    ``fence.proxy.async`` of that warp before an async-proxy operation reads it. (What this checks is the
    writer's fence; that the fence is ordered before the read by a thread synchronisation is not checked.)"""

    def __init__(self, size: int):
        self.warp = np.full(size, -1, np.int32)  # last generic-proxy writer (warp id) of each byte
        self.seq = np.zeros(size, np.int64)  # that warp's store count at the write
        self.count: dict[int, int] = {}
        self.fenced: dict[int, int] = {}  # warp id -> store count at its last fence.proxy.async
        self.where: dict[int, list] = {}  # warp id -> [(first store count, store instruction), ...]

    def store(self, warp, space: str, addr, nbytes: int) -> None:
        lanes = warp.active
        a = np.asarray(addr, dtype=np.uint64)
        if space == "generic":
            lanes = lanes & ((a >> np.uint64(40)) == 1)
            a = a - np.uint64(1 << 40)
        if not lanes.any():
            return
        wid = warp.warp_id
        c = self.count.get(wid, 0) + 1
        self.count[wid] = c
        idx = (a[lanes].astype(np.int64)[:, None] + np.arange(nbytes)).ravel()
        idx = idx[(idx >= 0) & (idx < len(self.warp))]
        self.warp[idx] = wid
        self.seq[idx] = c
        w = warp.where()
        hist = self.where.setdefault(wid, [])
        if not hist or hist[-1][1] != w:
            hist.append((c, w))

    def store_at(self, wid: int, seq: int) -> str:
        """The instruction that made store number ``seq`` of warp ``wid``."""
        hist = self.where.get(wid, [])
        i = bisect.bisect_right([c for c, _ in hist], seq) - 1
        return hist[i][1] if i >= 0 else "?"

    def fence(self, warp) -> None:
        self.fenced[warp.warp_id] = self.count.get(warp.warp_id, 0)

    # the debugger's snapshots: the arrays change only with shared-memory stores, the counters at fences too
    def arrays(self):
        return self.warp.copy(), self.seq.copy()

    def set_arrays(self, a) -> None:
        np.copyto(self.warp, a[0])
        np.copyto(self.seq, a[1])

    def counters(self):
        return dict(self.count), dict(self.fenced), {k: list(v) for k, v in self.where.items()}

    def set_counters(self, c) -> None:
        self.count, self.fenced, self.where = dict(c[0]), dict(c[1]), {k: list(v) for k, v in c[2].items()}

    def unfenced(self, addrs: np.ndarray) -> np.ndarray:
        """The addresses among ``addrs`` holding a generic-proxy write not yet fenced by its writer."""
        a = np.unique(addrs)
        a = a[(a >= 0) & (a < len(self.warp))]
        w = self.warp[a]
        top = int(w.max()) if len(w) else -1
        if top < 0:
            return a[:0]
        fenced = np.array([self.fenced.get(i, 0) for i in range(top + 1)], dtype=np.int64)
        bad = (w >= 0) & (self.seq[a] > fenced[np.maximum(w, 0)])
        return a[bad]


class _Recorded(np.ndarray):
    """A view of shared memory that records the index arrays it is read with (the bytes an async op reads)."""

    def __getitem__(self, idx):
        rec = getattr(self, "rec", None)
        if rec is not None and isinstance(idx, np.ndarray):
            rec.append(np.asarray(idx).ravel())
        return np.asarray(np.ndarray.__getitem__(self, idx))


def recorded(buf: np.ndarray) -> _Recorded:
    v = buf.view(_Recorded)
    v.rec = []
    return v


# ---------------------------------------------------------------------- the port a warp talks through
class Port:
    """What ``ExecContext.tcgen05()`` returns: one warp's access to its CTA's TMEM, the pair and the unit."""

    def __init__(self, cta, warp):
        self.cta, self.warp = cta, warp
        self.cluster = cta.cluster
        self.key = (cta.rank, warp.warp_id)

    @property
    def unit(self) -> TensorUnit:
        """The cluster's tensor unit (created on first use; the debugger may drop or replace it)."""
        u = self.cluster.unit
        if u is None:
            u = self.cluster.unit = TensorUnit(self.cluster, self.cta.launch)
        return u

    @property
    def k(self) -> Knowledge:
        return self.unit.knowledge(self.key)

    @property
    def tmem(self):
        return self.cta.tensor_memory()

    @staticmethod
    def tmem_of(cta):
        return cta.tensor_memory()

    def smem(self, cta=None) -> np.ndarray:
        from warpsim.cluster import shared_bytes
        return shared_bytes(cta or self.cta)

    def async_smem(self, cta) -> np.ndarray:
        """``cta``'s shared memory as an async-proxy operation reads it (recording which bytes)."""
        return recorded(self.smem(cta))

    def check_proxy(self, ctas, views, what: str) -> None:
        """The bytes an async-proxy operation read (``views`` from async_smem) must not hold an unfenced generic
        write (ub_policy 'error')."""
        if self.unit.policy != "error":
            return
        for cta, v in zip(ctas, views):
            if cta.proxy is None or not v.rec:
                continue
            bad = cta.proxy.unfenced(np.concatenate(v.rec))
            if len(bad):
                w = int(cta.proxy.warp[bad[0]])
                whose = f"warp {w}" + (f" of CTA rank {cta.rank}" if self.cluster.size > 1 else "")
                rule = (f"{what} reads shared memory through the async proxy (bytes {_span(bad)}, e.g. {int(bad[0]):#x}) "
                        f"that {whose} wrote through the generic proxy (at {cta.proxy.store_at(w, int(cta.proxy.seq[bad[0]]))})"
                        " with no fence.proxy.async of that warp after the write (PTX ISA 9.7.16.6.5)")
                raise Tcgen05Hazard.at(self.warp.where(), rule)

    def ctas(self, cta_group: int, what: str) -> list:
        """[this CTA] or the pair [even, odd] for cta_group::2."""
        if cta_group == 1:
            return [self.cta]
        self.cluster.peer(self.cta, self.warp.where(), what)
        return self.cluster.pair(self.cta)


def port(cta, warp) -> Port:
    p = warp.__dict__.get("_tc_port")
    if p is None or p.cluster is not cta.cluster:
        p = warp.__dict__["_tc_port"] = Port(cta, warp)
    return p


def finish_cta(cta) -> None:
    """CTA.finish: complete what is queued, then no TMEM may stay allocated."""
    unit = cta.cluster.unit
    if unit is not None:
        unit.finish(cta)
    if cta.tmem is not None and cta.tmem.allocs:
        exits = sorted({w.where() for w in cta.warps})
        try:
            cta.tmem.check_exit()
        except WarpsimError as e:
            e.args = (f"{e} [its warps ended at: {'; '.join(exits)}]",)
            raise
