"""What changed between two versions of a labeled dataset (`prm-report ... diff=<old>`):
chains added and removed by (problem_id, chain_id), step-label transitions, count and token
deltas, lineage. Lazy polars like `labeling.report.stats`; the joins hold one entry per key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from labeling.report.stats import KEYS, scan_dataset
from labeling.shards import STREAM


def label_transitions(both: pl.LazyFrame) -> pl.DataFrame:
    """Steps per (old label, new label) over chains in both versions (columns `labels`,
    `labels_old`); a step only one version has counts against null on the other side."""
    n = pl.max_horizontal(pl.col("labels").list.len(), pl.col("labels_old").list.len())
    return (
        both.select("labels", "labels_old", pl.int_ranges(n).alias("step"))
        .explode("step")
        .drop_nulls("step")
        .select(
            pl.col("labels_old").list.get(pl.col("step"), null_on_oob=True).alias("old"),
            pl.col("labels").list.get(pl.col("step"), null_on_oob=True).alias("new"),
        )
        .group_by("old", "new")
        .len("steps")
        .sort("old", "new", nulls_last=True)
        .collect(engine=STREAM)
    )


def _delta(new: dict[str, Any], old: dict[str, Any]) -> pl.DataFrame:
    rows = [{"key": k, "old": old.get(k), "new": new.get(k)} for k in sorted({*new, *old})]
    df = pl.DataFrame(rows, schema={"key": pl.String, "old": pl.Int64, "new": pl.Int64})
    return df.with_columns((pl.col("new").fill_null(0) - pl.col("old").fill_null(0)).alias("delta"))


def diff_stats(new_root: str | Path, old_root: str | Path, examples: int = 10) -> dict[str, Any]:
    """What changed from the dataset at `old_root` to the one at `new_root`: chains added and
    removed (by problem_id, chain_id), label changes of chains in both, manifest count and
    token deltas, and whether the new version's lineage names the old one. The joins hold
    one entry per chain key (ids and labels only, never the text)."""
    new_lf, _, new_m = scan_dataset(new_root)
    old_lf, _, old_m = scan_dataset(old_root)
    cols = [*KEYS, "source_dataset", "labels", "first_error_step"]
    new, old = new_lf.select(cols), old_lf.select(cols)
    added = new.join(old.select(KEYS), on=KEYS, how="anti")
    removed = old.join(new.select(KEYS), on=KEYS, how="anti")
    both = new.join(old.drop("source_dataset"), on=KEYS, how="inner", suffix="_old")
    changed = pl.col("labels").ne_missing(pl.col("labels_old"))
    moved = pl.col("first_error_step") != pl.col("first_error_step_old")
    tally = both.select(
        pl.len().alias("both"), changed.sum().alias("labels_changed"),
        moved.sum().alias("first_error_moved"),
    ).collect(engine=STREAM).row(0, named=True)  # fmt: skip
    per = (
        pl.concat([
            added.group_by("source_dataset").agg(pl.len().alias("added")),
            removed.group_by("source_dataset").agg(pl.len().alias("removed")),
        ], how="diagonal")
        .group_by("source_dataset")
        .agg(pl.col("added", "removed").sum())
        .sort("source_dataset")
        .collect(engine=STREAM)
    )  # fmt: skip
    sample_cols = [*KEYS, "source_dataset"]

    def first(lf: pl.LazyFrame, *extra: str) -> pl.DataFrame:
        # sort + head becomes a bounded top-k: deterministic examples without a full sort
        return lf.select(*sample_cols, *extra).sort(KEYS).head(examples).collect(engine=STREAM)

    lineage = dict(new_m.get("lineage") or {})
    previous = lineage.get("previous")
    return {
        "new": str(new_root),
        "old": str(old_root),
        "added": int(per["added"].sum() or 0),
        "removed": int(per["removed"].sum() or 0),
        **{k: int(v or 0) for k, v in tally.items()},
        "by_dataset": per,
        "added_examples": first(added),
        "removed_examples": first(removed),
        "changed_examples": first(both.filter(changed), "first_error_step_old", "first_error_step"),
        "transitions": label_transitions(both),
        "counts": _delta(new_m.get("counts") or {}, old_m.get("counts") or {}),
        "tokens": _delta(new_m.get("tokens") or {}, old_m.get("tokens") or {}),
        "lineage": {
            "new_created_at": new_m.get("created_at"),
            "old_created_at": old_m.get("created_at"),
            "previous": previous,
            "previous_created_at": lineage.get("previous_manifest"),
            "previous_is_old": bool(previous)
            and Path(previous).resolve() == Path(old_root).resolve(),
            "units_reused": new_m.get("units_reused"),
            "new_config_hash": new_m.get("config_hash"),
            "old_config_hash": old_m.get("config_hash"),
        },
    }
