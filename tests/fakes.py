"""Fakes for tests and the MC simulation benchmark (never imported by production code)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from labeling.engine_request import EngineRequest
from verifiers.rollout.driver import Completion


class FakeCompleter:
    """A deterministic stand-in for the engine, for tests and the simulation benchmark.

    Completion j of a request succeeds with probability `p_success(request)`, drawn from a
    generator seeded with (request.seed, j): the same requests give the same completions in
    any batch order. The text is `template` with `{answer}` = `right` on success, `wrong` on
    failure (default: a boxed math answer); each completion reports `tokens` generated tokens.
    `batches` records every call's size.
    """

    def __init__(
        self,
        p_success: Callable[[EngineRequest], float],
        right: str = "42",
        wrong: str = "41",
        tokens: int = 100,
        template: str = "So the answer is \\boxed{{{answer}}}.",
    ) -> None:
        self.p_success, self.right, self.wrong, self.tokens = p_success, right, wrong, tokens
        self.template = template
        self.batches: list[tuple[int, int]] = []  # (requests, completions) per call

    def complete(self, requests: Sequence[EngineRequest]) -> list[list[Completion]]:
        self.batches.append((len(requests), sum(r.n for r in requests)))
        out = []
        for req in requests:
            p = self.p_success(req)
            got = []
            for j in range(req.n):
                ok = random.Random(f"{req.seed}/{j}").random() < p
                answer = self.right if ok else self.wrong
                got.append(Completion(self.template.format(answer=answer), self.tokens))
            out.append(got)
        return out
