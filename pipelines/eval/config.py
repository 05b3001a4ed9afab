"""Structured config of `prm-eval`, registered in Hydra's ConfigStore as `eval_schema`.

`conf/eval.yaml` only overrides these defaults. Every field carries its help text, what it
affects and its range (`pipelines.config_fields`); a wrong key or type fails when Hydra
composes the config, a value out of range when the app starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from hydra.core.config_store import ConfigStore

from labeling.prm.search import Aggregation
from pipelines.checkpoint.format import ExportFormat
from pipelines.config_fields import ROWS, SPEED, option


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
SUBSETS = tuple(s.value for s in Subset)


@dataclass
class CheckpointEvalConfig:
    checkpoint: str = option(
        "", "PRM checkpoint: a prm-train directory (e.g. outputs/prm/final), a "
        "Qwen2.5-Math-PRM- or Math-Shepherd-style directory, or a hub id (clusters).", ROWS
    )
    style: CheckpointStyle = option(
        CheckpointStyle.auto,
        "auto: the checkpoint's prm_format.json, else qwen2_prm when config.json names "
        "Qwen2ForProcessRewardModel, else causal_lm with Math-Shepherd's conventions.", ROWS
    )
    step_tag: str | None = option(
        None, "Step tag token (unset: from the checkpoint; <extra_0> / ки by style).", ROWS
    )
    label_tokens: list[str] | None = option(
        None, "causal_lm: (bad, good) tokens (unset: from the checkpoint; [-, +]).", ROWS
    )
    prompt_template: str | None = option(
        None, "How the problem is written ({prompt}); unset: by style.", ROWS
    )
    step_template: str | None = option(
        None, "How each step is written ({step}); unset: by style.", ROWS
    )
    max_length: int | None = option(
        None, "Tokens per chain scored (unset: from the checkpoint).", ROWS, gt=0
    )
    processbench: list[str] = option(
        factory=list, help="ProcessBench *.json files (the test side).", affects=ROWS
    )
    processbench_dev: list[str] = option(
        factory=list, help="Files to choose the threshold on; [] = split `processbench` by id.",
        affects=ROWS,
    )
    dev_fraction: float = option(
        0.3, "Share of `processbench` ids used to choose the threshold when no dev files are "
        "given (hash of the id, so a record never lands on both sides).", ROWS, ge=0, lt=1
    )
    threshold: float | None = option(
        None, "Fixed threshold: skip choosing it (e.g. 0.5).", ROWS, ge=0, le=1
    )
    max_records: int | None = option(
        None, "Read at most this many records per file (smoke runs).", ROWS, gt=0
    )
    bon_shards: list[str] = option(
        factory=list, help="Shard dirs with several chains per problem.", affects=ROWS
    )
    aggregations: list[Aggregation] = option(
        factory=lambda: [Aggregation.min, Aggregation.prod, Aggregation.last],
        help="Best-of-N: how step scores become a chain score (min, prod, last, mean).",
        affects=ROWS,
    )
    batch_size: int = option(16, "Chains per forward pass.", SPEED, gt=0)
    device: Device = option(Device.cpu, "Where the PRM runs: cpu or cuda.", SPEED)


@dataclass
class EvalOutputConfig:
    dir: str = option("outputs/eval", "metrics.json (and examples.json) go here.", SPEED)


@dataclass
class EvalConfig:
    mode: Mode = option(
        Mode.labels, "labels: score Parquet shards written by prm-label against human_first_error; "
        "direct: run label sources straight on ProcessBench json (no shards); "
        "checkpoint: ProcessBench F1 and best-of-N of a PRM checkpoint.", ROWS
    )
    labels_dir: str = option(
        "", "mode=labels: directory searched recursively for *.parquet.", ROWS
    )
    dataset_dir: str = option(
        "", "mode=direct: directory holding ProcessBench <subset>.json files.", ROWS
    )
    subsets: list[Subset] = option(
        factory=lambda: list(Subset),
        help="mode=direct: which <subset>.json files to read (missing ones fail).",
        affects=ROWS,
    )
    sources: list[DirectSource] = option(
        factory=lambda: [DirectSource.calc],
        help="mode=direct: label sources to run; only `calc` needs no reference.",
        affects=ROWS,
    )
    limit: int | None = option(
        None, "mode=direct: read at most this many records per subset.", ROWS, gt=0
    )
    workers: int = option(1, "mode=direct: processes checking chains in parallel.", SPEED, gt=0)
    calc_timeout_s: float = option(
        2.0, "CPU-time bound of one sympy claim check (calc source).", ROWS, gt=0
    )
    output: EvalOutputConfig = option(factory=EvalOutputConfig, help="Where metrics go.")
    examples: int = option(
        0, "mode=direct: also write this many false flags and hits to examples.json.", ROWS, ge=0
    )
    checkpoint: CheckpointEvalConfig = option(
        factory=CheckpointEvalConfig,
        help="mode=checkpoint: PRM checkpoint, ProcessBench files, best-of-N shards."
    )




def register() -> None:
    ConfigStore.instance().store(name="eval_schema", node=EvalConfig)


__all__ = ["MODES", "SUBSETS", "EvalConfig", "register"]
