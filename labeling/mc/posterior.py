"""The `posterior` method (the default): the chain's first error located by its posterior.

No step is decided on its own counts. Where the first error e lies is given a probability
from everything known at once: the completer's self-confidence on the problem, the chain's
own outcome and every probed prefix's counts (the model: `labeling.mc.first_error_model`).
The search (`labeling.mc.bisection`) probes the prefix whose next rollouts are expected to
tell most about e, until e is located, every step is right, or the budget cannot place a
label any more.

Labels, with `level` l and `factor` F (steps 0..M-2; the last step is the chain's own
outcome, as under every rule):
- True at i when P(e > i) >= 1 - l, the rollouts alone favour "e > i" by F (their Bayes
  factor, `Posterior.factor`, <= 1/F), and some rollout from a prefix at or after i reached
  the answer. Every step before a True one is True (it was on the way).
- False at i when the error is *located* there: P(e <= i) >= 1 - l, the rollouts alone
  favour "e <= i" by F, the step before it is True (or i = 0), and the success rate fell: a
  prefix at or before i succeeded less often than the question (the self-confidence counts)
  or an earlier probed prefix, across a step that may err (a lower rate after steps that name
  nothing only is the new baseline: `labeling.mc.spared`). It is a step claim with
  P(e = i) >= 1 - 2l; the steps after it are left to `after_error`, as under every rule
  (under `negative`: prefix claims, True of them with probability >= 1 - l).
- A prefix claim, when no error is located and `after_error=negative`: False from the first
  step i (after the last True one) where P(e <= i) >= 1 - l, the rollouts alone favour
  "e <= i" by F, and the success rate fell at or before i, and on every later step. It
  says "the chain has gone wrong by step i" (the first error lies in the span after the last
  True step, up to i), not that step i itself is wrong: `labeling.audit.claims` reads a
  complete source's first False after an unlabeled step as such a claim, and scores it
  against the chain's first error. The search does not read it: it still looks for the
  error itself, so the rollouts are the same with or without the claim.
- Otherwise unverifiable, with the posterior and the counts in the evidence.

`mc_scores`: P(e > i), the posterior probability that the chain is still right through step
i (soft labels; `1 - score` is P(e <= i)); None where nothing was rolled out.

A step an exact check proved wrong (`ChainFacts.proven`) bounds e: the prior is conditioned
on e <= that step (`FirstErrorModel(proven=...)`), only the prefixes before it are probed, and
the search stops once they are all right (e is then the proven step) or e is located before.

A completer that never reached the answer from the question (self-confidence 0/n, or no
count at all) rolls nothing out and labels nothing but the last step: a rate cannot be seen
to fall from zero.

How the chain's own outcome counts: the self-confidence counts a chain is given hold the
outcomes of the problem's *other* chains the completer sampled with the rollouts' settings
(`ChainFacts.base`); the model reads this chain's own outcome as the outcome of a chain whose
first error follows the completer's own hazard (its prior) when the completer sampled it
(`sampled`). For a chain another model wrote the prior over e is uniform.

Which steps it spares (`spare_steps`): a step that names nothing or only restates the question
or an earlier step is never blamed, and the rate after it is its own baseline
(`labeling.mc.spared`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from labeling.fields import ROWS, option
from labeling.mc.bisection import PosteriorSearch
from labeling.mc.estimator import ChainFacts
from labeling.mc.method import Settings
from labeling.mc.spared import may_err


@dataclass(frozen=True)
class Posterior(Settings):
    """The `posterior` method's settings (help on each field); `search` runs its search
    (`labeling.mc.bisection`)."""

    name: ClassVar[str] = "posterior"
    needs_self_confidence: ClassVar[bool] = True
    max_look_ahead: ClassVar[int | None] = None  # as deep as asked

    level: float = option(
        0.05, "Every label has posterior probability >= 1 - level of being right (a located "
        "first error: >= 1 - 2 level).", ROWS, gt=0, lt=0.5)
    factor: float = option(
        3.0, "The Bayes factor by which the rollouts themselves (prior and own outcome aside) "
        "must favour a label: no label rests on the prior alone.", ROWS, ge=1)
    chain_budget: int = option(
        32, "Most rollouts per chain (the question's not counted); the search stops earlier "
        "once the first error is located or every step is right.", ROWS, gt=0)
    # Why 2 by default: docs/benchmarks.md (the posterior's probe size).
    probe: int = option(
        2, "Decided rollouts per probe before the search chooses the next step (fewer: fewer "
        "rollouts, more rounds of the engine).", ROWS, gt=0)
    probe_max: int = option(
        6, "On a problem the completer rarely solves a probe grows past probe, to "
        "ceil(0.5 / self-confidence) rollouts, up to this (= probe: fixed probes).", ROWS,
        gt=0)
    spare_steps: bool = option(
        True, "A step that names nothing (no number, variable, formula or operation: an "
        "opening line, a goal restated) or only restates the question or an earlier step (a "
        "loop) is never blamed as the first error, and the rate after it is its own baseline "
        "(such text can derail a weak completer without being wrong).", ROWS)
    probe_right: bool = option(
        True, "Search the steps of chains whose answer is right too (false: such a chain's "
        "steps stay unlabeled, no rollout).", ROWS)

    def combine(self) -> None:
        if self.probe_max < self.probe:
            raise ValueError(f"labels.mc.probe_max={self.probe_max} must be >= "
                             f"labels.mc.probe={self.probe} (probe_max = probe keeps every "
                             f"probe at that size)")
        if self.probe > self.chain_budget:
            raise ValueError(f"labels.mc.probe={self.probe} must be at most "
                             f"chain_budget={self.chain_budget}")

    def search(self, chain: ChainFacts) -> PosteriorSearch:
        spared = may_err(chain.steps, chain.question) if self.spare_steps and chain.steps \
            else None
        return PosteriorSearch(chain, self, may_err=spared)

    def request(self, base: tuple[int, int]) -> int:
        """Decided rollouts per probe on a problem with self-confidence counts `base`:
        `probe`, grown on a weak problem to the number from which an on-track prefix is
        expected to give half a success, ceil(0.5 / s) with s the self-confidence's Jeffreys
        mean (x + 0.5) / (n + 1), up to `probe_max` (a weak completer's probe of 2 mostly
        reads 0 of 2 whatever the step; why this size: docs/benchmarks.md). A function of the
        problem's counts alone, so the labels do not depend on the schedule."""
        x, n = base
        grown = -(-(n + 1) // (2 * x + 1))  # ceil(0.5 (n + 1) / (x + 0.5)), exactly
        return min(max(self.probe, grown), self.probe_max, self.chain_budget)

    def evidence(self, est: PosteriorSearch, step: int, label: bool | None) -> str:
        """The words of a verdict of `est` (this method's search)."""
        base = f"self-confidence {est.counted[0]}/{est.counted[1]}"
        if est.skip or not est.rollouts:
            if est.futile:
                return (f"unverifiable: the completer never reached the answer from the question "
                        f"({base}): a rate cannot be seen to fall from zero; nothing rolled out")
            return "unverifiable: nothing rolled out for this chain"
        post = est.belief()
        assert post is not None
        successes, decided = est.counts(step)
        rollouts = est.rollouts_at(step)
        counts = f"{successes}/{decided} rollouts from here reached the answer" if rollouts \
            else "not rolled out here"
        if rollouts > decided:
            counts += f" ({rollouts - decided} of {rollouts} undecided)"
        p_le, f = post.p_le[step], post.factor[step]
        figures = (f"P(first error at or before this step) = {p_le:.3g}; the rollouts' Bayes "
                   f"factor for it {f:.3g}; {counts}; {base}; level {self.level}, factor "
                   f"{self.factor}")
        if not est.may_err[step]:
            figures += ("; the step cannot be the first error (it names nothing: no number, "
                        "variable or formula; or it restates the question or an earlier step): "
                        "never blamed")
        if label is True:
            return f"on track: {figures}"
        if label is False and est.prefix_claim() == step:
            return (f"the chain has gone wrong by this step (a prefix claim: the first error "
                    f"lies at or before it, where is not located): {figures}")
        if label is False:
            return f"first error located here: {figures}"
        return f"unverifiable: {figures}"


__all__ = ["Posterior"]
