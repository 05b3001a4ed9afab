"""The code label sources: per-step syntax verdicts and the sandboxed outcome on the last step."""

from __future__ import annotations

import json

import pytest

from labeling.combine import combine
from labeling.datasets.builtin_code_tasks import builtin_code_solutions, builtin_code_tasks
from labeling.datasets.mbpp import problem_from_record
from labeling.schema import Chain, Problem, Status
from labeling.steps.code import split_code_steps
from tests.conftest import needs_sandbox, shared
from verifiers.base import Verifier
from verifiers.code_syntax import SyntaxVerifier
from verifiers.code_tests import CodeTestVerifier
from verifiers.sandbox.program import prepare_job
from verifiers.sandbox.runner import SandboxConfig, run_tests_many

FAST = SandboxConfig(timeout_s=3, cpu_s=2, memory_mb=256)
ADD = Problem("add", "code", "t", "Add.", tests=("assert add(1, 2) == 3",), entry_point="add")


def chain(text: str, mode: str = "line") -> Chain:
    steps = tuple(split_code_steps(text, mode, "add"))
    return Chain("add", "c0", 0, text, steps, "test-model")


GOOD = "Add them.\n\n```python\ndef add(a, b):\n    s = a + b\n    return s\n```"
WRONG = "Subtract.\n\n```python\ndef add(a, b):\n    s = a - b\n    return s\n```"
BROKEN = "Add.\n\n```python\ndef add(a, b):\n    s = a +\n    return s\n```"


def test_syntax_verifier_marks_first_unfixable_step():
    c = chain(BROKEN)
    verdicts = SyntaxVerifier().verify([(ADD, c)])[0]
    assert [v.status for v in verdicts] == [
        Status.UNVERIFIABLE,
        Status.CORRECT,
        Status.INCORRECT,
        Status.UNVERIFIABLE,
    ]
    assert "cannot parse" in verdicts[2].evidence
    assert isinstance(SyntaxVerifier(), Verifier)


def test_syntax_verifier_all_correct_for_good_code():
    verdicts = SyntaxVerifier().verify_chain(ADD, chain(GOOD))
    assert [v.label for v in verdicts] == [None, True, True, True]


@pytest.mark.sandbox
@needs_sandbox
def test_code_test_verifier_outcome_on_last_step():
    verifier = CodeTestVerifier(FAST)
    good, wrong, broken, empty = verifier.verify(
        [(ADD, chain(GOOD)), (ADD, chain(WRONG)), (ADD, chain(BROKEN)), (ADD, chain("No idea."))]
    )
    assert good[-1].status == Status.CORRECT and good[-1].score == 1.0
    assert wrong[-1].status == Status.INCORRECT and wrong[-1].label is False
    assert all(v.status == Status.UNVERIFIABLE for v in wrong[:-1])  # the outcome only
    assert broken[-1].label is False
    assert SyntaxVerifier().verify_chain(ADD, chain(BROKEN))[2].status == Status.INCORRECT
    assert empty[-1].status == Status.INCORRECT and "no code" in empty[-1].evidence
    assert verifier.name == "answer" and isinstance(verifier, Verifier)


@pytest.mark.sandbox
@needs_sandbox
def test_outcome_mode_feeds_combine():
    outcome = CodeTestVerifier(FAST)
    c = chain(BROKEN)
    verdicts = {
        "answer": outcome.verify_chain(ADD, c),
        "tests": SyntaxVerifier().verify_chain(ADD, c),
    }
    result = combine(verdicts, len(c.steps), "verifier_first")
    assert result.first_error_step == 2
    assert all(v.status == Status.UNVERIFIABLE for v in verdicts["answer"][:-1])


@pytest.mark.sandbox
@needs_sandbox
def test_timeout_is_a_timeout_verdict_that_decides_nothing():
    text = "```python\ndef add(a, b):\n    while True:\n        pass\n```"
    c = chain(text)
    verdicts = CodeTestVerifier(FAST).verify_chain(ADD, c)
    assert verdicts[-1].status == Status.TIMEOUT and verdicts[-1].label is None
    # the labels, the first error and the outcome agree: nothing is known
    for policy in ("verifier_first", "outcome"):
        result = combine({"answer": verdicts}, len(c.steps), policy)
        assert all(x is None for x in result.labels) and result.first_error_step is None


@pytest.mark.sandbox
@needs_sandbox
def test_builtin_reference_solutions_pass():
    solutions = builtin_code_solutions()
    pairs = [
        (
            Problem(
                t["entry_point"],
                "code",
                "builtin",
                t["question"],
                tests=t["tests"],
                entry_point=t["entry_point"],
            ),
            solutions[t["entry_point"]],
        )
        for t in builtin_code_tasks()
    ]
    # Generous wall time: the point is that every reference passes, and a 3 s budget was
    # missed once on a loaded 2-core machine (a timeout, not a failing test).
    roomy = SandboxConfig(timeout_s=20, cpu_s=5, memory_mb=256)
    results = run_tests_many(pairs, 2, roomy)
    assert [p.problem_id for (p, _), r in zip(pairs, results, strict=True) if not r.passed] == []
    # A wrong program: the function under test exists and answers None to everything.
    wrong = [(p, f"def {p.entry_point}(*args, **kwargs):\n    return None\n") for p, _ in pairs]
    results = run_tests_many(wrong, 2, FAST)
    assert [p.problem_id for (p, _), r in zip(wrong, results, strict=True) if r.passed] == []
    assert all(r.tests_passed < r.tests_total for r in results)


@pytest.mark.sandbox
@needs_sandbox
def test_mbpp_reference_sample_passes():
    path = shared("mbpp/mbpp.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()[:40]]
    pairs = [(problem_from_record(r), r["code"]) for r in rows]
    results = run_tests_many(pairs, 2)
    assert [p.problem_id for (p, _), r in zip(pairs, results, strict=True) if not r.passed] == []


@pytest.mark.sandbox
@needs_sandbox
def test_mbpp_tasks_that_stretch_the_channel():
    """Set-up code building the program's objects (367, 927), a type passed as an argument
    (533), a function under test named like a builtin (126), a stdlib module the tests take
    from the program (596): references pass, the function under test answering None fails."""
    path = shared("mbpp/mbpp.jsonl")
    wanted = {126, 367, 533, 596, 927}
    rows = [r for r in map(json.loads, path.read_text().splitlines()) if r["task_id"] in wanted]
    assert len(rows) == len(wanted)
    problems = [problem_from_record(r) for r in rows]
    good = run_tests_many([(p, r["code"]) for p, r in zip(problems, rows, strict=True)], 2)
    assert [r.error for r in good if not r.passed] == []
    wrong = [
        (p, f"{r['code']}\n\ndef {prepare_job(p, '').subject}(*args, **kwargs):\n    return None\n")
        for p, r in zip(problems, rows, strict=True)
    ]
    assert not any(r.passed for r in run_tests_many(wrong, 2))


def test_a_sandbox_that_never_started_gives_an_error_verdict_not_a_failure():
    from verifiers.code_tests import outcome_verdict
    from verifiers.sandbox.result import ExecutionResult

    broken = ExecutionResult(passed=False, tests_passed=0, tests_total=3, started=False,
                             error="bwrap: No permissions to create new namespace")
    v = outcome_verdict(broken)
    assert v.status == Status.ERROR and v.label is None
    failed = ExecutionResult(passed=False, tests_passed=1, tests_total=3, error="test 1: fail")
    assert outcome_verdict(failed).status == Status.INCORRECT
