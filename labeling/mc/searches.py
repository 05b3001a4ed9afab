"""Every MC search by name, and the search a rule brings along: `make_estimator`."""

from __future__ import annotations

from labeling.mc.bisection import PosteriorSearch
from labeling.mc.estimators import ESTIMATORS, Estimator
from labeling.mc.rules import Posterior, Rule


def make_estimator(name: str, n_steps: int, rule: Rule, **options: object) -> Estimator:
    """The search `name` (`per_step` | `binary_search`) over `rule`'s decisions; ValueError
    names the choices. The `posterior` rule decides no step on its own: under it
    `binary_search` is its probabilistic bisection (`labeling.mc.bisection`)."""
    if name not in ESTIMATORS:
        raise ValueError(f"unknown MC estimator {name!r}; choose one of {', '.join(ESTIMATORS)}")
    if isinstance(rule, Posterior):
        if name != "binary_search":
            raise ValueError("the posterior rule searches by its own posterior: use "
                             "estimator binary_search")
        return PosteriorSearch(n_steps, rule, **options)  # type: ignore[arg-type]
    return ESTIMATORS[name](n_steps, rule, **options)  # type: ignore[arg-type]


__all__ = ["make_estimator"]
