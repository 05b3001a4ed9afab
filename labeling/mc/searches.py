"""The searches of the methods whose rule decides each prefix on its own counts (`fall`,
`absolute`, `any_success`): `per_step` (Math-Shepherd: every prefix) and `binary_search`
(OmegaPRM: bisection for the first error), chosen by `labels.mc.estimator`.

A `StepRule` (each such method's) turns a prefix's counts into on track (True), off track
(False) or undecided, and says how many rollouts a prefix may have. Early stop: rollouts are
requested `request` at a time; a probe stops as soon as its rule decides, or when its budget
is spent (then it stays undecided: `unverifiable`).

Reach semantics. If prefix j is on track, every prefix i < j is too (the chain was still on
its way through them). `binary_search` relies on this.

The score (`mc_scores`): the unbiased estimate of the success rate under the stopping rule
that ran (`labeling.mc.unbiased.unbiased_rate`); the evidence keeps the raw count.
"""

from __future__ import annotations

from enum import StrEnum

from labeling.mc.estimator import ChainFacts, Estimator, Probe
from labeling.mc.unbiased import StepRule, unbiased_rate


class Search(StrEnum):
    """Which prefixes a method with a per-step rule rolls out (`labels.mc.estimator`)."""

    per_step = "per_step"  # Math-Shepherd: every prefix until its rule decides
    binary_search = "binary_search"  # OmegaPRM: bisection for the first error


def count_evidence(est: Estimator, step: int, label: bool | None) -> str:
    """The evidence of a rule that reads a prefix's own counts against a fixed bar."""
    successes, decided = est.counts(step)
    rollouts = est.rollouts_at(step)
    if rollouts:
        measured = f"{successes}/{decided} rollouts reached the answer"
        if rollouts > decided:
            measured += f" ({rollouts - decided} of {rollouts} undecided)"
        return measured
    return "a later prefix reached the answer" if label is True else ""


class StepSearch(Estimator):
    """A search whose prefixes are each decided by `rule` on their own counts."""

    def __init__(self, chain: ChainFacts, rule: StepRule) -> None:
        super().__init__(chain)
        self.rule = rule

    @property
    def request(self) -> int:
        return self.rule.request

    def settled(self, step: int) -> bool | None:
        """On track (True), off track (False), or not decided yet (None) by the trials of
        `step` alone. For the last step: the chain's outcome; at or after a proven error: its
        word (`ChainFacts.proof`), no rollout made there."""
        if self.chain.beyond(step):
            return self.chain.proof(step)
        if step == self.n_steps - 1:
            return self.outcome
        successes, decided = self.counts(step)
        left = max(self.budget(step) - self.rollouts_at(step), 0)
        return self.rule.decide(decided, successes, left)

    def score(self, step: int) -> float | None:
        """Unbiased estimate of prefix `step`'s success rate under the stopping rule that ran;
        None when no trial from it was decided."""
        successes, decided = self.counts(step)
        return unbiased_rate(self.rule, decided, successes) if decided else None

    def budget(self, step: int) -> int:
        return self.rule.budget(self.counts(step)[0])

    def room(self, step: int) -> int:
        return max(self.budget(step) - self.rollouts_at(step), 0)

    def evidence(self, step: int, label: bool | None) -> str:
        return count_evidence(self, step, label)

    def exhausted(self, step: int) -> bool:
        """Undecided with no budget left."""
        return self.settled(step) is None and self.rollouts_at(step) >= self.budget(step)

    def _next(self, step: int) -> Probe:
        return Probe(step, min(self.rule.request, self.room(step)))

    def _open(self, step: int) -> bool:
        return self.settled(step) is None and not self.exhausted(step)

    def ahead(self) -> list[int]:
        """Steps that may be probed once the pending probes settle; none unless the
        search's next probes depend on this one."""
        return []

    def lookahead(self, depth: int = 1) -> list[tuple[int, int, int]]:
        """Here: the first budget of each `ahead` step, one rollout a request, one probe deep
        (rules that ask more at a time look nowhere)."""
        if depth < 1 or self.rule.request != 1:
            return []
        return [(step, at, 1) for step in self.ahead()
                for at in range(self.rollouts_at(step), self.rule.budget(0))]  # fmt: skip

    def may_probe(self, step: int) -> bool:
        return any(p.step == step for p in self.pending())


