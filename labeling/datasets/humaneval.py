"""HumanEval jsonl: `prompt` (signature + docstring), `entry_point`, `test` (defines
`check(candidate)`). The test program is the `test` text followed by `check(<entry_point>)`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from labeling.datasets._io import need_str
from labeling.datasets.common import convert, make_problem
from labeling.schema import Problem, Quarantined


def load(options: dict[str, Any]) -> Iterator[Problem | Quarantined]:
    name = options.get("name") or "humaneval"

    def to_problem(data: dict[str, Any], index: int) -> Problem:
        prompt = need_str(data, "prompt")
        entry = need_str(data, "entry_point")
        test = need_str(data, "test")
        if "def check" not in test:
            raise ValueError("field 'test' does not define check(candidate)")
        tests = (f"{test}\ncheck({entry})",)
        return make_problem("code", name, prompt, tests=tests, entry_point=entry)

    return convert(options["path"], name, to_problem)
