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
even if every allowed rollout failed (`FallTest.can_fall`) is not asked: it cannot tell.

The chain's own outcome: when the chain itself was sampled by the completer with the
rollouts' settings, it is one more sample from the question (it joins the self-confidence
counts) and its continuation after a prefix is one more sample from that prefix: one
decided trial of every prefix (no rollout made, no token spent). A right answer thus needs
more failures before any of its steps is called wrong.

The first error. A step is False only where the rate falls across it: prefix i off track
while prefix i-1 is on track (the question itself for step 0), and the observed success rate
at i below the one before it (`FallSearch.fall_at`). Where an off-track prefix has an undecided
predecessor, the fall is somewhere before it and no step is called wrong. The labels read by
reach: every prefix before an on-track one is on track.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from labeling.fields import ROWS, option
from labeling.mc.estimator import ChainFacts
from labeling.mc.method import Settings, chunk_within, estimator_option, probe_right_option
from labeling.mc.searches import BinarySearch, PerStep, Search, StepSearch
from labeling.mc.stats import bayes_factor
from labeling.mc.unbiased import unbiased_rate


@dataclass(frozen=True)
class Fall(Settings):
    """The `fall` method's settings (help on each field); `search` runs its test."""

    name: ClassVar[str] = "fall"
    needs_self_confidence: ClassVar[bool] = True
    max_look_ahead: ClassVar[int | None] = 1

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

    def combine(self) -> None:
        if not self.fell_below < self.kept_above:
            raise ValueError(f"labels.mc needs fell_below < kept_above, got {self.fell_below} "
                             f"and {self.kept_above}")
        chunk_within(self.chunk, "max_rollouts", self.max_rollouts)

    def search(self, chain: ChainFacts) -> StepSearch:
        # A chain the completer sampled with these settings is one more sample from the
        # question and from each of its prefixes.
        test = FallTest(self, chain.with_own, int(chain.sampled and chain.outcome is not None))
        if self.estimator == Search.per_step:
            return FallPerStep(chain, test)
        return FallBinary(chain, test, probe_right=self.probe_right)


@dataclass(frozen=True, slots=True)
class FallTest:
    """The sequential test of the module docstring on one chain (`labeling.mc.searches.
    StepRule`): `base`, the self-confidence counts (successes, decided) it is judged against;
    `own`, 1 when the chain's own outcome is a trial of every prefix."""

    fall: Fall
    base: tuple[int, int]
    own: int = 0

    @property
    def request(self) -> int:
        f = self.fall
        return f.max_rollouts if f.chunk is None else f.chunk

    def budget(self, successes: int) -> int:
        return self.fall.max_rollouts

    def factor(self, decided: int, successes: int) -> float:
        """The Bayes factor fell:kept of these counts."""
        f = self.fall
        return bayes_factor((successes, decided), self.base, f.fell_below, f.kept_above)

    def decide(self, decided: int, successes: int, left: int) -> bool | None:
        if not decided:
            return None
        b, level = self.factor(decided, successes), self.fall.level
        # The observed-rate guard keeps "never False where the rate did not fall" exact on
        # the counts themselves, whatever the posterior does at tiny counts.
        if b >= 1 / level and successes * self.base[1] < self.base[0] * decided:
            return False
        if b <= level:
            return True
        return None

    def can_fall(self, decided: int, successes: int, left: int) -> bool:
        """Could the test still call this prefix fallen if every remaining rollout failed?"""
        if not self.base[0]:
            return False  # the completer never reached the answer: nothing can fall
        return self.factor(decided + left, successes) >= 1 / self.fall.level


