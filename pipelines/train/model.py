"""The PRM: a causal-LM backbone with a step-scoring head read at each step's separator.

The text format (separator, prompt template, lengths) lives in `StepFormat`, which is saved
next to the weights as `prm_format.json`; training, `prm-eval` and `pipelines.scoring` all
tokenize through `tokenize_row` with the format read back from the checkpoint, so the places
a score is read cannot drift between train and eval.

A checkpoint directory holds: the backbone (`save_pretrained`), the tokenizer, `head.pt` and
`prm_format.json`. It does not hold optimizer state; the trainer adds that beside it.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F  # noqa: N812 (the usual torch alias)
from torch import nn

IGNORE = -100  # masked hard label: torch's cross_entropy default ignore_index
HEADS = ("classes", "scalar")
FORMAT_FILE = "prm_format.json"


@dataclass(frozen=True)
class StepFormat:
    """How a (prompt, steps) row becomes tokens; saved with every checkpoint."""

    separator: str = "\n\n"
    prompt_template: str = "{prompt}\n\n"
    max_length: int = 1024
    max_prompt_length: int = 512
    head: str = "classes"

    def save(self, directory: str | Path) -> None:
        Path(directory, FORMAT_FILE).write_text(json.dumps(asdict(self), indent=2))

    @staticmethod
    def load(directory: str | Path) -> StepFormat:
        path = Path(directory, FORMAT_FILE)
        if not path.exists():
            raise FileNotFoundError(
                f"{path} is missing: {directory} is not a PRM checkpoint written by prm-train "
                "(pass a checkpoint directory, e.g. <output_dir>/final)"
            )
        return StepFormat(**json.loads(path.read_text()))


def tokenize_row(
    prompt: str,
    steps: list[str],
    labels: list[Any] | None,
    tokenizer: Any,
    fmt: StepFormat,
    soft: bool = False,
) -> dict[str, list]:
    """Token ids of prompt + steps, each step followed by the separator, and its targets.

    Returns `input_ids`, `targets` (same length: the step's label at the separator's last
    token; IGNORE (hard) or NaN (soft) elsewhere and where the label is None) and
    `step_positions` (index of the scored token per step, -1 for steps cut by `max_length`).
    `labels=None` is for inference: every step gets a position, targets are all masked.
    Steps are tokenized one by one so the scored position never depends on BPE merges across
    a step boundary; the prompt keeps its last `max_prompt_length` tokens.
    """
    if labels is None:
        labels = [None] * len(steps)
    masked: float = math.nan if soft else IGNORE
    prompt_ids = tokenizer(fmt.prompt_template.format(prompt=prompt), add_special_tokens=False)[
        "input_ids"
    ]
    if fmt.max_prompt_length > 0:
        prompt_ids = prompt_ids[-fmt.max_prompt_length :]
    bos = [tokenizer.bos_token_id] if tokenizer.bos_token_id is not None else []
    input_ids = bos + list(prompt_ids)
    targets: list[float] = [masked] * len(input_ids)
    positions: list[int] = []
    # One batched call for all steps: per-call overhead, not tokenizing, dominates short steps.
    pieces = [s + fmt.separator for s in steps]
    step_ids = tokenizer(pieces, add_special_tokens=False)["input_ids"] if pieces else []
    for ids, label in zip(step_ids, labels, strict=True):
        if not ids or len(input_ids) + len(ids) > fmt.max_length:
            positions.append(-1)
            continue
        input_ids.extend(ids)
        targets.extend([masked] * len(ids))
        positions.append(len(input_ids) - 1)
        if label is not None:
            targets[-1] = float(label) if soft else int(bool(label))
    # Steps are only added when they fit, so only a long prompt can still overflow here.
    input_ids, targets = input_ids[: fmt.max_length], targets[: fmt.max_length]
    return {"input_ids": input_ids, "targets": targets, "step_positions": positions}


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
    """Backbone hidden states -> one logit (scalar) or two (classes) per token position.

    `step_probs` is P(step correct): softmax class 1, or sigmoid of the scalar logit.
    """

    def __init__(self, backbone: nn.Module, head: str = "classes") -> None:
        super().__init__()
        if head not in HEADS:
            raise ValueError(f"model.head={head!r}; choose one of {', '.join(HEADS)}")
        self.backbone = backbone
        self.head_kind = head
        hidden = backbone.config.hidden_size
        self.head = nn.Linear(hidden, 2 if head == "classes" else 1)
        # Start at "no opinion" (p = 0.5 everywhere) so early steps do not fight a random head.
        nn.init.zeros_(self.head.weight)
        nn.init.zeros_(self.head.bias)

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, positions: torch.Tensor
    ) -> torch.Tensor:
        """Head logits at `positions` (a bool mask or (row, col) index pair), float32."""
        hidden = self.backbone(input_ids=input_ids, attention_mask=attention_mask)[0]
        picked = hidden[positions]
        return self.head(picked.to(self.head.weight.dtype)).float()

    def probs(self, logits: torch.Tensor) -> torch.Tensor:
        if self.head_kind == "classes":
            return logits.softmax(-1)[..., 1]
        return torch.sigmoid(logits[..., 0])

    def loss(self, logits: torch.Tensor, targets: torch.Tensor, soft: bool) -> torch.Tensor:
        """Cross-entropy (classes head) or BCE (scalar head); soft targets are probabilities."""
        if self.head_kind == "classes":
            if soft:
                dist = torch.stack([1.0 - targets, targets], dim=-1)
                return F.cross_entropy(logits, dist)
            return F.cross_entropy(logits, targets.long())
        return F.binary_cross_entropy_with_logits(logits[..., 0], targets)


def load_backbone(path: str | Path, dtype: torch.dtype = torch.float32) -> nn.Module:
    """The transformer body of a local HF causal LM (its LM head is dropped)."""
    from transformers import AutoModel

    path = resolve_model_path(path)
    if not path.exists():
        raise FileNotFoundError(
            f"model.path {path} does not exist; run prm-prepare-model for the default "
            "SmolLM2-135M or pass model.path=<local HF directory>"
        )
    from transformers.utils import logging as hf_logging

    # AutoModel drops the LM head on purpose; HF would print a load report saying so.
    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        return AutoModel.from_pretrained(path, dtype=dtype)
    finally:
        hf_logging.set_verbosity(level)


def resolve_model_path(path: str | Path) -> Path:
    """`""` means the embedded default model, prepared (once) into the cache."""
    if str(path) == "":
        from pipelines.engine.prepare_model import prepare

        return prepare()
    return Path(path).expanduser()


def load_tokenizer(path: str | Path) -> Any:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(resolve_model_path(path))
    if tok.pad_token_id is None:
        # Padding is masked out by attention and targets, so any id works; EOS is customary.
        tok.pad_token = tok.eos_token if tok.eos_token is not None else tok.unk_token
    return tok


def save_prm(model: ProcessRewardModel, tokenizer: Any, fmt: StepFormat, directory: Path) -> None:
    """Write a self-contained checkpoint directory (see module docstring)."""
    directory.mkdir(parents=True, exist_ok=True)
    model.backbone.save_pretrained(directory / "backbone")
    tokenizer.save_pretrained(directory / "backbone")
    torch.save(model.head.state_dict(), directory / "head.pt")
    fmt.save(directory)


def is_checkpoint(path: str | Path) -> bool:
    return str(path) != "" and Path(path, FORMAT_FILE).expanduser().exists()


def load_prm(
    directory: str | Path, dtype: torch.dtype = torch.float32
) -> tuple[ProcessRewardModel, Any, StepFormat]:
    """(model in eval mode, tokenizer, format) from a directory written by `save_prm`."""
    directory = Path(directory).expanduser()
    fmt = StepFormat.load(directory)
    model = ProcessRewardModel(load_backbone(directory / "backbone", dtype), fmt.head)
    model.head.load_state_dict(torch.load(directory / "head.pt", weights_only=True))
    return model.eval(), load_tokenizer(directory / "backbone"), fmt


def build_tiny_model(
    directory: str | Path, texts: list[str], hidden: int = 64, layers: int = 2, seed: int = 0
) -> Path:
    """A random tiny Llama + word-level tokenizer trained on `texts`, saved as an HF directory.

    For tests, benchmarks and smoke runs only (nothing is downloaded); it learns, slowly.
    """
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    raw = Tokenizer(models.WordLevel(unk_token="<unk>"))
    # Whitespace runs are tokens of their own, so a "\n\n" separator is a real token.
    raw.pre_tokenizer = pre_tokenizers.Split(Regex(r"\s+|\w+|[^\w\s]"), behavior="isolated")
    specials = ["<unk>", "<pad>", "<s>", "</s>"]
    raw.train_from_iterator(texts, trainers.WordLevelTrainer(special_tokens=specials))
    tok = PreTrainedTokenizerFast(
        tokenizer_object=raw,
        unk_token="<unk>",
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="</s>",
    )
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    directory = Path(directory)
    LlamaForCausalLM(config).save_pretrained(directory)
    tok.save_pretrained(directory)
    return directory
