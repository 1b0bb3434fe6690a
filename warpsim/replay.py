"""Replay hardware traces through the simulator and say exactly where they differ.

    from warpsim.replay import replay_path
    for result in replay_path("traces/h100"):
        print(result.summary())

Instruction traces run every recorded ``mma.sp`` on its recorded lane registers (batched, through
:func:`warpsim.tensorcore.mma_sp`); program traces run the recorded PTX through
:class:`warpsim.RawModule` with the recorded memory; timing traces compare simulated cycles with the
recorded ``clock64`` cycles (when the timed engine is available). Every comparison is bit for bit.
"""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field

import numpy as np

from isa import formats, layouts, sparsity
from warpsim import tracefile
from warpsim.tensorcore import mma_sp, resolve


@dataclass
class Mismatch:
    """One differing register of one lane: everything a person needs to act on it."""

    trace: str
    group: str  # form / kernel / output array
    instance: int
    lane: int
    register: int
    expected: int
    got: int
    detail: str = ""

    def render(self) -> str:
        head = (f"{self.trace}: {self.group}: instance {self.instance}, lane {self.lane}, register {self.register}: "
                f"expected 0x{self.expected:08x} got 0x{self.got:08x}")
        return head + (f"\n      {self.detail}" if self.detail else "")


@dataclass
class GroupResult:
    name: str
    instances: int = 0
    exact: int = 0
    mismatches: list = field(default_factory=list)
    measured_cycles: float | None = None
    simulated_cycles: float | None = None
    baseline_cycles: float | None = None  # timing: the fixed-latency (Accel-Sim-like) model's cycles
    error: str = ""
    known: str = ""  # timing: why the replay misses it, for a known miss (warpsim.timing.known)

    @property
    def percent(self) -> float:
        return 100.0 * self.exact / self.instances if self.instances else 0.0


@dataclass
class TraceResult:
    path: str
    kind: str
    device: str
    groups: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(g.exact == g.instances and not g.error for g in self.groups)

    def summary(self) -> str:
        lines = [f"{self.path} ({self.kind}, {self.device})"]
        for g in self.groups:
            if g.error:
                lines.append(f"  {g.name:52} ERROR {g.error}")
                continue
            line = f"  {g.name:52} {g.instances:7d} inst  {g.percent:7.3f}% bit-exact"
            if g.measured_cycles is not None:
                line += f"  cycles sim {g.simulated_cycles:.1f} / hw {g.measured_cycles:.1f}"
            lines.append(line)
            lines += ["    " + m.render() for m in g.mismatches]
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"path": self.path, "kind": self.kind, "device": self.device, "ok": self.ok,
                "groups": [{"name": g.name, "instances": g.instances, "exact": g.exact, "percent": g.percent,
                            "error": g.error, "measured_cycles": g.measured_cycles,
                            "simulated_cycles": g.simulated_cycles, "baseline_cycles": g.baseline_cycles,
                            "known": g.known,
                            "mismatches": [vars(m) for m in g.mismatches]} for g in self.groups]}


# ----------------------------------------------------------------------------- instruction traces


def replay_instruction(tr: tracefile.Trace, name: str, arch: str, max_report: int = 3) -> list[GroupResult]:
    kidx = tr.arrays.get("kernel_index", np.zeros(len(tr.arrays["a"]), dtype=np.int64))
    policy = "hardware" if tr.meta.get("ub") else "error"
    out = []
    for ki, kern in enumerate(tr.meta["kernels"]):
        sel = np.flatnonzero(kidx == ki)
        text = kern["instruction"].split()[0]
        g = GroupResult(_group_name(text, kern))
        form, variant = resolve(text)
        a, b, c, e, d = (tr.arrays[x][sel] for x in "abced")
        try:
            got = mma_sp((form, variant), a, b, c, e[..., 0], selector=kern["selector"], arch=arch,
                         ub_policy=policy, where=name)
        except Exception as err:  # a model error is a result to show, not a crash of the replay
            g.instances, g.error = len(sel), f"{type(err).__name__}: {err}"
            out.append(g)
            continue
        diff = got != d
        bad = diff.reshape(len(sel), -1).any(axis=1)
        g.instances, g.exact = len(sel), int((~bad).sum())
        for i in np.flatnonzero(bad)[:max_report]:
            lane, reg = (int(x) for x in np.argwhere(diff[i])[0])
            g.mismatches.append(Mismatch(name, g.name, int(sel[i]), lane, reg, int(d[i, lane, reg]),
                                         int(got[i, lane, reg]),
                                         explain_d(form, variant, kern["selector"], a[i], b[i], c[i], e[i, :, 0],
                                                   lane, reg, int(d[i, lane, reg]), int(got[i, lane, reg]))))
        out.append(g)
    return out


def _group_name(text: str, kern: dict) -> str:
    form, variant = resolve(text)
    return f"{form.key} {'ord' if variant.endswith('metadata') else 'sp'} sel{kern['selector']}"


