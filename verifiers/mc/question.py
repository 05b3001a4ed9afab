"""The bare question's rollouts: the request that measures the completer's self-confidence.

One request of `n` completions per problem, seeded by the problem alone, so it is the same
request whoever sends it: the label job sends it with the unit's sampling requests
(`pipelines/label/questions.py`, which says why) and hands the completions to the labeler
(`MonteCarloVerifier.given_questions`). A verifier not given them asks itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from labeling.engine_request import EngineRequest
from labeling.ids import derive_seed
from labeling.schema import Problem


def question_request(problem: Problem, *, n: int, seed: int, max_tokens: int,
                     temperature: float, top_p: float, end_loops: int,
                     prompt_fn: Callable[[Problem], str]) -> EngineRequest:  # fmt: skip
    """`n` completions of the bare question, as the problem's rollouts are sampled."""
    return EngineRequest.user(prompt_fn(problem), key=problem.problem_id, n=n,
                              seed=derive_seed(seed, problem.problem_id, "question"),
                              max_tokens=max_tokens, temperature=temperature, top_p=top_p,
                              end_loops=end_loops)


def distinct(problems: Iterable[Problem]) -> dict[str, Problem]:
    """The problems by id, each once, in order of first appearance."""
    out: dict[str, Problem] = {}
    for p in problems:
        out.setdefault(p.problem_id, p)
    return out
