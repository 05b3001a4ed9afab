"""PRM800K raw jsonl: `question` {problem, ground_truth_answer}, `label` {steps: [{completions:
[{text, rating}], chosen_completion, human_completion}], finish_reason}.

The chain is the sequence of chosen completions (or the human completion where a labeler
wrote one). Human ratings are kept three-way in `human_ratings` (1 good, 0 neutral, -1 bad);
`human_labels` maps them to booleans with `labels.neutral` (PRM800K's own choice, neutral =
positive, by default).

Where the walk ends matters: in phase 2 a labeler stops at the first error, so the last step
has no chosen completion (`chosen_completion: null`, `finish_reason: found_error`) and the
error is the completion rated -1 there. That step is part of the chain: it is the error the
humans marked. A step without a chosen completion and without a -1 rating (the labeler gave
up, or the problem was flagged) ends the chain without adding a step.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from labeling.datasets._io import need_str
from labeling.datasets.common import convert, make_problem
from labeling.schema import GivenChain, Problem, Quarantined, rating_label

FOUND_ERROR = "found_error"


def _rating(comp: dict[str, Any]) -> int | None:
    rating = comp.get("rating")
    if rating is None:
        return None
    if isinstance(rating, bool) or not isinstance(rating, int) or rating not in (-1, 0, 1):
        raise ValueError(f"a completion's rating {rating!r} is not -1, 0, 1 or null")
    return rating


def _text(comp: Any) -> str:
    if not isinstance(comp, dict) or not isinstance(comp.get("text"), str):
        raise ValueError("a completion has no text")
    return comp["text"]


def chosen_steps(label: Any) -> tuple[tuple[str, ...], tuple[int | None, ...]]:
    """The chain's step texts and their three-way human ratings."""
    if not isinstance(label, dict) or not isinstance(label.get("steps"), list):
        raise ValueError("field 'label.steps' is missing or not a list")
    texts: list[str] = []
    ratings: list[int | None] = []
    found_error = False
    for step in label["steps"]:
        if not isinstance(step, dict):
            raise ValueError("a step of 'label.steps' is not an object")
        human, chosen = step.get("human_completion"), step.get("chosen_completion")
        if isinstance(human, dict) and isinstance(human.get("text"), str):
            texts.append(human["text"])
            ratings.append(1)  # a labeler wrote it as the right next step
            continue
        completions = step.get("completions") or []
        if not isinstance(completions, list):
            raise ValueError("a step's 'completions' is not a list")
        if isinstance(chosen, int) and not isinstance(chosen, bool) and 0 <= chosen < len(
            completions
        ):
            texts.append(_text(completions[chosen]))
            ratings.append(_rating(completions[chosen]))
            continue
        if chosen is not None:
            raise ValueError(f"chosen_completion {chosen!r} names no completion of its step")
        # No choice: the walk ends here. A completion rated -1 is the error the labeler
        # found, and stopped at; it belongs to the chain.
        bad = [c for c in completions if _rating(c) == -1]
        if bad:
            texts.append(_text(bad[0]))
            ratings.append(-1)
            found_error = True
        break
    if not texts:
        raise ValueError("no step has a chosen completion")
    if label.get("finish_reason") == FOUND_ERROR and not found_error and -1 not in ratings:
        raise ValueError("finish_reason is found_error but no step is rated -1")
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
        first_bad = next((i for i, r in enumerate(ratings) if r == -1), -1)
        chain = GivenChain(
            steps,
            "prm800k",
            human_first_error=first_bad,
            human_labels=tuple(rating_label(r) for r in ratings),
            human_ratings=ratings,
        )
        return make_problem("math", name, question, reference, given=(chain,), id_salt=str(index))

    return convert(options["path"], name, to_problem)
