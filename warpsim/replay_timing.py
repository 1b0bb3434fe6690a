"""Replay clock64 timing traces through the timed engine and compare cycles with the hardware.

For every configuration of a timing trace (ILP, warps per CTA, reps) the recorded PTX kernel runs on the
timed engine with the recorded launch (one CTA of ``32*warps`` threads, the recorded inputs, ``reps``).
The kernel itself stores ``%clock64`` before and after its loop, as on the GPU, so the simulated
statistic is computed exactly like the measured one:

* per warp: ``end - start`` cycles; per launch: the mean over the CTA's warps (``stat="mean"``) or the
  slowest warp (``stat="max"``);
* measured: the median over the non-first launches of that configuration (the first launch of a kernel
  misses in L2/DRAM; if a configuration has only a first launch, that one).

A group is *exact* when ``|sim - hw| / hw <= bound`` (5 %). ``fixed_latency=L`` replays with every
tensor op at latency ``L`` / initiation interval ``L`` (the Accel-Sim default is 32/32) instead of the
calibrated table: the baseline that shows what calibration buys. ``baseline=L`` runs that model beside the
calibrated one and keeps its cycles in ``GroupResult.baseline_cycles`` (``warpsim replay`` shows both).
"""
from __future__ import annotations

import numpy as np

from warpsim import tracefile
from warpsim.replay import GroupResult
from warpsim.timing import known

BOUND = 0.05
#: Accel-Sim's default tensor-op latency and initiation interval (cycles), the same for every MMA form
ACCEL_SIM_LATENCY = 32.0


def configurations(tr) -> list[tuple[int, int, int]]:
    """Every distinct (ilp, warps, reps) of a timing trace, in recorded order."""
    a = tr.arrays
    seen = []
    for r in range(len(a["run_ilp"])):
        key = (int(a["run_ilp"][r]), int(a["run_warps"][r]), int(a["run_reps"][r]))
        if key not in seen:
            seen.append(key)
    return seen


def quick_configurations(tr) -> list[tuple[int, int, int]]:
    """The configurations of :data:`QUICK` that ``tr`` recorded (every trace has all 12)."""
    return [c for c in configurations(tr) if c in QUICK]


def measured(tr, ilp: int, warps: int, reps: int, stat: str = "mean") -> float:
    """The hardware statistic of one configuration (median over non-first launches)."""
    return float(np.median(launches(tr, ilp, warps, reps, stat)))


def launches(tr, ilp: int, warps: int, reps: int, stat: str = "mean") -> list[float]:
    """The statistic of the warps' end - start cycles of each launch of one configuration after the first (all
    of them if it has only one)."""
    a = tr.arrays
    rows = [r for r in range(len(a["run_ilp"]))
            if (a["run_ilp"][r], a["run_warps"][r], a["run_reps"][r]) == (ilp, warps, reps)]
    later = [r for r in rows if a["run_repeat"][r] > 0] or rows
    return [_stat(a["end"][r, :warps].astype(np.int64) - a["start"][r, :warps].astype(np.int64), stat)
            for r in later]


def _stat(cycles, stat):
    return float(np.mean(cycles)) if stat == "mean" else float(np.max(cycles))


def kernel_name(tr, ilp: int) -> str:
    for k in tr.meta["kernels"]:
        if int(k["ilp"]) == ilp:
            return k["name"]
    raise KeyError(f"no kernel with ILP {ilp} in {tr.name}")


class TimingRunner:
    """Runs one timing trace's kernels on the timed engine (module parsed once)."""

    def __init__(self, tr, arch: str | None = None, params=None):
        from warpsim.module import RawModule
        from warpsim.timing.params import params_for
        self.tr = tr
        self.arch = arch or "sm_90a"
        self.params = params or params_for(self.arch)
        self.mod = RawModule(code=tr.ptx, arch=self.arch, timing=True, timing_params=self.params)

    def prefetch(self, configs) -> None:
        """Run the SASS loops the emulated forms' ``configs`` (``(ilp, warps, reps)``) will ask ``sass_sim``
        for, with the CTA's warps of each, in parallel (``sass_sim.prefetch``): the replay then finds them run."""
        cfg = self.params.emulated.get("sass")
        if not cfg:
            return
        from warpsim.timing import sass_profile, sass_sim
        jobs = []
        for ilp in sorted({c[0] for c in configs}):
            prof = sass_profile.lookup(self.mod.get_function(kernel_name(self.tr, ilp)).program, self.params.arch)
            if prof is not None:
                loop = sass_sim.profile_loop(prof, cfg, self.params.tensor)
                jobs += [(loop, sass_sim.population(w)) for i, w, _r in configs if i == ilp]
        sass_sim.prefetch(jobs)

    def run(self, ilp: int, warps: int, reps: int, record: bool = False):
        """Per-warp simulated ``end - start`` cycles (np.int64 array) of one configuration."""
        k = self.mod.get_function(kernel_name(self.tr, ilp))
        inp = self.tr.arrays["input"].copy()
        ts, te = np.zeros(16, np.uint64), np.zeros(16, np.uint64)
        sm = np.zeros(16, np.uint32)
        sink = np.zeros(32 * warps * 16 * 4, np.uint32)
        if not record:
            from warpsim.timing.model import run_grid_timed
            launch, mapped = k.prepare((inp, ts, te, sm, sink, np.int32(reps)), 0)
            run_grid_timed(k.program, 1, 32 * warps, launch, self.params, record=False)
            k.write_back(launch, mapped)
        else:
            k(1, 32 * warps, (inp, ts, te, sm, sink, np.int32(reps)))
        return te[:warps].astype(np.int64) - ts[:warps].astype(np.int64)


