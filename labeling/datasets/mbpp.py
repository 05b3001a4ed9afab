"""MBPP jsonl: `text`, `code` (reference), `test_list`, `test_setup_code`, `task_id`.

The prompt shows the first test, as MBPP's own few-shot format does, so that the model
knows the function's name and signature.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from labeling.datasets._io import need_str
from labeling.datasets.common import convert, make_problem
from labeling.schema import Problem, Quarantined


def str_list(value: Any, field: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(t, str) for t in value):
        raise ValueError(f"field {field!r} should be a non-empty list of strings")
    return tuple(value)


def problem_from_record(data: dict[str, Any], name: str = "mbpp") -> Problem:
    """The Problem of one MBPP record; ValueError (the quarantine's sentence) if malformed."""
    text = need_str(data, "text")
    tests = str_list(data.get("test_list"), "test_list")
    setup = data.get("test_setup_code") or ""
    if not isinstance(setup, str):
        raise ValueError("field 'test_setup_code' should be text")
    question = f"{text.strip()}\nYour code should pass this test:\n{tests[0]}"
    return make_problem("code", name, question, tests=tests, test_setup=setup)


def load(options: dict[str, Any]) -> Iterator[Problem | Quarantined]:
    name = options.get("name") or "mbpp"
    return convert(options["path"], name, lambda data, index: problem_from_record(data, name))
