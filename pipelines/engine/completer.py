"""The Monte Carlo driver's `Completer`, implemented with the engine pool.

Each `CompletionRequest` becomes one engine request with the problem as the user message and
the chain prefix as the start of the assistant's answer; the engine renders both exactly as
it rendered the sampled chain, so vLLM's prefix cache shares the prompt and the prefix.
One `complete()` call is one round of the search: all its requests go out at once, spread
over every engine actor.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from verifiers.rollout.driver import Completion, CompletionRequest


class EngineCompleter:
    def __init__(self, pool: Any, model_name: str = "", top_p: float = 1.0) -> None:
        self.pool = pool
        self.model_name = model_name
        self.top_p = top_p

    def complete(self, requests: Sequence[CompletionRequest]) -> list[list[Completion]]:
        if not requests:
            return []
        engine_requests = [
            {
                "messages": [{"role": "user", "content": r.prompt_text}],
                "prefix": r.prefix_text,
                "n": r.n,
                "seed": r.seed,
                "max_tokens": r.max_tokens,
                "temperature": r.temperature,
                "top_p": self.top_p,
                "stop": [],
            }
            for r in requests
        ]
        results = self.pool.generate(engine_requests)
        out = []
        for r, res in zip(requests, results, strict=True):
            completions = [
                Completion(text, tokens)
                for text, tokens in zip(res["texts"], res["tokens"], strict=True)
            ]
            if len(completions) != r.n:  # e.g. a prompt too long for the context
                completions += [Completion("", 0)] * (r.n - len(completions))
            out.append(completions)
        return out
