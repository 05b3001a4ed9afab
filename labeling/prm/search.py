"""The pure parts of PRM-guided search: step-score checks, aggregation, votes, beam shapes.

Plain functions on plain data (no engine, no model), used by `pipelines.search`:
- `check_scores` turns what a PRM returned for one chain into a list of probabilities, or
  raises `PRMScoreError` (one sentence) for a missing, NaN, out-of-range or miscounted score:
  a broken PRM must stop the search, never steer it with a made-up zero.
- `aggregate` folds a chain's step scores into one number (`last`, `min`, `prod`, `mean`).
- `majority_vote` / `weighted_vote` / `best_index` choose among finished candidates.
- `top_k` keeps the best beams; `beam_shape` says how a budget N splits into kept beams
  and children per beam (beam search), which is also DVTS's number of subtrees.

Ties are broken by position (the earlier candidate wins), so a choice never depends on
dict or set order. What this module does not do: decide whether an answer is right (that is
the answer source, `verifiers.answer`); `canonical_answer` only groups equal-looking answers
for voting.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction


class Aggregation(StrEnum):
    """How a chain's step scores become one score (search-and-learn's names)."""

    last = "last"  # the score of the last step (a PRM's view of the whole prefix)
    min = "min"  # the weakest step
    prod = "prod"  # product of step probabilities
    mean = "mean"  # arithmetic mean


class PRMScoreError(ValueError):
    """A PRM answered something that is not one probability per step."""


def check_scores(scores: object, n_steps: int, where: str) -> list[float]:
    """`scores` as floats in [0, 1], one per step; `where` names the chain in the error.

    Raises `PRMScoreError` when the PRM returned no list, a different number of scores
    than steps, or a None / NaN / infinite / out-of-range value (None is what our scorer
    returns for a step cut off by its `max_length`).
    """
    if not isinstance(scores, list | tuple):
        raise PRMScoreError(f"the PRM returned {type(scores).__name__} instead of a list of "
                            f"step scores for {where}")  # fmt: skip
    if len(scores) != n_steps:
        raise PRMScoreError(
            f"the PRM returned {len(scores)} scores for {n_steps} steps of {where}"
        )
    out = []
    for i, s in enumerate(scores):
        bad = s is None or isinstance(s, bool) or not isinstance(s, int | float)
        if bad or not math.isfinite(s) or not 0.0 <= s <= 1.0:
            hint = " (a step past the PRM's max_length?)" if s is None else ""
            raise PRMScoreError(
                f"the PRM returned {s!r} for step {i + 1} of {n_steps} of {where}{hint}; "
                "expected a probability in [0, 1]"
            )
        out.append(float(s))
    return out


def aggregate(scores: Sequence[float | None], how: Aggregation | str) -> float:
    """One score for a chain (prm-search and prm-eval's best-of-N both use this). A step the
    PRM did not score (None: cut by the length limit) says nothing and is left out; a chain
    with no scored step ranks last (-inf). Raises ValueError for an unknown name."""
    if how not in Aggregation.__members__:
        raise ValueError(f"aggregation {how!r}; choose from {', '.join(Aggregation)}")
    how = Aggregation(how)
    xs = [float(s) for s in scores if s is not None]
    if not xs:
        return -math.inf
    if how is Aggregation.last:
        return xs[-1]
    if how is Aggregation.min:
        return min(xs)
    if how is Aggregation.prod:
        return math.prod(xs)
    return sum(xs) / len(xs)


_SPACE = re.compile(r"\s+")


def canonical_answer(answer: str | None) -> str | None:
    """A grouping key for votes: plain numbers by value ('1,000', '$1000.00' and '1000'
    group together), anything else by its text with spaces collapsed. None stays None."""
    if answer is None:
        return None
    text = answer.strip().strip("$").replace("\\$", "").replace("\\!", "").strip()
    plain = text.replace(",", "").rstrip(".")
    try:
        return str(Fraction(plain))
    except (ValueError, ZeroDivisionError):
        return _SPACE.sub(" ", text) or None


@dataclass(frozen=True, slots=True)
class Choice:
    """The chosen candidate (its position) and the answer it carries (None: no answer)."""

    index: int
    answer: str | None


def majority_vote(answers: list[str | None]) -> Choice:
    """The most frequent answer (by `canonical_answer`); the chosen index is its first
    occurrence. Candidates without an answer do not vote; if none has one, index 0."""
    return weighted_vote(answers, [1.0] * len(answers))


def weighted_vote(answers: list[str | None], weights: list[float]) -> Choice:
    """The answer whose candidates' weights sum highest (PRM-weighted majority); ties go to
    the answer seen first. Candidates without an answer do not vote."""
    if not answers:
        raise ValueError("no candidates to vote on")
    totals: dict[str, float] = {}
    first: dict[str, int] = {}
    for i, (a, w) in enumerate(zip(answers, weights, strict=True)):
        key = canonical_answer(a)
        if key is None:
            continue
        totals[key] = totals.get(key, 0.0) + w
        first.setdefault(key, i)
    if not totals:
        return Choice(0, answers[0])
    best = max(totals, key=lambda k: (totals[k], -first[k]))
    return Choice(first[best], answers[first[best]])


def best_index(values: list[float]) -> int:
    """Position of the largest value; the first one on ties."""
    if not values:
        raise ValueError("no candidates to choose from")
    return max(range(len(values)), key=lambda i: (values[i], -i))


def top_k(values: list[float], k: int) -> list[int]:
    """Positions of the `k` largest values, best first, earlier first on ties."""
    return sorted(range(len(values)), key=lambda i: (-values[i], i))[: max(k, 0)]


def beam_shape(budget: int, width: int) -> tuple[int, int]:
    """(beams kept per round, children per kept beam) for a budget of N generations per
    round and beam width M: (N // M, M), or (1, N) when N < M. For DVTS the first number is
    the count of independent subtrees. Raises ValueError for non-positive values."""
    if budget <= 0 or width <= 0:
        raise ValueError(f"budget ({budget}) and width ({width}) must be positive")
    children = min(width, budget)
    return budget // children, children


__all__ = [
    "Aggregation", "Choice", "PRMScoreError", "aggregate", "beam_shape", "best_index",
    "canonical_answer", "check_scores", "majority_vote", "top_k", "weighted_vote",
]  # fmt: skip
