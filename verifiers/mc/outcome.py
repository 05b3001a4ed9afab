"""Outcome checks for Monte Carlo rollouts: did a completion reach the right answer?

An `OutcomeCheck` is a callable `(problem, prefix_text, completion_text) -> bool | None`:
True when the prefix followed by the completion solves the problem, False when it does not,
None when the check could not decide (the answer check timed out, the sandbox did not start).
`prefix_text` is the chain's text up to and including the step, exactly as the model wrote it
(`verifiers.mc.driver.prefix_texts`): code needs its original indentation and line breaks. An
empty `completion_text` asks about the prefix itself as a finished solution: that is how the
driver learns a chain's own outcome.

Bad reference data raises ValueError (a problem without a reference answer or tests); bad model
output is simply False. `no_attempt` says which math rollouts decide nothing because they
made no attempt at an answer (wrote nothing, or copied the instruction's placeholder).
"""

from __future__ import annotations

import functools
import inspect
import re
import threading
from collections.abc import Callable, Mapping
from typing import Any

from labeling.schema import Problem
from labeling.steps.thinking import rollout_answer_text
from verifiers.answer import ANSWER_TIMEOUT_S, AnswerChecker, extract_answer

OutcomeCheck = Callable[[Problem, str, str], "bool | None"]
_BOXED_TEXT = re.compile(r"\\boxed\{([^{}]*)\}")  # a placeholder: plain text, no nesting


def no_attempt(problem: Problem, prefix: str, completion: str, prompt: str = "") -> bool:
    """Whether a math rollout made no attempt at an answer, so that it decides nothing (the
    driver counts it as undecided). Two ways, both seen with SmolLM2 on the starter problems:
    - it wrote nothing (the completer ended its answer right at the prefix) and the prefix
      states no final answer of its own (boxed, "####", "the answer is"). Read as a finished
      solution such a prefix is judged by its last number ("7 * 6 equals 42, which is the
      result of 7 and 6." reads as 6): a failure that says only that the step reads like an
      ending;
    - its answer is a placeholder of `prompt` (the rollout's user message): a boxed text of
      the instruction, not of the question ("\\boxed{your answer}" copied, not filled in).
    A prefix that states an answer is judged by it (the completer accepted it); code runs
    the prefix's program as it stands (never "no attempt")."""
    if problem.domain != "math":
        return False
    text = rollout_answer_text(prefix, completion)
    if text is None:
        return not completion.strip()  # the prefix itself ends inside an unclosed thinking
    answer, how = extract_answer(text)
    if not completion.strip() and how in ("none", "last_number"):
        return True
    return answer is not None and _squash(answer) in placeholders(prompt, problem.question)


def placeholders(prompt: str, question: str) -> set[str]:
    """Boxed texts of `prompt` outside `question`: the instruction's answer format."""
    rest = prompt.replace(question.strip(), "") if question.strip() else prompt
    return {_squash(m) for m in _BOXED_TEXT.findall(rest)}


def _squash(text: str) -> str:
    return " ".join(text.split()).strip(" .$").lower()


class MathOutcome:
    """Final-answer equivalence with `AnswerChecker` (exact numbers, then Math-Verify).

    The answer is taken from the completion alone: an answer the prefix already stated is not
    the rollout's answer. For the chain's own outcome (empty completion) it is taken from the
    prefix. A prefix that ends inside a reasoning model's thinking is continued there: only
    what the completion writes after `</think>` is its answer, and a completion that never
    closes the thinking decides nothing (None; `labeling.steps.thinking.rollout_answer_text`).
    """

    def __init__(self, timeout_s: float = ANSWER_TIMEOUT_S) -> None:
        self.checker = AnswerChecker(timeout_s=timeout_s)

    def __call__(self, problem: Problem, prefix: str, completion: str) -> bool | None:
        if not problem.reference.strip():
            raise ValueError(f"problem {problem.problem_id} has no reference answer")
        text = rollout_answer_text(prefix, completion)
        if text is None:
            return None
        if extract_answer(text)[0] is None:
            return False
        return self.checker.outcome(text, problem.reference).correct

    def close(self) -> None:
        self.checker.close()


