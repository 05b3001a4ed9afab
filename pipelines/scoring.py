"""Score a chain's steps with a PRM checkpoint in-process (torch), batched.

    from pipelines.scoring import PRMScorer
    prm = PRMScorer.load("outputs/prm/final")
    prm.score("What is 2 + 3?", ["2 + 3 = 5", "The answer is 5."])  # -> [0.97, 0.95]
    prm.score_many([(prompt, steps), ...])                           # one list per chain

This is prm-train's own scorer: the model class training used. The checkpoint may be ours
(format from its `prm_format.json`) or a third-party Qwen2.5-Math-PRM- or
Math-Shepherd-style directory (`overrides` give its conventions; see
`pipelines.checkpoint.export.load_checkpoint`). For a vLLM server or a local vLLM engine use
`pipelines.serve.PRMClient`, which formats chains the same way. A chain longer than
`max_length` is read as training read it: the question and as many whole steps as fit, from
the first; the first step that does not fit and every step after it score None (the model
never saw them, and a made-up number would be worse than a visible gap).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path

import torch

from pipelines.checkpoint.export import load_checkpoint
from pipelines.checkpoint.model import collate_ids, tokenize_rows


class PRMScorer:
    """P(step is correct) for each step of each chain, from one checkpoint."""

    def __init__(
        self, model, tokenizer, fmt, device: str = "cpu", batch_size: int = 16, bf16: bool = False
    ) -> None:
        self.model, self.tokenizer, self.fmt = model.to(device).eval(), tokenizer, fmt
        self.device, self.batch_size, self.bf16 = torch.device(device), batch_size, bf16

    @classmethod
    def load(
        cls,
        checkpoint: str | Path,
        device: str = "cpu",
        batch_size: int = 16,
        bf16: bool = False,
        **overrides,
    ) -> PRMScorer:
        model, tokenizer, fmt = load_checkpoint(checkpoint, **overrides)
        return cls(model, tokenizer, fmt, device, batch_size, bf16)

    def score(self, prompt: str, steps: Sequence[str]) -> list[float | None]:
        return self.score_many([(prompt, steps)])[0]

    @torch.no_grad()
    def score_many(self, chains: Sequence[tuple[str, Sequence[str]]],
                   on_batch: Callable[[int], None] | None = None) -> list[list[float | None]]:
        """Scores in input order; chains are batched by length to waste little padding.
        `on_batch(n)` is called after each batch of `n` chains (progress lines).

        All chains are tokenized in two tokenizer calls; each batch's step positions go to
        the device as one index pair and the scores come back in one copy, so the host does
        no per-step work while the model runs."""
        rows = tokenize_rows([(p, list(s)) for p, s in chains], self.tokenizer, self.fmt)
        order = sorted(range(len(rows)), key=lambda i: len(rows[i]["input_ids"]))
        out: list[list[float | None]] = [[] for _ in rows]
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            batch = [rows[i] for i in idx]
            scores = self._forward(batch)
            for i, row, got in zip(idx, batch, scores, strict=True):
                n = len(row["step_positions"])
                out[i] = [None if math.isnan(x) else x for x in got[:n]]
            if on_batch is not None:
                on_batch(len(idx))
        return out

    def _forward(self, batch: list[dict[str, list]]) -> list[list[float]]:
        """P(good) at each step position of each row (NaN where a step was cut), one padded
        forward pass."""
        ids, mask = collate_ids([r["input_ids"] for r in batch], self.tokenizer.pad_token_id)
        steps = max(len(r["step_positions"]) for r in batch)
        pos = torch.tensor([r["step_positions"] + [-1] * (steps - len(r["step_positions"]))
                            for r in batch], dtype=torch.long).reshape(len(batch), steps)
        kept = pos >= 0
        where = (torch.arange(len(batch)).unsqueeze(1).expand_as(pos)[kept], pos[kept])
        copy = self.device.type == "cuda"
        dev = [t.pin_memory().to(self.device, non_blocking=True) if copy else t
               for t in (ids, mask, *where)]  # fmt: skip
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.bf16):
            logits = self.model(dev[0], dev[1], (dev[2], dev[3]))
        grid = torch.full(pos.shape, math.nan)
        grid[kept] = self.model.probs(logits).float().cpu()
        return grid.tolist()
