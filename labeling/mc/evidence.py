"""What an MC verdict says about its step, in words: the counts behind the label and the rule
that read them (the numbers are also in the row's `mc_*` columns)."""

from __future__ import annotations

from typing import Protocol

from labeling.mc.rules import Fall, Posterior, Rule


class Measured(Protocol):
    """What the evidence reads of a chain's estimator (`labeling.mc.estimators.Estimator`,
    which calls `evidence`): named here so the two modules do not import each other."""

    rule: Rule
    futile: bool

    @property
    def rollouts(self) -> int: ...

    def rollouts_at(self, step: int) -> int: ...

    def counts(self, step: int) -> tuple[int, int]: ...

    def settled(self, step: int) -> bool | None: ...

    def fall_at(self, step: int) -> bool: ...


def evidence(est: Measured, step: int, label: bool | None) -> str:
    """The evidence of step `step` (not the last), whose label before `after_error` is
    `label`."""
    if isinstance(est.rule, Fall):
        return _fall_evidence(est, step, label)
    if isinstance(est.rule, Posterior):
        return _posterior_evidence(est, step, label)
    successes, decided = est.counts(step)
    rollouts = est.rollouts_at(step)
    if rollouts:
        measured = f"{successes}/{decided} rollouts reached the answer"
        if rollouts > decided:
            measured += f" ({rollouts - decided} of {rollouts} undecided)"
        return measured
    return "a later prefix reached the answer" if label is True else ""


def _fall_evidence(est: Measured, step: int, label: bool | None) -> str:
    rule = est.rule
    assert isinstance(rule, Fall)
    successes, decided = est.counts(step)
    rollouts = est.rollouts_at(step)
    base = f"self-confidence {rule.base[0]}/{rule.base[1]} from the question"
    if est.futile:
        return (f"unverifiable: the completer cannot show a fall here ({base}): even "
                f"{rule.max_rollouts} failed rollouts from a step would not reach "
                f"level {rule.level}")
    own = " (the chain's own continuation counted)" if rule.own else ""
    counts = f"{successes}/{decided} trials reached the answer{own}"
    if rollouts > decided - rule.own:
        counts += f" ({rollouts - decided + rule.own} of {rollouts} rollouts undecided)"
    if not rollouts:
        return "a later prefix kept the completer's rate" if label is True else ""
    b = rule.factor(decided, successes)
    settled = est.settled(step)
    if label is False and est.fall_at(step):
        before = f"step {step - 1}: {'/'.join(map(str, est.counts(step - 1)))}" if step \
            else f"the question: {rule.base[0]}/{rule.base[1]}"
        return (f"the success rate falls across this step: {counts} against {before}; "
                f"Bayes factor fell:kept {b:.3g} >= 1/{rule.level}")
    if settled is True:
        return f"kept: {counts} ({base}); Bayes factor fell:kept {b:.3g} <= {rule.level}"
    if settled is False:
        placed = "" if label is False else "; the step before it is undecided, so the fall " \
            "is not placed"
        return f"off track: {counts} ({base}); Bayes factor fell:kept {b:.3g}{placed}"
    return (f"unverifiable: {counts} ({base}) decide nothing within {rule.max_rollouts} "
            f"rollouts (Bayes factor fell:kept {b:.3g})")


def _posterior_evidence(est: Measured, step: int, label: bool | None) -> str:
    rule = est.rule
    assert isinstance(rule, Posterior)
    base = f"self-confidence {rule.base[0]}/{rule.base[1]}"
    if getattr(est, "skip", False) or not est.rollouts:
        if est.futile:
            return (f"unverifiable: the completer never reached the answer from the question "
                    f"({base}): a rate cannot be seen to fall from zero; nothing rolled out")
        return "unverifiable: nothing rolled out for this chain"
    post = est.belief()  # type: ignore[attr-defined]
    successes, decided = est.counts(step)
    rollouts = est.rollouts_at(step)
    counts = f"{successes}/{decided} rollouts from here reached the answer" if rollouts \
        else "not rolled out here"
    if rollouts > decided:
        counts += f" ({rollouts - decided} of {rollouts} undecided)"
    p_le, f = post.p_le[step], post.factor[step]
    figures = (f"P(first error at or before this step) = {p_le:.3g}; the rollouts' Bayes "
               f"factor for it {f:.3g}; {counts}; {base}; level {rule.level}, factor "
               f"{rule.factor}")
    if not est.may_err[step]:  # type: ignore[attr-defined]
        figures += ("; the step cannot be the first error (it names nothing: no number, "
                    "variable or formula; or it restates the question or an earlier step): "
                    "never blamed")
    if label is True:
        return f"on track: {figures}"
    if label is False and est.prefix_claim() == step:  # type: ignore[attr-defined]
        return (f"the chain has gone wrong by this step (a prefix claim: the first error "
                f"lies at or before it, where is not located): {figures}")
    if label is False:
        return f"first error located here: {figures}"
    return f"unverifiable: {figures}"
