"""A tiny PRM checkpoint for the reward tests: a random word-level Llama in prm-train's
causal_lm layout, with its (bad, good) rows randomised so step scores spread (a fresh head
scores every step 0.5, which would make parity checks prove nothing)."""

from __future__ import annotations

from pathlib import Path

import torch

from pipelines.checkpoint.export import new_prm, save_checkpoint
from pipelines.checkpoint.format import StepFormat
from tests.prm_fixtures import build_tiny_model

WORDS = [
    "Start at 3 and add 4 , 2 . 3 + 4 = 7 7 + 2 = 9 The answer is \\boxed{9} .",
    "What is 12 * 3 ? 12 * 3 = 36 So the final answer is 36 . Step 1 : Step 2 :",
    "<|im_start|> user assistant <|im_end|> ü é 你 好 😀 0 1 5 6 8",
]


def tiny_prm(root: Path, max_length: int = 48, split: dict | None = None, seed: int = 0,
             hidden: int = 64) -> Path:
    """A servable checkpoint under `root/ck`; `split` is recorded as prm-train records it.
    vLLM's CPU attention needs `hidden=128` (head_dim 64)."""
    base = build_tiny_model(root / "base", WORDS, hidden=hidden, seed=seed)
    model, tok, fmt = new_prm(base, StepFormat(max_length=max_length, max_prompt_length=16))
    torch.manual_seed(seed + 1)
    with torch.no_grad():
        head = model.lm.get_output_embeddings().weight
        head[fmt.label_token_ids] = torch.randn_like(head[fmt.label_token_ids]) * 0.1
    if split is not None:
        from dataclasses import replace

        model.fmt = replace(fmt, split=split)
    return save_checkpoint(model, tok, root / "ck")
