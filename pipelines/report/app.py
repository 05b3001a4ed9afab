"""`prm-report`: what is in a labeled dataset, as one HTML page and as tables on stdout.

    prm-report dir=runs/builtin_math                    # -> runs/builtin_math/report.html
    prm-report dir=runs/v2 diff=runs/v1                 # plus what changed since v1
    prm-report dir=runs/v2 output.dir=/tmp/v2 echo=false  # -> /tmp/v2/report.html

The statistics come from `labeling.report.stats` (lazy polars over the shards the manifest
lists, so a large dataset is aggregated in bounded memory); `pipelines.report.html` draws
them. `write_report` is what the label job calls when it finishes; `main()` only calls
`run(cfg)`, which tests call directly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
from omegaconf import DictConfig

from labeling.report.diff import diff_stats
from labeling.report.stats import dataset_stats
from labeling.shards import atomic_write_bytes
from pipelines.cli import HydraApp
from pipelines.config_fields import typed_config
from pipelines.report.config import REPORT, ReportConfig, register
from pipelines.report.html import (
    SECTIONS,
    quality_frame,
    render_page,
    run_facts,
    without_absent_human,
)


def write_report(
    dataset_dir: str | Path,
    out_html: str | Path | None = None,
    *,
    diff: str | Path | None = None,
    echo: bool = False,
    top_reasons: int = 20,
    max_position: int = 20,
    mc_bins: int = 10,
    examples: int = 10,
) -> Path:
    """Write the report of the finished dataset at `dataset_dir` to `out_html` (default
    `<dataset_dir>/report.html`, written atomically) and return its path. With `diff`, the
    page also compares against that older version. `echo` prints the tables to stdout.

    Raises FileNotFoundError when a directory has no manifest.json (an unfinished run).
    """
    stats = dataset_stats(dataset_dir, top_reasons, max_position, mc_bins)
    changes = diff_stats(dataset_dir, diff, examples) if diff else None
    out = Path(out_html) if out_html else Path(dataset_dir) / REPORT
    page = render_page(stats, changes, max_position)
    atomic_write_bytes(out, page.encode("utf-8"))
    if echo:
        print(format_text(stats, changes))
        print(f"prm-report: {out}")
    return out


def format_text(stats: dict[str, Any], diff: dict[str, Any] | None = None) -> str:
    """The report's tables as plain text, for terminals and logs."""
    parts = [f"== PRM label report: {stats['root']} =="]
    stats = without_absent_human(stats)
    tables = [
        ("counts", stats["by_dataset"]),
        ("labels", stats["labels"]),
        ("verdicts per status", stats["statuses"]),
        ("quality", quality_frame(stats["manifest"].get("quality") or {})),
        ("agreement", stats["agreement"]),
        ("first-error", stats["first_error"]),
        ("mc", stats["mc"].drop("bin")),
        ("cost", stats["cost"]),
        ("quarantine", stats["quarantine"].drop("example")),
    ]
    if diff is not None:
        tables += [
            ("diff: added/removed per dataset", diff["by_dataset"]),
            ("diff: step labels old -> new", diff["transitions"]),
            ("diff: manifest counts", diff["counts"]),
        ]
    with pl.Config(
        tbl_rows=-1, tbl_cols=-1, tbl_hide_dataframe_shape=True,
        tbl_hide_column_data_types=True, fmt_str_lengths=60, tbl_width_chars=160,
        tbl_formatting="ASCII_MARKDOWN", float_precision=3,
    ):  # fmt: skip
        for key, df in tables:
            title = SECTIONS.get(key, key)
            parts.append(f"\n-- {title} --\n" + (str(df) if df.height else "(none)"))
    if diff is not None:
        parts.append(
            f"\n-- diff: {diff['added']} chains new, {diff['removed']} gone, "
            f"{diff['labels_changed']} relabeled of {diff['both']} in both (the same text); "
            f"lineage previous={diff['lineage']['previous']!r} "
            f"(is the old dir: {diff['lineage']['previous_is_old']}) --"
        )
    facts = run_facts(stats["manifest"])
    parts.append(f"\n-- {SECTIONS['throughput']} --")
    parts += [f"{k:>34}: {v}" for k, v in facts.items()]
    return "\n".join(parts)


def run(cfg: DictConfig | ReportConfig) -> Path:
    """Write the report as configured; returns the page's path."""
    c: ReportConfig = typed_config(ReportConfig, cfg)
    page = Path(c.output.dir or c.dir) / c.output.name
    return write_report(
        c.dir, page, diff=c.diff or None, echo=c.echo, top_reasons=c.top_reasons,
        max_position=c.max_position, mc_bins=c.mc_bins, examples=c.examples,
    )  # fmt: skip


APP = HydraApp("prm-report", "report", ReportConfig, register, run, __doc__)


def main() -> None:
    APP.main()


if __name__ == "__main__":
    main()
