"""Structured config of `prm-report`, registered in Hydra's ConfigStore as `report_schema`.

`conf/report.yaml` only overrides these defaults. Every field carries its help text in
`metadata["help"]`; a wrong key or type fails when Hydra composes the config.
"""

from __future__ import annotations

from dataclasses import dataclass

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from pipelines.cli import option


@dataclass
class ReportConfig:
    dir: str = option(MISSING, "A finished prm-label output directory (holding manifest.json).")
    diff: str = option(
        "",
        "An older version of the dataset to compare with: chains added/removed by "
        "(problem_id, chain_id), label changes, count deltas, lineage. Empty: no diff.",
    )
    out: str = option("", "Where the HTML page goes; empty: <dir>/report.html.")
    echo: bool = option(True, "Also print the tables to stdout.")
    top_reasons: int = option(20, "How many of the most frequent quarantine reasons to list.")
    max_position: int = option(20, "First-error positions at or beyond this share one bar.")
    mc_bins: int = option(10, "Bins of the MC score histogram on [0, 1].")
    examples: int = option(10, "diff: chains listed per kind of change (added, removed...).")


def register() -> None:
    ConfigStore.instance().store(name="report_schema", node=ReportConfig)


__all__ = ["ReportConfig", "register"]