class PerStep(StepSearch):
    """Math-Shepherd: every prefix but the last is rolled out until its rule decides."""

    def pending(self) -> list[Probe]:
        return [self._next(i) for i in self.chain.probed if self._open(i)]

    def labels(self) -> list[bool | None]:
        return [self.settled(i) for i in range(self.n_steps)]


class BinarySearch(StepSearch):
    """OmegaPRM's first-error search: about log2(M) probes per chain.

    Invariant: every prefix <= lo is on track (lo = -1: only the question, assumed solvable),
    prefix hi is off track (hi = M: none known; a step an exact check proved wrong is off
    track). The next probe is the midpoint of (lo, hi); an on-track probe moves lo up, an
    off-track one moves hi down, until hi = lo + 1 and hi is the first error. Steps strictly
    between lo and hi are never labeled: there is no evidence for them, and neither are the
    steps beyond a midpoint the rule could not decide (the search stops there).

    A chain whose own answer is right: OmegaPRM stops (lo = M-1, every step on track by reach,
    no rollouts), which labels the wrong steps of a lucky chain right; not one with a step
    an exact check proved wrong, which is searched below that step like a wrong chain. With
    `probe_right` (the default) its steps are searched like any other chain's, so a step
    from which fresh rollouts fail is found even when the chain recovered.

    The search assumes success falls with the step (monotone). Where it does not (counts 0,
    5, 0, 0 over four steps), what it reports depends on the midpoints it probed: a step
    that cannot reach the answer is only found if it lies on the search path; `per_step`
    measures every step instead.
    """

    def __init__(self, chain: ChainFacts, rule: StepRule, *, probe_right: bool = True) -> None:
        super().__init__(chain, rule)
        self.probe_right = probe_right

    @property
    def skipped(self) -> bool:
        """OmegaPRM's skip: a right chain (`ChainFacts.right`: none proven wrong) is not
        searched (`probe_right` off)."""
        return self.chain.right and not self.probe_right

    def bounds(self) -> tuple[int, int]:
        """(lo, hi) from the recorded rollouts and the chain outcome."""
        last = self.n_steps - 1
        if self.skipped:
            return last, self.n_steps
        lo = max((i for i in self.chain.probed if self.settled(i) is True), default=-1)
        hi = min(
            (i for i in range(lo + 1, self.n_steps) if self.settled(i) is False),
            default=self.n_steps,
        )
        return lo, hi

    def _upper(self, hi: int) -> int:
        return min(hi, len(self.chain.probed))  # the last prefix is never rolled out

    def _mid(self) -> int | None:
        """The midpoint to probe next; None when the search is over."""
        lo, hi = self.bounds()
        upper = self._upper(hi)
        if upper - lo <= 1:
            return None
        mid = (lo + upper) // 2
        return None if self.exhausted(mid) else mid

    def pending(self) -> list[Probe]:
        mid = self._mid()
        return [] if mid is None else [self._next(mid)]

    def ahead(self) -> list[int]:
        """The midpoints the search probes next: of (lo, m) if the midpoint m turns out off
        track, of (m, upper) if on track."""
        m = self._mid()
        if m is None:
            return []
        lo, hi = self.bounds()
        upper = self._upper(hi)
        return [(a + b) // 2 for a, b in ((lo, m), (m, upper)) if b - a > 1]

    def may_probe(self, step: int) -> bool:
        lo, hi = self.bounds()
        return lo < step < self._upper(hi) and self._open(step)

    def labels(self) -> list[bool | None]:
        lo, hi = self.bounds()
        # After hi only failures can have been measured (a success there would have moved lo
        # past hi); they are reported as measured, and `after_error` decides what they become.
        # The last step is the chain's own outcome whatever the search found.
        last = self.n_steps - 1
        return [
            True if i <= lo
            else False if i == hi
            else self.settled(i) if i > hi or i == last
            else None
            for i in range(self.n_steps)
        ]


def step_search(estimator: Search, chain: ChainFacts, rule: StepRule, *,
                probe_right: bool) -> StepSearch:  # fmt: skip
    """The search a per-step rule runs: `per_step` or `binary_search`."""
    if estimator == Search.per_step:
        return PerStep(chain, rule)
    return BinarySearch(chain, rule, probe_right=probe_right)


__all__ = ["BinarySearch", "PerStep", "Search", "StepRule", "StepSearch", "count_evidence",
           "step_search"]
