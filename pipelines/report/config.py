"""Structured config of `prm-report`, registered in Hydra's ConfigStore as `report_schema`.

`conf/report.yaml` only overrides these defaults. Every field carries its help text in
`metadata["help"]`; a wrong key or type fails when Hydra composes the config.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING


def _help(text: str) -> dict[str, str]:
    return {"help": text}


@dataclass
class ReportConfig:
    dir: str = field(
        default=MISSING,
        metadata=_help("A finished prm-label output directory (the one holding manifest.json)."),
    )
    diff: str = field(
        default="",
        metadata=_help(
            "An older version of the dataset to compare with: chains added/removed by "
            "(problem_id, chain_id), label changes, count deltas, lineage. Empty: no diff."
        ),
    )
    out: str = field(
        default="", metadata=_help("Where the HTML page goes; empty: <dir>/report.html.")
    )
    echo: bool = field(default=True, metadata=_help("Also print the tables to stdout."))
    top_reasons: int = field(
        default=20, metadata=_help("How many of the most frequent quarantine reasons to list.")
    )
    max_position: int = field(
        default=20,
        metadata=_help("First-error positions at or beyond this are pooled into one bar."),
    )
    mc_bins: int = field(default=10, metadata=_help("Bins of the MC score histogram on [0, 1]."))
    examples: int = field(
        default=10, metadata=_help("diff: chains listed per kind of change (added, removed...).")
    )


def register() -> None:
    ConfigStore.instance().store(name="report_schema", node=ReportConfig)


__all__ = ["ReportConfig", "register"]
