"""Monte Carlo step labels: which prefixes to roll out next, and when a chain is done.

Vocabulary. A chain has steps 0..M-1. *Prefix i* is the question plus steps 0..i. A rollout
from prefix i is one completion of the chain from there; it succeeds when it reaches the right
final answer. Prefix i is *on track* when its success fraction exceeds `threshold`
(threshold 0: any success, Math-Shepherd's "hard" label); its MC score is the fraction itself.

The last step. Prefix M-1 is the whole chain: there is nothing left to generate, and its only
"rollout" is the chain itself. So the last step is never rolled out: its label is the chain's
own outcome (`outcome=`, checked once by the driver), reported with score 1.0/0.0 and
`rollouts=0`. When the outcome is unknown (the check timed out) the last step is left
unlabeled (unless `after_error` marks it).

Reach semantics. If a completion from prefix j reaches the answer, every prefix i < j can reach
it too (through prefix j), so one later success settles all earlier prefixes as on track. A
failure says nothing about other prefixes. `binary_search` relies on this (it is what makes the
search valid); `per_step` uses it only with `monotone=True` (off by default: Math-Shepherd
labels each step from its own rollouts).

Early stop. Rollouts of a probe are requested `chunk` at a time (default: all k at once, the
cheapest for the engine). With a smaller chunk a probe stops as soon as its label is decided
(threshold 0: at its first success), and its score is the fraction over the rollouts made.

Undecided rollouts. A rollout whose check decides nothing (a math-verify timeout, a crashed
check, a sandbox that did not start) is recorded as None: it counts towards the cost and the
budget (so a check that never decides cannot make a probe run forever), but it is neither a
success nor a failure. A prefix whose rollouts were all undecided stays unlabeled
(`unverifiable`), never `incorrect`.

The score (`mc_scores`). The plain fraction successes/decided is biased when a probe stops
early: stopping at the first success makes 1/1, 1/2, ... likelier than their share (true 0.5
gives a mean of 0.607 with k=5, chunk=1). The score is instead the unbiased estimate of the
success rate under the stopping rule that actually ran (Girshick, Mosteller and Savage,
1946): among the orders of outcomes that the rule would have let reach the same final
(decided, successes), the share whose first rollout succeeded. Without early stopping this is
the plain fraction. It is exact when every rollout is decided; with undecided ones it treats
the decided rollouts as the trials. The evidence keeps the raw count ("2/5 rollouts ...").

Confirmation (`confirm=c`, default 1). With c > 1 a prefix is on track only after c successes,
each success earning k more rollouts (off track when the budget runs out first). A wrong prefix
that recovers by luck (a few percent per rollout is common) then rarely passes for on track,
which matters most to the search, where one such success sends it past the error; see
`benchmarks/bench_mc_simulation.py` for the trade. c > 1 and threshold > 0 do not combine.

Pure: no engine, no I/O. The driver (`verifiers/rollout/driver.py`) loops
`pending()` -> generate and check -> `record()` until `done`, then reads `verdicts()`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from math import comb

from labeling.first_error import located_first_error
from labeling.schema import AfterError, Status, StepVerdict


@dataclass(frozen=True, slots=True)
class Probe:
    """Roll out `n` more completions from prefix `step`."""

    step: int
    n: int


@dataclass(slots=True)
class _Tally:
    rollouts: int = 0  # made, decided or not (cost, budget)
    decided: int = 0  # whose check said success or failure
    successes: int = 0
    tokens: int = 0


class Estimator:
    """Rollout bookkeeping for one chain; subclasses decide what to probe and how to label.

    `pending()` is a pure function of what was recorded: calling it twice without `record()`
    returns the same probes, so a driver may retry a failed batch safely.
    """

    name = "base"

    def __init__(
        self,
        n_steps: int,
        *,
        k: int = 8,
        threshold: float = 0.0,
        after_error: str = "negative",
        outcome: bool | None = None,
        chunk: int | None = None,
        confirm: int = 1,
    ) -> None:
        if n_steps < 0:
            raise ValueError(f"n_steps must be >= 0, got {n_steps}")
        if k < 1:
            raise ValueError(f"k (rollouts per probe) must be >= 1, got {k}")
        if not 0.0 <= threshold < 1.0:
            raise ValueError(f"threshold must be in [0, 1), got {threshold}")
        AfterError(after_error)  # ValueError names the bad value
        chunk = k if chunk is None else chunk
        if not 1 <= chunk <= k:
            raise ValueError(f"chunk must be in 1..k={k}, got {chunk}")
        if confirm < 1 or (confirm > 1 and threshold > 0):
            raise ValueError(f"confirm must be >= 1, and 1 when threshold > 0; got {confirm}")
        self.n_steps, self.k, self.threshold, self.chunk = n_steps, k, threshold, chunk
        self.confirm = confirm
        self.after_error, self.outcome = after_error, outcome
        self._tally = [_Tally() for _ in range(n_steps)]

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

    # --- what subclasses provide -------------------------------------------------------

    def pending(self) -> list[Probe]:
        raise NotImplementedError

    @property
    def done(self) -> bool:
        return not self.pending()

    def ahead(self) -> list[int]:
        """Steps that may be probed once the pending probes settle (a driver with room may
        roll them out early); none unless the estimator's next probes depend on this one."""
        return []

    def may_probe(self, step: int) -> bool:
        """Whether rollouts from `step` are needed now or may be later (speculative results
        are kept for it meanwhile)."""
        return any(p.step == step for p in self.pending())

    def labels(self) -> list[bool | None]:
        """Hard label per step before `after_error` is applied; None where undecided."""
        raise NotImplementedError

    # --- shared logic ------------------------------------------------------------------

    def settled(self, step: int) -> bool | None:
        """On track (True), off track (False), or not decided yet (None) by the rollouts
        from `step` alone. For the last step: the chain's outcome."""
        if step == self.n_steps - 1:
            return self.outcome
        t = self._tally[step]
        left = max(self.budget(step) - t.rollouts, 0)
        return self._decide(t.decided, t.successes, left)

    def _decide(self, decided: int, successes: int, left: int) -> bool | None:
        """The label once `decided` rollouts gave `successes` and `left` may still be made:
        True/False when no outcome of the rest can change it, else None. Undecided rollouts
        are not trials: a rule on the decided ones alone."""
        if self.confirm > 1:
            if successes >= self.confirm:
                return True
            return False if not left and decided else None
        if successes > self.threshold * self.k:
            # above the bar whatever the rest: the rate over at most k trials stays > threshold
            return True
        if decided + left and (successes + left) <= self.threshold * (decided + left):
            # cannot pass the bar even if every remaining rollout succeeds
            return False if decided else None
        return None

    def score(self, step: int) -> float | None:
        """Unbiased estimate of prefix `step`'s success rate under the stopping rule that ran
        (see the module docstring); None when no rollout from it was decided."""
        t = self._tally[step]
        if not t.decided:
            return None
        if t.successes in (0, t.decided):
            return t.successes / t.decided  # every admissible order agrees
        return _unbiased_rate(self, t.decided, t.successes)

    def budget(self, step: int) -> int:
        # With confirm=c every success earns k more rollouts, up to c*k: a lucky success from
        # a wrong prefix must be repeated before it counts.
        return self.k * min(self._tally[step].successes + 1, self.confirm)

    def exhausted(self, step: int) -> bool:
        """Undecided with no budget left: every rollout from `step` was undecided."""
        return self.settled(step) is None and self._tally[step].rollouts >= self.budget(step)

    def _next(self, step: int) -> Probe:
        return Probe(step, min(self.chunk, self.budget(step) - self._tally[step].rollouts))

    def first_error(self) -> int | None:
        """The first error the rollouts have located exactly (`located_first_error`: every
        step before it labeled right); -1 when every step is labeled right; None when the
        rollouts so far do not decide it."""
        return located_first_error(self.labels())

    def verdicts(self) -> list[StepVerdict]:
        """One verdict per step: label = hard label (None: not measured and not inferable),
        score = success fraction where rolled out, rollouts/tokens = cost at that step."""
        labels = self.labels()
        error = next((i for i, x in enumerate(labels) if x is False), -1)
        out = []
        for i, label in enumerate(labels):
            t, why = self._tally[i], ""
            if error >= 0 and i > error and self.after_error != "keep":
                label = False if self.after_error == "negative" else None
                why = f"after the first error at step {error}"
            score = self.score(i) if i < self.n_steps - 1 else None
            if i == self.n_steps - 1 and self.outcome is not None:
                score = 1.0 if self.outcome else 0.0
                own = f"the chain's own answer is {'right' if self.outcome else 'wrong'}"
                why = f"{why}; {own}" if why else own
            elif t.rollouts:
                measured = f"{t.successes}/{t.decided} rollouts reached the answer"
                if t.rollouts > t.decided:
                    measured += f" ({t.rollouts - t.decided} of {t.rollouts} undecided)"
                why = f"{why}; {measured}" if why else measured
            elif label is True:
                why = why or "a later prefix reached the answer"
            status = {True: Status.CORRECT, False: Status.INCORRECT, None: Status.UNVERIFIABLE}
            out.append(StepVerdict(status[label], label, score, why, t.rollouts, t.tokens))
        return out


