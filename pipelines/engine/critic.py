"""The judge's `Critic`, implemented with an engine pool.

Each `CritiqueRequest` becomes one chat request (the critic prompt as the user message, no
assistant prefix) asking for `n` samples; one `critique()` call sends them all at once, spread
over every actor of the pool (`EnginePool.generate`). The pool is the judge's own when its
model differs from the sampler's, else the sampler's (see `pipelines/label/job.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pipelines.engine.completer import engine_request
from verifiers.judge import Critique, CritiqueRequest


class EngineCritic:
    def __init__(self, pool: Any, model_name: str = "", top_p: float = 1.0) -> None:
        self.pool = pool
        self.model_name = model_name
        self.top_p = top_p

    def critique(self, requests: Sequence[CritiqueRequest]) -> list[list[Critique]]:
        if not requests:
            return []
        results = self.pool.generate([engine_request(r, self.top_p) for r in requests])
        out = []
        for res in results:
            # A prompt too long for the context comes back as one empty "prompt_too_long"
            # sample: an `error` verdict naming the reason, never a vote.
            out.append([
                Critique(text, tokens, finish)
                for text, tokens, finish in zip(
                    res["texts"], res["tokens"], res["finish"], strict=True
                )
            ])
        return out
