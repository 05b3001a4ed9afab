"""`make test` and `make test-latest` run the suite in the same tiers: the tests that can share
the machine on every core, then the Ray, engine and training ones one at a time (they take all
of it; in parallel they time out and starve each other). Read from `make -n`: the commands
make would run."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MACHINE = "ray or engine or train"
_PYTEST = re.compile(r"\S*pytest((?:\s+(?:-m\s+\"[^\"]*\"|[^\s|;]+))*)")


def pytest_calls(script: str) -> list[tuple[bool, str]]:
    """(runs in parallel, its -m expression) of each pytest command in `script`."""
    calls = []
    for m in _PYTEST.finditer(script):
        args = m.group(1)
        mark = re.search(r"-m\s+\"([^\"]*)\"", args)
        calls.append(("-n auto" in args, mark.group(1) if mark else ""))
    return calls


def tier_problems(script: str) -> list[str]:
    """Why `script` does not run the tiers as `make test` does (empty: it does)."""
    calls = pytest_calls(script)
    if len(calls) != 2:
        return [f"{len(calls)} pytest commands, not the two tiers: {calls}"]
    (par_a, mark_a), (par_b, mark_b) = calls
    problems = []
    if not (par_a and mark_a.startswith(f"not ({MACHINE})")):
        problems.append(f"the first tier must run the rest in parallel: {calls[0]}")
    if par_b or not mark_b.startswith(f"({MACHINE})"):
        problems.append(f"the machine tier must run alone, one test at a time: {calls[1]}")
    return problems


def make_n(target: str) -> str:
    done = subprocess.run(["make", "-n", "--no-print-directory", target], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip().splitlines()[-1]  # the target's own recipe comes last


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("target", ["test", "test-latest"])
def test_make_runs_the_tiers(target):
    assert tier_problems(make_n(target)) == []


def test_the_tier_check_bites_on_one_parallel_run():
    planted = '/tmp/prm-latest/bin/pytest -n auto -x -m "not slow"'
    assert tier_problems(planted) != []
    both_parallel = (f'pytest -n auto -m "not ({MACHINE})" || rc=1; '
                     f'pytest -n auto -m "({MACHINE})"')
    assert tier_problems(both_parallel) != []
    right = (f'pytest -n auto -m "not ({MACHINE}) and not slow" -x || rc=$?; '
             f'pytest -m "({MACHINE}) and not slow" -x')
    assert tier_problems(right) == []
