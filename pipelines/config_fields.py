"""The apps' side of config fields (`labeling.fields` declares them: `option`, help, range,
`ROWS` / `SPEED`): holding values to their ranges and hashing what changes rows.

`ROWS` fields are factors of every hash that keys a result (prm-label's and prm-search's unit
keys, the `config_hash` column: `config_hash`); `SPEED` fields never are, so changing one never
relabels a finished unit. `check_fields` holds every value of a config to its field's range
(one sentence naming the valid range, `ConfigError`: exit 2 at start). A section field (a
nested dataclass, or an optional one such as `labels.mc`) carries no effect of its own: its
fields do.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Callable
from enum import Enum
from typing import Any, TypeVar

from labeling.fields import ROWS, SPEED, Affects, Range, option, out_of_range
from labeling.ids import config_hash as hash_of
from pipelines.cli import ConfigError


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def section_type(hint: Any) -> type | None:
    """The dataclass of a section field's type (`Section` or `Section | None`), else None."""
    if dataclasses.is_dataclass(hint):
        return hint  # type: ignore[return-value]
    return next((a for a in typing.get_args(hint) if dataclasses.is_dataclass(a)), None)


def leaf_fields(schema: type, prefix: str = "") -> list[tuple[str, dataclasses.Field]]:
    """(dotted key, field) for every leaf of the config dataclass `schema`, optional sections
    included whatever their default."""
    out = []
    for f in dataclasses.fields(schema):
        nested = section_type(_hints(schema).get(f.name))
        if nested is not None:
            out += leaf_fields(nested, f"{prefix}{f.name}.")
        else:
            out.append((prefix + f.name, f))
    return out


def check_fields(section: Any, prefix: str = "") -> None:
    """Hold every value of `section` (and its sections) to its field's range; the first one
    outside raises `ConfigError` with one sentence naming the key and the valid range. A key
    the schema does not declare (Hydra's `+key=value` adds one past the schema; OmegaConf
    then sets it as a bare attribute) fails the same way, naming the valid keys."""
    declared = [f.name for f in dataclasses.fields(section)]
    added = sorted(k for k in getattr(section, "__dict__", {})
                   if k not in declared and not k.startswith("_"))  # fmt: skip
    if added:
        raise ConfigError(f"{prefix}{added[0]} is not a config key; the keys of "
                          f"{prefix.rstrip('.') or 'the config'} are {', '.join(declared)}")
    for f in dataclasses.fields(section):
        value, key = getattr(section, f.name), prefix + f.name
        if dataclasses.is_dataclass(value):
            check_fields(value, key + ".")
            continue
        wrong = out_of_range(key, f, value)
        if wrong:
            raise ConfigError(wrong)


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def row_factors(section: Any, prefix: str = "") -> dict[str, Any]:
    """The `ROWS` fields of `section` and its sections as plain data (an optional section
    that is off is None). A leaf that declares no effect raises TypeError: a new field
    cannot slip past the hash unnoticed."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(section):
        value, key = getattr(section, f.name), prefix + f.name
        if dataclasses.is_dataclass(value):
            out[f.name] = row_factors(value, key + ".")
        elif section_type(_hints(type(section)).get(f.name)) is not None:
            out[f.name] = None  # an optional section that is off
        elif "affects" not in f.metadata:
            raise TypeError(f"config field {key} of {type(section).__name__} declares neither "
                            "ROWS nor SPEED (pipelines.config_fields.option)")
        elif f.metadata["affects"] == ROWS:
            out[f.name] = _plain(value)
    return out


def config_hash(cfg: Any) -> str:
    """The hash of every field of `cfg` that changes rows: what keys a unit and fills the
    `config_hash` column. Fields that change only speed are not in it."""
    return hash_of(row_factors(cfg))


T = TypeVar("T")


def typed_config(schema: type[T], cfg: Any, validate: Callable[[T], Any] | None = None) -> T:
    """`cfg` (a DictConfig, a plain dict or a `schema` object) as a `schema` object, every
    value inside its field's range (`check_fields`), then through the app's `validate` (the
    checks that span fields; `ConfigError`). The one way from a config to its typed object.
    A DictConfig already typed with `schema` or a subclass of it (a schema extended by
    registrations) keeps its own type."""
    from omegaconf import DictConfig, OmegaConf

    if isinstance(cfg, schema):
        obj = cfg
    elif isinstance(cfg, DictConfig) and issubclass(OmegaConf.get_type(cfg) or object, schema):
        obj = OmegaConf.to_object(cfg)
    else:
        obj = OmegaConf.to_object(OmegaConf.merge(OmegaConf.structured(schema), cfg))
    assert isinstance(obj, schema)
    check_fields(obj)
    if validate is not None:
        validate(obj)
    return obj


__all__ = ["ROWS", "SPEED", "Affects", "Range", "check_fields", "config_hash", "leaf_fields",
           "option", "row_factors", "section_type", "typed_config"]
