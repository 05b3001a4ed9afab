"""The `posterior` rule's search: probabilistic bisection for a chain's first error.

The posterior over the first error e (`labeling.mc.posterior`) is recomputed from every
probed prefix's counts, the chain's own outcome and the completer's self-confidence. The next
probe is the prefix whose next `probe` rollouts are expected to tell most about e (the
expected reduction of its entropy, in bits; ties go to the later prefix, whose rate is
higher). A probe counts *decided* rollouts: it is topped up until `probe` of them came back
(an undecided rollout costs budget, never changes a choice), then the next prefix is chosen.
Between probes the search stops when the first error is located or every step is right,
when `chain_budget` rollouts were made, when no probe is expected to tell anything
(< 1e-4 bits), or when no first error that the posterior still gives at least `level` (at
most `CANDIDATE`) could be located within the budget left even if every remaining rollout
went its way (a weak completer on a long chain: 48 failures in a row from step 0 of an
8-step chain leave P(e = 0) at 0.92 when the question gave 4 successes in 20).

The labels: `labeling.mc.posterior` (the method's module).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from labeling.first_error import prefix_claim
from labeling.mc.estimator import ChainFacts, Estimator, Probe
from labeling.mc.first_error_model import ErrorPosterior, FirstErrorModel
from labeling.schema import AfterError

# The search goes on while a first error the posterior gives at least this much (or `level`,
# if lower) could still be located. Tied to `level` alone, a looser level (0.25 and up, the
# mass spread over the chain's places) left no candidate and stopped every search at once.
CANDIDATE = 0.05

MIN_GAIN = 1e-4  # bits: below it no probe is worth its rollouts
# The probes looked ahead (`lookahead`, as deep as the driver asks: one probe, or two where
# the engines' device makes extra sequences cheap, `pipelines.engine.device.look_ahead`) hold
# at most this many rollouts in all, nearest first: a probe grown on a weak problem
# (`Posterior.request`) has more outcomes, each a bigger request, and on a compute-bound
# engine rollouts no probe needs slow the ones it does. 24 = the two-deep tree for probes of
# 2 (3 + 9 requests).
AHEAD_ROLLOUTS = 24
# Beyond `depth` the look-ahead goes on only with the request the search makes with at least
# this probability (so at most one a level), while the paths to it are this few states (each
# costs a posterior and a choice: docs/benchmarks.md).
LIKELY = 0.5
LIKELY_STATES = 32
Counts = tuple[tuple[int, int], ...]  # (successes, decided) of prefixes 0..M-2


class PosteriorSettings(Protocol):
    """What the search asks of the `posterior` method's settings (`labeling.mc.posterior`)."""

    level: float
    factor: float
    chain_budget: int
    probe_right: bool

    def request(self, base: tuple[int, int]) -> int: ...

    def evidence(self, est: PosteriorSearch, step: int, label: bool | None) -> str: ...


