"""Structured config of `prm-eval`, registered in Hydra's ConfigStore as `eval_schema`.

`conf/eval.yaml` only overrides these defaults. Every field carries its help text in
`metadata["help"]`; a wrong key or type fails when Hydra composes the config.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hydra.core.config_store import ConfigStore

MODES = ("labels", "direct")
SUBSETS = ("gsm8k", "math", "olympiadbench", "omnimath")


def _help(text: str) -> dict[str, str]:
    return {"help": text}


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


def register() -> None:
    ConfigStore.instance().store(name="eval_schema", node=EvalConfig)


__all__ = ["MODES", "SUBSETS", "EvalConfig", "register"]
