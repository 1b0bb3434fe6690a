"""Independent jobs in forked worker processes, one per CPU: ``warpsim replay --jobs`` (trace files) and
``warpsim.timing.sass_sim.prefetch`` (SASS loop runs) share this one way of doing it.

Workers are forked (Linux), so they start with the parent's compiled numba functions and its data; a job
is named by an index into a list the parent set before forking. A worker never forks workers of its own
(:func:`in_worker`). What comes back is what a job returned, or the text of the error it raised, raised here
again: an exception object may not come back from a worker whole, and a worker that dies (out of memory)
raises ``BrokenProcessPool`` here instead of leaving the parent waiting.
"""
from __future__ import annotations

import os
import sys
import traceback
from concurrent.futures import ProcessPoolExecutor

#: the jobs of the :func:`fork_map` in progress (set before the workers fork, read by :func:`_call`)
_JOBS: tuple = ()
#: set in a worker (:func:`_mark_worker`)
_IN_WORKER = False


class WorkerError(RuntimeError):
    """An error a job raised in a worker: ``kind`` its class's name, ``text`` its message, ``trace`` its
    traceback."""

    def __init__(self, kind: str, text: str, trace: str):
        super().__init__(f"{kind}: {text}")
        self.kind, self.text, self.trace = kind, text, trace

    def __reduce__(self):
        return WorkerError, (self.kind, self.text, self.trace)


def default_processes() -> int:
    """How many workers to use when not told: ``WARPSIM_PROCESSES`` if set (to keep the forked runs of
    ``sass_sim.prefetch`` to fewer CPUs than the machine has), else one per CPU."""
    text = os.environ.get("WARPSIM_PROCESSES", "").strip()
    if not text:
        return os.cpu_count() or 1
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"WARPSIM_PROCESSES={text!r}: expected a whole number of processes, 1 or more")
    return int(text)


def in_worker() -> bool:
    """Whether this process is a :func:`fork_map` worker."""
    return _IN_WORKER


def can_fork(processes: int) -> bool:
    """Whether :func:`fork_map` would use ``processes`` workers: more than one, on Linux, not in a worker."""
    return processes > 1 and sys.platform.startswith("linux") and not _IN_WORKER


def fork_map(fn, items: list, processes: int | None = None):
    """``fn(item)`` of each of ``items``, in order (an iterator), ``processes`` at a time (default:
    :func:`default_processes`) in forked workers; here one by one where :func:`can_fork` says no. A job's error is
    raised here as :class:`WorkerError` (its class, message and traceback), when its result is reached."""
    global _JOBS
    items = list(items)
    procs = min(processes or default_processes(), len(items))
    if not can_fork(procs):
        yield from map(fn, items)
        return
    import multiprocessing
    _JOBS = (fn, items)
    pool = ProcessPoolExecutor(procs, mp_context=multiprocessing.get_context("fork"), initializer=_mark_worker)
    try:
        for ok, got in pool.map(_call, range(len(items))):
            if not ok:
                raise got
            yield got
    finally:  # the jobs not started are dropped when the caller stops early or a job failed
        pool.shutdown(wait=True, cancel_futures=True)
        _JOBS = ()


def _mark_worker() -> None:
    global _IN_WORKER
    _IN_WORKER = True


def _call(i: int):
    """Job ``i`` of :data:`_JOBS`, in a worker: ``(True, result)`` or ``(False, WorkerError)``."""
    fn, items = _JOBS
    try:
        return True, fn(items[i])
    except Exception as err:  # noqa: BLE001 -- every error goes back to the parent, as text
        return False, WorkerError(type(err).__name__, str(err), traceback.format_exc())
