"""Dataset adapters: each turns one input format into `Problem`s and `Quarantined` rows.

`load_problems(options)` is the single entry point; `options["name"]` picks the adapter
(see `ADAPTERS`). Adapters stream: they never hold a whole file of records in memory
(ProcessBench's single JSON array is the exception, and it is small).
"""

from __future__ import annotations

import importlib
import itertools
from collections.abc import Iterator
from enum import StrEnum
from typing import Any

from labeling.schema import Problem, Quarantined


class Adapter(StrEnum):
    """The dataset adapters (`dataset.adapter`, or `dataset.name` when no adapter is set)."""

    builtin_math = "builtin_math"
    starter_math = "starter_math"
    builtin_code = "builtin_code"
    gsm8k = "gsm8k"
    math = "math"
    prm800k = "prm800k"
    processbench = "processbench"
    deltabench = "deltabench"
    mbpp = "mbpp"
    humaneval = "humaneval"
    generic = "generic"


ADAPTERS = {
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
}


def gives_sections(name: str | None) -> bool:
    """Whether the adapter's chains come cut into reasoning-trace sections (DeltaBench's human
    sections): a run on it labels traces, as one with `split.mode=sections` does."""
    if name not in ADAPTERS:
        return False
    return bool(getattr(importlib.import_module(ADAPTERS[name]), "SECTIONS", False))


def load_problems(options: dict[str, Any]) -> Iterator[Problem | Quarantined]:
    """Problems (and quarantined records) of the dataset in `options`, at most `limit` records
    when `limit` is set (quarantined records count toward the limit: they are input too)."""
    kind = options.get("adapter") or options.get("name")
    if kind not in ADAPTERS:
        raise ValueError(f"unknown dataset adapter {kind!r}; choose one of {', '.join(ADAPTERS)}")
    items = importlib.import_module(ADAPTERS[kind]).load(options)
    limit = options.get("limit")
    return itertools.islice(items, limit) if limit is not None else items
