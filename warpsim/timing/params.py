"""Timing parameters: what one table (``params_sm90`` / ``params_sm80`` / ``params_sm100``) must say.

A table module defines ``TABLE``: a dict with

* ``arch``, ``calibration`` (``"H100 clock64 traces"`` or ``"literature"``), ``clock_mhz``;
* ``issue``: ``subpartitions`` (warp w runs on sub-partition w % n), ``sms``, ``branch_taken`` (extra
  cycles before the instruction after a taken branch issues), ``drain_tensor_at_branch`` (a branch
  waits until every in-flight tensor op of its warp has written back: ptxas schedules HMMA/IMMA with
  fixed stall counts and does not carry them across a basic-block boundary), ``barrier`` (cycles from
  the last arrival at ``bar.sync`` to the first issue after it); off unless set, ``drain_at_target`` (with
  ``drain_tensor_at_branch``: the branch issues without waiting for the drain, and the instruction after
  it waits for it, so a taken branch's ``branch_taken`` overlaps the drain), ``store_pipe`` (a global store
  holds its sub-partition's tensor pipe that many ops' ii);
* ``units``: ``{unit: {"ii": cycles, "scope": "sp" | "sm"}}`` — a pipe accepts one warp instruction
  every ``ii`` cycles, per sub-partition or shared by the SM;
* ``classes``: ``{timing class: {"unit": unit, "latency": cycles}}`` for every class in
  ``isa.semantics.registry.TIMING_CLASSES``;
* ``tensor``: ``{group: {"latency", "ii", "forms": [...]}}`` — the tensor pipe of each form key
  (``isa.forms`` key, a ``dense:`` prefix for ``mma.sync``);
* ``emulated``: ``{form key: [stage, ...]}`` — a PTX mma that the hardware runs as a sequence of ops;
  each stage ``{"op", "unit", "count", "latency", "after"}`` (``after``: ``"ab"`` = needs A/B/E,
  ``"prev"`` = needs the previous stage's results, ``"prev+c"`` = and C), tensor stages name a
  ``tensor`` group; ``"hoisted": True`` marks stages that ptxas moves out of a loop when A/B/E do
  not change (the model skips them when the same instruction runs again with the same A/B/E);
  ``emulated["sass"]`` (optional): the pipes, latencies and L1 with which :mod:`warpsim.timing.sass_sim`
  runs ptxas's SASS of a kernel's emulated loop where it is on file (those kernels use no stage list);
* ``memory`` (optional): ``l1_hit`` / ``l2_hit`` (cycles of a global load whose 32-byte sectors are all in
  the SM's L1 / one of which must come from L2), ``l2_far`` (``{"latency", "share"}``: that share of the lines,
  picked by a hash of the address, comes from the far part of the L2), ``sector_bytes``, the L1's rates
  (``miss_ii``, ``tag_lines``, ``wavefront``, ``wavefront_sm``, ``miss_wavefront``), ``tag_all``,
  ``miss_wavefronts``, a sub-partition's
  global store rate (``store_ii``) and the store port (``store_queue``, ``store_line``, ``store_sector``);
  without it a global load takes the ``mem_global`` class latency;
* ``devices`` (optional): ``{chip: {section: {key: value}}}``, what another chip with the same SM changes.

Numbers are floats in cycles of the SM clock; times in the model are floats, ``%clock64`` is the
floor of the current time.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from isa.errors import WarpsimError


@dataclass
class Params:
    arch: str
    calibration: str
    clock_mhz: float
    issue: dict
    units: dict
    classes: dict
    tensor: dict
    emulated: dict = field(default_factory=dict)
    name: str = ""
    memory: dict = field(default_factory=dict)
    _by_form: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        for group, g in self.tensor.items():
            for key in g["forms"]:
                self._by_form[key] = group

    def tensor_group(self, key: str, sparse: bool) -> str:
        """The tensor group of a form key (``dense:`` prefixed for mma.sync); a fallback by shape/width."""
        k = key if sparse else "dense:" + key
        g = self._by_form.get(k)
        if g is not None:
            return g
        fb = self.tensor.get("sparse_default" if sparse else "dense_default")
        if fb is None:
            raise WarpsimError(f"timing table {self.name} has no tensor timing for {k}")
        return "sparse_default" if sparse else "dense_default"

    def with_tensor(self, latency: float, ii: float) -> "Params":
        """The same table with every tensor group (and emulated tensor stage) at one latency/ii:
        the fixed-latency Accel-Sim-like baseline."""
        tensor = {g: dict(v, latency=latency, ii=ii) for g, v in self.tensor.items()}
        return Params(self.arch, f"{self.calibration}; every tensor op latency {latency} / ii {ii}",
                      self.clock_mhz, self.issue, self.units, self.classes, tensor, self.emulated,
                      self.name + f"-fixed{latency:g}", memory=self.memory)


TABLES = {"sm_90": "warpsim.timing.params_sm90", "sm_80": "warpsim.timing.params_sm80",
          "sm_100": "warpsim.timing.params_sm100"}


def params_for(arch: str, device: str | None = None) -> Params:
    """The table for ``arch`` (``sm_90a`` -> sm_90; sm_80..89 -> sm_80; sm_100a/101/103/110/120 -> sm_100;
    anything older -> sm_80); ``device`` (e.g. ``"H200"``): the chip's entry of the table's ``devices`` merged
    over it, section by section."""
    a = arch.rstrip("af")
    try:
        n = int(a.split("_")[1])
    except (IndexError, ValueError):
        raise WarpsimError(f"no timing table for arch {arch!r}") from None
    base = "sm_80" if n < 90 else "sm_90" if n < 100 else "sm_100"
    mod = importlib.import_module(TABLES[base])
    t = mod.TABLE
    name = base
    if device is not None:
        chips = t.get("devices", {})
        if device not in chips:
            raise WarpsimError(f"timing table {base} has no device {device!r} (it has: "
                               f"{', '.join(sorted(chips)) or 'none'})")
        t = _merged(t, chips[device])
        name = f"{base}-{device}"
    return Params(t["arch"], t["calibration"], t["clock_mhz"], t["issue"], t["units"], t["classes"],
                  t["tensor"], t.get("emulated", {}), name=name, memory=t.get("memory", {}))


def _merged(base: dict, over: dict) -> dict:
    """``base`` with ``over`` merged in: a dict into a dict key by key, anything else replacing what is there."""
    out = dict(base)
    for k, v in over.items():
        out[k] = _merged(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out
