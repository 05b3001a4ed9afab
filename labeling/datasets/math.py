"""MATH / MATH500 jsonl: `problem`, and `answer` or a `solution` with `\\boxed{}`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from labeling.datasets._io import need_str
from labeling.datasets.common import convert, make_problem
from labeling.schema import Problem, Quarantined
from labeling.text.latex import last_boxed


def load(options: dict[str, Any]) -> Iterator[Problem | Quarantined]:
    name = options.get("name") or "math"

    def to_problem(data: dict[str, Any], index: int) -> Problem:
        question = need_str(data, "problem")
        if data.get("answer") not in (None, ""):
            reference = need_str(data, "answer")
        else:
            reference = last_boxed(need_str(data, "solution")) or ""
            if not reference:
                raise ValueError("solution has no \\boxed{} answer and there is no 'answer'")
        return make_problem("math", name, question, reference)

    return convert(options["path"], name, to_problem)