class FallSearch(StepSearch):
    """What `fall` adds to a per-step search: the chain's own outcome as a trial of every
    prefix, no rollout where the completer cannot show a fall (`futile`), and the labels read
    by reach with a False only where the rate falls (the module docstring)."""

    rule: FallTest

    def __init__(self, chain: ChainFacts, rule: FallTest, **kw: bool) -> None:
        super().__init__(chain, rule, **kw)  # type: ignore[call-arg]
        if rule.own:
            if chain.outcome is None:
                raise ValueError("own=1 needs the chain's outcome")
            for t in self._tally[:-1]:
                t.decided, t.successes = 1, int(chain.outcome)
        first = self.counts(0) if chain.n_steps else (0, 0)
        # A completer that could not show a fall even if every allowed rollout failed
        # cannot tell a wrong step from a right one here: nothing is rolled out.
        self.futile = chain.n_steps > 1 and not rule.can_fall(first[1], first[0],
                                                              rule.budget(0))

    def budget(self, step: int) -> int:
        return 0 if self.futile else super().budget(step)

    def score(self, step: int) -> float | None:
        successes, decided = self.counts(step)
        return unbiased_rate(self.rule, decided, successes, self.rule.own) if decided else None

    def fall_at(self, step: int) -> bool:
        """The success rate falls across `step` (see the module docstring)."""
        if step == self.n_steps - 1:
            return self.outcome is False and (step == 0 or self.settled(step - 1) is True)
        if self.settled(step) is not False or (step and self.settled(step - 1) is not True):
            return False
        s, n = self.counts(step)
        b_s, b_n = self.counts(step - 1) if step else self.rule.base
        return s * b_n < b_s * n

    def reach_labels(self) -> list[bool | None]:
        """True up to the last on-track prefix, False at a fall right after it, the rest
        unlabeled (the last step: the outcome; at and after a proven error: its word)."""
        last = self.n_steps - 1
        lo = max((i for i in self.chain.probed if self.settled(i) is True), default=-1)
        out: list[bool | None] = [True] * (lo + 1) + [None] * (self.n_steps - lo - 1)
        if self.n_steps:
            out[last] = self.outcome
        if lo + 1 < last and self.fall_at(lo + 1):
            out[lo + 1] = False  # the steps after it: `after_error` decides
        return self.with_proof(out)

    def evidence(self, step: int, label: bool | None) -> str:
        f, base, own = self.rule.fall, self.rule.base, self.rule.own
        successes, decided = self.counts(step)
        rollouts = self.rollouts_at(step)
        sc = f"self-confidence {base[0]}/{base[1]} from the question"
        if self.futile:
            return (f"unverifiable: the completer cannot show a fall here ({sc}): even "
                    f"{f.max_rollouts} failed rollouts from a step would not reach "
                    f"level {f.level}")
        counted = " (the chain's own continuation counted)" if own else ""
        counts = f"{successes}/{decided} trials reached the answer{counted}"
        if rollouts > decided - own:
            counts += f" ({rollouts - decided + own} of {rollouts} rollouts undecided)"
        if not rollouts:
            return "a later prefix kept the completer's rate" if label is True else ""
        b = self.rule.factor(decided, successes)
        settled = self.settled(step)
        if label is False and self.fall_at(step):
            before = f"step {step - 1}: {'/'.join(map(str, self.counts(step - 1)))}" if step \
                else f"the question: {base[0]}/{base[1]}"
            return (f"the success rate falls across this step: {counts} against {before}; "
                    f"Bayes factor fell:kept {b:.3g} >= 1/{f.level}")
        if settled is True:
            return f"kept: {counts} ({sc}); Bayes factor fell:kept {b:.3g} <= {f.level}"
        if settled is False:
            placed = "" if label is False else "; the step before it is undecided, so the fall " \
                "is not placed"
            return f"off track: {counts} ({sc}); Bayes factor fell:kept {b:.3g}{placed}"
        return (f"unverifiable: {counts} ({sc}) decide nothing within {f.max_rollouts} "
                f"rollouts (Bayes factor fell:kept {b:.3g})")


class FallPerStep(FallSearch, PerStep):
    def labels(self) -> list[bool | None]:
        return self.reach_labels()


class FallBinary(FallSearch, BinarySearch):
    def labels(self) -> list[bool | None]:
        # OmegaPRM's skip (a right chain, `probe_right` off) labels by the search's bounds.
        return BinarySearch.labels(self) if self.skipped else self.reach_labels()


__all__ = ["Fall", "FallBinary", "FallPerStep", "FallSearch", "FallTest"]