class PerStep(Estimator):
    """Math-Shepherd: k rollouts from every prefix but the last (k*(M-1) per chain).

    With `monotone=True` a step is also on track when any later prefix is (reach semantics),
    which removes isolated false negatives but lets a lucky late success hide an error.
    """

    name = "per_step"

    def __init__(self, n_steps: int, *, monotone: bool = False, **kw: object) -> None:
        super().__init__(n_steps, **kw)  # type: ignore[arg-type]
        self.monotone = monotone

    def pending(self) -> list[Probe]:
        return [
            self._next(i)
            for i in range(self.n_steps - 1)
            if self.settled(i) is None and not self.exhausted(i)
        ]

    def labels(self) -> list[bool | None]:
        labels = [self.settled(i) for i in range(self.n_steps)]
        if self.monotone:
            later_ok = False
            for i in reversed(range(self.n_steps)):
                later_ok = later_ok or labels[i] is True
                if later_ok:
                    labels[i] = True
        return labels


class BinarySearch(Estimator):
    """OmegaPRM's first-error search: about k*log2(M) rollouts per chain.

    Invariant: every prefix <= lo is on track (lo = -1: only the question, assumed solvable),
    prefix hi is off track (hi = M: none known). The next probe is the midpoint of (lo, hi);
    an on-track probe moves lo up, an off-track one moves hi down, until hi = lo + 1 and hi
    is the first error. Steps strictly between lo and hi are never labeled: there is no
    evidence for them, and neither are the steps beyond a midpoint whose rollouts were all
    undecided (the search stops there).

    A chain whose own answer is right: OmegaPRM stops (lo = M-1, every step on track by reach,
    no rollouts), which labels the wrong steps of a lucky chain right. With `probe_right`
    (the default) the chain's own success is not counted: its steps are searched like any
    other chain's (about k*log2(M) rollouts), so a step from which fresh rollouts fail is
    found even when the chain recovered.

    The search assumes success falls with the step (monotone). Where it does not (counts 0,
    5, 0, 0 over four steps), what it reports depends on the midpoints it probed: a step
    that cannot reach the answer is only found if it lies on the search path; `per_step`
    measures every step instead.
    """

    name = "binary_search"

    def __init__(self, n_steps: int, *, probe_right: bool = True, **kw: object) -> None:
        super().__init__(n_steps, **kw)  # type: ignore[arg-type]
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

    def pending(self) -> list[Probe]:
        lo, hi = self.bounds()
        upper = min(hi, self.n_steps - 1)  # the last prefix is never rolled out
        if upper - lo <= 1:
            return []
        mid = (lo + upper) // 2
        return [] if self.exhausted(mid) else [self._next(mid)]

    def ahead(self) -> list[int]:
        """The midpoints the search probes next: of (lo, m) if the midpoint m turns out off
        track, of (m, upper) if on track."""
        lo, hi = self.bounds()
        upper = min(hi, self.n_steps - 1)
        if upper - lo <= 1 or self.exhausted((lo + upper) // 2):
            return []
        m = (lo + upper) // 2
        return [(a + b) // 2 for a, b in ((lo, m), (m, upper)) if b - a > 1]

    def may_probe(self, step: int) -> bool:
        lo, hi = self.bounds()
        return (lo < step < min(hi, self.n_steps - 1) and self.settled(step) is None
                and not self.exhausted(step))

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


class EstimatorName(StrEnum):
    """The Monte Carlo estimators (`labels.mc.estimator`)."""

    per_step = "per_step"
    binary_search = "binary_search"


ESTIMATORS: dict[str, type[Estimator]] = {
    EstimatorName.per_step: PerStep,
    EstimatorName.binary_search: BinarySearch,
}


def make_estimator(
    name: str,
    n_steps: int,
    k: int = 8,
    threshold: float = 0.0,
    after_error: str = "negative",
    outcome: bool | None = None,
    chunk: int | None = None,
    confirm: int = 1,
    **options: object,
) -> Estimator:
    """An estimator by name (`per_step` | `binary_search`); ValueError names the choices."""
    if name not in ESTIMATORS:
        raise ValueError(f"unknown MC estimator {name!r}; choose one of {', '.join(ESTIMATORS)}")
    return ESTIMATORS[name](
        n_steps,
        k=k,
        threshold=threshold,
        after_error=after_error,
        outcome=outcome,
        chunk=chunk,
        confirm=confirm,
        **options,  # type: ignore[arg-type]
    )


def _unbiased_rate(est: Estimator, decided: int, successes: int) -> float:
    """Share of the outcome orders admissible under `est`'s stopping rule that reach
    (decided, successes) and start with a success: the unbiased rate estimate."""
    key = (est.k, est.chunk, est.confirm, est.threshold)
    return _path_share(key, decided, successes)


@lru_cache(maxsize=4096)
def _path_share(key: tuple[int, int, int, float], decided: int, successes: int) -> float:
    k, chunk, confirm, threshold = key
    rule = Estimator(2, k=k, chunk=chunk, confirm=confirm, threshold=threshold)

    def budget(s: int) -> int:
        return k * min(s + 1, confirm)

    # States (n, s) after each request; counts of paths reaching them without stopping
    # earlier, all paths and those whose first trial succeeded. A request asks for
    # min(chunk, budget - n) rollouts; the rule is checked after each request.
    frontier = {(0, 0): (1, 0)}
    total = first = 0
    while frontier:
        nxt: dict[tuple[int, int], tuple[int, int]] = {}
        for (n, s), (paths, firsts) in frontier.items():
            m = min(chunk, budget(s) - n)
            for j in range(m + 1):
                all_paths = paths * comb(m, j)
                # paths whose very first trial is a success: within the first request, the
                # first trial is fixed to a success and the rest is free
                if n == 0:
                    with_first = comb(m - 1, j - 1) if j else 0
                else:
                    with_first = firsts * comb(m, j)
                state = (n + m, s + j)
                stopped = rule._decide(n + m, s + j, max(budget(s + j) - n - m, 0)) is not None
                if stopped or n + m >= budget(s + j):
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
