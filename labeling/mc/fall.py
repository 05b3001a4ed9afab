"""The `fall` method: a step is wrong where the completer's success rate falls across it.

The `fall` method compares the prefix with the completer itself. `base` is the completer's
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

The first error. A step is False only where the rate falls across it: prefix i off track
while prefix i-1 is on track (the question itself for step 0), and the observed success rate
at i below the one before it (`Estimator.fall_at`). Where an off-track prefix has an undecided
predecessor, the fall is somewhere before it and no step is called wrong. The labels read by
reach: every prefix before an on-track one is on track.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from labeling.fields import ROWS, option
from labeling.mc.estimators import Search
from labeling.mc.method import PerStepRuleMethod, estimator_option, probe_right_option
from labeling.mc.stats import bayes_factor


@dataclass(frozen=True)
class FallMethod(PerStepRuleMethod):
    """The settings of `fall` (help on each field)."""

    name: ClassVar[str] = "fall"
    needs_self_confidence: ClassVar[bool] = True

    estimator: Search = estimator_option()
    level: float = option(
        0.05, "The sequential test's level. A step is False only when the Bayes factor "
        "fell:kept of its rollouts reaches 1/level (and True only when it drops to level); by "
        "Wald's bound a step that kept its rate is called fallen with probability at most "
        "about `level` when the self-confidence is known (on average over its posterior when "
        "it is estimated).", ROWS, gt=0, lt=0.5)
    fell_below: float = option(
        0.1, "A step fell when its success rate is at most this share of the completer's "
        "self-confidence.", ROWS, gt=0, lt=1)
    kept_above: float = option(
        0.75, "A step kept its rate when it is at least this share of the self-confidence "
        "(between the two: the test waits for more rollouts).", ROWS, gt=0, le=1)
    max_rollouts: int = option(
        20, "Most rollouts from one step while its test is undecided; still undecided then: "
        "unverifiable, with the counts.", ROWS, gt=0)
    chunk: int | None = option(
        1, "Rollouts per request: a probe stops as soon as its test decides (null: all of "
        "max_rollouts at once).", ROWS, gt=0)
    probe_right: bool = probe_right_option()

    def check(self) -> None:
        if not self.fell_below < self.kept_above:
            raise ValueError(f"labels.mc needs fell_below < kept_above, got {self.fell_below} "
                             f"and {self.kept_above}")
        if self.chunk is not None and self.chunk > self.max_rollouts:
            raise ValueError(f"labels.mc.chunk={self.chunk} must be at most "
                             f"max_rollouts={self.max_rollouts}")

    def rule(self, base: tuple[int, int], *, sampled: bool, outcome: bool | None) -> Fall:
        # A chain the completer sampled with these settings is one more sample of each of
        # its prefixes: its own outcome is one decided trial of every prefix.
        own = int(sampled and outcome is not None)
        return Fall(self.level, self.fell_below, self.kept_above, self.max_rollouts,
                    self.chunk, base, own)



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

    reach: ClassVar[bool] = True  # labels by reach: True up to the last kept prefix

    def evidence(self, est: Any, step: int, label: bool | None) -> str:
        successes, decided = est.counts(step)
        rollouts = est.rollouts_at(step)
        base = f"self-confidence {self.base[0]}/{self.base[1]} from the question"
        if est.futile:
            return (f"unverifiable: the completer cannot show a fall here ({base}): even "
                    f"{self.max_rollouts} failed rollouts from a step would not reach "
                    f"level {self.level}")
        own = " (the chain's own continuation counted)" if self.own else ""
        counts = f"{successes}/{decided} trials reached the answer{own}"
        if rollouts > decided - self.own:
            counts += f" ({rollouts - decided + self.own} of {rollouts} rollouts undecided)"
        if not rollouts:
            return "a later prefix kept the completer's rate" if label is True else ""
        b = self.factor(decided, successes)
        settled = est.settled(step)
        if label is False and est.fall_at(step):
            before = f"step {step - 1}: {'/'.join(map(str, est.counts(step - 1)))}" if step \
                else f"the question: {self.base[0]}/{self.base[1]}"
            return (f"the success rate falls across this step: {counts} against {before}; "
                    f"Bayes factor fell:kept {b:.3g} >= 1/{self.level}")
        if settled is True:
            return f"kept: {counts} ({base}); Bayes factor fell:kept {b:.3g} <= {self.level}"
        if settled is False:
            placed = "" if label is False else "; the step before it is undecided, so the fall " \
                "is not placed"
            return f"off track: {counts} ({base}); Bayes factor fell:kept {b:.3g}{placed}"
        return (f"unverifiable: {counts} ({base}) decide nothing within {self.max_rollouts} "
                f"rollouts (Bayes factor fell:kept {b:.3g})")


__all__ = ["Fall", "FallMethod"]
