"""Defaults are written once, in the dataclasses: a YAML key under conf/ either makes a group
option differ from the default (`conf/engine/simulated.yaml`'s `kind: simulated`) or is not
there. A primary config (`conf/train.yaml`...) holds no values at all besides `defaults` and
`hydra` (and the few keys that only interpolate), since nothing chooses it over another."""

from __future__ import annotations

import dataclasses
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
import yaml

from pipelines.confdir import CONF_DIR
from pipelines.label.config import LabelJobConfig
from tests.apps import hydra_apps

CONF = Path(CONF_DIR)
# Every app's primary config and its schema, from the apps' declarations (tests/apps.py).
PRIMARY = {f"{app.config_name}.yaml": app.schema for app in hydra_apps().values()}
NOT_VALUES = {"defaults", "hydra"}


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _restated(yaml_node: dict, default: Any, path: str) -> list[str]:
    """Keys of `yaml_node` whose value equals the dataclass default at `path`."""
    out = []
    for key, value in yaml_node.items():
        if key in NOT_VALUES and not path:
            continue
        here = getattr(default, key, dataclasses.MISSING) if default is not None else None
        if isinstance(value, dict) and (dataclasses.is_dataclass(here) or here is None):
            if here is None and dataclasses.is_dataclass(default):
                # an optional section (labels.calc: None): compare with its type's defaults
                here = _section_default(default, key)
            out += _restated(value, here, f"{path}{key}.")
        elif here is not dataclasses.MISSING and _plain(here) == value:
            out.append(f"{path}{key}: {value!r}")
    return out


def _section_default(parent: Any, key: str) -> Any:
    import typing

    hints = typing.get_type_hints(type(parent))
    for arg in typing.get_args(hints[key]) or (hints[key],):
        if dataclasses.is_dataclass(arg):
            return arg()
    return None


def _group_schema(group: str) -> Any:
    label = LabelJobConfig()
    if group == "labels":
        return label.labels
    return getattr(label, group)


def _options() -> list[Path]:
    return sorted(p for p in CONF.glob("*/*.yaml"))


@pytest.mark.parametrize("path", _options(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_group_options_hold_only_their_choices(path):
    text = path.read_text()
    data = yaml.safe_load(text) or {}
    root = LabelJobConfig() if "@package _global_" in text else _group_schema(path.parent.name)
    assert not _restated(data, root, ""), (
        f"{path.relative_to(CONF)} restates dataclass defaults: drop these keys"
    )


def check_primary(path: Path, schema: type) -> None:
    """A primary config holds `defaults` and `hydra` only: its values live in `schema`."""
    data = yaml.safe_load(path.read_text()) or {}
    values = sorted(set(data) - NOT_VALUES)
    assert not values, f"{path.name} sets {values}: a default belongs in {schema.__name__}"


@pytest.mark.parametrize("name", sorted(PRIMARY))
def test_primary_configs_hold_no_values(name):
    check_primary(CONF / name, PRIMARY[name])


def test_a_restated_default_is_caught():
    # the check itself: a key equal to the default is reported, a different one is not
    sampler = LabelJobConfig().sampler
    assert _restated({"n": sampler.n, "top_p": 0.5}, sampler, "") == [f"n: {sampler.n!r}"]
    labels = LabelJobConfig().labels
    assert _restated({"calc": {"timeout_s": 2.0}}, labels, "") == ["calc.timeout_s: 2.0"]
