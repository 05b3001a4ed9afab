"""The `absolute` method: a prefix is on track when its own rollouts clear a fixed bar.

`Absolute` (the rule of `absolute` and `any_success`) compares the prefix's own success count with
a fixed bar: on track after `confirm` successes (each success earning k more rollouts), or,
with `threshold` t, when the success rate exceeds t; off track when the budget runs out
first. It does not know how good the completer is, so a weak completer makes every prefix
look off track.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from labeling.fields import ROWS, option
from labeling.mc.estimators import Search
from labeling.mc.method import (
    PerStepRuleMethod,
    count_evidence,
    estimator_option,
    probe_right_option,
)


@dataclass(frozen=True)
class AbsoluteMethod(PerStepRuleMethod):
    """The settings of `absolute` (help on each field)."""

    name: ClassVar[str] = "absolute"

    estimator: Search = estimator_option()
    k: int = option(5, "Rollouts per probed prefix (per_step: per step; Math-Shepherd used "
                    "8).", ROWS, gt=0)
    confirm: int = option(2, "Successes a prefix needs to count as on track, each success "
                          "earning k more rollouts.", ROWS, gt=0)
    threshold: float = option(0.0, "A step is on track when its success rate is > threshold "
                              "(with confirm=1).", ROWS, ge=0, lt=1)
    chunk: int | None = option(
        1, "Rollouts per request: a probe stops as soon as its rule decides (null: all of k "
        "at once).", ROWS, gt=0)
    probe_right: bool = probe_right_option()

    def check(self) -> None:
        if self.confirm > 1 and self.threshold > 0:
            raise ValueError("labels.mc.confirm > 1 and threshold > 0 do not combine")
        if self.chunk is not None and self.chunk > self.k:
            raise ValueError(f"labels.mc.chunk={self.chunk} must be at most k={self.k}")

    def rule(self, base: tuple[int, int], *, sampled: bool, outcome: bool | None) -> Absolute:
        return Absolute(self.k, self.chunk, self.confirm, self.threshold)



@dataclass(frozen=True, slots=True)
class Absolute:
    """On track after `confirm` successes (each earning `k` more rollouts), or with
    `threshold` > 0 when successes/decided > threshold over k rollouts. `chunk`: rollouts per
    request (None: k)."""

    k: int
    chunk: int | None
    confirm: int
    threshold: float

    def __post_init__(self) -> None:
        if self.k < 1:
            raise ValueError(f"k (rollouts per probe) must be >= 1, got {self.k}")
        if not 0.0 <= self.threshold < 1.0:
            raise ValueError(f"threshold must be in [0, 1), got {self.threshold}")
        if not 1 <= self.request <= self.k:
            raise ValueError(f"chunk must be in 1..k={self.k}, got {self.chunk}")
        if self.confirm < 1 or (self.confirm > 1 and self.threshold > 0):
            raise ValueError("confirm must be >= 1, and 1 when threshold > 0; got "
                             f"{self.confirm}")

    @property
    def request(self) -> int:
        return self.k if self.chunk is None else self.chunk

    def budget(self, successes: int) -> int:
        # With confirm=c every success earns k more rollouts, up to c*k: a lucky success from
        # a wrong prefix must be repeated before it counts.
        return self.k * min(successes + 1, self.confirm)

    def decide(self, decided: int, successes: int, left: int) -> bool | None:
        """True/False once no outcome of the `left` rollouts still allowed can change it."""
        if self.confirm > 1:
            if successes >= self.confirm:
                return True
            return False if not left and decided else None
        if successes > self.threshold * self.k:
            return True  # above the bar whatever the rest: at most k trials
        if decided + left and (successes + left) <= self.threshold * (decided + left):
            return False if decided else None  # cannot pass the bar any more
        return None

    def can_fall(self, decided: int, successes: int, left: int) -> bool:
        return True

    own: ClassVar[int] = 0  # the chain's own outcome is no trial of its prefixes
    reach: ClassVar[bool] = False

    def evidence(self, est: Any, step: int, label: bool | None) -> str:
        return count_evidence(est, step, label)


__all__ = ["Absolute", "AbsoluteMethod"]
