"""The PRM as trained: a causal-LM backbone whose step scores are read at a step-tag token.

Two layouts, both trained as they are exported, so a checkpoint is never converted with loss:
- `causal_lm` (Math-Shepherd style, any decoder): the causal LM itself; P(step correct) is the
  softmax over its next-token logits of two label tokens (bad, good) at the step tag.
- `qwen2_prm` (Qwen2.5-Math-PRM style, Qwen2 backbones): the transformer body plus `score`,
  Linear(h, h) + ReLU + Linear(h, 2); P(step correct) is softmax class 1 at the step tag.

The text format lives in `StepFormat` (`pipelines.checkpoint.format`, saved as
`prm_format.json` beside the weights): the prompt template, how a step is written, the step tag
appended (as a token id) after every step, and the label tokens. Training, `prm-eval`,
`pipelines.scoring` and the vLLM client all tokenize through `tokenize_row`, so the places a
score is read cannot drift between them.
Saving and loading directories is `pipelines.checkpoint.export`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F  # noqa: N812 (the usual torch alias)
from torch import nn

from pipelines.checkpoint.format import FORMATS, StepFormat
from pipelines.engine.prepare_model import prepare

IGNORE = -100  # masked hard label: torch's cross_entropy default ignore_index
# CausalLM forwards that post-process logits after lm_head; reading lm_head rows would differ.
_LOGIT_POSTPROCESSING = ("final_logit_softcapping", "logit_scale", "logits_scaling")


def ensure_tokens(tokenizer: Any, tokens: list[str]) -> list[str]:
    """Add the tokens the tokenizer lacks as special tokens; returns the ones added."""
    vocab = tokenizer.get_vocab()
    missing = [t for t in dict.fromkeys(tokens) if t not in vocab]
    if missing:
        tokenizer.add_tokens(missing, special_tokens=True)
    return missing


def token_id(tokenizer: Any, token: str) -> int:
    """The id of one vocabulary entry; a clear error when the tokenizer has no such token."""
    tid = tokenizer.get_vocab().get(token)
    if tid is None:
        raise ValueError(f"the tokenizer has no token {token!r}; set the step tag/label tokens")
    return int(tid)


def tokenize_row(
    prompt: str,
    steps: list[str],
    labels: list[Any] | None,
    tokenizer: Any,
    fmt: StepFormat,
    soft: bool = False,
) -> dict[str, list]:
    """Token ids of prompt + steps, each step followed by the step tag id, and its targets.

    Returns `input_ids`, `targets` (same length: the step's label at its tag; IGNORE (hard)
    or NaN (soft) elsewhere and where the label is None), `step_positions` (index of the
    step's tag, -1 for steps cut by `max_length`) and `prompt_cut` (prompt tokens dropped
    from its start). `labels=None` is for inference.
    A chain longer than `max_length` keeps the prompt and as many WHOLE steps as fit, from
    the first: the first step that does not fit and every step after it are dropped
    (position -1; `cut_counts` counts them), so no step is scored or trained without every
    step before it in view, and no step is cut inside. No window slides over the rest.
    The tag is appended as an id, never tokenized from text, so the scored token is always
    the same id; the tag's text is removed from prompt and steps, so a chain that happens to
    contain it cannot add a score. The prompt keeps its last `max_prompt_length` tokens.
    """
    text = fmt.prompt_template.format(prompt=prompt.replace(fmt.step_tag, ""))
    prompt_ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    # One batched call for all steps: per-call overhead, not tokenizing, dominates short steps.
    pieces = [fmt.step_template.format(step=s.replace(fmt.step_tag, "")) for s in steps]
    step_ids = tokenizer(pieces, add_special_tokens=False)["input_ids"] if pieces else []
    return assemble_row(prompt_ids, step_ids, labels, fmt, soft)


def tokenize_rows(chains: list[tuple[str, list[str]]], tokenizer: Any,
                  fmt: StepFormat) -> list[dict[str, list]]:  # fmt: skip
    """`tokenize_row(prompt, steps, None, ...)` of every chain (inference), with two tokenizer
    calls in all (every prompt, every step of every chain) instead of two per chain."""
    if not chains:
        return []
    texts = [fmt.prompt_template.format(prompt=p.replace(fmt.step_tag, "")) for p, _ in chains]
    pieces = [fmt.step_template.format(step=s.replace(fmt.step_tag, ""))
              for _, steps in chains for s in steps]  # fmt: skip
    prompts = tokenizer(texts, add_special_tokens=False)["input_ids"]
    flat = tokenizer(pieces, add_special_tokens=False)["input_ids"] if pieces else []
    rows, at = [], 0
    for prompt_ids, (_, steps) in zip(prompts, chains, strict=True):
        rows.append(assemble_row(prompt_ids, flat[at : at + len(steps)], None, fmt, False))
        at += len(steps)
    return rows


def assemble_row(prompt_ids: list[int], step_ids: list[list[int]], labels: list[Any] | None,
                 fmt: StepFormat, soft: bool = False) -> dict[str, list]:  # fmt: skip
    """The `tokenize_row` output from the prompt's and each step's token ids (the rules are
    in `tokenize_row`'s docstring)."""
    if labels is None:
        labels = [None] * len(step_ids)
    masked: float = math.nan if soft else IGNORE
    prompt_cut = max(0, len(prompt_ids) - fmt.max_prompt_length) if fmt.max_prompt_length > 0 \
        else 0
    prompt_ids = prompt_ids[prompt_cut:]
    bos = [fmt.bos_token_id] if fmt.bos_token_id is not None else []
    input_ids = bos + list(prompt_ids)
    targets: list[float] = [masked] * len(input_ids)
    positions: list[int] = []
    cut = False
    for ids, label in zip(step_ids, labels, strict=True):
        cut = cut or len(input_ids) + len(ids) + 1 > fmt.max_length
        if cut:  # a later, shorter step would be read without this one: drop it too
            positions.append(-1)
            continue
        input_ids.extend(ids)
        input_ids.append(fmt.step_tag_id)
        targets.extend([masked] * (len(ids) + 1))
        positions.append(len(input_ids) - 1)
        if label is not None:
            targets[-1] = float(label) if soft else int(bool(label))
    # Steps are only added when they fit, so only a long prompt can still overflow here.
    input_ids, targets = input_ids[: fmt.max_length], targets[: fmt.max_length]
    positions = [p if p < fmt.max_length else -1 for p in positions]
    return {"input_ids": input_ids, "targets": targets, "step_positions": positions,
            "prompt_cut": prompt_cut}


def cut_counts(row: dict[str, list], labels: list[Any] | None = None) -> dict[str, int]:
    """What `max_length` dropped from one `tokenize_row` output: steps (and labeled steps,
    given the chain's `labels`) kept and dropped, whether the chain was cut, and whether its
    prompt lost its start to `max_prompt_length`."""
    positions = row["step_positions"]
    labels = labels if labels is not None else [None] * len(positions)
    dropped = sum(p < 0 for p in positions)
    labeled = [t is not None for t in labels]
    return {
        "chains": 1,
        "chains_cut": int(dropped > 0),
        "steps": len(positions),
        "steps_dropped": dropped,
        "labels": sum(labeled),
        "labels_dropped": sum(x for p, x in zip(positions, labeled, strict=True) if p < 0),
        "prompts_cut": int(row.get("prompt_cut", 0) > 0),
    }


def collate_ids(ids: list[list[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-padded token ids and their attention mask, one tensor copy per row."""
    width = max(len(x) for x in ids)
    out = torch.full((len(ids), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(ids), width), dtype=torch.long)
    for i, x in enumerate(ids):
        out[i, : len(x)] = torch.tensor(x, dtype=torch.long)
        mask[i, : len(x)] = 1
    return out, mask


def collate(rows: list[dict[str, list]], pad_id: int, soft: bool) -> dict[str, torch.Tensor]:
    """Right-pad `tokenize_row` outputs into tensors (`targets` is float, NaN = masked)."""
    width = max(len(r["input_ids"]) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    targets = torch.full((len(rows), width), math.nan, dtype=torch.float32)
    for i, r in enumerate(rows):
        n = len(r["input_ids"])
        ids[i, :n] = torch.tensor(r["input_ids"], dtype=torch.long)
        mask[i, :n] = 1
        t = torch.tensor(r["targets"], dtype=torch.float32)
        if not soft:
            t[t == IGNORE] = math.nan
        targets[i, :n] = t
    return {"input_ids": ids, "attention_mask": mask, "targets": targets}


class ProcessRewardModel(nn.Module):
    """Two logits (bad, good) at chosen token positions, in one of the `FORMATS`.

    `causal_lm`: `lm` is a transformers causal LM; the logits are its `lm_head` rows of the
    two label tokens applied to the final hidden state (what its full forward would give at
    those two vocabulary entries). `qwen2_prm`: `backbone` + `score`, as vLLM's
    `Qwen2ForProcessRewardModel`. `probs` is P(step correct): softmax class 1.
    """

    def __init__(
        self,
        fmt: StepFormat,
        lm: nn.Module | None = None,
        backbone: nn.Module | None = None,
        score: nn.Module | None = None,
    ) -> None:
        super().__init__()
        if fmt.format not in FORMATS:
            raise ValueError(f"export.format={fmt.format!r}; choose one of {', '.join(FORMATS)}")
        self.fmt = fmt
        if fmt.format == "causal_lm":
            if lm is None:
                raise ValueError("the causal_lm format needs the causal LM")
            check_causal_lm(lm)
            self.lm = lm
            self.register_buffer(
                "label_ids", torch.tensor(fmt.label_token_ids, dtype=torch.long), persistent=False
            )
        else:
            if backbone is None:
                raise ValueError("the qwen2_prm format needs the Qwen2 backbone")
            self.backbone = backbone
            self.score = score if score is not None else new_score_head(backbone.config.hidden_size)

    @property
    def body(self) -> nn.Module:
        """The transformer body (hidden states before any head)."""
        return self.lm.base_model if self.fmt.format == "causal_lm" else self.backbone

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None,
        positions: torch.Tensor | tuple[torch.Tensor, torch.Tensor],
        position_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """(bad, good) logits at `positions` (a bool mask or (row, col) index pair), float32.
        Packed rows (`pipelines.train.packing`) pass `position_ids` restarting at each chain
        and no `attention_mask`."""
        # No KV cache: it would be unused, and transformers reads restarting position ids as
        # packed chains only when there is none.
        hidden = self.body(input_ids=input_ids, attention_mask=attention_mask,
                           position_ids=position_ids, use_cache=False)[0]  # fmt: skip
        picked = hidden[positions]
        if self.fmt.format == "causal_lm":
            weight = self.lm.get_output_embeddings().weight[self.label_ids]
            return F.linear(picked.to(weight.dtype), weight).float()
        return self.score(picked.to(self.score[0].weight.dtype)).float()

    @staticmethod
    def probs(logits: torch.Tensor) -> torch.Tensor:
        return logits.float().softmax(-1)[..., 1]

    @staticmethod
    def loss(logits: torch.Tensor, targets: torch.Tensor, soft: bool) -> torch.Tensor:
        """Cross-entropy over (bad, good); soft targets are P(good)."""
        if soft:
            return F.cross_entropy(logits, torch.stack([1.0 - targets, targets], dim=-1))
        return F.cross_entropy(logits, targets.long())


def new_score_head(hidden: int) -> nn.Sequential:
    """Qwen2.5-Math-PRM's head; the last layer starts at zero, so every step starts at p=0.5."""
    head = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 2))
    nn.init.zeros_(head[2].weight)
    nn.init.zeros_(head[2].bias)
    return head


def check_causal_lm(lm: nn.Module) -> None:
    """Refuse causal LMs whose logits are not plain `lm_head(hidden)` (vLLM would differ)."""
    config = lm.config
    for name in _LOGIT_POSTPROCESSING:
        if getattr(config, name, None) not in (None, 1.0):
            raise ValueError(
                f"{config.model_type} post-processes logits ({name}); "
                "use a backbone without it for the causal_lm format"
            )
    head = lm.get_output_embeddings()
    if head is None or getattr(head, "bias", None) is not None:
        raise ValueError(f"{config.model_type}: the causal_lm format needs an lm_head without bias")


def resolve_model_path(path: str | Path) -> Path:
    """`""` means the embedded default model, prepared (once) into the cache."""
    if str(path) == "":
        return prepare()
    return Path(path).expanduser()


def quiet_hf():
    """A context manager that silences transformers' load reports (dropped heads etc.)."""
    import contextlib

    from transformers.utils import logging as hf_logging

    @contextlib.contextmanager
    def _quiet():
        level = hf_logging.get_verbosity()
        hf_logging.set_verbosity_error()
        try:
            yield
        finally:
            hf_logging.set_verbosity(level)

    return _quiet()


def load_tokenizer(path: str | Path) -> Any:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(resolve_model_path(path))
    if tok.pad_token_id is None:
        # Padding is masked out by attention and targets, so any id works; EOS is customary.
        tok.pad_token = tok.eos_token if tok.eos_token is not None else tok.unk_token
    return tok
