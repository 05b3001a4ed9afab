"""Monte Carlo step labels. One class per method, each its module's frozen settings behind one
protocol (`method.Method`): `posterior` (the default), `fall`, `absolute`, `any_success`,
registered in `METHODS`. A method's `search(chain)` is the chain's estimator
(`estimator.Estimator`: bookkeeping and verdicts); the per-step rules search by `searches`
(per_step, binary_search), `posterior` by `bisection` over its model (`first_error_model`);
`stats` is the statistics behind `fall`, `spared` the steps never blamed, `unbiased` the
score. Pure: no engine, no I/O."""

from __future__ import annotations

import dataclasses
import typing
from enum import Enum
from typing import Any

from labeling.mc.absolute import Absolute
from labeling.mc.any_success import AnySuccess
from labeling.mc.bisection import PosteriorSearch
from labeling.mc.estimator import ChainFacts, Estimator, Probe
from labeling.mc.fall import Fall
from labeling.mc.first_error_model import FirstErrorModel
from labeling.mc.method import Method, not_a_key
from labeling.mc.posterior import Posterior
from labeling.mc.searches import BinarySearch, PerStep, Search, StepRule, StepSearch
from labeling.mc.unbiased import unbiased_rate
from labeling.registry import Registry


def _a_method(name: str, cls: type) -> None:
    if not (dataclasses.is_dataclass(cls) and getattr(cls, "name", None) == name):
        raise ValueError(f"MC method {name!r} must be a dataclass whose `name` is {name!r}")
    if not isinstance(cls(), Method):
        raise ValueError(f"MC method {name!r} does not answer the protocol labeling.mc.Method")


# Every method by name; the config group `labels/mc` offers these, the first the default.
# Adding one: its module and `METHODS.register(<name>, <class>)`.
METHODS: Registry[type[Method]] = Registry(
    "MC method", {m.name: m for m in (Posterior, Fall, Absolute, AnySuccess)}, check=_a_method)
DEFAULT_METHOD = Posterior.name


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
    return cls(**settings)


__all__ = [
    "DEFAULT_METHOD", "METHODS", "Absolute", "AnySuccess", "BinarySearch", "ChainFacts",
    "Estimator", "Fall", "FirstErrorModel", "Method", "PerStep", "Posterior", "PosteriorSearch",
    "Probe", "Search", "StepRule", "StepSearch", "method", "unbiased_rate",
]  # fmt: skip
