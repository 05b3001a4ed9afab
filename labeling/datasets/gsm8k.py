"""GSM8K jsonl: `question`, `answer` (worked solution ending in `#### final`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from labeling.datasets._io import iter_records, need_str
from labeling.datasets.common import bad, make_problem
from labeling.schema import Problem, Quarantined


def reference_from_solution(answer: str) -> str:
    """The text after the last `####`, thousands separators removed."""
    if "####" not in answer:
        raise ValueError("answer has no '#### final' line")
    final = answer.rsplit("####", 1)[1].strip().replace(",", "")
    if not final:
        raise ValueError("the '####' line is empty")
    return final


def load(options: dict[str, Any]) -> Iterator[Problem | Quarantined]:
    name = options.get("name", "gsm8k")
    for rec in iter_records(options["path"]):
        if rec.data is None:
            yield bad(name, rec, rec.error)
            continue
        try:
            question = need_str(rec.data, "question")
            reference = reference_from_solution(need_str(rec.data, "answer"))
        except ValueError as exc:
            yield bad(name, rec, str(exc))
            continue
        yield make_problem("math", name, question, reference)
