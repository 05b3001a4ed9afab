"""A chain's Monte Carlo estimator: its rollout bookkeeping, and the verdicts read off it.

Vocabulary. A chain has steps 0..M-1. *Prefix i* is the question plus steps 0..i. A rollout
from prefix i is one completion of the chain from there; it succeeds when it reaches the right
final answer. Each method (`labeling.mc.<method>`) turns the counts of the prefixes it chose
to roll out into a label per step: on track (True), off track (False) or undecided (None).

The last step. Prefix M-1 is the whole chain: there is nothing left to generate. So the last
step is never rolled out: its label is the chain's own outcome (`outcome`, checked once by
the driver), reported with score 1.0/0.0 and `rollouts=0`; like every step after a first
error, `after_error` then applies to it (an earlier first error makes it False under
`negative` even when the chain's answer is right: the chain went wrong before it). When the
outcome is unknown (the check timed out) the last step is left unlabeled.

Undecided rollouts. A rollout whose check decides nothing (a math-verify timeout, a crashed
check, a sandbox that did not start) is recorded as None: it counts towards the cost and the
budget (so a check that never decides cannot make a probe run forever), but it is neither a
success nor a failure. A prefix whose rollouts were all undecided stays unlabeled.

The driver (`verifiers/mc/driver.py`) asks an estimator only what `Estimator` declares: it
loops `pending()` -> generate and check -> `record()` until `done`, may send `lookahead()`
and `extra()` rollouts early, and reads `verdicts()`. Pure: no engine, no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from labeling.first_error import located_first_error, prefix_claim
from labeling.schema import AfterError, ProvenError, SelfConfidence, Status, StepVerdict

# `extra`: the undecided share a step's top-ups are sized for at most (x5 the rollouts); a
# fraction, so that n / (1 - share) is exact (in floats 2 / (1 - 0.8) rounds up to 11)
UNDECIDED_MAX = Fraction(4, 5)


@dataclass(frozen=True, slots=True)
class ChainFacts:
    """What a method knows of one chain before its first rollout.

    `base`: the completer's (successes, decided) from the bare question on the problem: its
    question rollouts and the outcomes of the problem's *other* chains it sampled with the
    rollouts' settings (this chain's own outcome is not in it; how it counts is the method's
    business). `sampled`: the completer wrote this chain with the rollouts' settings.
    `steps`, `question`: the texts (a method may spare steps that cannot be wrong).
    `proven`: the earliest step an exact check proved wrong (`calc`, `tests`), or None. The
    chain's first error is at or before it, so no search rolls out a prefix at or after it
    (`probed`): that step is False, the steps after it are `after_error`'s.
    """

    n_steps: int
    outcome: bool | None = None
    base: tuple[int, int] = (0, 0)
    sampled: bool = False
    after_error: AfterError = AfterError.negative
    self_confidence: SelfConfidence | None = None
    steps: tuple[str, ...] = ()
    question: str = ""
    proven: ProvenError | None = None

    def __post_init__(self) -> None:
        if self.n_steps < 0:
            raise ValueError(f"n_steps must be >= 0, got {self.n_steps}")
        if self.proven is not None and self.proven.step >= self.n_steps:
            raise ValueError(f"a proven error at step {self.proven.step} of a chain of "
                             f"{self.n_steps} steps")
        if not 0 <= self.base[0] <= self.base[1]:
            raise ValueError(f"base counts need 0 <= successes <= decided, got {self.base}")
        object.__setattr__(self, "after_error", AfterError(self.after_error))

    @property
    def with_own(self) -> tuple[int, int]:
        """`base` with this chain's own outcome when the completer sampled it: the problem's
        self-confidence counts as the driver reports them."""
        own = self.sampled and self.outcome is not None
        return self.base[0] + int(own and bool(self.outcome)), self.base[1] + int(own)

    @property
    def probed(self) -> range:
        """The prefixes a search may roll out: every one but the last (the whole chain, whose
        label is its outcome) and none at or after a proven error. The one place that bounds
        a search."""
        end = self.n_steps - 1 if self.proven is None else min(self.proven.step,
                                                               self.n_steps - 1)
        return range(max(end, 0))

    @property
    def right(self) -> bool:
        """The chain's own answer is right and no exact check proved a step wrong: what
        `probe_right=false` leaves unsearched (a proof makes a chain a wrong one)."""
        return self.outcome is True and self.proven is None

    def proof(self, step: int) -> bool | None:
        """What the proven error says of `step`: False at it, None (nothing measured) after
        it up to the last step, whose label stays the chain's own outcome; no word (None)
        before it or without one. Callers ask `beyond` first."""
        if self.proven is None or step < self.proven.step:
            return None
        if step == self.proven.step:
            return False
        return self.outcome if step == self.n_steps - 1 else None

    def beyond(self, step: int) -> bool:
        """`step` is at or after the proven error: its label is `proof(step)`."""
        return self.proven is not None and step >= self.proven.step


@dataclass(frozen=True, slots=True)
class Probe:
    """Roll out `n` more completions from prefix `step`."""

    step: int
    n: int


@dataclass(slots=True)
class _Tally:
    rollouts: int = 0  # made, decided or not (cost, budget)
    decided: int = 0  # trials whose check said success or failure
    undecided: int = 0  # rollouts whose check decided nothing
    successes: int = 0
    tokens: int = 0


class Estimator:
    """Rollout bookkeeping for one chain; each method's search decides what to probe and how
    to label (`pending`, `labels`, `score`, `evidence`, `request`).

    `pending()` is a pure function of what was recorded: calling it twice without `record()`
    returns the same probes, so a driver may retry a failed batch safely.
    """

    def __init__(self, chain: ChainFacts) -> None:
        self.chain = chain
        self.n_steps, self.outcome = chain.n_steps, chain.outcome
        self.after_error = chain.after_error
        self.self_confidence = chain.self_confidence
        self._tally = [_Tally() for _ in range(chain.n_steps)]

    # --- recording ---------------------------------------------------------------------

    def record(self, step: int, successes: list[bool | None], tokens: int = 0) -> None:
        """Add the results of rollouts from prefix `step`: one per completion, True (reached
        the answer), False (did not) or None (the check decided nothing)."""
        if step not in self.chain.probed:
            raise IndexError(f"step {step} cannot be rolled out (chain has {self.n_steps} steps)")
        t = self._tally[step]
        t.rollouts += len(successes)
        t.decided += sum(s is not None for s in successes)
        t.undecided += sum(s is None for s in successes)
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

    # --- what each search provides ----------------------------------------------------

    @property
    def request(self) -> int:
        """Rollouts a probe asks for at a time."""
        raise NotImplementedError

    def pending(self) -> list[Probe]:
        raise NotImplementedError

    def budget(self, step: int) -> int:
        """Rollouts from `step` allowed now (made ones included)."""
        raise NotImplementedError

    def labels(self) -> list[bool | None]:
        """Hard label per step before `after_error` is applied; None where undecided."""
        raise NotImplementedError

    def score(self, step: int) -> float | None:
        """The soft label of prefix `step` (`mc_scores`); None where there is none."""
        raise NotImplementedError

    def evidence(self, step: int, label: bool | None) -> str:
        """The words of step `step`'s verdict: what was measured behind `label`."""
        raise NotImplementedError

    def lookahead(self, depth: int = 1) -> list[tuple[int, int, int]]:
        """Requests a driver with room may send early, as (step, first rollout index, n):
        each the very request this estimator would ask for if its pending probes went some
        way, up to `depth` probes deep (0: none)."""
        raise NotImplementedError

    def room(self, step: int) -> int:
        """Rollouts from `step` the budget still allows beyond those made."""
        raise NotImplementedError

    def may_probe(self, step: int) -> bool:
        """Whether rollouts from `step` are needed now or may be later (speculative results
        are kept for it meanwhile)."""
        raise NotImplementedError

    # --- shared ------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        return not self.pending()

    def extra(self, probe: Probe) -> int:
        """Rollouts worth sending with `probe` beyond its n. A probe needs n *decided*
        rollouts; where a step's rollouts come back undecided (no attempt at an answer, a
        check that decided nothing) it is topped up a round at a time, each round as long as
        its slowest rollout (docs/benchmarks.md, the MC stage's tail). So once a step has an
        undecided rollout, a probe there goes out sized for the step's undecided share u so
        far: n / (1 - u) and one more, within `room`. Rollouts are recorded by their index,
        so what a probe does not take waits for the step's next one and the labels are the
        same."""
        made, undecided = self.rollouts_at(probe.step), self._tally[probe.step].undecided
        if not undecided:
            return 0
        share = min(Fraction(undecided, made), UNDECIDED_MAX)
        want = math.ceil(probe.n / (1 - share)) + 1
        return max(min(want, self.room(probe.step)) - probe.n, 0)

    def with_proof(self, labels: list[bool | None]) -> list[bool | None]:
        """`labels` with the proven error's word on every step at or after it
        (`ChainFacts.proof`): what every search's labels are, whatever it measured."""
        return [self.chain.proof(i) if self.chain.beyond(i) else x for i, x in enumerate(labels)]

    def bound_evidence(self, step: int) -> str:
        """The words of a step at or after the proven error ("" before it)."""
        proven = self.chain.proven
        if proven is None or step < proven.step:
            return ""
        said = f"bounded by {proven.source} at step {proven.step}: no rollout at or after it"
        return f"{said}; {proven.source} proves this step wrong" if step == proven.step \
            else said

    def first_error(self) -> int | None:
        """The first error the rollouts have located exactly (`located_first_error`: every
        step before it labeled right); -1 when every step is labeled right; None when the
        rollouts so far do not decide it."""
        return located_first_error(self.with_proof(self.labels()))

    def verdicts(self) -> list[StepVerdict]:
        """One verdict per step: label = hard label (None: not measured and not inferable),
        score = the search's soft label, the counts behind it, the cost at that step."""
        labels = self.with_proof(self.labels())
        error = next((i for i, x in enumerate(labels) if x is False), -1)
        unlocated = prefix_claim(labels)
        out = []
        for i, label in enumerate(labels):
            t, why = self._tally[i], ""
            if error >= 0 and i > error and self.after_error != AfterError.keep:
                label = False if self.after_error == AfterError.negative else None
                proven = self.chain.proven
                what = "proven error" if proven is not None and proven.step == error \
                    else "prefix claim" if unlocated == error else "first error"
                why = f"after the {what} at step {error} (after_error={self.after_error})"
            bound = self.bound_evidence(i)
            score = self.score(i) if i < self.n_steps - 1 and not bound else None
            if i == self.n_steps - 1 and self.outcome is not None:
                score = 1.0 if self.outcome else 0.0
                own = f"the chain's own answer is {'right' if self.outcome else 'wrong'}"
                measured = f"{own}; {bound}" if bound else own
            else:
                measured = bound or self.evidence(i, labels[i])
            why = f"{why}; {measured}" if why and measured else why or measured
            status = {True: Status.CORRECT, False: Status.INCORRECT, None: Status.UNVERIFIABLE}
            out.append(StepVerdict(status[label], label, score, why, t.rollouts, t.tokens,
                                   t.successes, t.decided, self.self_confidence))
        return out


__all__ = ["ChainFacts", "Estimator", "Probe"]
