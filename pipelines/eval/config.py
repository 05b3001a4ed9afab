"""Structured config of `prm-eval`, registered in Hydra's ConfigStore as `eval_schema`.

`conf/eval.yaml` only overrides these defaults. Every field carries its help text in
`metadata["help"]`; a wrong key or type fails when Hydra composes the config.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hydra.core.config_store import ConfigStore

MODES = ("labels", "direct", "checkpoint")
AGGREGATIONS = ("min", "prod", "last")
SUBSETS = ("gsm8k", "math", "olympiadbench", "omnimath")


def _help(text: str) -> dict[str, str]:
    return {"help": text}


@dataclass
class CheckpointEvalConfig:
    checkpoint: str = ""  # PRM checkpoint directory written by prm-train (e.g. outputs/prm/final)
    processbench: list[str] = field(default_factory=list)  # ProcessBench *.json files (test side)
    processbench_dev: list[str] = field(default_factory=list)  # threshold files; [] = split above
    dev_fraction: float = 0.3  # share of `processbench` ids used to choose the threshold when
    # no dev files are given (hash of the id, so a record never lands on both sides)
    threshold: float | None = None  # fixed threshold: skip choosing it (e.g. 0.5)
    max_records: int | None = None  # read at most this many records per file (smoke runs)
    bon_shards: list[str] = field(default_factory=list)  # shard dirs, several chains per problem
    aggregations: list[str] = field(default_factory=lambda: list(AGGREGATIONS))  # step -> chain
    batch_size: int = 16  # chains per forward pass
    device: str = "cpu"  # cpu or cuda
    output_dir: str = "outputs/eval_checkpoint"  # metrics.json goes here


@dataclass
class EvalConfig:
    mode: str = field(
        default="labels",
        metadata=_help(
            "labels: score Parquet shards written by prm-label against human_first_error; "
            "direct: run label sources straight on ProcessBench json (no shards)."
        ),
    )
    labels_dir: str = field(
        default="", metadata=_help("mode=labels: directory searched recursively for *.parquet.")
    )
    dataset_dir: str = field(
        default="",
        metadata=_help("mode=direct: directory holding ProcessBench <subset>.json files."),
    )
    subsets: list[str] = field(
        default_factory=lambda: list(SUBSETS),
        metadata=_help("mode=direct: which <subset>.json files to read (missing ones fail)."),
    )
    sources: list[str] = field(
        default_factory=lambda: ["calc"],
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
