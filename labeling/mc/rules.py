"""How a probed prefix's rollouts become a decision: on track (True), off track (False), or
not decided yet (None). One frozen object per rule; the estimators ask it, never the options.

`Absolute` (rules `absolute` and `any_success`) compares the prefix's own success count with
a fixed bar: on track after `confirm` successes (each success earning k more rollouts), or,
with `threshold` t, when the success rate exceeds t; off track when the budget runs out
first. It does not know how good the completer is, so a weak completer makes every prefix
look off track.

`Fall` (the default) compares the prefix with the completer itself. `base` is the completer's
self-confidence on the problem (successes, decided) from the bare question. A prefix *fell*
when its rate is at most `fell_below` x the self-confidence, *kept* when it is at least
`kept_above` x it (r = rate / self-confidence uniform on [0, fell_below] or [kept_above, 1]).
After each request the Bayes factor B = P(counts | fell) / P(counts | kept) is computed with
the self-confidence integrated over its posterior (`labeling.mc.stats`); it is a sequential
probability ratio test (Wald), so it may be looked at after every rollout:
- B >= 1/level and the prefix's observed rate is below the question's: off track (False);
- B <= level: on track (True);
- otherwise one more request, up to `max_rollouts` rollouts; then it stays undecided.
Wald's bound: with the self-confidence known, a prefix that kept its rate is called fallen
with probability at most about `level` (and a fallen one kept, likewise), whatever the
stopping time; estimated from a few rollouts it holds on average over its posterior, not for
every problem (an overestimated self-confidence makes right steps look fallen:
`benchmarks/bench_mc_simulation.py --given` measures it). A completer that cannot show a fall
even if every allowed rollout failed (`can_fall`) is not asked: it cannot tell.

`own`: when the chain itself was sampled by the completer with the rollouts' settings, its
continuation after a prefix is one more sample from that prefix: the `Fall` rule counts the
chain's own outcome as one decided trial of every prefix (no rollout made, no token spent).
A right answer thus needs more failures before any of its steps is called wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb

from labeling.mc.options import MCOptions, RuleName
from labeling.mc.stats import bayes_factor


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


@dataclass(frozen=True, slots=True)
class Fall:
    """The sequential test of the module docstring. `base`: the self-confidence counts
    (successes, decided); `own`: 1 when the chain's own outcome is a trial of every prefix."""

    level: float
    fell_below: float
    kept_above: float
    max_rollouts: int
    chunk: int | None
    base: tuple[int, int]
    own: int = 0

    def __post_init__(self) -> None:
        if not 0 < self.level < 0.5:
            raise ValueError(f"level must be in (0, 0.5), got {self.level}")
        if not 0 < self.fell_below < self.kept_above <= 1:
            raise ValueError(f"need 0 < fell_below < kept_above <= 1, got {self.fell_below}, "
                             f"{self.kept_above}")
        if self.max_rollouts < 1 or not 1 <= self.request <= self.max_rollouts:
            raise ValueError(f"max_rollouts must be >= 1 and chunk in 1..max_rollouts, got "
                             f"{self.max_rollouts}, {self.chunk}")

    @property
    def request(self) -> int:
        return self.max_rollouts if self.chunk is None else self.chunk

    @property
    def k(self) -> int:  # the first probe's budget (speculation in the driver asks)
        return self.max_rollouts

    def budget(self, successes: int) -> int:
        return self.max_rollouts

    @property
    def base_rate(self) -> float:
        s, n = self.base
        return s / n if n else 0.0

    def factor(self, decided: int, successes: int) -> float:
        """The Bayes factor fell:kept of these counts."""
        return bayes_factor((successes, decided), self.base, self.fell_below, self.kept_above)

    def decide(self, decided: int, successes: int, left: int) -> bool | None:
        if not decided:
            return None
        b = self.factor(decided, successes)
        # The observed-rate guard keeps "never False where the rate did not fall" exact on
        # the counts themselves, whatever the posterior does at tiny counts.
        if b >= 1 / self.level and successes * self.base[1] < self.base[0] * decided:
            return False
        if b <= self.level:
            return True
        return None

    def can_fall(self, decided: int, successes: int, left: int) -> bool:
        """Could the test still call this prefix fallen if every remaining rollout failed?"""
        if not self.base[0]:
            return False  # the completer never reached the answer: nothing can fall
        return self.factor(decided + left, successes) >= 1 / self.level


