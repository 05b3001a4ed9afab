"""ProcessBench json (an array): `problem`, `steps` (list of str), `label` (first wrong step,
-1 if none), `final_answer_correct`, `generator`. Chains are given: nothing is sampled.

ProcessBench has no reference answer, so the outcome comes from `final_answer_correct`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from labeling.datasets._io import need_str
from labeling.datasets.common import convert, make_problem
from labeling.schema import GivenChain, Problem, Quarantined

# One file per subset (gsm8k.json, math.json, olympiadbench.json, omnimath.json): a run on one
# is named after it (labeling.datasets.subsets_by_file).
SUBSETS_BY_FILE = True


def parse_steps(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError("field 'steps' should be a non-empty list of strings")
    if not all(isinstance(s, str) for s in value):
        raise ValueError("field 'steps' holds a non-string item")
    if any(not s.strip() for s in value):
        raise ValueError("field 'steps' holds an empty step")
    return tuple(value)


def human_step_labels(first_error: int, n: int) -> tuple[bool | None, ...]:
    """Steps before the first error are right, it is wrong, later steps were not judged."""
    if first_error < 0:
        return (True,) * n
    return (True,) * first_error + (False,) + (None,) * (n - first_error - 1)


def load(options: dict[str, Any]) -> Iterator[Problem | Quarantined]:
    name = options.get("name") or "processbench"
    return convert(options["path"], name, lambda data, index: _problem(data, index, name))


def _problem(data: dict[str, Any], index: int, name: str) -> Problem:
    question = need_str(data, "problem")
    steps = parse_steps(data.get("steps"))
    label = data.get("label")
    if isinstance(label, bool) or not isinstance(label, int):
        raise ValueError("field 'label' should be an integer step index (or -1)")
    if not -1 <= label < len(steps):
        raise ValueError(f"label {label} is outside the {len(steps)} steps")
    outcome = data.get("final_answer_correct")
    if outcome is not None and not isinstance(outcome, bool):
        raise ValueError("field 'final_answer_correct' should be true/false")
    chain = GivenChain(
        steps=steps,
        model=str(data.get("generator") or "given"),
        human_first_error=label,
        human_labels=human_step_labels(label, len(steps)),
        outcome_correct=outcome,
    )
    # The same problem text appears once per generator: salt the id with the record id so
    # that each record is its own problem (one chain each), as ProcessBench scores them.
    return make_problem("math", name, question, given=(chain,), id_salt=str(data.get("id", index)))
