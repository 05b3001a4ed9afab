"""The embedded default code tasks (the project's own; data in `builtin_code_tasks.py`, beside)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from labeling.datasets.builtin_code_tasks import builtin_code_tasks
from labeling.datasets.common import make_problem
from labeling.schema import Problem


def load(options: dict[str, Any]) -> Iterator[Problem]:
    for task in builtin_code_tasks():
        yield make_problem(
            "code",
            "builtin_code",
            task["question"],
            tests=tuple(task["tests"]),
            entry_point=task.get("entry_point", ""),
        )
