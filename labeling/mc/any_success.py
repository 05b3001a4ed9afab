"""The `any_success` method: Math-Shepherd's hard label. A prefix is on track as soon as one of
its k rollouts reaches the answer, off track when none does (the `absolute` rule with one
success to confirm and no threshold: `labeling.mc.absolute`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from labeling.fields import ROWS, option
from labeling.mc.absolute import Absolute
from labeling.mc.estimators import Search
from labeling.mc.method import PerStepRuleMethod, estimator_option, probe_right_option


@dataclass(frozen=True)
class AnySuccessMethod(PerStepRuleMethod):
    """The settings of `any_success` (help on each field)."""

    name: ClassVar[str] = "any_success"

    estimator: Search = estimator_option()
    k: int = option(5, "Rollouts per probed prefix (Math-Shepherd used 8).", ROWS, gt=0)
    chunk: int | None = option(
        1, "Rollouts per request: a probe stops at its first success (null: all of k at "
        "once).", ROWS, gt=0)
    probe_right: bool = probe_right_option()

    def check(self) -> None:
        if self.chunk is not None and self.chunk > self.k:
            raise ValueError(f"labels.mc.chunk={self.chunk} must be at most k={self.k}")

    def rule(self, base: tuple[int, int], *, sampled: bool, outcome: bool | None) -> Absolute:
        return Absolute(self.k, self.chunk, 1, 0.0)



__all__ = ["AnySuccessMethod"]
