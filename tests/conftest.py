"""The suite's two processes.

Run whole (``python -m pytest`` with no test paths) on a machine with two or more CPUs, the suite splits itself:
this process runs the files of :data:`FIRST` and starts a second ``python -m pytest``, with the same options, on
all the others. Its output is printed at the end of this one's, under "second process", and a failure there
fails the run. The two take about the same time (the timing replays dominate both); each still forks a worker a
CPU for its runs (``sass_sim.prefetch``): on 2 CPUs that was faster than one each (9:23 against 9:58).
``WARPSIM_TEST_PROCESSES=1`` runs everything in this process, as does naming test files or directories on the
command line.
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

HERE = Path(__file__).parent
#: the files this process runs when the suite splits; every other test file goes to the second process
FIRST = frozenset({"test_timing.py", "test_timing_memory.py"})
#: set in the second process: which files it runs
ROLE = "WARPSIM_TEST_ROLE"
_CHILD = pytest.StashKey()


def _splits(config) -> bool:
    """Whether this run splits: the whole suite, two CPUs or more, not asked to stay in one process."""
    if os.environ.get(ROLE) or os.environ.get("WARPSIM_TEST_PROCESSES") == "1" or (os.cpu_count() or 1) < 2:
        return False
    if config.getoption("collectonly") or config.getoption("help", False):
        return False
    named = [a for a in config.invocation_params.args if not a.startswith("-")
             and os.path.exists(os.path.join(str(config.invocation_params.dir), a.split("::")[0]))]
    return not named


def pytest_configure(config):
    if not _splits(config):
        return
    out = tempfile.TemporaryFile(mode="w+")
    cmd = [sys.executable, "-m", "pytest", *config.invocation_params.args]
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=str(config.invocation_params.dir),
                            env=dict(os.environ, **{ROLE: "second"}))
    config.stash[_CHILD] = (proc, out)


def _role(config) -> str | None:
    if _CHILD in config.stash:
        return "first"
    return os.environ.get(ROLE)


def pytest_ignore_collect(collection_path, config):
    role = _role(config)
    if role is None or collection_path.is_dir() or not collection_path.name.startswith("test_"):
        return None
    if collection_path.parent.resolve() != HERE.resolve():
        return None
    return True if (collection_path.name in FIRST) != (role == "first") else None


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session, exitstatus):
    child = session.config.stash.get(_CHILD, None)
    if child is None:
        return
    proc, out = child
    code = proc.wait()
    out.seek(0)
    session.config.stash[_CHILD] = (proc, out.read())
    if code not in (0, 5) and session.exitstatus == 0:  # 5: it collected nothing (a -k that matches none there)
        session.exitstatus = code


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    child = config.stash.get(_CHILD, None)
    if child is None or not isinstance(child[1], str):
        return
    proc, text = child
    terminalreporter.section(f"second process: every test file but {', '.join(sorted(FIRST))} "
                             f"(exit {proc.returncode})")
    terminalreporter.write(text)


def pytest_unconfigure(config):
    child = config.stash.get(_CHILD, None)
    if child is None:
        return
    if child[0].poll() is None:  # this run stopped early (an interrupt): stop the other
        child[0].terminate()
    elif isinstance(child[1], str) and child[1].strip():
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:  # the other's count last, beside this one's
            reporter.write_line(f"second process: {child[1].strip().splitlines()[-1].strip('= ')}")
