"""Structured config of `prm-train`, registered in Hydra's ConfigStore as `train_schema`.

`conf/train.yaml` only overrides these defaults. Every field carries its help text in
`metadata["help"]`, so a typo or a wrong type fails when Hydra composes the config, not an
hour into a run.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import OmegaConf

from labeling import registry
from pipelines.checkpoint.format import ExportFormat
from pipelines.cli import ConfigError
from pipelines.config_fields import ROWS, SPEED, check_fields, option


def _target_columns() -> list[str]:
    """Columns a PRM can train on: the policy's `labels` and every registered source's labels
    and scores columns (labeling/registry.py)."""
    own = [c for s in registry.specs() for c in (s.labels_column, s.scores_column) if c]
    return ["labels", *own]


# Shard column the step targets come from (str-valued: compares equal to its name).
LabelSource = StrEnum("LabelSource", [(c, c) for c in _target_columns()])  # type: ignore[misc]
LABEL_SOURCES = tuple(s.value for s in LabelSource)


class Schedule(StrEnum):
    cosine = "cosine"
    linear = "linear"
    constant = "constant"


class Bf16Mode(StrEnum):
    auto = "auto"
    on = "on"
    off = "off"


@dataclass
class PRMModelConfig:
    path: str = option(
        "", "Local HF directory of the causal-LM backbone, or a PRM checkpoint to fine-tune; "
        '"" = the embedded SmolLM2-135M-Instruct (prepared on demand by prm-prepare-model).', ROWS
    )
    prompt_template: str = option(
        "{prompt}\n\n", "How the problem prompt is written before the first step ({prompt}).",
        ROWS,
    )
    step_template: str = option(
        "{step}", "How each step is written ({step}); the step tag token follows it.", ROWS
    )
    max_length: int = option(
        1024, "Maximum tokens per chain; steps cut off are not scored.", ROWS, gt=0
    )
    max_prompt_length: int = option(
        512, "Prompt tokens kept (from the end) before the steps.", ROWS, gt=0
    )


@dataclass
class PRMDataConfig:
    shards: list[str] = option(
        factory=list,
        help="Directories written by prm-label (each with shards/*.parquet) or files.",
        affects=ROWS,
    )
    domains: list[str] = option(
        factory=list, help="Keep only these domains (math, code); empty = all.", affects=ROWS
    )
    label_source: LabelSource = option(
        LabelSource.labels,
        "Column the targets come from: labels (combined, hard), a source's <name>_labels "
        "(hard: answer, calc, tests, judge, mc (its threshold and confirm rule), human) "
        "or <name>_scores (soft, soft cross-entropy: mc_scores, judge_scores).", ROWS
    )
    min_rollouts: int = option(
        0, "Mask steps measured with fewer MC rollouts than this (0 = no filter).", ROWS, ge=0
    )
    consensus_only: bool = option(
        False, "Keep only chains whose sources agree on the first wrong step.", ROWS
    )
    val_fraction: float = option(
        0.1, "Share of problems (not chains) held out for validation.", ROWS, ge=0, lt=1
    )
    val_max_chains: int = option(
        512, "Cap on validation chains scored at each evaluation.", ROWS, ge=0
    )
    shuffle_buffer: int = option(
        1024, "Rows held in memory for the streaming shuffle.", ROWS, ge=0
    )
    # Rows are taken one at a time from each batch read: the batch size changes no order.
    read_batch_rows: int = option(
        256, "Rows read from Parquet at a time (bounds memory).", SPEED, gt=0
    )


@dataclass
class OptimConfig:
    lr: float = option(2e-5, "Peak AdamW learning rate.", ROWS, gt=0)
    head_lr: float = option(
        0.0, "qwen2_prm: learning rate of the fresh score head (0 = same as lr).", ROWS, ge=0
    )
    weight_decay: float = option(0.0, "AdamW weight decay.", ROWS, ge=0)
    warmup_steps: int = option(10, "Linear warm-up, optimizer steps.", ROWS, ge=0)
    schedule: Schedule = option(
        Schedule.cosine, "Decay after warm-up: cosine, linear or constant.", ROWS
    )
    max_grad_norm: float = option(1.0, "Gradient clipping norm (0 = no clipping).", ROWS, ge=0)


@dataclass
class TrainLoopConfig:
    max_steps: int = option(100, "Optimizer steps to train for.", ROWS, gt=0)
    batch_size: int = option(4, "Chains per micro-batch per worker.", ROWS, ge=1)
    grad_accum: int = option(2, "Micro-batches per optimizer step.", ROWS, ge=1)
    tokens_per_batch: int = option(
        0, "Token budget of a micro-batch: as many chains as fit, packed end to end into one "
        "row of exactly this many tokens (no padding between chains, attention kept within "
        "each chain; padded batches within the budget where the model's attention cannot); "
        "0 = batch_size chains padded to the longest. At least model.max_length.", ROWS, ge=0
    )
    gradient_checkpointing: bool = option(
        False, "Recompute activations during backward: less memory for large models, about a "
        "third more compute.", SPEED
    )
    bf16: Bf16Mode = option(
        Bf16Mode.auto, "bf16 autocast: auto (on where the device supports it), on, off.", ROWS
    )
    seed: int = option(0, "Seed for init, shuffling and the val split.", ROWS)
    log_every: int = option(1, "Log training metrics every N steps.", SPEED, ge=0)
    eval_every: int = option(50, "Validate every N steps (0 = only at the end).", ROWS, ge=0)
    save_every: int = option(50, "Checkpoint every N steps (0 = only at the end).", SPEED, ge=0)
    save_total_limit: int = option(
        2, "Checkpoints kept in output.dir/checkpoints (oldest go first).", SPEED, ge=0
    )
    resume: str = option(
        "auto", "auto (latest checkpoint in output.dir), none, or a checkpoint path.", SPEED
    )
    workers: int = option(1, "Data-parallel Ray Train workers.", ROWS, ge=1)
    use_gpu: bool = option(False, "One GPU per Ray Train worker.", ROWS)
    cpus_per_worker: int = option(1, "CPUs Ray reserves per worker.", SPEED, gt=0)
    use_ray: bool = option(
        False, "Run through Ray Train even with workers=1 (workers>1 always does).", SPEED
    )
    torch_threads: int = option(
        0, "torch.set_num_threads per worker (0 = torch's default).", SPEED, ge=0
    )


@dataclass
class RayClusterConfig:
    address: str | None = option(None, "Ray cluster address; unset = start a local Ray.", SPEED)
    num_cpus: int | None = option(
        None, "CPUs of the local Ray (unset = workers*cpus_per_worker).", SPEED, gt=0
    )


@dataclass
class ExportConfig:
    format: ExportFormat = option(
        ExportFormat.causal_lm,
        "Layout trained and written, so nothing is converted afterwards: causal_lm "
        "(Math-Shepherd style, any decoder: next-token logits of two label tokens at the "
        "step tag) or qwen2_prm (Qwen2.5-Math-PRM style, Qwen2 backbones only).", ROWS
    )
    step_tag: str = option(
        "<extra_0>", "Token appended after every step; scores are read there (added if new).",
        ROWS,
    )
    label_tokens: list[str] = option(
        factory=lambda: ["<extra_1>", "<extra_2>"],
        help="causal_lm: (bad, good) tokens whose logits score a step (added if new).",
        affects=ROWS,
    )


@dataclass
class TrainOutputConfig:
    dir: str = option(
        "outputs/prm", "Checkpoints, metrics.jsonl and final/ go here.", SPEED
    )


@dataclass
class TrainAppConfig:
    model: PRMModelConfig = option(factory=PRMModelConfig, help="Backbone and text format.")
    data: PRMDataConfig = option(factory=PRMDataConfig, help="Shards, label source and filters.")
    optim: OptimConfig = option(factory=OptimConfig, help="AdamW and schedule.")
    train: TrainLoopConfig = option(factory=TrainLoopConfig, help="Loop, checkpoints and workers.")
    ray: RayClusterConfig = option(factory=RayClusterConfig, help="Ray cluster for workers > 1.")
    export: ExportConfig = option(
        factory=ExportConfig, help="Checkpoint format (vLLM/transformers)."
    )
    output: TrainOutputConfig = option(factory=TrainOutputConfig, help="Where the run writes.")




def register() -> None:
    """Register the schema (idempotent); called by the entry point, not at import."""
    ConfigStore.instance().store(name="train_schema", node=TrainAppConfig)


def to_config(cfg: Any) -> TrainAppConfig:
    """A typed TrainAppConfig from a dataclass, DictConfig or plain dict, every value in its
    field's range and the fields that span several checked (`ConfigError`, one sentence)."""
    merged = OmegaConf.merge(OmegaConf.structured(TrainAppConfig), cfg)
    out: TrainAppConfig = OmegaConf.to_object(merged)  # type: ignore[assignment]
    check_fields(out)
    if "{prompt}" not in out.model.prompt_template or "{step}" not in out.model.step_template:
        raise ConfigError("model.prompt_template needs {prompt} and model.step_template {step}")
    if out.optim.warmup_steps > out.train.max_steps:
        raise ConfigError(
            f"optim.warmup_steps={out.optim.warmup_steps} is above train.max_steps="
            f"{out.train.max_steps}: the learning rate would never reach optim.lr; lower "
            "optim.warmup_steps"
        )
    budget = out.train.tokens_per_batch
    if 0 < budget < out.model.max_length:
        raise ConfigError(
            f"train.tokens_per_batch={budget} is below model.max_length={out.model.max_length}: "
            "the longest chain would fit no batch; raise it or set 0 (padded batches)"
        )
    tokens = out.export.label_tokens
    if len(tokens) != 2 or len({*tokens, out.export.step_tag}) != 3:
        raise ConfigError(
            "export.label_tokens must be two distinct tokens (bad, good), neither the step tag"
        )
    return out
