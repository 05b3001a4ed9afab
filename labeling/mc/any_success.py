"""The `any_success` method: Math-Shepherd's hard label. A prefix is on track as soon as one of
its k rollouts reaches the answer, off track when none does (the `absolute` rule with one
success to confirm and no threshold: `labeling.mc.absolute`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from labeling.fields import ROWS, option
from labeling.mc.absolute import Absolute
from labeling.mc.estimators import Estimator, Search, per_step_or_bisection
from labeling.mc.method import Method
from labeling.schema import SelfConfidence


@dataclass(frozen=True)
class AnySuccessMethod(Method):
    """The settings of `any_success` (help on each field)."""

    name: ClassVar[str] = "any_success"

    estimator: Search = option(
        Search.binary_search, "Which prefixes are rolled out: binary_search (bisection for the "
        "first error) | per_step (every prefix, Math-Shepherd's).", ROWS)
    k: int = option(5, "Rollouts per probed prefix (Math-Shepherd used 8).", ROWS, gt=0)
    chunk: int | None = option(
        1, "Rollouts per request: a probe stops at its first success (null: all of k at "
        "once).", ROWS, gt=0)
    probe_right: bool = option(
        True, "binary_search: search the steps of chains whose answer is right too; false = "
        "OmegaPRM's skip, which labels every step of such a chain right without a rollout.",
        ROWS)

    def check(self) -> None:
        if self.chunk is not None and self.chunk > self.k:
            raise ValueError(f"labels.mc.chunk={self.chunk} must be at most k={self.k}")

    def rule(self, base: tuple[int, int], *, sampled: bool, outcome: bool | None) -> Absolute:
        return Absolute(self.k, self.chunk, 1, 0.0)

    def search(self, n_steps: int, rule: Any, *, outcome: bool | None, after_error: str,
               self_confidence: SelfConfidence | None = None, steps: Any = (),
               question: str = "") -> Estimator:
        return per_step_or_bisection(self.estimator, self.probe_right, n_steps, rule,
                                     outcome=outcome, after_error=after_error,
                                     self_confidence=self_confidence)


__all__ = ["AnySuccessMethod"]
