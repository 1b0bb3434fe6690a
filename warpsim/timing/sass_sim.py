"""ptxas's SASS of an emulated mma loop, run instruction by instruction on one SM's sub-partitions.

The H100 has no pipe for the s4/u4 and e4m3/e5m2 ``mma`` forms: ptxas expands each into tens to hundreds of
ordinary instructions (LOP3/SHF/IMAD unpacking, F2FP, SHFL, HMMA/IMMA with zero accumulators, FADDs into C
and, where the registers run out, spill stores and fills to local memory). How long a loop trip of such a
kernel takes, alone or beside other warps, is what that SASS does on the SM's pipes. :func:`trip_cycles`
replays one loop trip (CALLed routines followed; ``warpsim.timing.sass_profile``) for every warp of one SM,
cycle by cycle, with the table's ``emulated["sass"]`` entry:

* a warp issues its instructions in order: the next one no earlier than the stall count of the control bits
  after the last (ptxas's fixed-latency schedule), plus a fetch redirect after CALL, RET and a taken BRA, and
  not before the variable-latency results its wait mask names (LDL, SHFL, LDC, S2R set scoreboards; a
  scoreboard counts the results outstanding on it, so a wait is for the last of them to return, not for the one
  issued last);
* each sub-partition issues at most one instruction per cycle: the warp whose turn it is if it can, else the
  next that can in round-robin order after it. The turn is the warp's that issued last while the one before
  waits no more than ``hold`` cycles on its own stall count; with ``yield_switch`` (the table's) an instruction
  with the yield flag passes it on (below), and with ``gap_turn`` a warp that issues an instruction to another
  pipe than the ALU while the turn's warp waits out its stall count takes it. An instruction of ``keep_ops``
  whose control bits clear the yield flag keeps the sub-partition through its stall count, at most
  ``keep_cycles``: no other warp issues until then. Each instruction goes to its pipe, which takes a warp
  instruction every ``ii`` cycles: ALU (LOP3, SHF, IADD3, SEL, PRMT, ...), FMA-heavy (IMAD; FADD/FFMA/FMUL
  take FMA-heavy or FMA-lite), tensor (HMMA/IMMA at their group's ii), MIO (SHFL, LDL, STL, LDC, S2R), which
  also takes one instruction of a warp every ``mio_warp_ii`` cycles and one of the SM every ``mio_sm_ii``; for
  ``mio_hold`` cycles after an SHFL, S2R or LDC its sub-partition dispatches no other warp's non-MIO instruction;
  local stores pass the SM's store port, one line every ``l1["store_ii"]`` cycles, a store issuing when at
  most ``l1["store_queue"]`` cycles of stores are before it (``traces/h100/l1_rate.json``; with either SM-wide
  limit on the sub-partitions take turns going first, each sub-partition once a cycle);
* local memory (the spills) goes through the SM's L1: a spill slot of a warp is one 128-byte line (lanes
  interleaved), the L1 holds ``l1["lines"]`` lines in ``l1["ways"]``-way LRU sets, one line access per
  ``l1["line_ii"]`` cycles; a fill that hits returns after ``l1["hit"]`` cycles; a line not in the L1 (a
  store's too: write-allocate) is fetched, one every ``l1["fill_ii"]`` cycles, and there ``l1["miss"]``
  cycles later; a local store's read scoreboard (a later instruction that overwrites its source register
  waits on it) clears ``l1["store_read"]`` cycles after the L1 takes the store (2 unless set; any other
  instruction's 2 cycles after it issues). The first trip also pays the first touch of every slot, and the L1
  is not empty then: with ``stale`` > 0 (the table's default) it is full of lines no warp of the loop touches,
  ranked in the LRU order as if used at the loop's ``stale``-th line access, so that until then the loop's new
  lines of a set evict each other first (fitted to the sparse fp8 first trips, ``params_sm90``; what the H100's
  L1 holds then is not known: the first trips run so even after a launch that resets it,
  ``traces/h100/l1_state.json``, and longer after others); ``stale`` 0 starts it empty.
* the instruction fetch (``fetch``, ``traces/h100/ifetch.json``, ``warpsim.timing.ifetch``): given the code
  line of each instruction (``Loop(..., code_lines)``, ``sass_profile.trip_lines``), a warp issues only when
  the 128-byte line of its next instruction is in its sub-partition's L0 (``l0_lines`` lines, LRU); issuing
  the first instruction of a line it asks for the ``ahead`` lines of the loop's code after it; a line not in
  the L0 is there ``latency`` cycles after it is asked for, from the SM's instruction cache (``l1i_lines``),
  or ``l2_latency`` after it passes the SM's port to the L2 (one line every ``l2_ii`` cycles) when that cache
  has not got it either; ``ii`` > 0 would make the L0 a port of its own. The caches start holding the loop's
  lines, the last ones most recent (a launch finds the code of the launches before it); without code lines
  or with ``l0_lines`` 0 there is no fetch limit. A sub-partition keeps its last ``near_lines`` lines near
  (those its warps started lately): a CALL, RET or taken BRA to a line not among them waits ``near_miss``
  cycles past its redirect (``traces/h100/branch_fetch.json``, ``warpsim.timing.ifetch --branch``).
* the register file's banks (``banks``; ``traces/h100/regbank.json``): given each instruction's register
  operands (``Loop(..., operands)``, ``sass_profile.trip_operands``), an instruction issues only when the banks
  (register number mod 2) of the registers it reads are free, and holds each one cycle a register it reads
  there; an operand flagged ``.reuse`` is served from the sub-partition's reuse cache to the same warp's
  instructions among the next :data:`REUSE_SPAN` the sub-partition issues that read a register, in the same
  operand slot. With ``bank_freeze`` an FMA-pipe instruction that reads more than one register from a bank stops
  the stall counts of the sub-partition's other warps for each cycle past the first it reads there (``_freeze``;
  ``traces/h100/regbank_slack.json``, ``warpsim.timing.ifetch --slack``; the ALU's do not,
  ``traces/h100/regbank_alu.json``).
* the L1's options, off by default (``traces/h100/l1_probe.json`` measured the L1 itself; none of them fits its runs
  and the timing table together): ``policy`` (``POLICIES``, DIP among them), ``hash``, ``local`` (a usable
  fraction), ``store_miss``, ``last_use`` with ``last_use_share`` (the share of LDL.LU that act on their
  line), ``wide`` (``{"warps": n, "lines": m}``: ``m`` lines when more than ``n`` warps run: a wider CTA gets
  a larger L1 from the driver's carveout, 240 KB for 512 threads where 32-256 get 224 KB), ``in_order`` (a
  warp's loads return in order: none before the one it issued last; the H100's do not,
  ``traces/h100/l1_fill.json``), ``fill_port`` (a fill takes the SM's store port for ``fill_ii`` cycles
  instead of a fill port of its own: the H100's load misses and stores share the way to the L2,
  ``warpsim.timing.l1_fill``), ``miss_spread`` (a seed: each line's misses take ``miss`` plus its own draw
  from the spread the H100's lone misses showed, 259-324 cycles about a median of 300, ``l1_fill.chase_spread``;
  the seed picks which lines are slow, as a launch's placement might), ``store_sp_ii`` (a local store holds its
  sub-partition's MIO that many cycles a line: mixed loads and stores from one sub-partition then pass at the
  H100's ~0.33 a cycle, ``warpsim.timing.l1_rate``). ``Loop.l1_counts`` gives the loads,
  stores and misses the replay's L1 saw (``warpsim.timing.l1_counters`` sets them beside the H100's counters).
  ``yield_switch``: after an instruction with the yield flag the next warp in turn goes first (``yield_order``
  "lru": the warp of the sub-partition that issued least recently; the same for two warps, and closer to the
  H100 with three or four, ``traces/h100/TIMING_FINDINGS.md``). With ``hold`` 1 that is what the H100 does
  (``sched_probe``, ``traces/h100/sched_probe.json``: two warps on one sub-partition, yield flags as ptxas set
  them or patched); ``gap_turn`` leaves those runs as they are and makes two warps of the same s4 loop part
  where the H100's part (``params_sm90``), though beside a hog on the FMA pipes it has the hog take the turn
  more often than the H100's does (``traces/h100/sched_gap.json``; by the stall count it fills,
  ``traces/h100/gap_stall.json``, ``warpsim.timing.gap_stall``). ``yield_bubble``: an instruction with the yield
  flag costs its warp a cycle even alone (``gap_stall.json``). Without ``yield_switch`` the issue is greedy
  (the table before 2026-11-27). ``stagger`` (cycles, 0): the k-th warp of a sub-partition starts the loop
  k x ``stagger`` cycles after the first (``warpsim.timing.pair_modes``); a negative one starts the later warps
  first (``warpsim.timing.loop_delay``: the H100's pairs lock by which warp leads).

:func:`issue` runs warps with programs of their own on one sub-partition (a microbenchmark's warps).
``Loop.stalls`` accounts for every cycle of every warp as Nsight Compute's warp states (:data:`STALLS`), for
``warpsim.timing.stall_reasons`` to set beside the H100's (``traces/h100/stall_reasons.json``).
"""
from __future__ import annotations

