"""MATH / MATH500 jsonl: `problem`, and `answer` or a `solution` with `\\boxed{}`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from labeling.datasets._io import iter_records, need_str
from labeling.datasets.common import bad, make_problem
from labeling.latex import last_boxed
from labeling.schema import Problem, Quarantined


def load(options: dict[str, Any]) -> Iterator[Problem | Quarantined]:
    name = options.get("name", "math")
    for rec in iter_records(options["path"]):
        if rec.data is None:
            yield bad(name, rec, rec.error)
            continue
        try:
            question = need_str(rec.data, "problem")
            if rec.data.get("answer") not in (None, ""):
                reference = need_str(rec.data, "answer")
            else:
                reference = last_boxed(need_str(rec.data, "solution")) or ""
                if not reference:
                    raise ValueError("solution has no \\boxed{} answer and there is no 'answer'")
        except ValueError as exc:
            yield bad(name, rec, str(exc))
            continue
        yield make_problem("math", name, question, reference)
