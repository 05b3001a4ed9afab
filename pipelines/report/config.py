"""Structured config of `prm-report`, registered in Hydra's ConfigStore as `report_schema`.

`conf/report.yaml` only overrides these defaults. Every field carries its help text, what it
affects and its range (`pipelines.config_fields`); a wrong key or type fails when Hydra
composes the config, a value out of range when the app starts.
"""

from __future__ import annotations

from dataclasses import dataclass

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from pipelines.config_fields import ROWS, SPEED, option

REPORT = "report.html"  # the page's name, in the dataset directory unless output.dir says


@dataclass
class ReportOutputConfig:
    dir: str = option("", "Where the page goes; empty: the dataset directory (`dir`).", SPEED)
    name: str = option(REPORT, "File name of the page.", SPEED)


@dataclass
class ReportConfig:
    dir: str = option(
        MISSING, "A finished prm-label output directory (holding manifest.json).", ROWS
    )
    diff: str = option(
        "",
        "An older version of the dataset to compare with: chains added/removed by "
        "(problem_id, chain_id), label changes, count deltas, lineage. Empty: no diff.",
        ROWS,
    )
    output: ReportOutputConfig = option(factory=ReportOutputConfig, help="Where the page goes.")
    echo: bool = option(True, "Also print the tables to stdout.", SPEED)
    top_reasons: int = option(
        20, "How many of the most frequent quarantine reasons to list.", ROWS, gt=0
    )
    max_position: int = option(
        20, "First-error positions at or beyond this share one bar.", ROWS, gt=0
    )
    mc_bins: int = option(10, "Bins of the MC score histogram on [0, 1].", ROWS, gt=0)
    examples: int = option(
        10, "diff: chains listed per kind of change (added, removed...).", ROWS, ge=0
    )


def register() -> None:
    ConfigStore.instance().store(name="report_schema", node=ReportConfig)


__all__ = ["REPORT", "ReportConfig", "register"]
