"""The `labels.mc` section of each Monte Carlo method: the keys every method has
(`MCSourceConfig`), then the method's own, each declared once in its module under
`labeling/mc/` (help, range, default) and named here with its type (`setting`), so that a
reader and grep find every key of `labels/mc=<method>`. A key of another method is no key
of a section: Hydra refuses it at start (`labels.mc.k is not a key of posterior; ...`).

`SECTIONS` is the table prm-label reads (the config group `labels/mc`, in order, the first
the default). Adding a method to prm-label: its module and one `register(<section>)` of its
section written like these; `register` also adds the method to `labeling.mc.METHODS` when
it is not there yet. A section whose keys are not exactly its method's is refused.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

from labeling.mc import METHODS, Absolute, AnySuccess, Fall, Posterior, Search
from labeling.registry import Registry
from pipelines.label.source_configs import MCSourceConfig


def setting(method: type, key: str) -> Any:
    """The field of a section for `method`'s setting `key`: its default, help and range as
    the method declares them."""
    f = next(f for f in dataclasses.fields(method) if f.name == key)
    return dataclasses.field(default=f.default, metadata=f.metadata)


def named(name: str) -> Any:
    """The `method` field of a section: the method's name, with the common key's help."""
    base = next(f for f in dataclasses.fields(MCSourceConfig) if f.name == "method")
    return dataclasses.field(default=name, metadata=base.metadata)


def own_keys(section: type[MCSourceConfig]) -> dict[str, Any]:
    """{key: type} of the keys `section` adds to the common ones."""
    common = {f.name for f in dataclasses.fields(MCSourceConfig)}
    hints = typing.get_type_hints(section)
    return {f.name: hints[f.name] for f in dataclasses.fields(section) if f.name not in common}


def _matches(name: str, section: type[MCSourceConfig]) -> None:
    method = section.method_class
    if section.method_name != name or method.name != name:
        raise ValueError(f"labels.mc section {section.__name__} is not {name!r}'s")
    hints = typing.get_type_hints(method)
    keys = {f.name: hints[f.name] for f in dataclasses.fields(method)}
    if own_keys(section) != keys:
        raise ValueError(f"labels.mc section {section.__name__} must have exactly the keys of "
                         f"{name} with their types: {keys}")


SECTIONS: Registry[type[MCSourceConfig]] = Registry("labels.mc section", check=_matches)


def register(section: type[MCSourceConfig]) -> type[MCSourceConfig]:
    """Add `section` (and its method to `labeling.mc.METHODS` when it is not there)."""
    method = section.method_class
    added = method.name not in METHODS
    if added:
        METHODS.register(method.name, method)
    try:
        SECTIONS.register(section.method_name, section)
    except BaseException:
        if added:
            METHODS.unregister(method.name)
        raise
    return section


@contextmanager
def registered(section: type[MCSourceConfig]) -> Iterator[type[MCSourceConfig]]:
    """`register` for the duration of a `with` block (tests, toys)."""
    added = section.method_class.name not in METHODS
    register(section)
    try:
        yield section
    finally:
        SECTIONS.unregister(section.method_name)
        if added:
            METHODS.unregister(section.method_class.name)


@register
@dataclass
class MCPosteriorConfig(MCSourceConfig):
    """labels/mc=posterior (the default): `labeling/mc/posterior.py`."""

    method_class: ClassVar[type] = Posterior
    method_name: ClassVar[str] = "posterior"

    method: str = named("posterior")
    level: float = setting(Posterior, "level")
    factor: float = setting(Posterior, "factor")
    chain_budget: int = setting(Posterior, "chain_budget")
    probe: int = setting(Posterior, "probe")
    probe_max: int = setting(Posterior, "probe_max")
    spare_steps: bool = setting(Posterior, "spare_steps")
    probe_right: bool = setting(Posterior, "probe_right")


@register
@dataclass
class MCFallConfig(MCSourceConfig):
    """labels/mc=fall: `labeling/mc/fall.py`."""

    method_class: ClassVar[type] = Fall
    method_name: ClassVar[str] = "fall"

    method: str = named("fall")
    estimator: Search = setting(Fall, "estimator")
    level: float = setting(Fall, "level")
    fell_below: float = setting(Fall, "fell_below")
    kept_above: float = setting(Fall, "kept_above")
    max_rollouts: int = setting(Fall, "max_rollouts")
    chunk: int | None = setting(Fall, "chunk")
    probe_right: bool = setting(Fall, "probe_right")


@register
@dataclass
class MCAbsoluteConfig(MCSourceConfig):
    """labels/mc=absolute: `labeling/mc/absolute.py`."""

    method_class: ClassVar[type] = Absolute
    method_name: ClassVar[str] = "absolute"

    method: str = named("absolute")
    estimator: Search = setting(Absolute, "estimator")
    k: int = setting(Absolute, "k")
    confirm: int = setting(Absolute, "confirm")
    threshold: float = setting(Absolute, "threshold")
    chunk: int | None = setting(Absolute, "chunk")
    probe_right: bool = setting(Absolute, "probe_right")


@register
@dataclass
class MCAnySuccessConfig(MCSourceConfig):
    """labels/mc=any_success: `labeling/mc/any_success.py`."""

    method_class: ClassVar[type] = AnySuccess
    method_name: ClassVar[str] = "any_success"

    method: str = named("any_success")
    estimator: Search = setting(AnySuccess, "estimator")
    k: int = setting(AnySuccess, "k")
    chunk: int | None = setting(AnySuccess, "chunk")
    probe_right: bool = setting(AnySuccess, "probe_right")


__all__ = ["SECTIONS", "MCAbsoluteConfig", "MCAnySuccessConfig", "MCFallConfig",
           "MCPosteriorConfig", "register", "registered", "setting"]
