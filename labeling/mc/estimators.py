"""Monte Carlo step labels: which prefixes to roll out next, and when a chain is done.

Vocabulary. A chain has steps 0..M-1. *Prefix i* is the question plus steps 0..i. A rollout
from prefix i is one completion of the chain from there; it succeeds when it reaches the right
final answer. A rule (each method's, `labeling.mc.<method>`) turns a prefix's counts into on
track (True), off track (False) or undecided; the estimator chooses the prefixes and reads the
labels off.

The last step. Prefix M-1 is the whole chain: there is nothing left to generate. So the last
step is never rolled out: its label is the chain's own outcome (`outcome=`, checked once by
the driver), reported with score 1.0/0.0 and `rollouts=0`; like every step after a first
error, `after_error` then applies to it (an earlier first error makes it False under
`negative` even when the chain's answer is right: the chain went wrong before it). When the
outcome is unknown (the check timed out) the last step is left unlabeled.

Reach semantics. If prefix j is on track, every prefix i < j is too (the chain was still on
its way through them). `binary_search` relies on this; `per_step` uses it with
`monotone=True` and always under the `fall` rule.

The first error under `fall`: `labeling.mc.fall`.

Early stop. Rollouts are requested `chunk` at a time; a probe stops as soon as its rule
decides, or when its budget is spent (then it stays undecided: `unverifiable`).

Undecided rollouts. A rollout whose check decides nothing (a math-verify timeout, a crashed
check, a sandbox that did not start) is recorded as None: it counts towards the cost and the
budget (so a check that never decides cannot make a probe run forever), but it is neither a
success nor a failure. A prefix whose rollouts were all undecided stays unlabeled.

The score (`mc_scores`): the unbiased estimate of the success rate under the stopping rule
that ran (`labeling.mc.unbiased.unbiased_rate`); the evidence keeps the raw count.

Pure: no engine, no I/O. The driver (`verifiers/mc/driver.py`) loops
`pending()` -> generate and check -> `record()` until `done`, then reads `verdicts()`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from labeling.first_error import located_first_error, prefix_claim
from labeling.mc.unbiased import unbiased_rate
from labeling.schema import AfterError, SelfConfidence, Status, StepVerdict


class Search(StrEnum):
    """Which prefixes a method with a per-step rule rolls out (`labels.mc.estimator`)."""

    per_step = "per_step"  # Math-Shepherd: every prefix until its rule decides
    binary_search = "binary_search"  # OmegaPRM: bisection for the first error


class Rule(Protocol):
    """What an estimator asks of a chain's rule (each method's module has its own)."""

    @property
    def request(self) -> int: ...  # rollouts per request

    @property
    def own(self) -> int: ...  # 1: the chain's own outcome is a trial of every prefix

    @property
    def reach(self) -> bool: ...  # labels read by reach (`Estimator._reach`)

    def budget(self, successes: int) -> int: ...

    def decide(self, decided: int, successes: int, left: int) -> bool | None: ...

    def can_fall(self, decided: int, successes: int, left: int) -> bool: ...

    def evidence(self, est: Any, step: int, label: bool | None) -> str: ...


@dataclass(frozen=True, slots=True)
class Probe:
    """Roll out `n` more completions from prefix `step`."""

    step: int
    n: int


@dataclass(slots=True)
class _Tally:
    rollouts: int = 0  # made, decided or not (cost, budget)
    decided: int = 0  # trials whose check said success or failure (the own outcome included)
    successes: int = 0
    tokens: int = 0


class Estimator:
    """Rollout bookkeeping for one chain; subclasses decide what to probe and how to label.

    `pending()` is a pure function of what was recorded: calling it twice without `record()`
    returns the same probes, so a driver may retry a failed batch safely. `own`: the chain's
    own outcome is one trial of every prefix (`Fall` rules with `own=1` only).
    """

    name = "base"

    def __init__(
        self,
        n_steps: int,
        rule: Rule,
        *,
        after_error: str = AfterError.negative,
        outcome: bool | None = None,
        self_confidence: SelfConfidence | None = None,
    ) -> None:
        if n_steps < 0:
            raise ValueError(f"n_steps must be >= 0, got {n_steps}")
        AfterError(after_error)  # ValueError names the bad value
        self.n_steps, self.rule = n_steps, rule
        self.after_error, self.outcome = after_error, outcome
        self.self_confidence = self_confidence
        self._tally = [_Tally() for _ in range(n_steps)]
        if rule.own:
            if outcome is None:
                raise ValueError("own=1 needs the chain's outcome")
            for t in self._tally[:-1]:
                t.decided, t.successes = 1, int(outcome)
        # A completer that could not show a fall even if every allowed rollout failed
        # cannot tell a wrong step from a right one here: nothing is rolled out.
        self.futile = n_steps > 1 and not rule.can_fall(
            self._tally[0].decided, self._tally[0].successes, rule.budget(0))

    # --- recording ---------------------------------------------------------------------

    def record(self, step: int, successes: list[bool | None], tokens: int = 0) -> None:
        """Add the results of rollouts from prefix `step`: one per completion, True (reached
        the answer), False (did not) or None (the check decided nothing)."""
        if not 0 <= step < self.n_steps - 1:
            raise IndexError(f"step {step} cannot be rolled out (chain has {self.n_steps} steps)")
        t = self._tally[step]
        t.rollouts += len(successes)
        t.decided += sum(s is not None for s in successes)
        t.successes += sum(s is True for s in successes)
        t.tokens += tokens

    @property
    def rollouts(self) -> int:
        return sum(t.rollouts for t in self._tally)

    @property
    def tokens(self) -> int:
        return sum(t.tokens for t in self._tally)

    def rollouts_at(self, step: int) -> int:
        return self._tally[step].rollouts

    def counts(self, step: int) -> tuple[int, int]:
        """(successes, decided trials) behind step `step`'s label."""
        t = self._tally[step]
        return t.successes, t.decided

    # --- what subclasses provide -------------------------------------------------------

    def pending(self) -> list[Probe]:
        raise NotImplementedError

    @property
    def done(self) -> bool:
        return not self.pending()

    def ahead(self) -> list[int]:
        """Steps that may be probed once the pending probes settle; none unless the
        estimator's next probes depend on this one."""
        return []

    def lookahead(self, depth: int = 1) -> list[tuple[int, int, int]]:
        """Requests a driver with room may send early, as (step, first rollout index, n):
        each the very request this estimator would ask for if its pending probes went some
        way, up to `depth` probes deep (0: none). Here: the first budget of each `ahead` step,
        one rollout a request, one probe deep (rules that ask more at a time look nowhere
        unless they say how)."""
        if depth < 1 or self.rule.request != 1:
            return []
        return [(step, at, 1) for step in self.ahead()
                for at in range(self.rollouts_at(step), self.rule.budget(0))]  # fmt: skip

    def may_probe(self, step: int) -> bool:
        """Whether rollouts from `step` are needed now or may be later (speculative results
        are kept for it meanwhile)."""
        return any(p.step == step for p in self.pending())

    def extra(self, probe: Probe) -> int:
        """Rollouts a driver with room may send with `probe` beyond its n, for the probes
        after it at the same step (none here: see `PosteriorSearch.extra`)."""
        return 0

    def labels(self) -> list[bool | None]:
        """Hard label per step before `after_error` is applied; None where undecided."""
        raise NotImplementedError

    # --- shared logic ------------------------------------------------------------------

    def settled(self, step: int) -> bool | None:
        """On track (True), off track (False), or not decided yet (None) by the trials of
        `step` alone. For the last step: the chain's outcome."""
        if step == self.n_steps - 1:
            return self.outcome
        t = self._tally[step]
        left = max(self.budget(step) - t.rollouts, 0)
        return self.rule.decide(t.decided, t.successes, left)

    def score(self, step: int) -> float | None:
        """Unbiased estimate of prefix `step`'s success rate under the stopping rule that ran;
        None when no trial from it was decided."""
        t = self._tally[step]
        return unbiased_rate(self.rule, t.decided, t.successes) if t.decided else None

    def budget(self, step: int) -> int:
        return self.rule.budget(self._tally[step].successes)

    def exhausted(self, step: int) -> bool:
        """Undecided with no budget left."""
        return self.settled(step) is None and self._tally[step].rollouts >= self.budget(step)

    def _next(self, step: int) -> Probe:
        return Probe(step, min(self.rule.request, self.budget(step) - self._tally[step].rollouts))

    def _open(self, step: int) -> bool:
        return not self.futile and self.settled(step) is None and not self.exhausted(step)

    def fall_at(self, step: int) -> bool:
        """`fall` rule: the success rate falls across `step` (see the module docstring)."""
        if step == self.n_steps - 1:
            return self.outcome is False and (step == 0 or self.settled(step - 1) is True)
        if self.settled(step) is not False or (step and self.settled(step - 1) is not True):
            return False
        s, n = self.counts(step)
        b_s, b_n = self.counts(step - 1) if step else self.rule.base  # type: ignore[union-attr]
        return s * b_n < b_s * n

    def _reach(self, labels: list[bool | None]) -> list[bool | None]:
        """`fall` labels from the settled ones: True up to the last on-track prefix, False at
        a fall right after it, the rest as measured (the last step: the outcome)."""
        last = self.n_steps - 1
        lo = max((i for i in range(last) if labels[i] is True), default=-1)
        out: list[bool | None] = [True] * (lo + 1) + [None] * (self.n_steps - lo - 1)
        if self.n_steps:
            out[last] = self.outcome
        if lo + 1 < last and self.fall_at(lo + 1):
            out[lo + 1] = False  # the steps after it: `after_error` decides
        return out

    def first_error(self) -> int | None:
        """The first error the rollouts have located exactly (`located_first_error`: every
        step before it labeled right); -1 when every step is labeled right; None when the
        rollouts so far do not decide it."""
        return located_first_error(self.labels())

    def verdicts(self) -> list[StepVerdict]:
        """One verdict per step: label = hard label (None: not measured and not inferable),
        score = success rate where rolled out, the counts behind it, the cost at that step."""
        labels = self.labels()
        error = next((i for i, x in enumerate(labels) if x is False), -1)
        unlocated = prefix_claim(labels)
        out = []
        for i, label in enumerate(labels):
            t, why = self._tally[i], ""
            if error >= 0 and i > error and self.after_error != AfterError.keep:
                label = False if self.after_error == AfterError.negative else None
                what = "prefix claim" if unlocated == error else "first error"
                why = f"after the {what} at step {error} (after_error={self.after_error})"
            score = self.score(i) if i < self.n_steps - 1 else None
            if i == self.n_steps - 1 and self.outcome is not None:
                score = 1.0 if self.outcome else 0.0
                own = f"the chain's own answer is {'right' if self.outcome else 'wrong'}"
                why = f"{why}; {own}" if why else own
            else:
                measured = self.rule.evidence(self, i, labels[i])
                why = f"{why}; {measured}" if why and measured else why or measured
            status = {True: Status.CORRECT, False: Status.INCORRECT, None: Status.UNVERIFIABLE}
            out.append(StepVerdict(status[label], label, score, why, t.rollouts, t.tokens,
                                   t.successes, t.decided, self.self_confidence))
        return out