#: the configurations ``configs="quick"`` replays (those the trace has): one warp at ILP 1, 4 and 8 with
#: reps 4 (prologue-dominated) and 32 (loop-dominated), and warps 2, 8 and 16 (1, 2 and 4 per
#: sub-partition) at ILP 1 and 4 with reps 32 -- 12 of a trace's 66. "all" replays every configuration.
QUICK = tuple((ilp, 1, reps) for ilp in (1, 4, 8) for reps in (4, 32)) + \
    tuple((ilp, w, 32) for ilp in (1, 4) for w in (2, 8, 16))


def select(tr, configs="quick") -> list[tuple[int, int, int]]:
    """The (ilp, warps, reps) to replay: ``"quick"`` (:data:`QUICK`), ``"all"`` / None (every recorded
    one), or an explicit list."""
    have = configurations(tr)
    if configs is None or configs == "all":
        return have
    if configs == "quick":
        return quick_configurations(tr)
    if isinstance(configs, str):
        raise ValueError(f"configs must be 'quick', 'all' or a list of (ilp, warps, reps), not {configs!r}")
    return list(configs)


def replay_timing(trace, name: str, arch: str | None = None, *, configs="quick", stat: str = "mean",
                  fixed_latency: float | None = None, baseline: float | None = None,
                  bound: float = BOUND) -> list[GroupResult]:
    """One :class:`GroupResult` per configuration (``configs``: see :func:`select`): measured and simulated
    cycles, exact = within bound; with ``baseline``, also the cycles of the fixed-latency model."""
    tr = trace if isinstance(trace, tracefile.Trace) else tracefile.read_trace(trace)
    from warpsim.timing.params import params_for
    params = params_for(arch or "sm_90a")
    if fixed_latency is not None:
        params = params.with_tensor(fixed_latency, fixed_latency)
    runner = TimingRunner(tr, arch, params)
    fixed = None if baseline is None else TimingRunner(tr, arch, params.with_tensor(baseline, baseline))
    # the known misses are those of the sm_90 table against the H100's traces
    h100_table = not fixed_latency and (arch or "sm_90a").startswith("sm_90") and "H100" in str(tr.device.get("name"))
    out = []
    chosen = select(tr, configs)
    try:
        runner.prefetch(chosen)
    except Exception:  # noqa: BLE001 -- the configuration's own run below meets it again and reports it
        pass
    for ilp, warps, reps in chosen:
        g = GroupResult(f"{tr.name} ilp{ilp} warps{warps} reps{reps}", instances=1)
        try:
            sim = _stat(runner.run(ilp, warps, reps), stat)
        except Exception as err:  # a model error is a result to show
            g.error = f"{type(err).__name__}: {err}"
            out.append(g)
            continue
        hw = measured(tr, ilp, warps, reps, stat)
        g.measured_cycles, g.simulated_cycles = hw, sim
        if fixed is not None:
            g.baseline_cycles = _stat(fixed.run(ilp, warps, reps), stat)
        g.exact = int(abs(sim - hw) <= bound * hw)
        if not g.exact and h100_table:
            miss = known.find(tr.name, ilp, warps, reps)
            g.known = known.note(miss) if miss else ""
        out.append(g)
    return out


def error_table(results) -> str:
    """A text table of per-configuration errors with the median and max |error|."""
    lines = [f"{'configuration':52} {'hw':>9} {'sim':>9} {'err%':>7}"]
    errs = []
    for g in results:
        if g.error:
            lines.append(f"{g.name:52} ERROR {g.error}")
            continue
        e = 100.0 * (g.simulated_cycles - g.measured_cycles) / g.measured_cycles
        errs.append(abs(e))
        lines.append(f"{g.name:52} {g.measured_cycles:9.0f} {g.simulated_cycles:9.0f} {e:+7.2f}"
                     + ("" if g.exact else "  > bound"))
    if errs:
        lines.append(f"{len(errs)} configurations: median |err| {np.median(errs):.2f}%, max {max(errs):.2f}%, "
                     f"{sum(1 for g in results if g.exact)} within bound")
    return "\n".join(lines)
