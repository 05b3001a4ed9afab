"""The unit tests of a code chain, run in the sandbox: the `answer` source on code.

`CodeTestVerifier` runs the whole program against all tests and puts the outcome on the last
step (`score` = fraction of tests passed), every earlier step `unverifiable`: the code twin
of `AnswerVerifier`. The per-step syntax verdicts are another source
(`verifiers.code_syntax.SyntaxVerifier`, registered as `tests`).

A chain without code fails its tests (bad model output is a verdict); a problem without tests
raises ValueError (bad reference data). Timeouts and memory blow-ups are `timeout` verdicts
without a label: seen from outside, an endless loop and a machine too loaded to finish a right
program in time look the same, so the run decides nothing (the step stays unlabeled and the
chain's outcome unknown) rather than risk a wrong `incorrect`.
"""

from __future__ import annotations

from collections.abc import Sequence

from labeling.schema import Chain, Problem, Status, StepVerdict
from labeling.steps.code import extract_code
from verifiers.base import ChainVerifier
from verifiers.code_syntax import chain_text
from verifiers.sandbox.result import SANDBOX_WORKERS
from verifiers.sandbox.runner import ExecutionResult, SandboxConfig, default_sandbox


def outcome_verdict(result: ExecutionResult | None) -> StepVerdict:
    """The last step's verdict from a sandbox run (None: no code was found)."""
    if result is None:
        return StepVerdict(Status.INCORRECT, False, 0.0, "no code found in the answer")
    total = max(result.tests_total, 1)
    score = result.tests_passed / total
    summary = f"{result.tests_passed}/{result.tests_total} tests passed"
    if result.passed:
        return StepVerdict(Status.CORRECT, True, 1.0, summary)
    if not result.started:
        return StepVerdict(Status.ERROR, None, None, result.error)
    evidence = f"{summary}; {result.error}"[:300]
    if result.timed_out or result.memory_exceeded:
        return StepVerdict(Status.TIMEOUT, None, score, evidence)
    return StepVerdict(Status.INCORRECT, False, score, evidence)


class CodeTestVerifier(ChainVerifier):
    """The test outcome on the last step; runs in batches, `workers` sandboxes at a time."""

    name = "answer"

    def __init__(self, config: SandboxConfig | None = None,
                 workers: int = SANDBOX_WORKERS) -> None:  # fmt: skip
        self.sandbox = default_sandbox(config)  # raises SandboxUnavailableError up front
        self.workers = workers

    def verify_chain(self, problem: Problem, chain: Chain) -> list[StepVerdict]:
        return self.verify([(problem, chain)])[0]

    def verify(self, items: Sequence[tuple[Problem, Chain]]) -> list[list[StepVerdict]]:
        codes = [
            extract_code(chain_text(c), p.entry_point, p.question).code.strip() for p, c in items
        ]
        runnable = [i for i, code in enumerate(codes) if code]
        ran = self.sandbox.run_many([(items[i][0], codes[i]) for i in runnable], self.workers)
        results: dict[int, ExecutionResult] = dict(zip(runnable, ran, strict=True))
        out = []
        for i, (_, chain) in enumerate(items):
            n = len(chain.steps)
            if n == 0:
                out.append([])
                continue
            verdicts = [StepVerdict.unverifiable()] * n
            verdicts[-1] = outcome_verdict(results.get(i))
            out.append(verdicts)
        return out
