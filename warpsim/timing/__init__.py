"""Cycle-level timing: a discrete-event model of an SM's sub-partitions, schedulers, scoreboards, pipes and L1.

The timed engine runs the same :meth:`warpsim.warp.Warp.step` bodies as the functional engine, in program
order; it decides *when* each instruction issues, in the order ptxas puts them (``sched``), and for the
emulated mma forms runs ptxas's own SASS where it is on file (``sass_profile``, ``sass_sim``).
``params_sm90`` is calibrated to the H100 clock64 traces in ``traces/h100/timing``; ``params_sm80`` and
``params_sm100`` are literature-calibrated.
"""
from __future__ import annotations

from warpsim.timing.params import Params, params_for  # noqa: F401
