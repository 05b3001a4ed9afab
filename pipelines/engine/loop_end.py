"""`LoopEnd`: vLLM's logits processor that ends a looping completion (what and why:
`pipelines.engine.loops`). Imported by vLLM's engine core, by name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from vllm.v1.sample.logits_processor import BatchUpdate, LogitsProcessor, MoveDirectionality

from labeling.text.loops import LineRuns, repeats_ok
from pipelines.engine.loops import KEY, Pieces, loop_length


@dataclass(slots=True)
class _Watch:
    runs: LineRuns
    tokens: list[int]  # the request's output tokens: vLLM's own list, which grows
    seen: int = 0


class LoopEnd(LogitsProcessor):
    def __init__(self, vllm_config: Any, device: torch.device, is_pin_memory: bool) -> None:
        self._model = vllm_config.model_config
        self._pieces: Pieces | None = None  # the tokenizer, loaded for the first watched request
        self.end = -1
        self._rows: dict[int, _Watch] = {}

    def _text_of(self) -> Pieces:
        if self._pieces is None:
            from transformers import AutoTokenizer

            m = self._model
            tokenizer = AutoTokenizer.from_pretrained(
                m.tokenizer, revision=m.tokenizer_revision, trust_remote_code=m.trust_remote_code)
            self._pieces, self.end = Pieces(tokenizer), int(tokenizer.eos_token_id)
        return self._pieces

    @classmethod
    def validate_params(cls, sampling_params: Any) -> None:
        k = (getattr(sampling_params, "extra_args", None) or {}).get(KEY, 0)
        if not repeats_ok(k):
            raise ValueError(f"{KEY} must be 0 (off) or an integer >= 2, got {k!r}")

    def is_argmax_invariant(self) -> bool:
        return False  # it changes greedy choices too

    def update_state(self, batch_update: BatchUpdate | None) -> None:
        if batch_update is not None:
            for index in batch_update.removed:
                self._rows.pop(index, None)
            for index, params, _, output in batch_update.added:
                k = loop_length(params)
                if k:
                    self._rows[index] = _Watch(LineRuns(k), output)
                else:
                    self._rows.pop(index, None)
            for a, b, how in batch_update.moved:
                wa, wb = self._rows.pop(a, None), self._rows.pop(b, None)
                if wa is not None:
                    self._rows[b] = wa
                if wb is not None and how == MoveDirectionality.SWAP:
                    self._rows[a] = wb
        if not self._rows:
            return
        pieces = self._text_of()
        for w in self._rows.values():
            new = w.tokens[w.seen:]
            w.seen += len(new)
            for token in new:
                if w.runs.feed(pieces(token)):
                    break

    def apply(self, logits: torch.Tensor) -> torch.Tensor:
        rows = [i for i, w in self._rows.items() if w.runs.hit and i < logits.shape[0]]
        if rows:
            logits[rows] = float("-inf")
            logits[rows, self.end] = 0.0
        return logits


__all__ = ["LoopEnd"]
