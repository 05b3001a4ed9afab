"""The embedded default code tasks (written by the project, in `labeling.builtin_code`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from labeling.datasets.common import make_problem
from labeling.schema import Problem


def load(options: dict[str, Any]) -> Iterator[Problem]:
    from labeling.builtin_code import builtin_code_tasks

    for task in builtin_code_tasks():
        yield make_problem(
            "code",
            "builtin_code",
            task["question"],
            tests=tuple(task["tests"]),
            entry_point=task.get("entry_point", ""),
        )
