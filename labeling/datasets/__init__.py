"""Dataset adapters: each turns one input format into `Problem`s and `Quarantined` rows.

`load_problems(options)` is the single entry point; `options["adapter"]` (or else
`options["name"]`) picks the adapter. Adapters stream: they never hold a whole file of records
in memory (ProcessBench's single JSON array is the exception, and it is small).

`ADAPTERS` is the one registration: {name: the module whose `load(options)` reads that
format}. The config's `Adapter` enum (`dataset.adapter`'s choices), the config checks and
`load_problems` read it, and the tests check that every adapter has its module and a
`conf/dataset/<name>.yaml` (`dataset=<name>`). Adding an adapter: its module here and one
entry below (or `ADAPTERS.register(name, module)` from a plugin, before the config is
imported), plus its YAML.
"""

from __future__ import annotations

import importlib
import itertools
from collections.abc import Iterator
from enum import StrEnum
from typing import Any

from labeling.registry import Registry
from labeling.schema import Problem, Quarantined

ADAPTERS: Registry[str] = Registry("dataset adapter", {
    "builtin_math": "labeling.datasets.builtin_math",
    "starter_math": "labeling.datasets.starter_math",
    "builtin_code": "labeling.datasets.builtin_code",
    "gsm8k": "labeling.datasets.gsm8k",
    "math": "labeling.datasets.math",
    "prm800k": "labeling.datasets.prm800k",
    "processbench": "labeling.datasets.processbench",
    "deltabench": "labeling.datasets.deltabench",
    "mbpp": "labeling.datasets.mbpp",
    "humaneval": "labeling.datasets.humaneval",
    "generic": "labeling.datasets.generic",
})


def adapter_enum() -> type[StrEnum]:
    """The adapters as an enum (the type of `dataset.adapter`), one member per entry."""
    return StrEnum("Adapter", [(n, n) for n in ADAPTERS])  # type: ignore[return-value]


# The config's choices, built once from the table above when the config is imported.
Adapter = adapter_enum()


def check_adapter(name: str | None) -> str:
    """`name` if an adapter is registered under it; else ValueError naming the choices."""
    if name not in ADAPTERS:
        raise ValueError(f"dataset {name!r} has no adapter; set dataset.adapter to one of "
                         f"{', '.join(ADAPTERS)}")  # fmt: skip
    return name


def gives_sections(name: str | None) -> bool:
    """Whether the adapter's chains come cut into reasoning-trace sections (DeltaBench's human
    sections): a run on it labels traces, as one with `split.mode=sections` does."""
    if name not in ADAPTERS:
        return False
    return bool(getattr(importlib.import_module(ADAPTERS[name]), "SECTIONS", False))


def subsets_by_file(name: str | None) -> bool:
    """Whether each file of the adapter's format is a named subset (ProcessBench's gsm8k.json,
    math.json, ...), so that a run on one file is named after it. Other inputs keep their
    dataset's name whatever their file is called: a dated dump keeps its units' keys."""
    if name not in ADAPTERS:
        return False
    return bool(getattr(importlib.import_module(ADAPTERS[name]), "SUBSETS_BY_FILE", False))


def load_problems(options: dict[str, Any]) -> Iterator[Problem | Quarantined]:
    """Problems (and quarantined records) of the dataset in `options`, at most `limit` records
    when `limit` is set (quarantined records count toward the limit: they are input too)."""
    kind = options.get("adapter") or options.get("name")
    if kind not in ADAPTERS:
        raise ValueError(f"unknown dataset adapter {kind!r}; choose one of {', '.join(ADAPTERS)}")
    items = importlib.import_module(ADAPTERS[str(kind)]).load(options)
    limit = options.get("limit")
    return itertools.islice(items, limit) if limit is not None else items