class PosteriorSearch(Estimator):
    """The search and labels of the module docstring for one chain, with `method`'s settings.
    `may_err[i]` False: step i cannot be the first error (`labeling.mc.spared`). The model
    reads the chain's own outcome itself (`chain.base` holds the others'); the rates a fall
    is seen against, the probe size and the evidence use the problem's counts with it
    (`counted`)."""

    def __init__(self, chain: ChainFacts, method: PosteriorSettings,
                 may_err: Sequence[bool] | None = None) -> None:  # fmt: skip
        super().__init__(chain)
        n_steps, outcome = chain.n_steps, chain.outcome
        self.method, self.base, self.counted = method, chain.base, chain.with_own
        proven = chain.proven.step if chain.proven else None
        self.model = FirstErrorModel(n_steps, chain.base, outcome, chain.sampled, may_err,
                                     proven) if n_steps > 1 else None
        self.may_err = tuple(may_err) if may_err is not None else (True,) * n_steps
        # A completer that never reached the answer from the question cannot show a fall.
        self.futile = n_steps > 1 and not self.counted[0]
        # Nothing to roll out (one step, or a proven error at step 0), or a right chain left
        # unsearched (`probe_right` off; a proven error makes a chain a wrong one).
        self.skip = self.futile or not chain.probed or (not method.probe_right and chain.right)
        self.stop = len(chain.probed)  # the steps searched: 0..stop-1
        self._probe: tuple[int, int] | None = None  # (step, decided count that completes it)
        self._seen: dict[Counts, tuple[ErrorPosterior, list[bool | None]]] = {}
        # Keyed by the counts and the budget left: a choice is a function of both (undecided
        # rollouts spend budget without changing the counts).
        self._choice: dict[tuple[Counts, int], int | None] = {}
        self._ahead: dict[tuple[Counts, int, int], list[tuple[int, int, int]]] = {}

    # --- the posterior and the labels -------------------------------------------------------

    def _counts(self) -> Counts:
        return tuple(self.counts(i) for i in range(self.n_steps - 1))

    def belief(self) -> ErrorPosterior | None:
        """The posterior from what was recorded; None when nothing can be learnt."""
        return None if self.model is None else self._state()[0]

    def _state(self) -> tuple[ErrorPosterior, list[bool | None]]:
        return self._at(self._counts())

    def _at(self, counts: Counts) -> tuple[ErrorPosterior, list[bool | None]]:
        """The posterior and labels of these counts (the recorded ones, or a hypothesis)."""
        if counts not in self._seen:
            assert self.model is not None
            post = self.model.posterior(counts)
            self._seen[counts] = (post, self._label(post, counts))
        return self._seen[counts]

    def _label(self, post: ErrorPosterior, counts: Counts) -> list[bool | None]:
        m, level, f = self.n_steps, self.method.level, self.method.factor
        out: list[bool | None] = [None] * (m - 1)
        if self.skip:
            return self.with_proof(out + [self.outcome])
        reached = [any(x for x, _ in counts[i:]) for i in range(m - 1)]
        right = max((i for i in range(m - 1) if post.p_gt(i) >= 1 - level
                     and post.factor[i] <= 1 / f and reached[i]), default=-1)
        out[: right + 1] = [True] * (right + 1)
        i = right + 1  # the error can only be located right after the last True step
        if (i < m - 1 and post.p_le[i] >= 1 - level and post.factor[i] >= f
                and self._fell(counts)[i]):
            out[i] = False  # the steps after it: `after_error` decides, as under every rule
        return self.with_proof(out + [self.outcome])

    def _fell(self, counts: Counts) -> list[bool]:
        """fell[i]: some probed prefix j <= i succeeded less often than the question or an
        earlier probed prefix (compared as fractions, exactly), across a step that may err:
        a lower rate after steps that cannot err only (`may_err`) is the new baseline."""
        best = self.counted if self.counted[1] else None  # the highest rate so far
        out, seen, last = [], False, -1  # last: the previous probed prefix (-1: the question)
        for i, (x, n) in enumerate(counts):
            if n:
                lower = best is not None and x * best[1] < best[0] * n
                if lower and not any(self.may_err[last + 1:i + 1]):
                    best = (x, n)
                else:
                    seen = seen or lower
                    if best is None or x * best[1] > best[0] * n:
                        best = (x, n)
                last = i
            out.append(seen)
        return out

    def labels(self) -> list[bool | None]:
        if self.n_steps < 2:
            return self.with_proof([self.outcome] * self.n_steps)
        post, located = self._state()
        return self._with_prefix_claim(post, list(located))

    def _with_prefix_claim(self, post: ErrorPosterior, labels: list[bool | None]
                           ) -> list[bool | None]:  # fmt: skip
        """`labels` (the located ones) with the prefix claim of the module docstring, under
        `after_error=negative` only: the search never reads it (it still looks for the
        first error itself), so the rollouts are the same with or without it."""
        m, level, f = self.n_steps, self.method.level, self.method.factor
        if self.skip or self.after_error != AfterError.negative or False in labels[:self.stop]:
            return labels
        fell = self._fell(self._counts())
        for i in range(self.stop):
            if labels[i] is None and post.p_le[i] >= 1 - level and post.factor[i] >= f \
                    and fell[i]:
                labels[i:m - 1] = [False] * (m - 1 - i)
                break
        return labels

    def prefix_claim(self) -> int | None:
        """The step of the prefix claim in `labels()`, or None when there is none."""
        return prefix_claim(self.labels())

    def score(self, step: int) -> float | None:
        """P(e > step): the chain is still right through `step`; None without a rollout."""
        if self.skip or not self.rollouts:
            return None
        post = self.belief()
        return None if post is None else post.p_gt(step)

    # --- the search -------------------------------------------------------------------------

    def _left(self) -> int:
        return max(self.method.chain_budget - self.rollouts, 0)

    def pending(self) -> list[Probe]:
        if self.skip or not self._left():
            return []  # nothing to learn, or no budget left
        if self._probe is not None:  # finished first: choices see whole probes only
            step, target = self._probe
            return [Probe(step, min(target - self.counts(step)[1], self._left()))]
        best = self._next(self._counts(), self._left())
        return [] if best is None else [Probe(best, min(self.request, self._left()))]

    def _next(self, counts: Counts, left: int) -> int | None:
        """The step probed next from these counts with `left` rollouts of budget; None when
        the search stops (the first error found, every step right, nothing to learn)."""
        labels = self._at(counts)[1][:self.stop]  # a proven error is False, not found
        if left <= 0 or False in labels or None not in labels:
            return None
        key = (counts, left)
        if key not in self._choice:
            assert self.model is not None
            gains = self.model.gains(counts, self.request)
            # only the prefixes the search covers (`ChainFacts.probed`) are chosen
            best = max(self.chain.probed, key=lambda i: (gains[i], i))
            useful = gains[best] >= MIN_GAIN and self._reachable(counts, left)
            self._choice[key] = best if useful else None
        return self._choice[key]

    def lookahead(self, depth: int = 1) -> list[tuple[int, int, int]]:
        """The requests the search would send next after each outcome of the pending probe
        (0 to n successes, all decided), then after each outcome of those, `depth` probes
        deep, as (step, first rollout index, n); then, deeper, the one request the search
        makes with probability >= `LIKELY` by the posterior's own prediction of the outcomes
        (a weak completer's search that keeps probing one step while it fails), level by
        level while one is. All while the budget holds whole probes and the rollouts stay
        within `AHEAD_ROLLOUTS`: a driver with room sends them early
        (verifiers/mc/schedule.py)."""
        pending = self.pending()
        if not pending or depth < 1:
            return []
        key = (self._counts(), self.rollouts, depth)
        if key not in self._ahead:
            self._ahead[key] = self._tree(pending[0], depth)
        return self._ahead[key]

    def _tree(self, first: Probe, depth: int) -> list[tuple[int, int, int]]:
        assert self.model is not None
        out: list[tuple[int, int, int]] = []
        n = self.request
        room = AHEAD_ROLLOUTS // n  # requests
        # A path: its counts, budget left, the probe it makes, the rollouts it added, and
        # how likely the search is to take it.
        frontier: list[tuple[Counts, int, Probe, dict[int, int], float]] = [
            (self._counts(), self._left(), first, {}, 1.0)]
        level = 0
        while frontier and len(out) < room:
            level += 1
            reach: dict[tuple[int, int, int], float] = {}  # request: P(the search makes it)
            later = []
            deeper = level > depth
            if deeper:  # likeliest paths first, and only while they may still decide
                frontier.sort(key=lambda path: -path[4])
            unseen = sum(path[4] for path in frontier)
            for counts, left, probe, added, p in frontier:
                top = max(reach.values(), default=0.0)
                if deeper and (top >= LIKELY or top + unseen < LIKELY):
                    break  # found (the rest only adds to it), or out of reach
                unseen -= p
                left -= probe.n
                added = added | {probe.step: added.get(probe.step, 0) + probe.n}
                if left < n:
                    continue
                x, d = counts[probe.step]
                odds = self.model.predictive(counts, probe.step, probe.n)
                for ok in range(probe.n + 1):
                    then = (*counts[: probe.step], (x + ok, d + probe.n),
                            *counts[probe.step + 1:])
                    step = self._next(then, left)
                    if step is None:
                        continue
                    request = (step, self.rollouts_at(step) + added.get(step, 0), n)
                    reach[request] = reach.get(request, 0.0) + p * odds[ok]
                    later.append((then, left, Probe(step, n), added, p * odds[ok], request))
            if deeper:  # beyond `depth`: only the request the search likely makes
                best = max(reach, key=reach.__getitem__, default=None)
                if best is None or reach[best] < LIKELY:
                    break
                reach = {best: reach[best]}
            out += [r for r in reach if r not in out][: room - len(out)]
            # Paths in the same state go on alike: merged (outcomes at one step that sum
            # alike), so a long likely run costs a few posteriors a level, not (n+1)^level.
            merged: dict[tuple, tuple[Counts, int, Probe, dict[int, int], float]] = {}
            for c, lf, pr, a, q, r in later:
                if r in reach and r in out:  # a request the room left out goes no deeper
                    k = (c, lf, pr, tuple(sorted(a.items())))
                    merged[k] = (c, lf, pr, a, q + (merged[k][4] if k in merged else 0.0))
            frontier = list(merged.values())
            if level >= depth and len(frontier) > LIKELY_STATES:
                break
        return out

    def may_probe(self, step: int) -> bool:
        # Any step may come next while the search goes on (results sent early wait for it).
        return step in self.chain.probed and bool(self.pending())

    def _reachable(self, counts: Counts, left: int) -> bool:
        """Whether some first error the posterior still gives at least `level` (or "no error
        before the last step") could be located within the budget left, even if the whole
        budget went its way twice over: every rollout failing from it, and every rollout
        succeeding from the step before it (from the last probed step, for "none" or a
        proven error: those need only the steps before them right). If not, no rollout can
        place a label that matters: the search stops."""
        assert self.model is not None
        m, level, stop = self.n_steps, self.method.level, self.stop
        p_le = self._at(counts)[0].p_le
        p_e = [p_le[0], *(p_le[i] - p_le[i - 1] for i in range(1, m)), 1 - p_le[m - 1]]
        for e in range(m + 1):
            if p_e[e] < min(level, CANDIDATE):
                continue
            trial = list(counts)
            if e < stop:
                trial[e] = (trial[e][0], trial[e][1] + left)
            before = min(e, stop) - 1
            if before >= 0:
                trial[before] = (trial[before][0] + left, trial[before][1] + left)
            labels = self._label(self.model.posterior(trial), tuple(trial))
            want = [True] * min(e, stop) + ([False] if e < stop else [])
            if labels[: len(want)] == want:
                return True
        return False

    def record(self, step: int, successes: list[bool | None], tokens: int = 0) -> None:
        if self._probe is None or self._probe[0] != step:
            self._probe = (step, self.counts(step)[1] + self.request)
        super().record(step, successes, tokens)
        if self.counts(step)[1] >= self._probe[1]:
            self._probe = None

    def budget(self, step: int) -> int:
        """Rollouts from `step` allowed now: those made plus the pending probe's."""
        return self.rollouts_at(step) + sum(p.n for p in self.pending() if p.step == step)

    def room(self, step: int) -> int:
        return self._left()

    @property
    def request(self) -> int:
        return self.method.request(self.counted)

    def evidence(self, step: int, label: bool | None) -> str:
        return self.method.evidence(self, step, label)


__all__ = ["PosteriorSearch"]
