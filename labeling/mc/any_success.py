"""The `any_success` method: Math-Shepherd's hard label. A prefix is on track as soon as one of
its k rollouts reaches the answer, off track when none does (what `absolute` does with one
success to confirm and no threshold, without those keys)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from labeling.fields import ROWS, option
from labeling.mc.estimator import ChainFacts
from labeling.mc.method import Settings, chunk_within, estimator_option, probe_right_option
from labeling.mc.searches import Search, StepSearch, step_search


@dataclass(frozen=True)
class AnySuccess(Settings):
    """The `any_success` method's settings (help on each field), and its rule
    (`labeling.mc.searches.StepRule`)."""

    name: ClassVar[str] = "any_success"
    needs_self_confidence: ClassVar[bool] = False
    max_look_ahead: ClassVar[int | None] = 1

    estimator: Search = estimator_option()
    k: int = option(5, "Rollouts per probed prefix (Math-Shepherd used 8).", ROWS, gt=0)
    chunk: int | None = option(
        1, "Rollouts per request: a probe stops at its first success (null: all of k at "
        "once).", ROWS, gt=0)
    probe_right: bool = probe_right_option()

    def combine(self) -> None:
        chunk_within(self.chunk, "k", self.k)

    def search(self, chain: ChainFacts) -> StepSearch:
        return step_search(self.estimator, chain, self, probe_right=self.probe_right)

    @property
    def request(self) -> int:
        return self.k if self.chunk is None else self.chunk

    def budget(self, successes: int) -> int:
        return self.k

    def decide(self, decided: int, successes: int, left: int) -> bool | None:
        """True at the first success; False once every rollout allowed was decided a failure
        and none is left."""
        if successes:
            return True
        return False if decided and not left else None


__all__ = ["AnySuccess"]
