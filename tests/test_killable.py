"""`KillableWorker.call(cpu=True)` in a real child process: the limit is the child's CPU time,
a call stopped at it leaves the child alive, and the wall clock at `WALL_FACTOR` times the
limit still ends a call that uses no CPU."""

from __future__ import annotations

import os
import time

import pytest

from verifiers.killable import WALL_FACTOR, CheckTimeoutError, KillableWorker


def _spin(seconds: float) -> int:  # module level: the worker pickles it by reference
    """CPU work for `seconds` of this process's CPU time; the child's pid."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return os.getpid()


def _nap(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


@pytest.fixture
def worker():
    w = KillableWorker(memory_mb=512)
    yield w
    w.close()


def test_a_call_past_its_cpu_limit_times_out_and_the_child_lives_on(worker):
    pid = worker.call(_spin, 0.0, timeout=5.0, cpu=True)
    with pytest.raises(CheckTimeoutError, match="CPU time"):
        worker.call(_spin, 30.0, timeout=0.5, cpu=True)
    # Stopped inside the child, not killed: the next call finds the same process.
    assert worker.call(_spin, 0.0, timeout=5.0, cpu=True) == pid


def test_a_call_that_waits_past_its_limit_answers_before_the_wall_backstop(worker):
    # Half a second of sleep uses no CPU: a wall limit of 0.25 s would have ended it.
    assert worker.call(_nap, 0.5, timeout=0.25, cpu=True) > 0


def test_the_wall_clock_ends_a_call_that_gets_no_cpu(worker):
    limit = 0.3
    start = time.monotonic()
    with pytest.raises(CheckTimeoutError):
        worker.call(_nap, 30.0, timeout=limit, cpu=True)
    assert time.monotonic() - start < limit * WALL_FACTOR + 10.0
    assert worker.call(_spin, 0.0, timeout=5.0, cpu=True) > 0  # a fresh child if need be


def test_without_cpu_the_limit_is_the_wall_clock(worker):
    with pytest.raises(CheckTimeoutError):
        worker.call(_nap, 30.0, timeout=0.3)


def _loaded(name: str) -> bool:
    import sys

    return name in sys.modules


def test_a_preloaded_worker_is_forked_with_its_modules_and_killed_like_any():
    """`preload`: children forked from a fork server that imported the modules once; a child
    killed at the wall clock is replaced by another forked from it."""
    w = KillableWorker(memory_mb=1024, preload=("verifiers.calculator.warmed",))
    try:
        assert w.call(_loaded, "sympy", timeout=60.0)  # imported by the server, not the call
        pid = w.call(_spin, 0.0, timeout=60.0)
        with pytest.raises(CheckTimeoutError):
            w.call(_nap, 30.0, timeout=0.5)
        assert w.call(_spin, 0.0, timeout=60.0) != pid
    finally:
        w.close()
