"""The suite's two processes.

Run whole (``python -m pytest`` with no test paths) on a machine with two or more CPUs, the suite splits itself:
this process runs the files of :data:`FIRST` and starts a second ``python -m pytest``, with the same options, on
all the others. Its output is printed after this one's, under "second process", its failures fail the run, and
its failed tests are kept for ``--lf`` beside this one's. The two take about the same time (the timing replays
dominate both); each still forks a worker a CPU for its runs (``sass_sim.prefetch``): on 2 CPUs that was faster
than one each (9:23 against 9:58). ``WARPSIM_TEST_PROCESSES=1`` runs everything in this process, as do naming
test files or directories and the options that want one process (``--lf``, ``--ff``, ``--sw``, ``--pdb``,
``--trace``, ``--junitxml``, ``--basetemp``).
"""
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

HERE = Path(__file__).parent
#: the files this process runs when the suite splits; every other test file goes to the second process
FIRST = frozenset({"test_timing.py", "test_timing_memory.py", "test_loop_delay.py"})
#: set in the second process
ROLE = "WARPSIM_TEST_ROLE"
#: options under which the suite stays in one process (their state or their terminal is this process's)
ONE_PROCESS = ("lf", "failedfirst", "stepwise", "usepdb", "trace", "xmlpath", "basetemp", "collectonly", "help")
_CHILD = pytest.StashKey()


def _splits(config) -> bool:
    """Whether this run splits: the whole suite, two CPUs or more, nothing that wants one process."""
    if os.environ.get(ROLE) or os.environ.get("WARPSIM_TEST_PROCESSES") == "1" or (os.cpu_count() or 1) < 2:
        return False
    if any(config.getoption(name, None) for name in ONE_PROCESS):
        return False
    named = [a for a in config.invocation_params.args if not a.startswith("-")
             and os.path.exists(os.path.join(str(config.invocation_params.dir), a.split("::")[0]))]
    return not named


def _die_with_parent():
    """In the second process before it runs: end it when this one ends, however (Linux)."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def pytest_configure(config):
    if not _splits(config):
        return
    out = tempfile.TemporaryFile(mode="w+", errors="replace")
    cmd = [sys.executable, "-m", "pytest", *config.invocation_params.args]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                            cwd=str(config.invocation_params.dir), env=dict(os.environ, **{ROLE: "second"}),
                            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
    config.stash[_CHILD] = (proc, out)


def _role(config) -> str | None:
    return "first" if _CHILD in config.stash else os.environ.get(ROLE)


def _first(path: Path) -> bool:
    return path.name in FIRST


def pytest_ignore_collect(collection_path, config):
    role = _role(config)
    if role is None or collection_path.is_dir() or not collection_path.name.startswith("test_"):
        return None
    if collection_path.parent.resolve() != HERE.resolve():
        return None
    return True if _first(collection_path) != (role == "first") else None


def _combined(mine: int, theirs: int) -> int:
    """The run's exit status from this process's and the second's: a failure of either (a second process that
    died by a signal: 1); else 0 if either ran tests (5: none collected)."""
    if theirs < 0:
        theirs = 1
    if mine not in (0, 5):
        return mine
    if theirs not in (0, 5):
        return theirs
    return 0 if 0 in (mine, theirs) else 5


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session, exitstatus):
    child = session.config.stash.get(_CHILD, None)
    if child is None:
        return
    proc, out = child
    if session.shouldfail or session.shouldstop:  # -x / --maxfail here: the other half stops too
        proc.terminate()
    code = proc.wait()
    out.seek(0)
    session.config.stash[_CHILD] = (proc, out.read())
    session.exitstatus = _combined(int(session.exitstatus), code)
    _keep_failures(session.config)


def _keep_failures(config):
    """The second process's failed tests into this one's ``--lf`` record (this one writes it last)."""
    lf = config.pluginmanager.get_plugin("lfplugin")
    if lf is None or getattr(config, "cache", None) is None or not hasattr(lf, "lastfailed"):
        return
    try:  # pytest 9 keys the record by NodeId, earlier ones by str
        from _pytest.nodeid import NodeId
        key = NodeId.parse
    except ImportError:
        key = str
    theirs = config.cache.get("cache/lastfailed", {})
    second = lambda nodeid: not _first(Path(str(nodeid).split("::")[0]))  # noqa: E731
    for nodeid in [n for n in lf.lastfailed if second(n)]:
        del lf.lastfailed[nodeid]
    lf.lastfailed.update({key(n): v for n, v in theirs.items() if second(n)})


def pytest_unconfigure(config):
    child = config.stash.get(_CHILD, None)
    if child is None:
        return
    proc, text = child
    if proc.poll() is None:  # this run stopped early (an interrupt): stop the other
        proc.terminate()
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or not isinstance(text, str):
        return
    reporter.section(f"second process: every test file but {', '.join(sorted(FIRST))} (exit {proc.returncode})")
    reporter.write(text)
    last = text.strip().splitlines()[-1].strip("= ") if text.strip() else "no output"
    reporter.write_line(f"second process: {last}" + (f" (ended by signal {-proc.returncode})"
                                                      if proc.returncode < 0 else ""))
