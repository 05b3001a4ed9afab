"""Structured config of `prm-train`, registered in Hydra's ConfigStore as `train_schema`.

`conf/train.yaml` only overrides these defaults. Every field carries its help text in
`metadata["help"]`, so a typo or a wrong type fails when Hydra composes the config, not an
hour into a run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from hydra.core.config_store import ConfigStore

from labeling import registry
from labeling.schema import LEGACY_TRAIN_SOURCES


def _target_columns() -> list[str]:
    """Columns a PRM can train on: the policy's `labels`, every registered source's labels
    and scores columns (labeling/registry.py), and their old names (labeling/schema.py)."""
    own = [c for s in registry.specs() for c in (s.labels_column, s.scores_column) if c]
    return ["labels", *own, *LEGACY_TRAIN_SOURCES]


# Shard column the step targets come from (str-valued: compares equal to its name).
LabelSource = StrEnum("LabelSource", [(c, c) for c in _target_columns()])  # type: ignore[misc]
LABEL_SOURCES = tuple(s.value for s in LabelSource)


class ExportFormat(StrEnum):
    """Checkpoint layout trained and written (see pipelines.train.export)."""

    causal_lm = "causal_lm"
    qwen2_prm = "qwen2_prm"


class Schedule(StrEnum):
    cosine = "cosine"
    linear = "linear"
    constant = "constant"


class Bf16Mode(StrEnum):
    auto = "auto"
    on = "on"
    off = "off"


def _help(text: str) -> dict[str, str]:
    return {"help": text}


@dataclass
class PRMModelConfig:
    path: str = field(
        default="",
        metadata=_help(
            "Local HF directory of the causal-LM backbone, or a PRM checkpoint to fine-tune; "
            '"" = the embedded SmolLM2-135M-Instruct (prepared on demand by prm-prepare-model).'
        ),
    )
    prompt_template: str = field(
        default="{prompt}\n\n",
        metadata=_help("How the problem prompt is written before the first step ({prompt})."),
    )
    step_template: str = field(
        default="{step}",
        metadata=_help("How each step is written ({step}); the step tag token follows it."),
    )
    max_length: int = field(
        default=1024, metadata=_help("Maximum tokens per chain; steps cut off are not scored.")
    )
    max_prompt_length: int = field(
        default=512, metadata=_help("Prompt tokens kept (from the end) before the steps.")
    )


@dataclass
class PRMDataConfig:
    shards: list[str] = field(
        default_factory=list,
        metadata=_help("Directories written by prm-label (each with shards/*.parquet) or files."),
    )
    domains: list[str] = field(
        default_factory=list, metadata=_help("Keep only these domains (math, code); empty = all.")
    )
    label_source: LabelSource = field(
        default=LabelSource.labels,
        metadata=_help(
            "Column the targets come from: labels (combined, hard), a source's <name>_labels "
            "(hard: answer, calc, tests, judge, mc (its threshold and confirm rule), human) "
            "or <name>_scores (soft, soft cross-entropy: mc_scores, judge_scores). Old names "
            "(mc_hard, test_labels, outcome_labels) read today's columns."
        ),
    )
    min_rollouts: int = field(
        default=0,
        metadata=_help("Mask steps measured with fewer MC rollouts than this (0 = no filter)."),
    )
    consensus_only: bool = field(
        default=False,
        metadata=_help("Keep only chains whose sources agree on the first wrong step."),
    )
    val_fraction: float = field(
        default=0.1, metadata=_help("Share of problems (not chains) held out for validation.")
    )
    val_max_chains: int = field(
        default=512, metadata=_help("Cap on validation chains scored at each evaluation.")
    )
    shuffle_buffer: int = field(
        default=1024, metadata=_help("Rows held in memory for the streaming shuffle.")
    )
    read_batch_rows: int = field(
        default=256, metadata=_help("Rows read from Parquet at a time (bounds memory).")
    )


@dataclass
class OptimConfig:
    lr: float = field(default=2e-5, metadata=_help("Peak AdamW learning rate."))
    head_lr: float = field(
        default=0.0,
        metadata=_help("qwen2_prm: learning rate of the fresh score head (0 = same as lr)."),
    )
    weight_decay: float = field(default=0.0, metadata=_help("AdamW weight decay."))
    warmup_steps: int = field(default=10, metadata=_help("Linear warm-up, optimizer steps."))
    schedule: Schedule = field(
        default=Schedule.cosine, metadata=_help("Decay after warm-up: cosine, linear or constant.")
    )
    max_grad_norm: float = field(
        default=1.0, metadata=_help("Gradient clipping norm (0 = no clipping).")
    )


@dataclass
class TrainLoopConfig:
    max_steps: int = field(default=100, metadata=_help("Optimizer steps to train for."))
    batch_size: int = field(default=4, metadata=_help("Chains per micro-batch per worker."))
    grad_accum: int = field(default=1, metadata=_help("Micro-batches per optimizer step."))
    bf16: Bf16Mode = field(
        default=Bf16Mode.auto,
        metadata=_help("bf16 autocast: auto (on where the device supports it), on, off."),
    )
    seed: int = field(default=0, metadata=_help("Seed for init, shuffling and the val split."))
    log_every: int = field(default=1, metadata=_help("Log training metrics every N steps."))
    eval_every: int = field(
        default=50, metadata=_help("Validate every N steps (0 = only at the end).")
    )
    save_every: int = field(
        default=50, metadata=_help("Checkpoint every N steps (0 = only at the end).")
    )
    save_total_limit: int = field(
        default=2, metadata=_help("Checkpoints kept in output_dir/checkpoints (oldest go first).")
    )
    resume: str = field(
        default="auto",
        metadata=_help("auto (latest checkpoint in output_dir), none, or a checkpoint path."),
    )
    workers: int = field(default=1, metadata=_help("Data-parallel Ray Train workers."))
    use_gpu: bool = field(default=False, metadata=_help("One GPU per Ray Train worker."))
    cpus_per_worker: int = field(default=1, metadata=_help("CPUs Ray reserves per worker."))
    use_ray: bool = field(
        default=False,
        metadata=_help("Run through Ray Train even with workers=1 (workers>1 always does)."),
    )
    torch_threads: int = field(
        default=0, metadata=_help("torch.set_num_threads per worker (0 = torch's default).")
    )


@dataclass
class RayClusterConfig:
    address: str | None = field(
        default=None, metadata=_help("Ray cluster address; unset = start a local Ray.")
    )
    num_cpus: int | None = field(
        default=None, metadata=_help("CPUs of the local Ray (unset = workers*cpus_per_worker).")
    )


@dataclass
class ExportConfig:
    format: ExportFormat = field(
        default=ExportFormat.causal_lm,
        metadata=_help(
            "Layout trained and written, so nothing is converted afterwards: causal_lm "
            "(Math-Shepherd style, any decoder: next-token logits of two label tokens at the "
            "step tag) or qwen2_prm (Qwen2.5-Math-PRM style, Qwen2 backbones only)."
        ),
    )
    step_tag: str = field(
        default="<extra_0>",
        metadata=_help("Token appended after every step; scores are read there (added if new)."),
    )
    label_tokens: list[str] = field(
        default_factory=lambda: ["<extra_1>", "<extra_2>"],
        metadata=_help("causal_lm: (bad, good) tokens whose logits score a step (added if new)."),
    )


@dataclass
class TrainAppConfig:
    model: PRMModelConfig = field(
        default_factory=PRMModelConfig, metadata=_help("Backbone and text format.")
    )
    data: PRMDataConfig = field(
        default_factory=PRMDataConfig, metadata=_help("Shards, label source and filters.")
    )
    optim: OptimConfig = field(default_factory=OptimConfig, metadata=_help("AdamW and schedule."))
    train: TrainLoopConfig = field(
        default_factory=TrainLoopConfig, metadata=_help("Loop, checkpoints and workers.")
    )
    ray: RayClusterConfig = field(
        default_factory=RayClusterConfig, metadata=_help("Ray cluster for workers > 1.")
    )
    export: ExportConfig = field(
        default_factory=ExportConfig, metadata=_help("Checkpoint format (vLLM/transformers).")
    )
    output_dir: str = field(
        default="outputs/prm", metadata=_help("Checkpoints, metrics.jsonl and final/ go here.")
    )


def register() -> None:
    """Register the schema (idempotent); called by the entry point, not at import."""
    ConfigStore.instance().store(name="train_schema", node=TrainAppConfig)
