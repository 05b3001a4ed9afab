"""The one protocol every Monte Carlo method answers, and what the methods share.

A method is a frozen dataclass of its own settings (each field with its help, range and
effect: `labeling.fields.option`) in a module of its own (`posterior`, `fall`, `absolute`,
`any_success`), where its math is told. Callers never ask which method they hold; they ask
the method:

- `needs_self_confidence`: whether its labels are judged against the completer's success
  rate from the bare question (the driver then waits for it before a problem's first probe);
- `rule(base, sampled, outcome)`: the per-chain object that reads a probed prefix's counts
  (`Rule`), given the problem's self-confidence counts, whether the completer itself sampled
  the chain with the rollouts' settings, and the chain's own outcome (how that outcome
  counts is the method's business);
- `search(...)`: the chain's estimator (which prefixes are rolled out, and the labels), given
  the chain's steps and question (a method may spare steps that cannot be wrong);
- the rule's `evidence(est, step, label)`: the words of a verdict.

`method(name, **settings)` builds one by name; a setting the method does not have raises
ValueError naming the method's keys, so a key of another method is never silently ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from labeling.fields import ROWS, option
from labeling.mc.estimators import BinarySearch, Estimator, PerStep, Rule, Search
from labeling.schema import SelfConfidence


class Method:
    """Base of the method dataclasses (see the module docstring)."""

    name: ClassVar[str]
    needs_self_confidence: ClassVar[bool] = False

    def check(self) -> None:
        """ValueError (one sentence) when settings that are each in range do not combine."""

    def rule(self, base: tuple[int, int], *, sampled: bool, outcome: bool | None) -> Rule:
        raise NotImplementedError

    def search(self, n_steps: int, rule: Rule, *, outcome: bool | None, after_error: str,
               self_confidence: SelfConfidence | None = None,
               steps: Sequence[str] = (), question: str = "") -> Estimator:
        raise NotImplementedError


class PerStepRuleMethod(Method):
    """A method whose rule decides each probed prefix on its own counts (`fall`, `absolute`,
    `any_success`): it searches by `estimator`, `per_step` or `binary_search`. Its dataclass
    declares `estimator` and `probe_right` (`estimator_option`, `probe_right_option`)."""

    estimator: Search
    probe_right: bool

    def search(self, n_steps: int, rule: Rule, *, outcome: bool | None, after_error: str,
               self_confidence: SelfConfidence | None = None,
               steps: Sequence[str] = (), question: str = "") -> Estimator:
        return per_step_or_bisection(self.estimator, self.probe_right, n_steps, rule,
                                     outcome=outcome, after_error=after_error,
                                     self_confidence=self_confidence)


def per_step_or_bisection(estimator: Search, probe_right: bool, n_steps: int, rule: Any,
                          **kw: Any) -> Estimator:
    """The search a per-step rule runs: `per_step` or `binary_search`."""
    if estimator == Search.per_step:
        return PerStep(n_steps, rule, **kw)
    return BinarySearch(n_steps, rule, probe_right=probe_right, **kw)


def estimator_option() -> Any:
    return option(Search.binary_search, "Which prefixes are rolled out: binary_search "
                  "(OmegaPRM's bisection for the first error) | per_step (every prefix, "
                  "Math-Shepherd's).", ROWS)


def probe_right_option() -> Any:
    return option(True, "binary_search: search the steps of chains whose answer is right too; "
                  "false = OmegaPRM's skip, which labels every step of such a chain right "
                  "without a rollout.", ROWS)


def count_evidence(est: Any, step: int, label: bool | None) -> str:
    """The evidence of a rule that reads a prefix's own counts against a fixed bar."""
    successes, decided = est.counts(step)
    rollouts = est.rollouts_at(step)
    if rollouts:
        measured = f"{successes}/{decided} rollouts reached the answer"
        if rollouts > decided:
            measured += f" ({rollouts - decided} of {rollouts} undecided)"
        return measured
    return "a later prefix reached the answer" if label is True else ""


def not_a_key(method: str, key: str, keys: Sequence[str], where: str = "labels.mc") -> str:
    """The one sentence for a setting the chosen method does not have."""
    return (f"{where}.{key} is not a key of {method}; its keys are {', '.join(keys)} "
            f"(another method: labels/mc=<name>)")


__all__ = ["Method", "PerStepRuleMethod", "count_evidence", "estimator_option", "not_a_key",
           "per_step_or_bisection", "probe_right_option"]
