"""The one protocol every label source implements.

A verifier looks at (problem, chain) pairs and returns one `StepVerdict` per step. It works
on batches so that sources with a fixed cost per call (a worker pool, an engine) can amortise
it; sources that are naturally per chain subclass `ChainVerifier` and implement `verify_chain`.
Bad reference data raises; bad model output becomes a verdict (house rule, after Math-Verify).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from labeling.schema import Chain, Problem, Status, StepVerdict


@runtime_checkable
class Verifier(Protocol):
    """A label source. `name` is the key of its verdicts in output rows."""

    name: str

    def verify(self, items: Sequence[tuple[Problem, Chain]]) -> list[list[StepVerdict]]:
        """One list of verdicts per item, each as long as that chain's steps."""
        ...


class ChainVerifier:
    """Base for sources that judge one chain at a time."""

    name: str = "base"

    def verify_chain(self, problem: Problem, chain: Chain) -> list[StepVerdict]:
        raise NotImplementedError

    def verify(self, items: Sequence[tuple[Problem, Chain]]) -> list[list[StepVerdict]]:
        out = []
        for problem, chain in items:
            verdicts = self.verify_chain(problem, chain)
            if len(verdicts) != len(chain.steps):
                raise RuntimeError(
                    f"{self.name} returned {len(verdicts)} verdicts for {len(chain.steps)} steps"
                )
            out.append(verdicts)
        return out


class GivenOutcome:
    """The `answer` source for chains that came with their outcome (ProcessBench's
    `final_answer_correct`) and no reference to check it against: the dataset's word on the
    last step. Items that do have a reference (or tests) go to `checker`. Order is kept."""

    name = "answer"

    def __init__(self, checker: Verifier) -> None:
        self.checker = checker

    @staticmethod
    def _given(problem: Problem, chain: Chain) -> bool:
        return not problem.reference and not problem.tests and chain.given_outcome is not None

    def verify(self, items: Sequence[tuple[Problem, Chain]]) -> list[list[StepVerdict]]:
        checked = iter(self.checker.verify([it for it in items if not self._given(*it)]))
        out = []
        for problem, chain in items:
            if not self._given(problem, chain):
                out.append(next(checked))
                continue
            ok = bool(chain.given_outcome)
            status = Status.CORRECT if ok else Status.INCORRECT
            last = StepVerdict(status, ok, float(ok), "outcome given by the dataset")
            out.append([StepVerdict.unverifiable()] * (len(chain.steps) - 1) + [last])
        return out
