"""Monte Carlo step labels. One module per method behind one protocol (`method.Method`):
`posterior` (the default), `fall`, `absolute`, `any_success`; each holds its settings, its
rule and its math. The searches (`estimators`: per_step, binary_search; `bisection`:
posterior's), the model behind `posterior` (`first_error_model`), the statistics behind
`fall` (`stats`), the steps never blamed (`blame`) and the score (`unbiased`) serve them.
Pure: no engine, no I/O."""

from __future__ import annotations

import dataclasses
import typing
from enum import Enum
from typing import Any

from labeling.fields import out_of_range
from labeling.mc.absolute import Absolute, AbsoluteMethod
from labeling.mc.any_success import AnySuccessMethod
from labeling.mc.bisection import PosteriorSearch
from labeling.mc.estimators import ESTIMATORS, BinarySearch, Estimator, PerStep, Probe, Rule, Search
from labeling.mc.fall import Fall, FallMethod
from labeling.mc.first_error_model import FirstErrorModel
from labeling.mc.method import Method, not_a_key
from labeling.mc.posterior import Posterior, PosteriorMethod
from labeling.mc.unbiased import unbiased_rate

# Every method by name; the config group `labels/mc` offers these, the first the default.
METHODS: dict[str, type[Method]] = {
    m.name: m for m in (PosteriorMethod, FallMethod, AbsoluteMethod, AnySuccessMethod)
}
DEFAULT_METHOD = PosteriorMethod.name


def method(name: str = DEFAULT_METHOD, **settings: Any) -> Method:
    """The method `name` with `settings` (the rest its defaults), checked: ValueError (one
    sentence) for an unknown name, a setting the method does not have, or settings that do
    not combine."""
    if name not in METHODS:
        raise ValueError(f"unknown MC method {name!r}; choose one of {', '.join(METHODS)}")
    cls = METHODS[name]
    keys = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    for key in settings:
        if key not in keys:
            raise ValueError(not_a_key(name, key, keys))
    hints = typing.get_type_hints(cls)
    for key, value in list(settings.items()):
        kind = hints[key]
        if isinstance(kind, type) and issubclass(kind, Enum) and not isinstance(value, kind):
            if value not in kind.__members__:
                raise ValueError(f"labels.mc.{key}={value!r} must be one of "
                                 f"{', '.join(kind.__members__)}")
            settings[key] = kind(value)
    made = cls(**settings)
    for f in dataclasses.fields(made):  # type: ignore[arg-type]
        wrong = out_of_range(f"labels.mc.{f.name}", f, getattr(made, f.name))
        if wrong:
            raise ValueError(wrong)
    made.check()
    return made


__all__ = [
    "DEFAULT_METHOD", "ESTIMATORS", "METHODS", "Absolute", "AbsoluteMethod", "AnySuccessMethod",
    "BinarySearch", "Estimator", "Fall", "FallMethod", "FirstErrorModel", "Method", "PerStep",
    "Posterior", "PosteriorMethod", "PosteriorSearch", "Probe", "Rule", "Search", "method",
    "unbiased_rate",
]  # fmt: skip
