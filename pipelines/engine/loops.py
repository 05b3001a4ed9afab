"""Ending a completion that loops, inside the engine (vLLM's logits-processor interface).

A request asks for it with `EngineRequest.end_loops = k` (the actor puts k in the sampling
params' `extra_args` under `KEY`): once the same line has come k times in a row
(`labeling.text.loops.LineRuns`), the next token is the end-of-text token, so the engine
spends nothing more on it. Other requests of the batch are untouched, and so is every token
before the end: a rollout that never loops is sampled exactly as without this.

`LoopEnd` (`pipelines.engine.loop_end`) is given to `vllm.LLM(logits_processors=[FQCN])` by
name, so that an engine core in a process of its own (GPU) imports it there. It reads each
request's new tokens before every forward pass, one piece of text per token (`Pieces`: each
token decoded once per engine and cached): a dictionary lookup per running request per
step. The engine's feed reads the same runs back from a finished completion's tokens
(`labeling.text.loops.ended_in_loop`) and marks its finish `Finish.LOOP`.
"""

from __future__ import annotations

from typing import Any

KEY = "end_loops"
# The processor by name: its module imports vLLM, this one does not.
FQCN = "pipelines.engine.loop_end:LoopEnd"


class Pieces:
    """The text of each token id, decoded once (a token's text does not change)."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self._text: dict[int, str] = {}

    def __call__(self, token: int) -> str:
        text = self._text.get(token)
        if text is None:
            text = self._text[token] = self.tokenizer.decode([token]) if token >= 0 else ""
        return text


def loop_length(params: Any) -> int:
    """The request's k (0: not watched)."""
    return int((getattr(params, "extra_args", None) or {}).get(KEY, 0) or 0)


__all__ = ["FQCN", "KEY", "Pieces", "loop_length"]
