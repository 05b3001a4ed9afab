"""The score of a probed prefix (`mc_scores`): its success rate estimated without the bias of
the stopping rule that ran (a rule that stops early on a success inflates the raw rate)."""

from __future__ import annotations

from functools import lru_cache
from math import comb
from typing import Protocol


class StepRule(Protocol):
    """A per-step stopping rule: what a per-step search (`labeling.mc.searches`) and this
    estimate ask of it."""

    @property
    def request(self) -> int: ...  # rollouts per request

    def budget(self, successes: int) -> int: ...  # rollouts a prefix with these successes may have

    def decide(self, decided: int, successes: int, left: int) -> bool | None: ...


def unbiased_rate(rule: StepRule, decided: int, successes: int, own: int = 0) -> float:
    """Unbiased estimate of a prefix's success rate under the stopping rule that ran
    (Girshick, Mosteller and Savage, 1946): among the orders of outcomes the rule would have
    let reach (decided, successes), the share whose first trial succeeded. `own`: 1 when the
    chain's own outcome was the first trial (no rollout). Exact when every rollout was
    decided; with undecided ones it treats the decided rollouts as the trials."""
    if not decided:
        raise ValueError("no decided trial")
    if successes in (0, decided):
        return successes / decided  # every admissible order agrees
    return _path_share(rule, decided, successes, own)


@lru_cache(maxsize=4096)
def _path_share(rule: StepRule, decided: int, successes: int, own: int) -> float:
    def budget(s: int) -> int:  # in trials: the rule's rollouts plus the chain's own outcome
        return rule.budget(s) + own

    # States (n, s) after each request; counts of paths reaching them without stopping
    # earlier, all paths and those whose first trial succeeded. The first request is the
    # chain's own outcome when it counts, then min(request, budget - n) rollouts each.
    frontier = {(0, 0): (1, 0)}
    total = first = 0
    while frontier:
        nxt: dict[tuple[int, int], tuple[int, int]] = {}
        for (n, s), (paths, firsts) in frontier.items():
            m = 1 if own and n == 0 else min(rule.request, budget(s) - n)
            for j in range(m + 1):
                all_paths = paths * comb(m, j)
                # paths whose very first trial is a success: within the first request the
                # first trial is fixed to a success and the rest is free
                with_first = (comb(m - 1, j - 1) if j else 0) if n == 0 else firsts * comb(m, j)
                state = (n + m, s + j)
                left = max(budget(s + j) - n - m, 0)
                stopped = rule.decide(n + m, s + j, left) is not None
                if stopped or not left:
                    if state == (decided, successes):
                        total += all_paths
                        first += with_first
                    continue
                a, b = nxt.get(state, (0, 0))
                nxt[state] = (a + all_paths, b + with_first)
        frontier = nxt
    if not total:  # not a state the rule stops in (undecided rollouts changed the path)
        return successes / decided
    return first / total


__all__ = ["unbiased_rate"]
