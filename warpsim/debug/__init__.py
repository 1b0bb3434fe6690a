"""warpsim's debugger, in three layers (as CPython's bdb / cmd / pdb):

* :mod:`warpsim.debug.engine` — :class:`Session`: stepping, breakpoints, reverse execution; no I/O.
* :mod:`warpsim.debug.state` — what it shows (warps, lanes, registers, mma.sp fragments) as objects that
  render in a terminal and in Jupyter.
* :mod:`warpsim.debug.shell` — the ``cmd.Cmd`` shell (``warpsim debug``), cuda-gdb's vocabulary;
  :mod:`warpsim.debug.dap` — a Debug Adapter Protocol server over stdio (``warpsim dap``).
"""
from warpsim.debug.engine import Breakpoint, DebugError, Session, Stop  # noqa: F401
