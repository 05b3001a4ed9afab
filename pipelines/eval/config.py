"""Structured config of `prm-eval`, registered in Hydra's ConfigStore as `eval_schema`.

`conf/eval.yaml` only overrides these defaults. Every field carries its help text in
`metadata["help"]`; a wrong key or type fails when Hydra composes the config.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from hydra.core.config_store import ConfigStore

from labeling.search import Aggregation
from pipelines.cli import option
from pipelines.train.config import ExportFormat


class Mode(StrEnum):
    labels = "labels"
    direct = "direct"
    checkpoint = "checkpoint"


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


# How a PRM checkpoint scores: `auto` (read it from the checkpoint) or one of the layouts
# prm-train writes (ExportFormat, the one list of checkpoint layouts).
CheckpointStyle = StrEnum(  # type: ignore[misc]
    "CheckpointStyle", [("auto", "auto"), *((f.value, f.value) for f in ExportFormat)]
)


MODES = tuple(m.value for m in Mode)
AGGREGATIONS = tuple(a.value for a in Aggregation)
SUBSETS = tuple(s.value for s in Subset)


@dataclass
class CheckpointEvalConfig:
    checkpoint: str = option(
        "", "PRM checkpoint: a prm-train directory (e.g. outputs/prm/final), a "
        "Qwen2.5-Math-PRM- or Math-Shepherd-style directory, or a hub id (clusters)."
    )
    style: CheckpointStyle = option(
        CheckpointStyle.auto,
        "auto: the checkpoint's prm_format.json, else qwen2_prm when config.json names "
        "Qwen2ForProcessRewardModel, else causal_lm with Math-Shepherd's conventions."
    )
    step_tag: str | None = option(
        None, "Step tag token (unset: from the checkpoint; <extra_0> / ки by style)."
    )
    label_tokens: list[str] | None = option(
        None, "causal_lm: (bad, good) tokens (unset: from the checkpoint; [-, +])."
    )
    prompt_template: str | None = option(
        None, "How the problem is written ({prompt}); unset: by style."
    )
    step_template: str | None = option(None, "How each step is written ({step}); unset: by style.")
    max_length: int | None = option(None, "Tokens per chain scored (unset: from the checkpoint).")
    processbench: list[str] = option(
        factory=list, help="ProcessBench *.json files (the test side)."
    )
    processbench_dev: list[str] = option(
        factory=list, help="Files to choose the threshold on; [] = split `processbench` by id."
    )
    dev_fraction: float = option(
        0.3, "Share of `processbench` ids used to choose the threshold when no dev files are "
        "given (hash of the id, so a record never lands on both sides)."
    )
    threshold: float | None = option(None, "Fixed threshold: skip choosing it (e.g. 0.5).")
    max_records: int | None = option(None, "Read at most this many records per file (smoke runs).")
    bon_shards: list[str] = option(
        factory=list, help="Shard dirs with several chains per problem."
    )
    aggregations: list[Aggregation] = option(
        factory=lambda: [Aggregation.min, Aggregation.prod, Aggregation.last],
        help="Best-of-N: how step scores become a chain score (min, prod, last, mean)."
    )
    batch_size: int = option(16, "Chains per forward pass.")
    device: Device = option(Device.cpu, "Where the PRM runs: cpu or cuda.")
    output_dir: str = option(
        "outputs/eval_checkpoint",
        "metrics.json goes here (prm-eval sets it from the top-level output_dir).",
    )


@dataclass
class EvalConfig:
    mode: Mode = option(
        Mode.labels, "labels: score Parquet shards written by prm-label against human_first_error; "
        "direct: run label sources straight on ProcessBench json (no shards); "
        "checkpoint: ProcessBench F1 and best-of-N of a PRM checkpoint."
    )
    labels_dir: str = option("", "mode=labels: directory searched recursively for *.parquet.")
    dataset_dir: str = option(
        "", "mode=direct: directory holding ProcessBench <subset>.json files."
    )
    subsets: list[Subset] = option(
        factory=lambda: list(Subset),
        help="mode=direct: which <subset>.json files to read (missing ones fail)."
    )
    sources: list[DirectSource] = option(
        factory=lambda: [DirectSource.calc],
        help="mode=direct: label sources to run; only `calc` needs no reference."
    )
    limit: int | None = option(None, "mode=direct: read at most this many records per subset.")
    workers: int = option(1, "mode=direct: processes checking chains in parallel.")
    calc_timeout_s: float = option(2.0, "Wall-clock bound of one sympy claim check (calc source).")
    output_dir: str = option("outputs/eval", "metrics.json is written here.")
    examples: int = option(
        0, "mode=direct: also write this many false flags and hits to examples.json."
    )
    checkpoint: CheckpointEvalConfig = option(
        factory=CheckpointEvalConfig,
        help="mode=checkpoint: PRM checkpoint, ProcessBench files, best-of-N shards."
    )


def register() -> None:
    ConfigStore.instance().store(name="eval_schema", node=EvalConfig)


__all__ = ["MODES", "SUBSETS", "EvalConfig", "register"]
