"""Fakes for the search tests: a seeded text generator and a PRM that likes one answer.

The generator writes "Step k: ..." paragraphs ending in \\boxed{answer}; it honours `stop`
(the text up to the first stop string, without it, as vLLM returns it), `max_tokens`
(words), `n` and `seed`, and counts words as tokens.
"""

from __future__ import annotations

import math
import random

from labeling.engine_request import EngineRequest
from labeling.engine_result import Completion, Finish

RIGHT = "42"


def chain_text(rng: random.Random, start: int, right_share: float) -> str:
    steps = [f"Step {k}: we add {rng.randint(1, 9)} and {rng.randint(1, 9)}."
             for k in range(start, start + rng.randint(1, 3))]  # fmt: skip
    answer = RIGHT if rng.random() < right_share else str(rng.randint(1, 3))
    steps.append(f"So the answer is \\boxed{{{answer}}}.")
    return "\n\n".join(steps)


class FakeGenerator:
    def __init__(self, right_share: float = 0.3) -> None:
        self.right_share = right_share
        self.calls: list[int] = []  # requests per submit (the lockstep batching)

    def _one(self, g: EngineRequest, j: int) -> Completion:
        rng = random.Random(g.seed * 1_000_003 + j)
        text = chain_text(rng, g.prefix.count("Step ") + 1, self.right_share)
        for stop in g.stop:
            if stop in text:
                text = text[: text.index(stop)]
        words = text.split(" ")
        finish = Finish.STOP
        if len(words) > g.max_tokens:
            text, finish = " ".join(words[: g.max_tokens]), Finish.LENGTH
        return Completion(text, len(text.split()), finish)

    def submit(self, requests):
        self.calls.append(len(requests))
        return [[self._one(g, j) for j in range(g.n)] for g in requests]

    def collect(self, ticket):
        return ticket


class FakePRM:
    """High scores for steps that carry the right answer, middling for the rest; `broken`
    returns the given bad value for every chain's last step."""

    def __init__(self, broken: object = "none") -> None:
        self.broken = broken
        self.items = 0

    def score_many(self, items):
        self.items += len(items)
        out = []
        for _, steps in items:
            scores = [0.95 if f"boxed{{{RIGHT}}}" in s else 0.5 + 0.01 * (len(s) % 7)
                      for s in steps]  # fmt: skip
            if self.broken != "none":
                scores[-1] = self.broken
            out.append(scores)
        return out


NAN = math.nan
