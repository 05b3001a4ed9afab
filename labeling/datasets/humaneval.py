"""HumanEval jsonl: `prompt` (signature + docstring), `entry_point`, `test` (defines
`check(candidate)`). The test program is the `test` text followed by `check(<entry_point>)`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from labeling.datasets._io import iter_records, need_str
from labeling.datasets.common import bad, make_problem
from labeling.schema import Problem, Quarantined


def load(options: dict[str, Any]) -> Iterator[Problem | Quarantined]:
    name = options.get("name", "humaneval")
    for rec in iter_records(options["path"]):
        if rec.data is None:
            yield bad(name, rec, rec.error)
            continue
        try:
            prompt = need_str(rec.data, "prompt")
            entry = need_str(rec.data, "entry_point")
            test = need_str(rec.data, "test")
            if "def check" not in test:
                raise ValueError("field 'test' does not define check(candidate)")
        except ValueError as exc:
            yield bad(name, rec, str(exc))
            continue
        tests = (f"{test}\ncheck({entry})",)
        yield make_problem("code", name, prompt, tests=tests, entry_point=entry)
