"""PRM800K raw jsonl: `question` {problem, ground_truth_answer}, `label` {steps: [{completions:
[{text, rating}], chosen_completion, human_completion}], finish_reason}.

The chain is the sequence of chosen completions (or the human completion where a labeler
wrote one). Human ratings become step labels: -1 -> False, 0 and 1 -> True (PRM800K's
"neutral" steps are not errors). The walk stops at the first step without a chosen completion.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from labeling.datasets._io import need_str
from labeling.datasets.common import convert, make_problem
from labeling.schema import GivenChain, Problem, Quarantined


def chosen_steps(label: Any) -> tuple[tuple[str, ...], tuple[bool | None, ...]]:
    if not isinstance(label, dict) or not isinstance(label.get("steps"), list):
        raise ValueError("field 'label.steps' is missing or not a list")
    texts: list[str] = []
    ratings: list[bool | None] = []
    for step in label["steps"]:
        if not isinstance(step, dict):
            raise ValueError("a step of 'label.steps' is not an object")
        human, chosen = step.get("human_completion"), step.get("chosen_completion")
        if isinstance(human, dict) and isinstance(human.get("text"), str):
            texts.append(human["text"])
            ratings.append(True)
            continue
        completions = step.get("completions") or []
        if not isinstance(chosen, int) or not 0 <= chosen < len(completions):
            break
        comp = completions[chosen]
        if not isinstance(comp, dict) or not isinstance(comp.get("text"), str):
            raise ValueError("a chosen completion has no text")
        rating = comp.get("rating")
        texts.append(comp["text"])
        ratings.append(None if rating is None else rating >= 0)
    if not texts:
        raise ValueError("no step has a chosen completion")
    return tuple(texts), tuple(ratings)


def load(options: dict[str, Any]) -> Iterator[Problem | Quarantined]:
    name = options.get("name") or "prm800k"

    def to_problem(data: dict[str, Any], index: int) -> Problem:
        q = data.get("question")
        if not isinstance(q, dict):
            raise ValueError("field 'question' is missing or not an object")
        question = need_str(q, "problem")
        reference = need_str(q, "ground_truth_answer")
        steps, ratings = chosen_steps(data.get("label"))
        first_bad = next((i for i, r in enumerate(ratings) if r is False), -1)
        chain = GivenChain(steps, "prm800k", human_first_error=first_bad, human_labels=ratings)
        return make_problem("math", name, question, reference, given=(chain,), id_salt=str(index))

    return convert(options["path"], name, to_problem)