@dataclass(frozen=True, slots=True)
class Posterior:
    """The `posterior` rule: no per-step test; the chain's first error is located jointly
    from every probe (`labeling.mc.posterior`, searched by `labeling.mc.bisection`).
    `level`: a label needs posterior probability >= 1 - level; `factor`: the rollouts' own
    Bayes factor it needs; `chain_budget`: rollouts per chain; `chunk`: decided rollouts per
    probe (None: the whole budget at once); `base`: the problem's self-confidence counts
    (this chain's own outcome included when `sampled`, as the driver counts them);
    `sampled`: the completer wrote the chain with the rollouts' settings; `chunk_max`: a
    probe grows past `chunk` on a problem the completer rarely solves (`request`)."""

    level: float
    factor: float
    chain_budget: int
    chunk: int | None
    base: tuple[int, int]
    sampled: bool = False
    chunk_max: int | None = None

    def __post_init__(self) -> None:
        if not 0 < self.level < 0.5:
            raise ValueError(f"level must be in (0, 0.5), got {self.level}")
        if self.factor < 1:
            raise ValueError(f"factor must be >= 1, got {self.factor}")
        if self.chain_budget < 1 or not 1 <= self.request <= self.chain_budget:
            raise ValueError(f"chain_budget must be >= 1 and chunk in 1..chain_budget, got "
                             f"{self.chain_budget}, {self.chunk}")
        if not 0 <= self.base[0] <= self.base[1]:
            raise ValueError(f"base counts need 0 <= successes <= decided, got {self.base}")
        if self.chunk_max is not None and self.chunk is not None and self.chunk_max < self.chunk:
            raise ValueError(f"chunk_max must be >= chunk, got {self.chunk_max} < {self.chunk}")

    @property
    def request(self) -> int:
        """Decided rollouts per probe: `chunk`, grown on a weak problem to the number from
        which an on-track prefix is expected to give half a success, ceil(0.5 / s) with s
        the self-confidence's Jeffreys mean (x + 0.5) / (n + 1), up to `chunk_max`. A weak
        completer's probe of 2 mostly reads 0 of 2 whatever the step, so the search took a
        round per probe for little; bigger probes there take ~25-55% fewer rounds for ~5%
        more rollouts and the same precision and recall (bench_mc_simulation.py). A function
        of the problem's counts alone, so the labels do not depend on the schedule."""
        if self.chunk is None:
            return self.chain_budget
        if self.chunk_max is None:
            return self.chunk
        x, n = self.base
        grown = -(-(n + 1) // (2 * x + 1))  # ceil(0.5 (n + 1) / (x + 0.5)), exactly
        return min(max(self.chunk, grown), self.chunk_max, self.chain_budget)

    @property
    def k(self) -> int:
        return self.request

    def budget(self, successes: int) -> int:
        return self.chain_budget

    def decide(self, decided: int, successes: int, left: int) -> bool | None:
        return None  # no step is decided on its own counts

    def can_fall(self, decided: int, successes: int, left: int) -> bool:
        """A completer that never reached the answer from the question is not asked."""
        return self.base[0] > 0


Rule = Absolute | Fall | Posterior


def unbiased_rate(rule: Rule, decided: int, successes: int) -> float:
    """Unbiased estimate of a prefix's success rate under the stopping rule that ran
    (Girshick, Mosteller and Savage, 1946): among the orders of outcomes the rule would have
    let reach (decided, successes), the share whose first trial succeeded. Exact when every
    rollout was decided; with undecided ones it treats the decided rollouts as the trials."""
    if not decided:
        raise ValueError("no decided trial")
    if successes in (0, decided):
        return successes / decided  # every admissible order agrees
    return _path_share(rule, decided, successes)


@lru_cache(maxsize=4096)
def _path_share(rule: Rule, decided: int, successes: int) -> float:
    own = rule.own if isinstance(rule, Fall) else 0

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


def make_rule(options: MCOptions, base: tuple[int, int] = (0, 0), own: int = 0) -> Rule:
    """The rule `options.rule` names, for a chain whose problem has self-confidence counts
    `base` (used by `fall` and `posterior`) and whose own outcome is (`own=1`) a trial of its
    prefixes (`fall`), or which the completer sampled itself (`posterior`)."""
    if options.rule == RuleName.any_success:
        return Absolute(options.k, options.chunk, 1, 0.0)
    if options.rule == RuleName.absolute:
        return Absolute(options.k, options.chunk, options.confirm, options.threshold)
    if options.rule == RuleName.fall:
        return Fall(options.level, options.fell_below, options.kept_above,
                    options.max_rollouts, options.chunk, base, own)
    if options.rule == RuleName.posterior:
        return Posterior(options.level, options.factor, options.chain_budget, options.probe,
                         base, bool(own), options.probe_max)
    raise ValueError(f"unknown MC rule {options.rule!r}; choose one of "
                     f"{', '.join(RuleName.__members__)}")
