"""GSM8K jsonl: `question`, `answer` (worked solution ending in `#### final`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from labeling.datasets._io import need_str
from labeling.datasets.common import convert, make_problem
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
    name = options.get("name") or "gsm8k"

    def to_problem(data: dict[str, Any], index: int) -> Problem:
        question = need_str(data, "question")
        reference = reference_from_solution(need_str(data, "answer"))
        return make_problem("math", name, question, reference)

    return convert(options["path"], name, to_problem)
