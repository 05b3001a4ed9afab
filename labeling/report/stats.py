"""Statistics of a labeled dataset, computed lazily with polars over its Parquet shards.

Every function takes LazyFrames scanned over the shards (`scan_dataset`) and returns a small,
already aggregated polars DataFrame or a plain dict: the raw rows are never collected whole,
so memory is bounded by the aggregates (per dataset, per source, per bin), not by the rows.
The two exceptions are said where they occur: `n_unique(problem_id)` and the diff's joins
hold one entry per key.

Sources that did not run have null columns; a null list yields null labels, so any subset of
sources (and an empty dataset) gives well-formed, possibly empty, tables. No Ray, no vLLM.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from labeling.report.coverage import source_coverage
from labeling.schema import QUARANTINE_SCHEMA, labeled_schema
from labeling.shards import MANIFEST, STREAM, read_shard

KEYS = ["problem_id", "chain_id"]
COMBINED, HUMAN = "combined", "human"  # the `labels` and `human_labels` columns


def scan_files(paths: list[Path], schema: pa.Schema) -> pl.LazyFrame:
    """A LazyFrame over `paths`; an empty frame with `schema` when there are none."""
    if not paths:
        return pl.from_arrow(schema.empty_table()).lazy()  # type: ignore[union-attr]
    first = pq.read_schema(paths[0]).names
    if any(pq.read_schema(p).names != first for p in paths[1:]):
        # Shards with different columns (datasets labeled by different sources, read together;
        # polars' scan wants one schema): read eagerly, columns promoted.
        tables = [read_shard(p) for p in paths]
        return pl.from_arrow(pa.concat_tables(tables, promote_options="default")).lazy()
    return pl.scan_parquet([str(p) for p in paths])


def read_manifest(root: str | Path) -> dict[str, Any]:
    path = Path(root) / MANIFEST
    if not path.exists():
        raise FileNotFoundError(
            f"no {MANIFEST} in {root}: not a finished prm-label output (run or resume the job)"
        )
    return json.loads(path.read_text())


def scan_dataset(root: str | Path) -> tuple[pl.LazyFrame, pl.LazyFrame, dict[str, Any]]:
    """(labeled rows, quarantined rows, manifest) of a finished dataset. Only the files the
    manifest lists are read: stale shards of an earlier, longer run are not part of it."""
    root = Path(root)
    manifest = read_manifest(root)
    shards = [root / s["path"] for s in manifest.get("shards", []) if s.get("path")]
    quar = [root / q["path"] for q in manifest.get("quarantine", []) if q.get("path")]
    return (scan_files(shards, labeled_schema()), scan_files(quar, QUARANTINE_SCHEMA),
            manifest)


def verdict_sources(lf: pl.LazyFrame) -> list[str]:
    """Names of the sources that left at least one verdict, sorted. Reviewer verdicts
    (`prm-audit`'s `human` entries) are left out: `human_labels` already holds them."""
    df = (
        lf.select(pl.col("verdicts").explode().struct.field("source").alias("source"))
        .drop_nulls()
        .unique()
        .collect(engine=STREAM)
    )
    return sorted(x for x in df["source"].to_list() if x not in (COMBINED, HUMAN))


def _col(name: str) -> str:
    """Column of a source in `step_frame`; prefixed so a source named like a column is safe."""
    return f"label:{name}"


def step_frame(lf: pl.LazyFrame, sources: list[str]) -> pl.LazyFrame:
    """One row per step: source_dataset, domain, step, mc_score and one Boolean column per
    label source (`label:combined`, `label:human`, `label:<verdict source>`), null where the
    source said nothing. Verdict labels are looked up per step inside the row, so this stays
    a row-local (streamable) explode, never a join."""
    pre = [
        pl.col("source_dataset"),
        pl.col("domain"),
        pl.col("labels").alias(_col(COMBINED)),
        pl.col("human_labels").alias(_col(HUMAN)),
        pl.col("mc_scores"),
        pl.int_ranges(pl.col("completions").list.len()).alias("step"),
    ]
    for i, src in enumerate(sources):
        mine = pl.element().filter(pl.element().struct.field("source") == pl.lit(src))
        pre.append(pl.col("verdicts").list.eval(mine.struct.field("step")).alias(f"_s{i}"))
        pre.append(pl.col("verdicts").list.eval(mine.struct.field("label")).alias(f"_l{i}"))
    steps = lf.select(pre).explode("step").with_columns(pl.col("step").cast(pl.Int32))
    post = [
        pl.col(_col(name)).list.get(pl.col("step"), null_on_oob=True).alias(_col(name))
        for name in (COMBINED, HUMAN)
    ]
    post.append(pl.col("mc_scores").list.get(pl.col("step"), null_on_oob=True).alias("mc_score"))
    for i, src in enumerate(sources):
        # Position of this step among the source's verdicts: where (verdict step - step) == 0.
        at = (pl.col(f"_s{i}") - pl.col("step")).list.eval(pl.element().abs()).list.arg_min()
        found = pl.col(f"_s{i}").list.contains(pl.col("step"))
        post.append(pl.when(found).then(pl.col(f"_l{i}").list.get(at)).alias(_col(src)))
    return steps.select(["source_dataset", "domain", "step", *post])


def label_sources(sources: list[str]) -> list[str]:
    """All label sources of a step frame, in display order."""
    return [COMBINED, HUMAN, *[s for s in sources if s not in (COMBINED, HUMAN)]]


def counts_by_dataset(lf: pl.LazyFrame) -> pl.DataFrame:
    """Per (source_dataset, domain): problems, chains, steps, labeled and wrong steps, chains
    with an error, outcome known/correct, how many models wrote the chains. The distinct
    counts hold one entry per problem id (model)."""
    labeled = pl.col("labels").list.drop_nulls()
    return (
        lf.group_by("source_dataset", "domain")
        .agg(
            pl.col("problem_id").n_unique().alias("problems"),
            pl.len().alias("chains"),
            pl.col("completions").list.len().sum().alias("steps"),
            labeled.list.len().sum().alias("labeled_steps"),
            labeled.list.eval(pl.element().not_()).list.sum().sum().alias("wrong_steps"),
            (pl.col("first_error_step") >= 0).sum().alias("chains_with_error"),
            pl.col("outcome_correct").is_not_null().sum().alias("outcome_known"),
            pl.col("outcome_correct").sum().alias("outcome_correct"),
            pl.col("model").n_unique().alias("models"),
        )
        .sort("source_dataset", "domain")
        .collect(engine=STREAM)
    )


def chain_origins(lf: pl.LazyFrame) -> pl.DataFrame:
    """Chains per (given, model): `given` when the chain came with the input (it has no
    sampler seed), else sampled by `model`; sampled first, then by count."""
    return (
        lf.group_by(pl.col("sampler_seed").is_null().alias("given"), "model")
        .agg(pl.len().cast(pl.Int64).alias("chains"))
        .sort(["given", "chains", "model"], descending=[False, True, False])
        .collect(engine=STREAM)
    )


def label_distribution(steps: pl.LazyFrame, sources: list[str]) -> pl.DataFrame:
    """Per label source: steps labeled True, False, and unlabeled (null)."""
    names = label_sources(sources)
    exprs = []
    for i, name in enumerate(names):
        c = pl.col(_col(name))
        exprs += [c.sum().alias(f"t{i}"), c.not_().sum().alias(f"f{i}"), pl.len().alias(f"n{i}")]
    row = steps.select(exprs).collect(engine=STREAM).row(0) if exprs else ()
    out = []
    for i, name in enumerate(names):
        t, f, n = (int(v or 0) for v in row[3 * i : 3 * i + 3])
        out.append({"source": name, "true": t, "false": f, "unlabeled": n - t - f, "steps": n})
    return pl.DataFrame(
        out,
        schema={"source": pl.String, "true": pl.Int64, "false": pl.Int64,
                "unlabeled": pl.Int64, "steps": pl.Int64},
    )  # fmt: skip


def agreement(steps: pl.LazyFrame, sources: list[str]) -> pl.DataFrame:
    """Per pair of label sources: steps both labeled (n), the fraction where they agree and
    Cohen's kappa (agreement beyond what the two label rates give by chance; null when
    undefined). Pairs with n == 0 are kept: "never overlapped" is worth seeing."""
    names = label_sources(sources)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    exprs = []
    for k, (a, b) in enumerate(pairs):
        x, y = pl.col(_col(a)), pl.col(_col(b))
        exprs += [(x & y).sum().alias(f"tt{k}"), (x & y.not_()).sum().alias(f"tf{k}"),
                  (x.not_() & y).sum().alias(f"ft{k}"),
                  (x.not_() & y.not_()).sum().alias(f"ff{k}")]  # fmt: skip
    row = steps.select(exprs).collect(engine=STREAM).row(0) if exprs else ()
    out = []
    for k, (a, b) in enumerate(pairs):
        tt, tf, ft, ff = (int(v or 0) for v in row[4 * k : 4 * k + 4])
        n = tt + tf + ft + ff
        rate = (tt + ff) / n if n else None
        kappa = None
        if n:
            pe = ((tt + tf) * (tt + ft) + (ft + ff) * (tf + ff)) / (n * n)
            kappa = (rate - pe) / (1 - pe) if pe < 1 else None
        out.append({"a": a, "b": b, "n": n, "agree": rate, "kappa": kappa})
    return pl.DataFrame(
        out, schema={"a": pl.String, "b": pl.String, "n": pl.Int64, "agree": pl.Float64,
                     "kappa": pl.Float64},
    )  # fmt: skip


def status_counts(lf: pl.LazyFrame) -> pl.DataFrame:
    """Verdicts per (source, status). A (source, step) with no verdict was `unverifiable`
    with nothing to say (see labeling/rows.py), so those are not counted here."""
    return (
        lf.select(pl.col("verdicts").explode().alias("v"))
        .drop_nulls()
        .select(pl.col("v").struct.field("source"), pl.col("v").struct.field("status"))
        .group_by("source", "status")
        .len("verdicts")
        .sort("source", "status")
        .collect(engine=STREAM)
    )


def first_error_histogram(lf: pl.LazyFrame, max_position: int = 20) -> pl.DataFrame:
    """Chains per first-error step, combined labels vs human (where known). Position -1 means
    no step labeled wrong; positions >= `max_position` are pooled into `max_position`."""

    def hist(column: str) -> pl.LazyFrame:
        pos = pl.col(column).clip(upper_bound=max_position).alias("position")
        return lf.select(pos).drop_nulls().group_by("position").len(column)

    combined = hist("first_error_step").collect(engine=STREAM)
    human = hist("human_first_error").collect(engine=STREAM)
    return (
        combined.rename({"first_error_step": COMBINED})
        .join(human.rename({"human_first_error": HUMAN}), on="position", how="full",
              coalesce=True)
        .with_columns(pl.col(COMBINED, HUMAN).fill_null(0).cast(pl.Int64))
        .sort("position")
    )  # fmt: skip


def mc_histogram(steps: pl.LazyFrame, bins: int = 10) -> pl.DataFrame:
    """MC scores in `bins` equal bins over [0, 1], split by the step's combined label
    (`true`, `false`, `unlabeled`). Empty when no MC score exists."""
    b = (pl.col("mc_score") * bins).floor().clip(0, bins - 1).cast(pl.Int32).alias("bin")
    lab = pl.col(_col(COMBINED))
    counts = (
        steps.filter(pl.col("mc_score").is_not_null())
        .group_by(b)
        .agg(lab.sum().alias("true"), lab.not_().sum().alias("false"), pl.len().alias("steps"))
        .collect(engine=STREAM)
    )
    return (
        counts.with_columns(
            (pl.col("steps") - pl.col("true") - pl.col("false")).alias("unlabeled"),
            (pl.col("bin") / bins).alias("lo"),
            ((pl.col("bin") + 1) / bins).alias("hi"),
        )
        .select("bin", "lo", "hi", "true", "false", "unlabeled", "steps")
        .cast({"true": pl.Int64, "false": pl.Int64, "unlabeled": pl.Int64, "steps": pl.Int64})
        .sort("bin")
    )


def cost_per_labeled_step(lf: pl.LazyFrame) -> pl.DataFrame:
    """Per dataset and in total: tokens (sampling, rollouts) and rollouts per labeled step.
    Ratios are null when nothing was labeled (a cost without a product)."""
    aggs = [
        pl.len().alias("chains"),
        pl.col("labels").list.drop_nulls().list.len().sum().cast(pl.Int64).alias("labeled_steps"),
        pl.col("sample_tokens").sum().cast(pl.Int64),
        pl.col("rollout_tokens").sum().cast(pl.Int64),
        pl.col("rollouts").sum().cast(pl.Int64),
    ]
    per = lf.group_by("source_dataset").agg(aggs).sort("source_dataset")
    total = lf.select(pl.lit("(all)").alias("source_dataset"), *aggs)
    df = pl.concat([per, total]).collect(engine=STREAM)
    n = pl.when(pl.col("labeled_steps") > 0).then(pl.col("labeled_steps"))
    return df.with_columns(
        ((pl.col("sample_tokens") + pl.col("rollout_tokens")) / n).alias("tokens_per_step"),
        (pl.col("rollout_tokens") / n).alias("rollout_tokens_per_step"),
        (pl.col("rollouts") / n).alias("rollouts_per_step"),
    )


def quarantine_reasons(qlf: pl.LazyFrame, top: int = 20) -> pl.DataFrame:
    """The `top` most frequent (stage, reason) pairs with their count, the datasets they came
    from and one example record (truncated; untrusted text, escape before display)."""
    return (
        qlf.group_by("stage", "reason")
        .agg(
            pl.len().alias("rows"),
            pl.col("source_dataset").unique().sort().str.join(", ").alias("datasets"),
            pl.col("raw").drop_nulls().first().str.slice(0, 160).alias("example"),
        )
        .sort(["rows", "stage", "reason"], descending=[True, False, False])
        .head(top)
        .collect(engine=STREAM)
    )


def quarantine_by_dataset(qlf: pl.LazyFrame) -> pl.DataFrame:
    """Quarantined rows per (source_dataset, stage); whole problems vs single chains."""
    return (
        qlf.group_by("source_dataset", "stage")
        .agg(
            pl.col("chain_id").is_null().sum().alias("problems"),
            pl.col("chain_id").is_not_null().sum().alias("chains"),
        )
        .sort("source_dataset", "stage")
        .collect(engine=STREAM)
    )


def dataset_stats(root: str | Path, top_reasons: int = 20, max_position: int = 20,
                  mc_bins: int = 10) -> dict[str, Any]:  # fmt: skip
    """Every statistic of the report for the finished dataset at `root`."""
    lf, qlf, manifest = scan_dataset(root)
    sources = verdict_sources(lf)
    steps = step_frame(lf, sources)
    rows = int(lf.select(pl.len()).collect(engine=STREAM).item())
    return {
        "root": str(root),
        "rows": rows,
        "manifest_rows": sum(int(s.get("rows", 0)) for s in manifest.get("shards", [])),
        "quarantined_rows": int(qlf.select(pl.len()).collect(engine=STREAM).item()),
        "sources": sources,
        "manifest": manifest,
        "by_dataset": counts_by_dataset(lf),
        "origins": chain_origins(lf),
        "labels": label_distribution(steps, sources),
        "statuses": status_counts(lf),
        "agreement": agreement(steps, sources),
        "first_error": first_error_histogram(lf, max_position),
        "mc": mc_histogram(steps, mc_bins),
        "cost": cost_per_labeled_step(lf),
        "quarantine": quarantine_reasons(qlf, top_reasons),
        "quarantine_by_dataset": quarantine_by_dataset(qlf),
        "coverage": source_coverage(lf),
    }
