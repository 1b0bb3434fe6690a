"""Cycle-level timing: a simpy event model of an SM's sub-partitions, schedulers, scoreboards and tensor pipes.

The timed engine runs the same :meth:`warpsim.warp.Warp.step` bodies as the functional engine; it only
decides *when* each step happens. ``params_sm90`` is calibrated to the H100 clock64 traces in
``traces/h100/timing``; ``params_sm80`` and ``params_sm100`` are literature-calibrated.
"""
from __future__ import annotations

from warpsim.timing.params import Params, params_for  # noqa: F401