import hashlib
from collections import OrderedDict
from functools import lru_cache

import numpy as np
from numba import njit

#: pipes of the program arrays (column of a sub-partition's free times)
NONE, ALU, FMAH, FMAL, TENSOR, MIO = range(6)
#: the columns of ``free`` after the pipes': until when, and for which warp's benefit, the sub-partition
#: dispatches no other warp's non-MIO instruction (``mio_hold``)
HOLD_TO, HOLDER = 6, 7
#: the columns after those: until when each of the register file's two banks (register number mod 2) is reading
#: (``banks``: an instruction reads its source registers, one a cycle from each bank)
BANK0, BANK1 = 8, 9
#: operand slots an instruction's register operands are kept in (``banks``: the reuse cache has one a slot)
SLOTS = 4
#: the instructions after one that flags an operand for reuse that the cache serves it to (``banks``), counting
#: those of the sub-partition that read a general register
REUSE_SPAN = 2
#: a run whose every warp has run the same trip (cycles, L1 counts, the store and fill queues as it ends) this many
#: times over, and has ended one lately, is taken as periodic: its later trips are the last one again
#: (``_extrapolate``; ``settle`` False in the table runs every trip). Not exact: the warps that end first leave
#: the others the pipes for their last trips; over the recorded emulated configurations (32 trips) the replay
#: moves by at most 0.19 points (dense e4m3 ILP 1 with 11 warps; the s4 loops 0.02), and runs in 0.7x the time
SETTLED = 4
#: instructions a warp that the replays of the microbenchmark probes run at least (:func:`probe_cfg`)
PROBE_INSTRUCTIONS = 20000
#: memory access kinds
LOCAL_LOAD, LOCAL_STORE, LOCAL_LOAD_LU = 1, 2, 3
#: what an LDL.LU (last use) does to its line (``l1["last_use"]``)
LAST_USE = {"keep": 0, "evict_first": 1, "invalidate": 2}
NO_SCOREBOARD = 7
#: the columns of the L1 counts (``Loop.l1_counts``): local lines loaded, of them missed, stored, of them missed
COUNTS = ("load", "load_miss", "store", "store_miss")
#: L1 replacement policies and set-index functions (``l1["policy"]``, ``l1["hash"]``)
POLICIES = {"lru": 0, "random": 1, "bip": 2, "srrip": 3, "plru": 4, "lip": 5, "brrip": 6, "dip": 7}
#: DIP (``l1["policy"] = "dip"``, Qureshi et al., ISCA 2007): every ``DIP_LEADER``-th set is an LRU leader, the
#: next one a BIP leader; a miss in an LRU leader counts the selector up, one in a BIP leader down, and the
#: other sets insert as BIP while it is at least half of ``DIP_MAX`` (the selector lives in ``stamp[sets, 0]``)
DIP_LEADER, DIP_MAX = 32, 1024
HASHES = {"fold": 0, "mix": 1, "mod": 2}
#: who goes after a yield (``yield_order``): the next warp in turn, or the one of the sub-partition that issued
#: least recently (the same for two warps)
YIELD_ORDERS = {"turn": 1, "lru": 2}
#: what a warp does in a cycle (``Loop.stalls``), named as Nsight Compute's warp states
#: (``smsp__warps_issue_stalled_<reason>``, ``traces/h100/stall_reasons.json``): it issues (``selected``); it
#: could, but another warp does (``not_selected``) or keeps the sub-partition (``dispatch_stall``); it waits
#: out its stall count (``wait``) or the fetch redirect after CALL/RET/BRA (``branch_resolving``); for a local
#: load's result (``long_scoreboard``) or another variable-latency one (SHFL, LDC, S2R: ``short_scoreboard``);
#: for the MIO's turn with LDL/STL (``lg_throttle``) or another MIO op (``mio_throttle``); for its pipe
#: (``math_pipe_throttle``); for its next code line (``no_instruction``)
STALLS = ("selected", "not_selected", "wait", "branch_resolving", "long_scoreboard", "short_scoreboard",
          "lg_throttle", "mio_throttle", "math_pipe_throttle", "no_instruction", "dispatch_stall")
(SELECTED, NOT_SELECTED, WAIT, BRANCH, LONG_SB, SHORT_SB, LG_THROTTLE, MIO_THROTTLE, MATH_THROTTLE,
 NO_INSTRUCTION, DISPATCH_STALL) = range(len(STALLS))
#: the issue options of the table until 2026-11-27 (greedy: the warp that issued last goes on through waits of
#: up to 2 cycles; the CALL/RET redirects fitted as 20 + 20; a non-yielding BRA holding its whole stall count; a
#: branch to a line not run lately costing no more than another; no register banks, a hold of two cycles after an
#: SHFL, every warp starting the loop at once),
#: for the analyses that set the rules side by side (``table_loop(kernel, **GREEDY)``)
GREEDY = {"yield_switch": False, "gap_turn": False, "hold": 2, "keep_cycles": 0,
          "redirect": {"CALL": 20, "RET": 20, "BRA": 6}, "fetch": {"near_lines": 0}, "banks": False, "mio_hold": 2,
          "stagger": 0, "bank_freeze": False, "yield_bubble": False}
#: the yield rule as ``sched_probe`` measured it, on that table's other options (the analyses before the table
#: took it: ``pair_modes``, ``trip_phase``)
YIELD = dict(GREEDY, yield_switch=True, hold=1)
#: the instruction fetch's options (``fetch``), in the order ``_run`` takes them
FETCH = ("l0_lines", "ii", "latency", "ahead", "l1i_lines", "l2_ii", "l2_latency", "near_lines", "near_miss")


def _arrays(lines: list[str], cfg: dict, tensor: dict, code_lines=None, operands=None) -> dict:
    """The numba program arrays of ``lines`` (``sass_profile.encode`` format) under the table ``cfg``;
    ``code_lines``: the 128-byte code line of each (``sass_profile.trip_lines``), for the instruction fetch;
    ``operands``: each one's register operands (``sass_profile.encode_operands``), for ``banks``."""
    n = len(lines)
    rk = np.full((n, SLOTS, 3), -1, np.int64)  # per operand slot: first register, registers, reuse flag
    if cfg.get("banks") and operands is not None:
        from warpsim.timing.sass_profile import decode_operands
        for i, word in enumerate(operands):
            for slot, reg, count, flag in decode_operands(word):
                if slot < SLOTS:
                    rk[i, slot] = reg, count, flag
    a = {k: np.zeros(n, np.int64) for k in ("pipe", "ii", "stall", "keep", "wb", "rb", "wait", "lat",
                                             "mem", "line", "nlines", "yld", "redir", "mhold")}
    a["iline"] = np.full(n, -1, np.int64) if code_lines is None else np.asarray(code_lines, np.int64)
    a["known"] = np.zeros(int(a["iline"].max()) + 2, np.int64)  # the lines of the loop's code
    a["known"][a["iline"][a["iline"] >= 0]] = 1
    pipe_of = {op: p for p, ops in ((ALU, cfg["alu_ops"]), (FMAH, cfg["fma_heavy_ops"]),
                                    (FMAL, cfg["fma_ops"]), (MIO, cfg["mio_ops"])) for op in ops}
    ii = {ALU: cfg["alu_ii"], FMAH: cfg["fma_ii"], FMAL: cfg["fma_ii"], MIO: 0}
    for i, line in enumerate(lines):
        f = line.split()
        op = f[0]
        base = op.split(".")[0]
        if base in ("HMMA", "IMMA"):
            p, cyc = TENSOR, tensor[cfg["tensor_groups"][op]]["ii"]
        else:
            p = pipe_of.get(base, NONE)
            cyc = ii.get(p, 0)
        a["pipe"][i], a["ii"][i] = p, int(cyc)
        a["redir"][i] = cfg["redirect"].get(base, 0)
        if p == MIO and base not in ("LDL", "STL"):  # SHFL, S2R, LDC: the sub-partition dispatches no other
            a["mhold"][i] = int(cfg.get("mio_hold", 0))  # warp's non-MIO instruction for mio_hold cycles after it
        a["stall"][i] = int(f[1]) + a["redir"][i]
        a["yld"][i] = 1 - int(f[2])  # the yield flag (``yield_switch``)
        if int(f[2]) and base in cfg.get("keep_ops", ()):  # not yielding: keeps the sub-partition
            # through its stall count (the fetch redirect not included), at most ``keep_cycles`` (0: all of it)
            k = int(cfg.get("keep_cycles", 0))
            a["keep"][i] = min(int(f[1]), k) if k > 0 else int(f[1])
        a["wb"][i], a["rb"][i], a["wait"][i] = int(f[3]), int(f[4]), int(f[5])
        a["lat"][i] = cfg["latency"].get(base, 0)
        if base in ("LDL", "STL"):
            a["mem"][i] = (LOCAL_LOAD_LU if op == "LDL.LU" else LOCAL_LOAD) if base == "LDL" else LOCAL_STORE
            a["line"][i], a["nlines"][i] = int(f[6]) // 4, int(f[7]) // 4
    a["rk"] = rk
    return a