class PerStep(Estimator):
    """Math-Shepherd: every prefix but the last is rolled out until its rule decides.

    With `monotone=True` (and always under a rule that reads by reach, `fall`) a step is also
    on track when any later prefix is (reach semantics), which removes isolated false
    negatives but lets a lucky late success hide an error.
    """

    name = Search.per_step

    def __init__(self, n_steps: int, rule: Rule, *, monotone: bool = False,
                 **kw: object) -> None:
        super().__init__(n_steps, rule, **kw)  # type: ignore[arg-type]
        self.monotone = monotone

    def pending(self) -> list[Probe]:
        return [self._next(i) for i in range(self.n_steps - 1) if self._open(i)]

    def labels(self) -> list[bool | None]:
        labels = [self.settled(i) for i in range(self.n_steps)]
        if self.rule.reach:
            return self._reach(labels)
        if self.monotone:
            later_ok = False
            for i in reversed(range(self.n_steps)):
                later_ok = later_ok or labels[i] is True
                if later_ok:
                    labels[i] = True
        return labels


class BinarySearch(Estimator):
    """OmegaPRM's first-error search: about log2(M) probes per chain.

    Invariant: every prefix <= lo is on track (lo = -1: only the question, assumed solvable),
    prefix hi is off track (hi = M: none known). The next probe is the midpoint of (lo, hi);
    an on-track probe moves lo up, an off-track one moves hi down, until hi = lo + 1 and hi
    is the first error. Steps strictly between lo and hi are never labeled: there is no
    evidence for them, and neither are the steps beyond a midpoint the rule could not decide
    (the search stops there).

    A chain whose own answer is right: OmegaPRM stops (lo = M-1, every step on track by reach,
    no rollouts), which labels the wrong steps of a lucky chain right. With `probe_right`
    (the default) its steps are searched like any other chain's, so a step from which fresh
    rollouts fail is found even when the chain recovered.

    The search assumes success falls with the step (monotone). Where it does not (counts 0,
    5, 0, 0 over four steps), what it reports depends on the midpoints it probed: a step
    that cannot reach the answer is only found if it lies on the search path; `per_step`
    measures every step instead.
    """

    name = Search.binary_search

    def __init__(self, n_steps: int, rule: Rule, *, probe_right: bool = True,
                 **kw: object) -> None:
        super().__init__(n_steps, rule, **kw)  # type: ignore[arg-type]
        self.probe_right = probe_right

    def bounds(self) -> tuple[int, int]:
        """(lo, hi) from the recorded rollouts and the chain outcome."""
        last = self.n_steps - 1
        if self.outcome is True and not self.probe_right:
            return last, self.n_steps
        lo = max((i for i in range(last) if self.settled(i) is True), default=-1)
        hi = min(
            (i for i in range(lo + 1, self.n_steps) if self.settled(i) is False),
            default=self.n_steps,
        )
        return lo, hi

    def _mid(self) -> int | None:
        """The midpoint to probe next; None when the search is over."""
        if self.futile:
            return None
        lo, hi = self.bounds()
        upper = min(hi, self.n_steps - 1)  # the last prefix is never rolled out
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
        upper = min(hi, self.n_steps - 1)
        return [(a + b) // 2 for a, b in ((lo, m), (m, upper)) if b - a > 1]

    def may_probe(self, step: int) -> bool:
        lo, hi = self.bounds()
        return (lo < step < min(hi, self.n_steps - 1) and self._open(step))

    def labels(self) -> list[bool | None]:
        if self.rule.reach and (self.outcome is not True or self.probe_right):
            return self._reach([self.settled(i) for i in range(self.n_steps)])
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


ESTIMATORS: dict[str, type[Estimator]] = {
    Search.per_step: PerStep,
    Search.binary_search: BinarySearch,
}