class CodeOutcome:
    """Runs the program in prefix + completion against the problem's tests in the sandbox.

    The program is found with `labeling.steps.code.extract_code` (the same rules as the
    `tests` source, so a rollout is judged like a chain). `run_tests(problem, code, ...)`
    defaults to `verifiers.sandbox.runner.run_tests`, imported on first use so that math-only runs
    never load the sandbox; `options` (e.g. the job's `sandbox` settings) then fill the
    `SandboxConfig` fields of the same name. A custom `run_tests` gets the options its
    signature accepts. As for the `tests` source, a run that timed out or ran out of memory
    decides nothing (None), nor does a sandbox that did not start.
    """

    def __init__(
        self,
        run_tests: Callable[..., Any] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        self._given = run_tests
        self._options = dict(options or {})
        self._run: Callable[[Problem, str], Any] | None = None

    def _runner(self) -> Callable[[Problem, str], Any]:
        if self._run is None:
            if self._given is None:
                from verifiers.sandbox.runner import SandboxConfig, run_tests

                fields = SandboxConfig.__dataclass_fields__
                cfg = SandboxConfig(**{k: v for k, v in self._options.items() if k in fields})
                self._run = functools.partial(run_tests, config=cfg)
            else:
                params = inspect.signature(self._given).parameters
                kwargs = {k: v for k, v in self._options.items() if k in params}
                self._run = functools.partial(self._given, **kwargs)
        return self._run

    def __call__(self, problem: Problem, prefix: str, completion: str) -> bool | None:
        if not problem.tests:
            raise ValueError(f"problem {problem.problem_id} has no tests")
        from labeling.steps.code import extract_code

        code = extract_code(prefix + completion, problem.entry_point, problem.question).code
        if not code.strip():
            return False
        result = self._runner()(problem, code)
        if not result.started or (
            not result.passed and (result.timed_out or result.memory_exceeded)
        ):
            return None
        return bool(result.passed)


class DomainOutcome:
    """Dispatches on `problem.domain`: `math` -> MathOutcome, `code` -> CodeOutcome."""

    def __init__(
        self, timeout_s: float = ANSWER_TIMEOUT_S, tests_options: Mapping[str, Any] | None = None
    ) -> None:
        self.timeout_s, self.tests_options = timeout_s, tests_options
        self._math: MathOutcome | None = None  # built on first use: it owns a worker process
        self._code: CodeOutcome | None = None
        self._lock = threading.Lock()  # the driver calls checks from a thread pool

    def __call__(self, problem: Problem, prefix: str, completion: str) -> bool | None:
        if problem.domain == "math":
            with self._lock:
                self._math = self._math or MathOutcome(self.timeout_s)
            return self._math(problem, prefix, completion)
        if problem.domain == "code":
            with self._lock:
                self._code = self._code or CodeOutcome(options=self.tests_options)
            return self._code(problem, prefix, completion)
        raise ValueError(f"no outcome check for domain {problem.domain!r} (math | code)")

    def close(self) -> None:
        if self._math is not None:
            self._math.close()


def outcome_check(
    domain: str | None,
    timeout_s: float = ANSWER_TIMEOUT_S,
    tests_options: Mapping[str, Any] | None = None,
) -> OutcomeCheck:
    """The check for `domain`: `math` answer equivalence bounded by `timeout_s`, `code` the
    tests in the sandbox (`tests_options`: `SandboxConfig` fields), None: chosen per
    `problem.domain`. The label job passes its `answer_check` and `sandbox` settings, so
    rollouts are judged as the `answer` source judges a chain."""
    if domain == "math":
        return MathOutcome(timeout_s)
    if domain == "code":
        return CodeOutcome(options=tests_options)
    if domain is None:
        return DomainOutcome(timeout_s, tests_options)
    raise ValueError(f"unknown domain {domain!r}; choose math, code or None (per problem)")
