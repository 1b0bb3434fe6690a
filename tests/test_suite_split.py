"""tests/conftest.py: how the whole suite's two processes make one run."""
import os

import conftest


def test_the_first_process_files_exist():
    """The files the first process keeps are test files of this folder (a renamed one would move its tests to
    the second process without a word)."""
    assert conftest.FIRST and all(os.path.exists(os.path.join(conftest.HERE, f)) for f in conftest.FIRST)


def test_the_exit_status_of_the_two_processes():
    """A failure of either fails the run (a second process killed by a signal: 1); a run neither collected
    anything in is 5 (pytest's "no tests"); one that ran tests in either and failed none is 0."""
    assert conftest._combined(0, 0) == 0
    assert conftest._combined(1, 0) == 1 and conftest._combined(0, 1) == 1 and conftest._combined(2, 1) == 2
    assert conftest._combined(5, 1) == 1 and conftest._combined(0, -9) == 1 and conftest._combined(5, -15) == 1
    assert conftest._combined(5, 0) == 0 and conftest._combined(0, 5) == 0 and conftest._combined(5, 5) == 5
