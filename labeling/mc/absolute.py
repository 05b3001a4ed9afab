"""The `absolute` method: a prefix is on track when its own rollouts clear a fixed bar.

It compares the prefix's own success count with a fixed bar: on track after `confirm`
successes (each success earning k more rollouts), or, with `threshold` t, when the success
rate exceeds t; off track when the budget runs out first. It does not know how good the
completer is, so a weak completer makes every prefix look off track.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from labeling.fields import ROWS, option
from labeling.mc.estimator import ChainFacts
from labeling.mc.method import Settings, chunk_within, estimator_option, probe_right_option
from labeling.mc.searches import Search, StepSearch, step_search


@dataclass(frozen=True)
class Absolute(Settings):
    """The `absolute` method's settings (help on each field), and its rule
    (`labeling.mc.searches.StepRule`): it reads a prefix's counts alone."""

    name: ClassVar[str] = "absolute"
    needs_self_confidence: ClassVar[bool] = False
    max_look_ahead: ClassVar[int | None] = 1

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

    def combine(self) -> None:
        if self.confirm > 1 and self.threshold > 0:
            raise ValueError("labels.mc.confirm > 1 and threshold > 0 do not combine")
        chunk_within(self.chunk, "k", self.k)

    def search(self, chain: ChainFacts) -> StepSearch:
        return step_search(self.estimator, chain, self, probe_right=self.probe_right)

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


__all__ = ["Absolute"]
