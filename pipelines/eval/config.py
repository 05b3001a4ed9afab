"""Structured config of `prm-eval`, registered in Hydra's ConfigStore as `eval_schema`.

`conf/eval.yaml` only overrides these defaults. Every field carries its help text in
`metadata["help"]`; a wrong key or type fails when Hydra composes the config.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from hydra.core.config_store import ConfigStore


class Mode(StrEnum):
    labels = "labels"
    direct = "direct"
    checkpoint = "checkpoint"


class Aggregation(StrEnum):
    """How a chain's step scores become one number for best-of-N."""

    min = "min"
    prod = "prod"
    last = "last"


class Subset(StrEnum):
    gsm8k = "gsm8k"
    math = "math"
    olympiadbench = "olympiadbench"
    omnimath = "omnimath"


class DirectSource(StrEnum):
    """Label sources mode=direct can run (ProcessBench has no references: only calc)."""

    calc = "calc"


class Device(StrEnum):
    cpu = "cpu"
    cuda = "cuda"


class CheckpointStyle(StrEnum):
    """How a PRM checkpoint scores (see pipelines.train.export)."""

    auto = "auto"
    causal_lm = "causal_lm"
    qwen2_prm = "qwen2_prm"


MODES = tuple(m.value for m in Mode)
AGGREGATIONS = tuple(a.value for a in Aggregation)
SUBSETS = tuple(s.value for s in Subset)


def _help(text: str) -> dict[str, str]:
    return {"help": text}


@dataclass
class CheckpointEvalConfig:
    checkpoint: str = field(
        default="",
        metadata=_help(
            "PRM checkpoint: a prm-train directory (e.g. outputs/prm/final), a "
            "Qwen2.5-Math-PRM- or Math-Shepherd-style directory, or a hub id (clusters)."
        ),
    )
    style: CheckpointStyle = field(
        default=CheckpointStyle.auto,
        metadata=_help(
            "auto: the checkpoint's prm_format.json, else qwen2_prm when config.json names "
            "Qwen2ForProcessRewardModel, else causal_lm with Math-Shepherd's conventions."
        ),
    )
    step_tag: str | None = field(
        default=None,
        metadata=_help("Step tag token (unset: from the checkpoint; <extra_0> / ки by style)."),
    )
    label_tokens: list[str] | None = field(
        default=None,
        metadata=_help("causal_lm: (bad, good) tokens (unset: from the checkpoint; [-, +])."),
    )
    prompt_template: str | None = field(
        default=None, metadata=_help("How the problem is written ({prompt}); unset: by style.")
    )
    step_template: str | None = field(
        default=None, metadata=_help("How each step is written ({step}); unset: by style.")
    )
    max_length: int | None = field(
        default=None, metadata=_help("Tokens per chain scored (unset: from the checkpoint).")
    )
    processbench: list[str] = field(
        default_factory=list, metadata=_help("ProcessBench *.json files (the test side).")
    )
    processbench_dev: list[str] = field(
        default_factory=list,
        metadata=_help("Files to choose the threshold on; [] = split `processbench` by id."),
    )
    dev_fraction: float = field(
        default=0.3,
        metadata=_help(
            "Share of `processbench` ids used to choose the threshold when no dev files are "
            "given (hash of the id, so a record never lands on both sides)."
        ),
    )
    threshold: float | None = field(
        default=None, metadata=_help("Fixed threshold: skip choosing it (e.g. 0.5).")
    )
    max_records: int | None = field(
        default=None, metadata=_help("Read at most this many records per file (smoke runs).")
    )
    bon_shards: list[str] = field(
        default_factory=list, metadata=_help("Shard dirs with several chains per problem.")
    )
    aggregations: list[Aggregation] = field(
        default_factory=lambda: list(Aggregation),
        metadata=_help("Best-of-N: how step scores become a chain score (min, prod, last)."),
    )
    batch_size: int = field(default=16, metadata=_help("Chains per forward pass."))
    device: Device = field(default=Device.cpu, metadata=_help("Where the PRM runs: cpu or cuda."))
    output_dir: str = field(
        default="outputs/eval_checkpoint",
        metadata=_help("metrics.json goes here (prm-eval sets it from the top-level output_dir)."),
    )


@dataclass
class EvalConfig:
    mode: Mode = field(
        default=Mode.labels,
        metadata=_help(
            "labels: score Parquet shards written by prm-label against human_first_error; "
            "direct: run label sources straight on ProcessBench json (no shards); "
            "checkpoint: ProcessBench F1 and best-of-N of a PRM checkpoint."
        ),
    )
    labels_dir: str = field(
        default="", metadata=_help("mode=labels: directory searched recursively for *.parquet.")
    )
    dataset_dir: str = field(
        default="",
        metadata=_help("mode=direct: directory holding ProcessBench <subset>.json files."),
    )
    subsets: list[Subset] = field(
        default_factory=lambda: list(Subset),
        metadata=_help("mode=direct: which <subset>.json files to read (missing ones fail)."),
    )
    sources: list[DirectSource] = field(
        default_factory=lambda: [DirectSource.calc],
        metadata=_help("mode=direct: label sources to run; only `calc` needs no reference."),
    )
    limit: int | None = field(
        default=None, metadata=_help("mode=direct: read at most this many records per subset.")
    )
    workers: int = field(
        default=1, metadata=_help("mode=direct: processes checking chains in parallel.")
    )
    calc_timeout_s: float = field(
        default=2.0, metadata=_help("Wall-clock bound of one sympy claim check (calc source).")
    )
    output_dir: str = field(default="outputs/eval", metadata=_help("metrics.json is written here."))
    examples: int = field(
        default=0,
        metadata=_help("mode=direct: also write this many false flags and hits to examples.json."),
    )
    checkpoint: CheckpointEvalConfig = field(
        default_factory=CheckpointEvalConfig,
        metadata=_help("mode=checkpoint: PRM checkpoint, ProcessBench files, best-of-N shards."),
    )


def register() -> None:
    ConfigStore.instance().store(name="eval_schema", node=EvalConfig)


__all__ = ["MODES", "SUBSETS", "EvalConfig", "register"]