def explain_d(form, variant, selector, a, b, c, e, lane, reg, want, got) -> str:
    """Which (row, col) of D a register holds and which products fed it, decoded."""
    cd = layouts.cd_layout(form, "D")
    rows, cols = cd.tables
    per = cd.epr
    parts = []
    for j in range(per):
        m, n = int(rows[lane, reg, j]), int(cols[lane, reg, j])
        shift, mask = cd.bits * j, (1 << cd.bits) - 1
        w, g_ = (want >> shift) & mask, (got >> shift) & mask
        fmt = form.dtype if form.dtype != "s32" else "s32"
        parts.append(f"D[{m}][{n}] expected {formats.decode(fmt, w)[()]!r} got {formats.decode(fmt, g_)[()]!r}")
        parts.append(_products(form, variant, selector, a, b, c, e, m, n))
    return "\n      ".join(parts)


def _products(form, variant, selector, a, b, c, e, m, n) -> str:
    a_vals = layouts.a_layout(form).unpack(a)[m]
    kcols = sparsity.dense_columns(form, sparsity.meta_codes(form, e, selector))[m]
    b_bits = layouts.b_layout(form).unpack(b)[:, n]
    c_bits = layouts.cd_layout(form).unpack(c)[m, n]
    terms = [f"{_val(form.atype, int(x))}×{_val(form.btype, int(b_bits[k]))}@k{k}" for x, k in zip(a_vals, kcols)]
    return f"C={_val(form.ctype, int(c_bits))}; stored products: " + ", ".join(terms)


def _val(fmt: str, bits: int) -> str:
    if fmt in ("f16", "bf16", "f32", "tf32", "e4m3", "e5m2"):
        return f"{formats.decode(fmt, bits)[()]:.6g}"
    return str(int(formats.decode(fmt, bits)[()]))


# ----------------------------------------------------------------------------- program traces


def replay_program(tr: tracefile.Trace, name: str, arch: str | None) -> list[GroupResult]:
    from warpsim.module import RawModule

    launch = tr.launch
    g = GroupResult(f"program {launch['kernel']}")
    try:
        fn = RawModule(code=tr.ptx, arch=arch).get_function(launch["kernel"])
        args, outputs = [], {}
        for p in launch["params"]:
            if "array" in p:
                buf = tr.arrays[p["array"]].copy()
                outputs[p["array"]] = buf
                args.append(buf)
            else:
                args.append(np.array(p["value"], dtype=_scalar_dtype(p["type"]))[()])
        fn(tuple(launch["grid"]), tuple(launch["block"]), tuple(args))
    except Exception as err:
        g.instances, g.error = 1, f"{type(err).__name__}: {err}"
        return [g]
    for in_name, buf in outputs.items():
        want = tr.arrays.get("out_" + in_name[3:] if in_name.startswith("in_") else "out_" + in_name)
        if want is None:
            continue
        g.instances += 1
        same = np.array_equal(buf.view(np.uint8), want.view(np.uint8))
        g.exact += int(same)
        if not same:
            flat_g, flat_w = buf.reshape(-1).view(np.uint32), want.reshape(-1).view(np.uint32)
            i = int(np.flatnonzero(flat_g != flat_w)[0])
            g.mismatches.append(Mismatch(name, f"{in_name}[word {i}]", 0, -1, -1, int(flat_w[i]), int(flat_g[i]),
                                         f"{int((flat_g != flat_w).sum())} of {flat_w.size} words differ"))
    return [g]


def _scalar_dtype(ptx_type: str):
    return {"u32": np.uint32, "s32": np.int32, "u64": np.uint64, "s64": np.int64, "f32": np.float32,
            "f64": np.float64, "b32": np.uint32, "b64": np.uint64, "u16": np.uint16, "s16": np.int16}[
        ptx_type.lstrip(".")]


# ----------------------------------------------------------------------------- driver


def trace_files(paths) -> list[str]:
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(glob.glob(os.path.join(p, "**", "*.npz"), recursive=True))
        else:
            files.append(p)
    return files


def replay_file(path: str, arch: str | None = None, max_report: int = 3, timing: str = "quick") -> TraceResult | None:
    """One trace file; ``timing`` is "quick" (a representative subset of a timing trace's
    configurations), "all", or "off" (timing traces are skipped: returns None)."""
    tr = tracefile.read_trace(path)  # raises TraceError with a clear message for a bad file
    if tr.kind == "timing" and timing == "off":
        return None
    name = os.path.relpath(path)
    dev = tr.device.get("name", "?")
    target = arch or _arch_of(tr)
    res = TraceResult(name, tr.kind, dev)
    if tr.kind == "instruction":
        res.groups = replay_instruction(tr, name, target, max_report)
    elif tr.kind == "program":
        res.groups = replay_program(tr, name, arch)
    else:
        from warpsim.replay_timing import ACCEL_SIM_LATENCY, replay_timing
        res.groups = replay_timing(tr, name, target, configs=timing, baseline=ACCEL_SIM_LATENCY)
    return res


def _arch_of(tr) -> str:
    cc = str(tr.device.get("compute_capability", "9.0")).replace(".", "")
    return f"sm_{cc}a" if cc in ("90", "100", "120") else f"sm_{cc}"


def replay_path(paths, arch: str | None = None, max_report: int = 3, timing: str = "quick"):
    for f in trace_files(paths if isinstance(paths, (list, tuple)) else [paths]):
        res = replay_file(f, arch, max_report, timing)
        if res is not None:
            yield res
