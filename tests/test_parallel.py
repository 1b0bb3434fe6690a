"""warpsim.parallel: jobs in forked workers come back in order, as run here; errors come back raised."""
import os

import pytest

from warpsim import parallel


def _square(x):
    return x * x, os.getpid(), parallel.in_worker(), parallel.can_fork(2)


def _fail(x):
    raise KeyError(f"no item {x}")


def test_fork_map_gives_the_results_in_order_from_workers():
    got = list(parallel.fork_map(_square, range(8), 2))
    assert [g[0] for g in got] == [x * x for x in range(8)]
    assert all(pid != os.getpid() and inside and not nested for _sq, pid, inside, nested in got)
    here = list(parallel.fork_map(_square, range(3), 1))  # one process: here, in turn
    assert [h[1] for h in here] == [os.getpid()] * 3 and not any(h[2] for h in here)


def test_fork_map_raises_a_jobs_error_with_its_traceback():
    with pytest.raises(parallel.WorkerError) as err:
        list(parallel.fork_map(_fail, [1, 2], 2))
    assert err.value.kind == "KeyError" and "no item 1" in err.value.text and "_fail" in err.value.trace


def test_fork_map_stopped_early_leaves_no_workers():
    import multiprocessing
    it = parallel.fork_map(_square, range(20), 2)
    assert next(it)[0] == 0
    it.close()
    assert not multiprocessing.active_children()


def test_default_processes_reads_warpsim_processes(monkeypatch):
    """``WARPSIM_PROCESSES`` sets how many workers run when none is asked for; unset, one per CPU; anything but
    a whole number from 1 is named."""
    monkeypatch.delenv("WARPSIM_PROCESSES", raising=False)
    assert parallel.default_processes() == (os.cpu_count() or 1)
    monkeypatch.setenv("WARPSIM_PROCESSES", "3")
    assert parallel.default_processes() == 3
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv("WARPSIM_PROCESSES", bad)
        with pytest.raises(ValueError, match=f"WARPSIM_PROCESSES='{bad}': expected a whole number"):
            parallel.default_processes()