def _frame_lines(a: dict) -> int:
    """Lines of one warp's local-memory frame (the highest spill line the program touches, at least 1)."""
    return int(max((a["line"] + a["nlines"]).max(), 1))


class Loop:
    """The program arrays of one loop trip (numba input) and the per-population results, cached."""

    def __init__(self, lines: list[str], cfg: dict, tensor: dict, code_lines=None, operands=None):
        self.arrays = a = _arrays(lines, cfg, tensor, code_lines, operands)
        self.frame_lines = _frame_lines(a)
        self.cfg = cfg
        self._got: dict = {}
        self._counts: dict = {}
        self._stalls: dict = {}

    def cycles(self, population: tuple) -> list:
        """``[(first trip, later trip)]`` per sub-partition (the mean of its warps; 0 where none) with
        ``population[s]`` warps of the loop on sub-partition s."""
        if population not in self._got:
            self._simulate(population)
        return self._got[population]

    def later(self, population: tuple) -> float:
        """A warp's cycles a later trip with ``population`` (see :meth:`cycles`), the mean over all its warps."""
        return sum(trip[1] * n for trip, n in zip(self.cycles(population), population)) / sum(population)

    def l1_counts(self, population: tuple) -> tuple:
        """The L1's local-memory counts a warp (:data:`COUNTS`) in its first trip and in a later one (the mean
        of the trips after the first) with ``population`` warps of the loop (see :meth:`cycles`)."""
        self.cycles(population)
        return self._counts[population]

    def stalls(self, population: tuple) -> tuple:
        """What the warps did, cycle by cycle (:data:`STALLS`), with ``population`` warps of the loop: ``(first,
        later)``, the cycles of all warps in each state in their first trip and in a later one (the mean of the
        trips after the first). The same run as :meth:`cycles` (whose results it keeps too), with the account
        kept."""
        if population not in self._stalls:
            self._simulate(population, account=True)
        return self._stalls[population]

    def trip_ends(self, population: tuple, trips: int) -> np.ndarray:
        """Each warp's trip-end cycles (``[warp, trip]``, the warps in CTA order: warp id mod 4 the sub-partition)
        with ``population`` warps of the loop running ``trips`` trips, every trip run."""
        return self._run(population, trips, settle=False)[2]

    def issue_log(self, population: tuple, trips: int) -> np.ndarray:
        """Each warp's issue cycle of every instruction (``[warp, instruction]``, the warps in CTA order) with
        ``population`` warps of the loop running ``trips`` trips, every trip run."""
        log = np.zeros((sum(population), len(self.arrays["pipe"]) * trips), np.int64)
        self._run(population, trips, settle=False, log=log)
        return log

    def _run(self, population, trips, settle=True, counts=None, stalls=None, log=None):
        """``(sp_of, start, ends)`` of one run of ``population`` (each warp's sub-partition and start cycle, the
        warps in CTA order, and ``_issue``'s trip ends; ``log``, if given, gets the issue cycles)."""
        order = [(s, k) for k in range(max(population)) for s in range(len(population)) if population[s] > k]
        sp_of = np.array([s for s, _ in order], np.int64)
        start = np.array([k for _, k in order], np.int64) * int(self.cfg.get("stagger", 0))
        start -= start.min()  # a negative stagger: the later warps of a sub-partition start first
        c, a, l1 = self.cfg if settle else dict(self.cfg, settle=False), self.arrays, self.cfg["l1"]
        lines = int(l1["lines"])
        if l1.get("wide") and sum(population) > int(l1["wide"]["warps"]):  # a wider CTA: the driver's carveout
            lines = int(l1["wide"]["lines"])  # leaves a larger L1 (traces/h100/l1_probe.json)
        nw = len(sp_of)
        ends = _issue(a, c, sp_of, np.zeros(nw, np.int64), np.full(nw, len(a["pipe"]), np.int64),
                      start, np.full(nw, trips, np.int64), self.frame_lines, lines, log=log, counts=counts,
                      stalls=stalls)
        return sp_of, start, ends

    def _simulate(self, population, account=False):
        """One run of ``population``: its trip cycles and L1 counts, and with ``account`` its warps' states,
        into the caches of :meth:`cycles`, :meth:`l1_counts` and :meth:`stalls`."""
        c, a = self.cfg, self.arrays
        trips = max(int(c["trips"]), -(-int(c.get("instructions", 0)) // len(a["pipe"])), 2)
        nw = sum(population)
        counts = np.zeros((2, 4), np.int64)
        stalls = np.zeros((2, nw, len(STALLS)) if account else (0, 0, 0), np.int64)
        sp_of, start, ends = self._run(population, trips, counts=counts, stalls=stalls)
        if account:
            self._stalls[population] = (stalls[0].sum(axis=0).astype(float), stalls[1].sum(axis=0) / (trips - 1))
        first = (ends[:, 0] - start).astype(float)
        later = (ends[:, -1] - ends[:, 0]) / (trips - 1)
        self._counts[population] = (counts[0] / nw, counts[1] / (nw * (trips - 1)))
        self._got[population] = [(float(first[sp_of == s].mean()), float(later[sp_of == s].mean())) if n
                                 else (0.0, 0.0) for s, n in enumerate(population)]


def prefetch(jobs, processes: int | None = None) -> None:
    """Run ``jobs`` (``(loop, population)`` or ``(loop, population, account)``: :meth:`Loop.cycles`, or with
    ``account`` :meth:`Loop.stalls`) in parallel, in forked workers one per CPU (``processes``;
    ``warpsim.parallel.fork_map``), into the loops' caches and :func:`_remembered`'s: the same numbers as
    running them one by one (a population asked for with and without ``account`` runs once, accounted, as
    :meth:`Loop.stalls` then :meth:`Loop.cycles` would), in a fraction of the time on several cores."""
    from warpsim import parallel
    want: dict = {}
    for lp, pop, *acc in jobs:
        key = (lp, tuple(pop))
        want[key] = want.get(key, False) or bool(acc and acc[0])
    todo = [(lp, pop, acc) for (lp, pop), acc in want.items() if pop not in (lp._stalls if acc else lp._got)]
    for (lp, pop, acc), (got, counts, stalls, runs) in zip(todo, parallel.fork_map(_prefetch_job, todo,
                                                                                    processes)):
        lp._got[pop], lp._counts[pop] = got, counts
        if acc:
            lp._stalls[pop] = stalls
        for key, value in runs:
            _RUNS[key] = value
    while len(_RUNS) > RUNS_MAX:
        _RUNS.popitem(last=False)


def _prefetch_job(job):
    """One job of :func:`prefetch`: its results and the runs it added to ``_RUNS`` (in a worker, or here)."""
    lp, pop, acc = job
    before = set(_RUNS)
    lp._simulate(pop, account=acc)
    return (lp._got[pop], lp._counts[pop], lp._stalls.get(pop) if acc else None,
            [(k, v) for k, v in _RUNS.items() if k not in before])


def population(warps: int) -> tuple:
    """Warps 0..warps-1 of a CTA over the four sub-partitions (warp id mod 4): how many on each."""
    return tuple(warps // 4 + (1 if s < warps % 4 else 0) for s in range(4))


def table_cfg(l1: dict | None = None, **overrides) -> dict:
    """A copy of ``params_sm90``'s ``emulated["sass"]`` entry with ``overrides`` of its keys (a dict updates the
    entry's dict of that name: ``fetch={"l0_lines": 0}``) and ``l1`` of its L1's."""
    import copy
    from warpsim.timing.params_sm90 import TABLE
    cfg = copy.deepcopy(TABLE["emulated"]["sass"])
    for key, value in dict(overrides, l1=l1 or {}).items():
        if isinstance(value, dict) and isinstance(cfg.get(key), dict):
            cfg[key].update(value)
        else:
            cfg[key] = value
    return cfg


def probe_cfg(l1: dict | None = None, **overrides) -> dict:
    """:func:`table_cfg` for the replay of a microbenchmark probe (l1_rate, l1_fill, ifetch, chain_latency): its
    loop is short and the H100 ran thousands of trips, so each warp runs at least :data:`PROBE_INSTRUCTIONS`
    instructions, every trip run (``settle`` off: the early stop took l1_rate's store probe with 6 warps, whose
    warps take the store port in turns of whole trips, as periodic too soon, 0.14 stores a cycle against the full
    run's 0.32), and its warps start together (``stagger`` 0: the table's start apart is the timing kernels'
    prologue), unless ``overrides`` says otherwise."""
    return table_cfg(l1, **{"instructions": PROBE_INSTRUCTIONS, "settle": False, "stagger": 0, **overrides})


def table_loop(kernel: str, l1: dict | None = None, **overrides) -> Loop:
    """The loop of ``kernel`` (e.g. ``sp_e4m3_k64_f32_ilp4``; its sm_90 SASS on file,
    ``sass_profile.kernel_loop``) under :func:`table_cfg` (``l1``, ``overrides``)."""
    from warpsim.timing import sass_profile
    from warpsim.timing.params_sm90 import TABLE
    prof = sass_profile.kernel_loop(kernel, "sm_90")
    return profile_loop(prof, table_cfg(l1, **overrides), TABLE["tensor"])


def profile_loop(prof: dict, cfg: dict, tensor: dict) -> Loop:
    """The :class:`Loop` of a ``sass_profile`` loop profile under the table ``cfg``: its trip, code lines and
    register operands."""
    from warpsim.timing import sass_profile
    return Loop(sass_profile.trip(prof), cfg, tensor, sass_profile.trip_lines(prof),
                sass_profile.trip_operands(prof))


def _issue(a, c, sp_of, first, stop, start, want, frame_lines, lines, log=None, counts=None, stalls=None):
    """``_run`` of the program arrays ``a`` under the table ``c``: warp w runs ``a[first[w]:stop[w]]``
    ``want[w]`` times from cycle ``start[w]`` on sub-partition ``sp_of[w]``, with an L1 of ``lines`` lines
    (``log[w]``, if given, gets the issue cycles of warp w's first instructions; ``stalls[trip > 0, w]``, if
    given, its cycles in each of the :data:`STALLS`)."""
    l1, f = c["l1"], c.get("fetch", {})
    log = np.zeros((len(sp_of), 0), np.int64) if log is None else log
    counts = np.zeros((2, 4), np.int64) if counts is None else counts
    stalls = np.zeros((0, 0, 0), np.int64) if stalls is None else stalls
    args = (a["pipe"], a["ii"], a["stall"], a["keep"], a["wb"], a["rb"], a["wait"], a["lat"], a["mem"],
            a["line"], a["nlines"], a["yld"], sp_of, first, stop, start, want, frame_lines,
            max(int(lines * float(l1.get("local", 1.0))) // int(l1["ways"]), 1), int(l1["ways"]),
            int(l1["hit"]), int(l1["miss"]), int(l1["line_ii"]), int(l1["fill_ii"]), int(c["mio_ii"]),
            int(c["hold"]), YIELD_ORDERS[c.get("yield_order", "turn")] if c.get("yield_switch") else 0,
            POLICIES[l1.get("policy", "lru")],
            HASHES[l1.get("hash", "fold")], l1.get("store_miss", "fetch") == "validate",
            LAST_USE[l1.get("last_use", "keep")], int(round(1000 * float(l1.get("last_use_share", 1.0)))),
            int(l1.get("stale", 0)), bool(l1.get("in_order", False)), int(c.get("mio_warp_ii", 0)),
            int(c.get("mio_sm_ii", 0)), int(l1.get("store_ii", 0)), int(l1.get("store_queue", 0)),
            bool(l1.get("fill_port", False)), a["iline"], a["known"],
            np.array([int(f.get(k, 0)) for k in FETCH], np.int64), log, counts, a["redir"], a["mhold"], stalls,
            SETTLED if c.get("settle", True) else 0, int(l1.get("store_read", 2)), _miss_spread(l1),
            int(l1.get("miss_spread", 0)), int(l1.get("store_sp_ii", 0)), bool(c.get("gap_turn", False)),
            a["rk"], bool(c.get("bank_freeze", False)), bool(c.get("yield_bubble", False)))
    return _remembered(_run, args, (log, counts, stalls))


#: runs kept by :func:`_remembered` (most recent last) and how many at most; runs whose filled arrays (an issue
#: log) and trip ends hold more than ``RUNS_LOG_MAX`` numbers are not kept (at most 1,024 x 512 KB)
_RUNS: OrderedDict = OrderedDict()
RUNS_MAX, RUNS_LOG_MAX = 1024, 1 << 16


def _remembered(run, args: tuple, filled: tuple):
    """``run(*args)``, or what an earlier call with the same arguments gave: ``_run`` is a pure function of
    its inputs (the program arrays, the table's numbers, and the zeroed arrays ``filled`` it writes: the issue
    log, the L1 counts, the warp states), so a run with equal inputs, byte for byte, is the same run. The
    analyses and the tests replay many loops under the same table again and again; the key is every
    argument's content, so a changed table, array or module constant passed in is a new run."""
    h = hashlib.blake2b(run.__qualname__.encode(), digest_size=20)
    for x in args:
        if isinstance(x, np.ndarray):
            h.update(f"{x.dtype.str}{x.shape}".encode())
            h.update(np.ascontiguousarray(x).tobytes())
        else:
            h.update(f"{type(x).__name__}:{x!r};".encode())
    key = h.digest()
    if key in _RUNS:
        _RUNS.move_to_end(key)
        ends, after = _RUNS[key]
        for x, y in zip(filled, after):
            x[...] = y
        return ends.copy()
    ends = run(*args)
    if ends.size + sum(x.size for x in filled) <= RUNS_LOG_MAX:
        _RUNS[key] = (ends.copy(), [x.copy() for x in filled])
        if len(_RUNS) > RUNS_MAX:
            _RUNS.popitem(last=False)
    return ends


def _miss_spread(l1: dict) -> np.ndarray:
    """The spread of the miss latency about ``l1["miss"]`` a line draws from (``l1["miss_spread"]``: the
    H100's, ``l1_fill.chase_spread``), or none."""
    return _h100_miss_spread() if l1.get("miss_spread") else np.zeros(0, np.int64)


@lru_cache(maxsize=1)
def _h100_miss_spread() -> np.ndarray:
    """``l1_fill.chase_spread()`` of the file on record, read once (every run with a spread takes it)."""
    from warpsim.timing import l1_fill
    return l1_fill.chase_spread()


def issue(programs: list, starts: list, trips: list, cfg: dict, tensor: dict, code_lines=None,
          operands=None) -> list:
    """Warps with programs of their own on one sub-partition (a microbenchmark's warps): warp w runs
    ``programs[w]`` (encoded SASS lines) ``trips[w]`` times from cycle ``starts[w]``; per warp the cycle
    each of its instructions issued (in order, all trips). ``code_lines[w]``: the code line of each
    instruction of ``programs[w]``, for the instruction fetch (warps that share code give the same lines);
    ``operands[w]``: the register operands of each (``sass_profile.encode_operands``), for ``banks``."""
    a = _arrays([x for prog in programs for x in prog], cfg, tensor,
                None if code_lines is None else [x for lines in code_lines for x in lines],
                None if operands is None else [x for ops in operands for x in ops])
    sizes = np.array([len(p) for p in programs], np.int64)
    issued = sizes * np.array(trips, np.int64)
    stop = np.cumsum(sizes)
    log = np.zeros((len(programs), issued.max()), np.int64)
    _issue(a, cfg, np.zeros(len(programs), np.int64), stop - sizes, stop, np.array(starts, np.int64),
           np.array(trips, np.int64), _frame_lines(a), int(cfg["l1"]["lines"]), log)
    return [log[w, :n] for w, n in enumerate(issued)]


class SassStage:
    """An emulated mma of a profiled loop: ``per_trip`` of them make one trip of ``loop``; the engine spends
    ``own`` cycles a trip on the loop-control instructions (counter, compare, branch) itself."""

    def __init__(self, loop: Loop, per_trip: int, own: float):
        self.loop, self.per_trip, self.own = loop, per_trip, own

    def cycles(self, population: tuple, sp: int, first: bool) -> float:
        """Cycles of one emulated mma of a warp on sub-partition ``sp`` in its first trip or a later one."""
        trip = self.loop.cycles(population)[sp][0 if first else 1]
        return max(trip - self.own, 1.0) / self.per_trip


@njit(cache=True)
def _run(pipe, ii, stall, keep, wb, rb, wait, lat, mem, line, nlines, yld, sp_of, first, stop, start, want,
         frame_lines, sets, ways, hit_lat, miss_lat, line_ii, fill_ii, mio_ii, hold, yield_switch, policy, hsh,
         validate, last_use, lu_permille, stale, in_order, mio_warp_ii, mio_sm_ii, store_ii, store_queue,
         fill_port, iline, known, fp, log, counts, redir, mhold, stalls, settled, store_read, spread,
         seed, store_sp_ii, gap_turn, rk, bank_freeze, yield_bubble):
    """Cycle of the end of every trip of every warp (``ends[warp, trip]``); the issue cycles of each warp's
    first ``log.shape[1]`` instructions go to ``log``; ``counts[trip > 0]`` gets the local lines loaded, the
    loads that missed, the lines stored and the stores that missed (:data:`COUNTS`); ``stalls[trip > 0, w]``
    (unless empty) warp w's cycles in each of the :data:`STALLS`."""
    nw = sp_of.shape[0]
    nsp = sp_of.max() + 1
    pos = first.copy()
    nxt = start.copy()
    issued_at = np.zeros(nw, np.int64)  # the cycle each warp issued last (``yield_order`` "lru")
    sb = np.zeros((nw, 8), np.int64)
    done = np.zeros(nw, np.int64)
    nlog = np.zeros(nw, np.int64)
    ends = np.zeros((nw, want.max()), np.int64)
    free = np.zeros((nsp, 10), np.int64)
    # each sub-partition's reuse cache: register, warp and issue count a slot; its issue count
    rc = np.full((nsp, SLOTS + 1, 3), -1, np.int64)
    rc[:, SLOTS, 0] = 0
    last = -np.ones(nsp, np.int64)
    kept = -np.ones(nsp, np.int64)  # the warp that keeps sub-partition s (its last instruction did not yield)
    kept_to = np.zeros(nsp, np.int64)  # ... until this cycle at the latest
    tags = -np.ones((sets, ways), np.int64)
    stamp = np.zeros((sets + 1, ways), np.int64)  # the last row: policy state of the whole L1 (DIP's selector)
    fill = np.zeros((sets, ways), np.int64)
    if stale > 0:  # the L1 starts full of lines no warp of the loop touches, as recent as its stale-th access
        for s0 in range(sets):
            for a0 in range(ways):
                tags[s0, a0] = nw * frame_lines + s0 * ways + a0
                stamp[s0, a0] = stale
    wmio = np.zeros(nw, np.int64)  # the cycle warp w may issue its next MIO instruction
    # the SM's next MIO cycle, its store port's, the queue; the sub-partition that goes first
    port = np.array([0, 0, store_queue, 0], np.int64)
    fair = mio_sm_ii > 0 or store_ii > 0
    l1_free = 0
    # the instruction fetch (``fetch``, :data:`FETCH` in ``fp``; on with an L0 and code lines): a warp issues
    # when the line of its next instruction is in its sub-partition's L0 (``fready``)
    fetch = fp[0] > 0 and iline[0] >= 0
    ic = _code_caches(nsp, fp, known) if fetch else np.zeros((nsp + 1, 3, 1), np.int64)
    # the lines a sub-partition fetched last (``near_lines``): a branch to a line not among them costs
    # ``near_miss`` cycles more than its redirect
    near = fetch and fp[7] > 0
    nc = _near_lines(nsp, fp[7], known) if near else np.zeros((nsp, 3, 1), np.int64)
    iport = np.zeros(nsp + 1, np.int64)
    fready = np.zeros(nw, np.int64)
    wline = -np.ones(nw, np.int64)  # the code line of the instruction the warp issued last
    if fetch:
        for w in range(nw):
            fready[w] = _code_line(ic, iport, sp_of[w], iline[first[w]], start[w], fp)
    warp_mem = np.zeros(nw, np.int64)  # in_order: the cycle the warp's last load returned
    account = stalls.shape[0] > 0
    began = start.copy()  # the cycle each warp starts (``start`` is reused below)
    plain = start.copy()  # the end of each warp's stall count without the fetch redirect
    sbk = np.zeros((nw, 8), np.int64)  # 1: the scoreboard was set by a local-memory access
    fill_free = 0
    # the cycle before which warp w cannot issue, as _until last found it (every time it waits on only grows
    # until the warp issues); the accounted run asks every warp every cycle (-1: not kept)
    until = np.full(nw, -1 if account else 0, np.int64)
    # each warp's L1 counts in its trip under way, and its last trip's (cycles, counts, times repeated): once
    # every warp has repeated its last trip ``settled`` times (SETTLED; 0 with ``settle`` False in the table),
    # the run is periodic and the later trips follow
    trip_counts = np.zeros((nw, 4), np.int64)
    period = np.zeros((nw, 9), np.int64)
    settle = settled > 0 and not account and log.shape[1] == 0
    use = 0
    t = 0
    left = nw
    while left > 0:
        issued = False
        first_sp = port[3] if fair else 0  # SM-wide ports: round robin from the one after the last served,
        for s0 in range(nsp):  # each sub-partition once a cycle
            s = (s0 + first_sp) % nsp
            k = kept[s]
            if k >= 0 and t < kept_to[s] and done[k] < want[k]:
                w = k if _can(k, s, t, plain, sbk, done, want, nxt, pos, wait, sb, pipe, rk, rc, free, mem, wmio, port,
                              fready) else -1
            else:
                kept[s] = -1
                w = _pick(s, t, last[s], sp_of, plain, sbk, done, want, nxt, pos, wait, sb, pipe, rk, rc, free, mem, wmio,
                          port, fready, until)
            if account:
                _account(stalls, s, w, t, began, plain, sbk, sp_of, done, want, nxt, pos, wait, sb, pipe, rk, rc, free, mem,
                         wmio, port, fready, kept[s] if t < kept_to[s] else -1, 1)
            if w < 0:
                continue
            issued = True
            i = pos[w]
            if until[w] > 0:
                until[w] = 0
            if fetch and iline[i] != wline[w]:  # its first instruction of this line: ask for the next ones
                wline[w] = iline[i]
                _ahead(ic, iport, s, iline[i], t, fp, known)
                if near and _cache_find(nc, s, fp[7], iline[i], t) < 0:
                    _cache_put(nc, s, fp[7], iline[i], t, 0)
            if nlog[w] < log.shape[1]:
                log[w, nlog[w]] = t
                nlog[w] += 1
            p = pipe[i]
            if p == FMAL and free[s, FMAH] <= t:
                p = FMAH
            if p == MIO:
                free[s, MIO] = t + mio_ii
                if mem[i] == LOCAL_STORE and store_sp_ii * nlines[i] > mio_ii:  # a store holds its
                    free[s, MIO] = t + store_sp_ii * nlines[i]  # sub-partition's MIO (``l1["store_sp_ii"]``)
                wmio[w] = t + mio_warp_ii
                port[0] = t + mio_sm_ii
                port[3] = (s + 1) % nsp
                if mem[i] == LOCAL_STORE and store_ii > 0:
                    port[1] = (t if t > port[1] else port[1]) + store_ii * nlines[i]
            elif p != NONE:
                free[s, p] = t + ii[i]
            k0, k1 = _bank_reads(i, w, s, rk, rc)
            if k0 > 0:
                free[s, BANK0] = t + k0
            if k1 > 0:
                free[s, BANK1] = t + k1
            if bank_freeze and (pipe[i] == FMAL or pipe[i] == FMAH):  # measured on FFMA chains
                _freeze(w, s, t, (k0 if k0 > k1 else k1) - 1, sp_of, nxt, plain, done, want)
            _reuse(i, w, s, rk, rc)
            ready = t + lat[i]
            start = t
            if mem[i] != 0:
                start = t if t > l1_free else l1_free
                l1_free = start + line_ii * nlines[i]
                ready = start + hit_lat
                for j in range(nlines[i]):
                    use += 1
                    got = _touch(tags, stamp, fill, w * frame_lines + line[i] + j, use, policy, hsh)
                    row, col = min(done[w], 1), (0 if mem[i] != LOCAL_STORE else 2)
                    counts[row, col] += 1
                    trip_counts[w, col] += 1
                    if got < 0:
                        counts[row, col + 1] += 1
                        trip_counts[w, col + 1] += 1
                    if got < 0 and mem[i] == LOCAL_STORE and validate:
                        got = _set_fill(tags, fill, w * frame_lines + line[i] + j, start, hsh)
                    elif got < 0:  # not in the L1: the line is fetched (a store's too), one per fill_ii
                        fport = port[1] if fill_port else fill_free  # fill_port: the store port's cycles
                        f = start if start > fport else fport
                        if fill_port:
                            port[1] = f + fill_ii
                        else:
                            fill_free = f + fill_ii
                        got = _set_fill(tags, fill, w * frame_lines + line[i] + j,
                                        f + miss_lat + _line_spread(spread, seed, w * frame_lines + line[i] + j),
                                        hsh)
                    if mem[i] != LOCAL_STORE and got > ready:
                        ready = got
                    if mem[i] == LOCAL_LOAD_LU and last_use != 0 and _rand(use) % 1000 < lu_permille:
                        _last_use(tags, stamp, w * frame_lines + line[i] + j, policy, hsh, last_use)
            if in_order and mem[i] != 0 and mem[i] != LOCAL_STORE:  # loads return in order
                if warp_mem[w] > ready:
                    ready = warp_mem[w]
                warp_mem[w] = ready
            if wb[i] != NO_SCOREBOARD and sb[w, wb[i]] < ready:  # a scoreboard counts its results: a wait
                sb[w, wb[i]] = ready  # on it is for the last of them, not the one issued last
                sbk[w, wb[i]] = 1 if mem[i] != 0 else 0
            read = start + (store_read if mem[i] == LOCAL_STORE else 2)  # the source registers are read
            if rb[i] != NO_SCOREBOARD and read > sb[w, rb[i]]:
                sb[w, rb[i]] = read
                sbk[w, rb[i]] = 1 if mem[i] != 0 else 0
            nxt[w] = t + (stall[i] if stall[i] > 0 else 1)
            if yield_bubble and yld[i] == 1 and nxt[w] < t + 2:  # a yield costs its warp a cycle, even alone
                nxt[w] = t + 2
            plain[w] = nxt[w] - redir[i]
            h = last[s]  # the greedy warp keeps its turn through waits no longer than ``hold``
            if h < 0 or h == w or done[h] >= want[h] or nxt[h] - t > hold or _waits(h, t, pos, wait, sb) or \
                    (gap_turn and nxt[h] > t and pipe[i] != ALU):  # a non-ALU op in its stall count (``gap_turn``)
                last[s] = w
            issued_at[w] = t
            if yield_switch and yld[i] == 1:  # the yield flag: the next warp in turn (or the least recent) goes first
                last[s] = _next_warp(w, s, sp_of, done, want) if yield_switch == 1 else \
                    _least_recent(w, s, sp_of, done, want, issued_at)
            if mhold[i] > 0:
                free[s, HOLD_TO], free[s, HOLDER] = t + 1 + mhold[i], w
            if keep[i] > 0:
                kept[s], kept_to[s] = w, t + keep[i]
            else:
                kept[s] = -1
            pos[w] += 1
            if pos[w] == stop[w]:
                pos[w] = first[w]
                ends[w, done[w]] = t + 1
                _trip_done(w, ends, done, trip_counts, period, port[1] - t, fill_free - t, l1_free - t)
                done[w] += 1
                if done[w] == want[w]:
                    left -= 1
                elif settle and _settled(done, want, period, settled, ends, t + 1):
                    _extrapolate(ends, done, want, counts, trip_counts, period)
                    left = 0
                    break
            if fetch and iline[pos[w]] != iline[i]:  # its next instruction is on another line
                fready[w] = _code_line(ic, iport, s, iline[pos[w]], t, fp)
                if near and redir[i] > 0 and _cache_find(nc, s, fp[7], iline[pos[w]], t) < 0:  # a far branch
                    fready[w] = max(fready[w], nxt[w] + fp[8])
        if issued:
            t += 1
            continue
        m = _next_event(t, done, want, nxt, fready, sb, free, wmio, port, kept, kept_to)
        if account:  # the cycles up to m in the state of t (a warp's WAIT turns BRANCH at plain[w])
            for w in range(nw):
                if done[w] < want[w] and t < plain[w] < m:
                    m = plain[w]
            for s in range(nsp):
                _account(stalls, s, -1, t, began, plain, sbk, sp_of, done, want, nxt, pos, wait, sb, pipe, rk, rc, free, mem,
                         wmio, port, fready, kept[s] if t < kept_to[s] else -1, m - t - 1)
        t = m
    return ends


@njit(cache=True)
def _trip_done(w, ends, done, trip_counts, period, store_backlog, fill_backlog, l1_backlog):
    """Warp w has ended its trip done[w] at ends[w, done[w]]: is it its last one again (cycles, L1 counts, and
    the SM's queues as it ends: the stores and fills queued, the L1's next free cycle, each from now)?"""
    d = done[w]
    cyc = ends[w, d] - ends[w, d - 1] if d > 0 else -1
    same = d > 0 and cyc == period[w, 0]
    for c in range(4):
        same = same and trip_counts[w, c] == period[w, 1 + c]
        period[w, 1 + c] = trip_counts[w, c]
        trip_counts[w, c] = 0
    for c, x in ((6, store_backlog), (7, fill_backlog), (8, l1_backlog)):
        x = x if x > 0 else 0
        same = same and x == period[w, c]
        period[w, c] = x
    period[w, 0] = cyc
    period[w, 5] = period[w, 5] + 1 if same else 0


@njit(cache=True)
def _settled(done, want, period, settled, ends, now):
    """Every warp has trips left, has run the same trip ``settled`` times over and has ended one within that
    trip's time of ``now`` (a warp held back, as by a full store queue, is not periodic)."""
    for w in range(done.shape[0]):
        if done[w] >= want[w] or period[w, 5] < settled or now - ends[w, done[w] - 1] > period[w, 0]:
            return False
    return True


@njit(cache=True)
def _extrapolate(ends, done, want, counts, trip_counts, period):
    """The rest of a periodic run: each warp's remaining trips like its last (their ends and L1 counts; the part
    of the trip under way already counted is taken back)."""
    for w in range(done.shape[0]):
        for k in range(done[w], want[w]):
            ends[w, k] = ends[w, k - 1] + period[w, 0]
        for c in range(4):
            counts[1, c] += period[w, 1 + c] * (want[w] - done[w]) - trip_counts[w, c]


@njit(cache=True)
def _next_event(t, done, want, nxt, fready, sb, free, wmio, port, kept, kept_to):
    """The next cycle after t at which a warp may issue when none did at t: nothing changes in a cycle without
    an issue, so the first cycle at which one of the times :func:`_why` compares with t has passed (the
    same run cycle by cycle, without the idle cycles)."""
    big = np.iinfo(np.int64).max
    m = big
    for w in range(nxt.shape[0]):
        if done[w] < want[w]:
            for x in (nxt[w], fready[w], wmio[w]):
                if t < x < m:
                    m = x
            for b in range(6):
                if t < sb[w, b] < m:
                    m = sb[w, b]
    for s in range(free.shape[0]):
        for p in range(1, BANK1 + 1):
            if p != HOLDER and t < free[s, p] < m:
                m = free[s, p]
        if kept[s] >= 0 and t < kept_to[s] < m:
            m = kept_to[s]
    for x in (port[0], port[1] - port[2]):
        if t < x < m:
            m = x
    return m if m < big else t + 1


@njit(cache=True)
def _account(stalls, s, w, t, began, plain, sbk, sp_of, done, want, nxt, pos, wait, sb, pipe, rk, rc, free, mem, wmio, port,
             fready, keeper, n):
    """Cycle t of every running warp of sub-partition s into ``stalls`` (:data:`STALLS`), ``n`` times (cycles in
    the same state): w issues (or -1); ``keeper`` keeps the sub-partition (or -1)."""
    for x in range(sp_of.shape[0]):
        if sp_of[x] != s or done[x] >= want[x] or t < began[x]:
            continue
        row = min(done[x], 1)
        if x == w:
            stalls[row, x, SELECTED] += n
            continue
        why = _why(x, s, t, plain, sbk, nxt, pos, wait, sb, pipe, rk, rc, free, mem, wmio, port, fready)
        if why == NOT_SELECTED and keeper >= 0 and keeper != x:
            why = DISPATCH_STALL
        stalls[row, x, why] += n


@njit(cache=True)
def _why(w, s, t, plain, sbk, nxt, pos, wait, sb, pipe, rk, rc, free, mem, wmio, port, fready):
    """What keeps warp w of sub-partition s from issuing its next instruction at t (a :data:`STALLS` index;
    ``not_selected`` if nothing does). An MIO instruction also needs the warp's own turn (``wmio[w]``) and the
    SM's (``port[0]``); a local store the SM's store port with at most ``port[2]`` cycles of stores queued
    (``port[1]``: the cycle the queued ones are through)."""
    if nxt[w] > t:
        return WAIT if plain[w] > t else BRANCH
    if fready[w] > t:
        return NO_INSTRUCTION
    i = pos[w]
    for b in range(6):
        if (wait[i] >> b) & 1 and sb[w, b] > t:
            return LONG_SB if sbk[w, b] == 1 else SHORT_SB
    p = pipe[i]
    if p == MIO:
        if free[s, MIO] > t or wmio[w] > t or port[0] > t or (mem[i] == LOCAL_STORE and port[1] - t > port[2]):
            return LG_THROTTLE if mem[i] != 0 else MIO_THROTTLE
    elif p == FMAL and free[s, FMAH] > t and free[s, FMAL] > t:
        return MATH_THROTTLE
    elif p != NONE and p != FMAL and free[s, p] > t:
        return MATH_THROTTLE
    elif free[s, HOLD_TO] > t and free[s, HOLDER] != w:  # the hold stops no MIO instruction
        return DISPATCH_STALL
    k0, k1 = _bank_reads(i, w, s, rk, rc)
    if k0 > 0 and free[s, BANK0] > t or k1 > 0 and free[s, BANK1] > t:
        return DISPATCH_STALL
    return NOT_SELECTED


@njit(cache=True)
def _code_caches(nsp, fp, known):
    """The L0s (rows 0..nsp-1) and the SM's instruction cache (row nsp) as the launches before left them: the
    loop's code lines in order, the last ones most recent (``tag, last use, ready`` a slot)."""
    ic = np.full((nsp + 1, 3, max(fp[0], fp[4], 1)), -1, np.int64)
    for r in range(nsp + 1):
        cap = fp[0] if r < nsp else fp[4]
        if cap > 0:
            _hold_loop(ic, r, cap, known)
    return ic


@njit(cache=True)
def _near_lines(nsp, cap, known):
    """Each sub-partition's last ``cap`` code lines (rows of :func:`_code_caches`' layout) as the launches before
    left them: the loop's last ``cap`` lines."""
    nc = np.full((nsp, 3, cap), -1, np.int64)
    for r in range(nsp):
        _hold_loop(nc, r, cap, known)
    return nc


@njit(cache=True)
def _hold_loop(ic, r, cap, known):
    """Row r of a code-line cache (``cap`` slots) holding the loop's lines (``known``), put in order, so that the
    last ones are the most recent, all there (the use stamps run up to -1)."""
    use = -known.shape[0] - 1
    for ln in range(known.shape[0]):
        if known[ln] == 1:
            use += 1
            _cache_put(ic, r, cap, ln, use, 0)


@njit(cache=True)
def _ahead(ic, iport, s, ln, t, fp, known):
    """A warp issues its first instruction of code line ``ln`` at t: it asks for the ``ahead`` (``fp[3]``) lines
    of the loop's code after it (sequential prefetch)."""
    for d in range(1, fp[3] + 1):
        if ln + d < known.shape[0] and known[ln + d] == 1:
            _code_line(ic, iport, s, ln + d, t, fp)


@njit(cache=True)
def _code_line(ic, iport, s, ln, t, fp):
    """Line ``ln`` asked for at t in sub-partition s's L0: there, or filled through its port (one line every
    ``fp[1]`` cycles, there ``fp[2]`` after it starts) from the SM's cache, which gets a line it has not from
    the L2 through the SM's port (one every ``fp[5]``, there ``fp[6]`` after it starts)."""
    a = _cache_find(ic, s, fp[0], ln, t)
    if a >= 0:
        return ic[s, 2, a]
    src = t
    r = ic.shape[0] - 1
    if fp[4] > 0:
        b = _cache_find(ic, r, fp[4], ln, t)
        if b >= 0:
            src = ic[r, 2, b]
        else:
            go = t if t > iport[r] else iport[r]
            iport[r] = go + fp[5]
            src = go + fp[6]
            _cache_put(ic, r, fp[4], ln, t, src)
    go = t if t > iport[s] else iport[s]
    iport[s] = go + fp[1]
    ready = go + fp[2] if go + fp[2] > src else src
    _cache_put(ic, s, fp[0], ln, t, ready)
    return ready


@njit(cache=True)
def _cache_find(ic, r, cap, ln, t):
    """The slot of line ``ln`` in row r of ``ic`` (its last use set to t), or -1."""
    for a in range(cap):
        if ic[r, 0, a] == ln:
            ic[r, 1, a] = t
            return a
        if ic[r, 0, a] < 0:  # slots fill in order and are never emptied
            return -1
    return -1


@njit(cache=True)
def _cache_put(ic, r, cap, ln, t, ready):
    """Line ``ln`` into row r (``cap`` slots, LRU), there at ``ready``."""
    v = 0
    for a in range(cap):
        if ic[r, 0, a] < 0:
            v = a
            break
        if ic[r, 1, a] < ic[r, 1, v]:
            v = a
    ic[r, 0, v], ic[r, 1, v], ic[r, 2, v] = ln, t, ready


@njit(cache=True)
def _pick(s, t, last, sp_of, plain, sbk, done, want, nxt, pos, wait, sb, pipe, rk, rc, free, mem, wmio, port, fready,
          until):
    """The warp of sub-partition s that issues at t: the last one if it can, else round robin after it. A warp
    that cannot gets in ``until`` (unless that is -1) the cycle before which it cannot, and is not asked again
    before it."""
    nw = sp_of.shape[0]
    for k in range(nw):
        w = (last + k) % nw if last >= 0 else k
        if sp_of[w] != s or until[w] > t:
            continue
        if _can(w, s, t, plain, sbk, done, want, nxt, pos, wait, sb, pipe, rk, rc, free, mem, wmio, port, fready):
            return w
        if until[w] >= 0 and done[w] < want[w]:
            until[w] = _until(w, s, nxt, pos, wait, sb, pipe, rk, rc, free, mem, wmio, port, fready)
    return -1


@njit(cache=True)
def _until(w, s, nxt, pos, wait, sb, pipe, rk, rc, free, mem, wmio, port, fready):
    """The first cycle at which every time that :func:`_why` holds warp w of sub-partition s to has passed, as
    they stand (each only grows until w issues: a lower bound of its next issue)."""
    i = pos[w]
    u = nxt[w] if nxt[w] > fready[w] else fready[w]
    for b in range(6):
        if (wait[i] >> b) & 1 and sb[w, b] > u:
            u = sb[w, b]
    p = pipe[i]
    if p == MIO:
        for x in (free[s, MIO], wmio[w], port[0], port[1] - port[2] if mem[i] == LOCAL_STORE else 0):
            if x > u:
                u = x
    elif p == FMAL:
        x = free[s, FMAH] if free[s, FMAH] < free[s, FMAL] else free[s, FMAL]
        if x > u:
            u = x
    elif p != NONE and free[s, p] > u:
        u = free[s, p]
    if p != MIO and free[s, HOLDER] != w and free[s, HOLD_TO] > u:  # the hold stops no MIO instruction
        u = free[s, HOLD_TO]
    k0, k1 = _bank_reads(i, w, s, rk, rc)
    if k0 > 0 and free[s, BANK0] > u:
        u = free[s, BANK0]
    if k1 > 0 and free[s, BANK1] > u:
        u = free[s, BANK1]
    return u


@njit(cache=True)
def _freeze(w, s, t, extra, sp_of, nxt, plain, done, want):
    """``bank_freeze``: the ``extra`` cycles after t in which warp w's instruction, issued at t, reads a second (or
    third) register from one bank do not count down the stall counts of sub-partition s's other warps
    (``traces/h100/regbank_slack.json``); a warp whose count has run out by then loses nothing."""
    for x in range(sp_of.shape[0]):
        if x != w and sp_of[x] == s and done[x] < want[x]:
            for j in range(1, extra + 1):
                if nxt[x] > t + j:
                    nxt[x] += 1
                    plain[x] += 1


@njit(cache=True)
def _cached(i, w, s, slot, rk, rc):
    """Whether the reuse cache of sub-partition s holds operand ``slot`` of warp w's instruction i: the register
    was read with the reuse flag in that slot by one of the last :data:`REUSE_SPAN` instructions the
    sub-partition issued that read a register, and by w."""
    return rc[s, slot, 0] == rk[i, slot, 0] and rc[s, slot, 1] == w and rc[s, SLOTS, 0] - rc[s, slot, 2] <= REUSE_SPAN


@njit(cache=True)
def _bank_reads(i, w, s, rk, rc):
    """``(k0, k1)``: the registers instruction i of warp w reads from each bank of sub-partition s's register
    file, a register read twice once, an operand the reuse cache holds (:func:`_cached`) not."""
    k0 = k1 = 0
    for slot in range(SLOTS):
        r = rk[i, slot, 0]
        if r < 0 or _cached(i, w, s, slot, rk, rc):
            continue
        for x in range(r, r + rk[i, slot, 1]):
            seen = False
            for e in range(slot):  # read already by an earlier operand of the instruction
                q = rk[i, e, 0]
                if q >= 0 and q <= x < q + rk[i, e, 1] and not _cached(i, w, s, e, rk, rc):
                    seen = True
            if not seen:
                if x % 2 == 0:
                    k0 += 1
                else:
                    k1 += 1
    return k0, k1


@njit(cache=True)
def _reuse(i, w, s, rk, rc):
    """The reuse cache after warp w's instruction i issued on sub-partition s: a slot whose operand has the reuse
    flag keeps it for w from this instruction on (``rc[s, SLOTS, 0]`` counts the sub-partition's issues that read
    a general register: ``traces/h100/gap_bank.json``'s hog runs as fast with its FFMA's R4 flagged for reuse as
    without the conflict, a UIADD3 and a yielding FFMA between a flag and its use)."""
    reads = False
    for slot in range(SLOTS):
        if rk[i, slot, 0] >= 0:
            reads = True
            if rk[i, slot, 2] == 1:
                rc[s, slot, 0], rc[s, slot, 1], rc[s, slot, 2] = rk[i, slot, 0], w, rc[s, SLOTS, 0]
    if reads:  # an instruction that reads no general register (UIADD3, BRA, CS2R) does not count
        rc[s, SLOTS, 0] += 1


@njit(cache=True)
def _next_warp(w, s, sp_of, done, want):
    """The warp of sub-partition s after w in turn that has trips left (w if none)."""
    nw = sp_of.shape[0]
    for k in range(1, nw):
        x = (w + k) % nw
        if sp_of[x] == s and done[x] < want[x]:
            return x
    return w


@njit(cache=True)
def _least_recent(w, s, sp_of, done, want, issued_at):
    """The warp of sub-partition s other than w, with trips left, that issued least recently (w if none)."""
    best = w
    for x in range(sp_of.shape[0]):
        if x != w and sp_of[x] == s and done[x] < want[x] and (best == w or issued_at[x] < issued_at[best]):
            best = x
    return best


@njit(cache=True)
def _can(w, s, t, plain, sbk, done, want, nxt, pos, wait, sb, pipe, rk, rc, free, mem, wmio, port, fready):
    """Whether warp w (of sub-partition s) can issue its next instruction at t (:func:`_why` has nothing
    against it)."""
    return done[w] < want[w] and _why(w, s, t, plain, sbk, nxt, pos, wait, sb, pipe, rk, rc, free, mem, wmio, port,
                                      fready) == NOT_SELECTED


@njit(cache=True)
def _waits(w, t, pos, wait, sb):
    """Whether warp w's next instruction waits at t for a variable-latency result (its wait mask)."""
    i = pos[w]
    for b in range(6):
        if (wait[i] >> b) & 1 and sb[w, b] > t:
            return True
    return False


@njit(cache=True)
def _set_of(ln, sets, hsh):
    """The L1 set of line ``ln``: index bits XOR-folded (0), a multiplicative hash (1), plain modulo (2)."""
    if hsh == 1:
        x = (ln * 0x9E3779B1) & 0xFFFFFFFF
        x ^= x >> 15
        x = (x * 0x85EBCA6B) & 0xFFFFFFFF
        x ^= x >> 13
        return x % sets
    if hsh == 2:
        return ln % sets
    return (ln ^ (ln >> 7) ^ (ln >> 13)) % sets


@njit(cache=True)
def _line_spread(spread, seed, tag):
    """The cycles line ``tag``'s misses take beyond the miss latency: a draw from ``spread`` that the line and
    ``seed`` pick (the same every time the line misses), 0 without a spread."""
    if spread.shape[0] == 0:
        return 0
    return spread[_rand(tag * 31 + seed) % spread.shape[0]]


@njit(cache=True)
def _rand(use):
    x = (use * 0x9E3779B1 + 0x7F4A7C15) & 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x45D9F3B) & 0xFFFFFFFF
    x ^= x >> 16
    return x


@njit(cache=True)
def _touch(tags, stamp, fill, ln, use, policy, hsh):
    """Access line ``ln`` in its set under ``policy``: the cycle its data is there, or -1 if it was not in the
    L1 (it is now, a victim of the set evicted; ``_set_fill`` says when it arrives). ``stamp`` holds the
    policy's state: the last use (LRU, LIP/BIP: an insertion below every other line), the re-reference
    prediction (SRRIP/BRRIP, 0..3), the tree bits in way 0 (PLRU)."""
    nsets = tags.shape[0]
    s = _set_of(ln, nsets, hsh)
    nw = tags.shape[1]
    if policy == 7:  # DIP: this set's insertion, LIP-like BIP (1) or LRU (0)
        lead = s % DIP_LEADER
        bip = 0
        if lead == 1 or (lead != 0 and stamp[nsets, 0] >= DIP_MAX // 2):
            bip = 1
    for a in range(nw):
        if tags[s, a] == ln:
            if policy == 3 or policy == 6:
                stamp[s, a] = 0
            elif policy == 4:
                _plru_use(stamp, s, a, nw)
            else:
                stamp[s, a] = use
            return fill[s, a]
    v = 0
    if policy == 1:
        v = _rand(use) % nw
        for a in range(nw):
            if tags[s, a] < 0:
                v = a
                break
    elif policy == 3 or policy == 6:
        while True:
            found = -1
            for a in range(nw):
                if tags[s, a] < 0 or stamp[s, a] >= 3:
                    found = a
                    break
            if found >= 0:
                v = found
                break
            for a in range(nw):
                stamp[s, a] += 1
    elif policy == 4:
        v = _plru_victim(stamp, s, nw)
        for a in range(nw):
            if tags[s, a] < 0:
                v = a
                break
    else:
        for a in range(nw):
            if tags[s, a] < 0:
                v = a
                break
            if stamp[s, a] < stamp[s, v]:
                v = a
    tags[s, v] = ln
    insert = policy
    if policy == 7:  # DIP: a miss in a leader set moves the selector; the set inserts as BIP or LRU
        if lead == 0 and stamp[nsets, 0] < DIP_MAX - 1:
            stamp[nsets, 0] += 1
        elif lead == 1 and stamp[nsets, 0] > 0:
            stamp[nsets, 0] -= 1
        insert = 2 if bip == 1 else 0
    if insert == 2 or insert == 5:  # LIP / BIP: in at the LRU end (BIP: 1 in 32 at the MRU end)
        low = use
        for a in range(nw):
            if a != v and tags[s, a] >= 0 and stamp[s, a] < low:
                low = stamp[s, a]
        stamp[s, v] = use if (insert == 2 and _rand(use) % 32 == 0) else low - 1
    elif policy == 3:
        stamp[s, v] = 2
    elif policy == 6:  # BRRIP: distant (3) mostly, long (2) 1 in 32
        stamp[s, v] = 2 if _rand(use) % 32 == 0 else 3
    elif policy == 4:
        _plru_use(stamp, s, v, nw)
    else:
        stamp[s, v] = use
    return -1


@njit(cache=True)
def _plru_use(stamp, s, a, nw):
    """Tree-PLRU: point the bits on the path to way ``a`` away from it (bits kept in stamp[s, 1:])."""
    node, lo, hi = 1, 0, nw
    while hi - lo > 1 and node < nw:
        mid = (lo + hi) // 2
        if a < mid:
            stamp[s, node] = 1  # next victim on the right
            node, hi = 2 * node, mid
        else:
            stamp[s, node] = 0
            node, lo = 2 * node + 1, mid


@njit(cache=True)
def _plru_victim(stamp, s, nw):
    node, lo, hi = 1, 0, nw
    while hi - lo > 1 and node < nw:
        mid = (lo + hi) // 2
        if stamp[s, node] == 1:
            node, lo = 2 * node + 1, mid
        else:
            node, hi = 2 * node, mid
    return lo


@njit(cache=True)
def _last_use(tags, stamp, ln, policy, hsh, mode):
    """After an LDL.LU of line ``ln``: make it its set's next victim (1) or drop it (2)."""
    s = _set_of(ln, tags.shape[0], hsh)
    for a in range(tags.shape[1]):
        if tags[s, a] == ln:
            if mode == 2:
                tags[s, a] = -1
                stamp[s, a] = 0
            elif policy == 3 or policy == 6:
                stamp[s, a] = 3
            else:
                low = stamp[s, a]
                for b in range(tags.shape[1]):
                    if tags[s, b] >= 0 and stamp[s, b] < low:
                        low = stamp[s, b]
                stamp[s, a] = low - 1


@njit(cache=True)
def _set_fill(tags, fill, ln, t, hsh):
    s = _set_of(ln, tags.shape[0], hsh)
    for a in range(tags.shape[1]):
        if tags[s, a] == ln:
            fill[s, a] = t
    return t
