"""The sandbox's contract on ordinary programs: counts, statuses, limits, refusal, unsafe mode."""

from __future__ import annotations

import dataclasses
import logging
import shutil

import pytest

from labeling.schema import Problem
from tests.conftest import needs_sandbox
from verifiers.sandbox.program import prepare_job, rewrite_test
from verifiers.sandbox.runner import (
    ExecutionResult,
    Sandbox,
    SandboxConfig,
    SandboxUnavailableError,
    run_tests,
    run_tests_many,
)

FAST = SandboxConfig(timeout_s=3, cpu_s=2, memory_mb=256)
ADD = Problem("add", "code", "t", "", tests=("assert add(1, 2) == 3", "assert add(2, 2) == 4"))
GOOD = "def add(a, b):\n    return a + b\n"
HALF = "def add(a, b):\n    return 3\n"


@pytest.mark.sandbox
@needs_sandbox
def test_pass_fail_and_partial_counts():
    good, half, bad = run_tests_many([(ADD, GOOD), (ADD, HALF), (ADD, "def add(a,\n")], 2, FAST)
    assert good.passed and (good.tests_passed, good.tests_total) == (2, 2)
    assert good.test_status == ("pass", "pass") and good.error == ""
    assert not half.passed and half.tests_passed == 1 and half.test_status == ("pass", "fail")
    assert not bad.passed and "syntax error" in bad.error and bad.test_status[0] == "not_run"


@pytest.mark.sandbox
@needs_sandbox
def test_setup_runs_after_solution_and_output_is_kept():
    p = Problem("s", "code", "t", "", tests=("assert total(xs) == 6",), test_setup="xs = make()")
    code = (
        "def make():\n    print('made')\n    return [1, 2, 3]\ndef total(v):\n    return sum(v)\n"
    )
    r = run_tests(p, code, FAST)
    assert r.passed and r.stdout == "made\n"


@pytest.mark.sandbox
@needs_sandbox
def test_humaneval_check_body():
    tests = ("def check(candidate):\n    assert candidate(2) == 4\n    assert candidate(0) == 0\n",)
    p = Problem("h", "code", "humaneval", "", tests=tests, entry_point="double")
    ok = run_tests(p, "def double(x):\n    return 2 * x\n", FAST)
    wrong = run_tests(p, "def double(x):\n    return x + 2\n", FAST)
    assert ok.passed and ok.tests_total == 1
    assert not wrong.passed and wrong.test_status == ("fail",)


@pytest.mark.sandbox
@needs_sandbox
def test_trusted_stdlib_values_compare_normally():
    p = Problem(
        "c",
        "code",
        "t",
        "",
        tests=(
            "assert count('aab') == {'a': 2, 'b': 1}",
            "assert 1 < len(count('ab')) <= 2",
            "assert not count('') and (count('a') or False)",
        ),
    )
    r = run_tests(
        p, "from collections import Counter\ndef count(s):\n    return Counter(s)\n", FAST
    )
    assert r.passed, r


@pytest.mark.sandbox
@needs_sandbox
def test_hash_seed_is_fixed_so_results_repeat():
    p = Problem("h", "code", "t", "", tests=("assert order() == order()",))
    code = "def order():\n    return ''.join(set('abcdefgh'))\nprint(order())\n"
    a, b = run_tests(p, code, FAST), run_tests(p, code, FAST)
    assert a.stdout == b.stdout and a.passed


@pytest.mark.sandbox
@needs_sandbox
def test_timeout_kills_and_reports_partial_progress():
    p = Problem("t", "code", "t", "", tests=("assert f(1) == 1", "assert f(2) == 2"))
    code = "def f(x):\n    while x == 2:\n        pass\n    return x\n"
    cpu = dataclasses.replace(FAST, cpu_s=1, timeout_s=15)  # the CPU limit ends the program
    r = run_tests(p, code, cpu)
    assert r.timed_out and not r.passed and r.tests_passed == 1 and "CPU limit" in r.error
    assert r.test_status == ("pass", "error") and r.duration_s < cpu.timeout_s
    wall = run_tests(p, code, dataclasses.replace(FAST, cpu_s=10))  # the wall clock ends it
    assert wall.timed_out and wall.test_status == ("pass", "not_run")
    assert wall.duration_s < FAST.timeout_s + 1


def test_bad_tests_raise():
    with pytest.raises(ValueError, match="no tests"):
        prepare_job(Problem("x", "code", "t", ""), "pass")
    with pytest.raises(ValueError, match="does not parse"):
        rewrite_test("assert f(1) ==")


def test_rewrite_counts_asserts_and_routes_comparisons():
    src, needed = rewrite_test("assert f(1) == 2\nassert 0 < f(2) < 3")
    assert needed == 2 and "__prm_cmp__" in src and "__prm_chain__" in src
    assert rewrite_test("for i in range(3):\n    assert f(i)")[1] == 1
    assert rewrite_test("f(1)")[1] == 0


def test_refuses_without_bwrap(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(SandboxUnavailableError, match="apt-get install bubblewrap"):
        Sandbox(SandboxConfig(timeout_s=2))


def test_unknown_isolation_is_a_config_error():
    with pytest.raises(ValueError, match="isolation"):
        Sandbox(SandboxConfig(isolation="docker"))


@pytest.mark.sandbox
def test_unsafe_mode_runs_and_warns_every_time(caplog):
    sandbox = Sandbox(dataclasses.replace(FAST, isolation="none"))
    with caplog.at_level(logging.WARNING, logger="verifiers.sandbox.runner"):
        results = [sandbox.run(ADD, GOOD), sandbox.run(ADD, HALF)]
    assert [r.passed for r in results] == [True, False]
    assert all(r.isolation == "none" for r in results)
    assert sum("UNSAFE" in rec.message for rec in caplog.records) == 2


@pytest.mark.sandbox
@needs_sandbox
@pytest.mark.parametrize(
    "program",
    [
        "import sys\nprint('all tests passed')\nsys.exit(0)\n",  # exit status and output
        "import os\nos._exit(0)\n",  # leaves before any test runs
        "def add(a, b):\n    raise SystemExit(0)\n",  # exits from inside the call
    ],
    ids=["prints-and-exits", "os-exit", "systemexit-in-call"],
)
def test_exit_status_and_output_count_for_nothing(program):
    # What ExecutionResult promises: only the test process's own report passes a run.
    result = Sandbox(FAST).run(ADD, program)
    assert isinstance(result, ExecutionResult) and result.passed is False


@pytest.mark.sandbox
@needs_sandbox
def test_refuses_without_a_seccomp_filter(monkeypatch):
    from verifiers.sandbox import runner, seccomp

    def missing() -> bytes:
        raise seccomp.SeccompUnavailableError("install python3-seccomp")

    monkeypatch.setattr(runner, "filter_bpf", missing)
    with pytest.raises(SandboxUnavailableError, match="python3-seccomp"):
        Sandbox(SandboxConfig(timeout_s=2))


@pytest.mark.sandbox
@needs_sandbox
def test_seccomp_filter_is_built_from_libseccomp():
    from verifiers.sandbox.seccomp import filter_bpf

    bpf = filter_bpf()
    assert bpf and len(bpf) % 8 == 0  # classic BPF: 8-byte instructions
