"""What each label source could judge in a labeled dataset, what it left unverifiable and why,
and how well the Monte Carlo completer solves the problems it completes (its self-confidence).

`source_coverage` aggregates the shards lazily with polars (one row per step at most, streamed);
`coverage_sentences` says it in plain sentences, which the job's log and the report's first
section (`pipelines/report/story.py`) both use. The reasons come from the columns, never from
evidence text: an MC step is unverifiable because its chain's completer could not tell
(nothing of the chain was rolled out and no step but the last is labeled), because its
rollouts decided nothing, because it was masked after the first error, because it is the last
step and the chain's own answer could not be checked, or because it was not probed (outside
the search's bounds); a final answer is unverifiable because the trace's thinking never
closed (`thinking_finished` false) or because there was no reference.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from labeling import registry
from labeling.shards import STREAM

# Below this share of successes from the bare question the completer "rarely solves" the
# problems: fewer than one try in four.
LOW_SELF_CONFIDENCE = 0.25

MC_REASONS = {  # reason key -> how a sentence says it
    "cannot_tell": "in chains whose problem the completer rarely solves (nothing rolled out: "
                   "from its self-confidence no label could be placed within the budget)",
    "undecided": "rolled out without a decision",
    "unprobed": "not probed (outside the search's bounds, or the search stopped first)",
    "masked": "masked after the first error",
    "last": "last steps whose answer could not be checked",
}
STATUS_REASONS = {"timeout": "timed out", "error": "failed to run"}


def _steps(lf: pl.LazyFrame, column: str, extra: list[pl.Expr]) -> pl.LazyFrame:
    """One row per step of the chains where `column` is set: label, step, n, and `extra`."""
    return (lf.filter(pl.col(column).is_not_null())
            .select(pl.col(column).alias("label"),
                    pl.int_ranges(pl.col(column).list.len()).alias("step"),
                    pl.col(column).list.len().alias("n"), *extra)
            .explode("label", "step"))


def _status_counts(lf: pl.LazyFrame, source: str) -> dict[str, int]:
    df = (lf.select(pl.col("verdicts").explode().alias("v")).drop_nulls()
          .filter(pl.col("v").struct.field("source") == source)
          .group_by(pl.col("v").struct.field("status").alias("status")).len()
          .collect(engine=STREAM))
    return dict(zip(df["status"].to_list(), df["len"].to_list(), strict=True))


def _mc(lf: pl.LazyFrame) -> dict[str, Any]:
    labels = pl.col("mc_labels")
    rolled = pl.col("mc_rollouts")
    n = labels.list.len()
    falses = labels.list.eval(pl.element().not_().fill_null(False))
    steps = _steps(lf, "mc_labels", [
        rolled.alias("rollouts"),
        rolled.list.sum().alias("chain_rollouts"),
        falses.list.any().alias("has_false"),
        falses.list.arg_max().alias("first_false"),
        labels.list.slice(0, n - 1).list.eval(pl.element().is_null()).list.all()
        .alias("nothing_before_last"),
    ]).with_columns(pl.col("rollouts").list.get(pl.col("step"), null_on_oob=True))
    null = pl.col("label").is_null()
    reason = (pl.when(~null).then(pl.lit("judged"))
              .when(pl.col("has_false") & (pl.col("step") > pl.col("first_false")))
              .then(pl.lit("masked"))
              .when(pl.col("step") == pl.col("n") - 1).then(pl.lit("last"))
              .when((pl.col("n") >= 2) & (pl.col("chain_rollouts") == 0)
                    & pl.col("nothing_before_last")).then(pl.lit("cannot_tell"))
              .when(pl.col("rollouts") > 0).then(pl.lit("undecided"))
              .otherwise(pl.lit("unprobed")))
    df = steps.group_by(reason.alias("reason")).len().collect(engine=STREAM)
    counts = dict(zip(df["reason"].to_list(), df["len"].to_list(), strict=True))
    judged = counts.pop("judged", 0)
    return {"steps": judged + sum(counts.values()), "judged": judged,
            "reasons": {k: counts[k] for k in MC_REASONS if counts.get(k)}}


def _plain(lf: pl.LazyFrame, name: str, last_only: bool) -> dict[str, Any]:
    column = registry.get(name).labels_column
    # A trace whose thinking never closed has no final answer to check, reference or not.
    has_flag = "thinking_finished" in lf.collect_schema().names()
    unclosed = (pl.col("thinking_finished") == False) if has_flag else pl.lit(False)  # noqa: E712
    steps = _steps(lf, column, [unclosed.fill_null(False).alias("unclosed")])
    if last_only:  # the answer speaks about the last step only
        steps = steps.filter(pl.col("step") == pl.col("n") - 1)
    df = steps.select(pl.len().alias("steps"),
                      pl.col("label").is_not_null().sum().alias("judged"),
                      (pl.col("label").is_null() & pl.col("unclosed")).sum().alias("unclosed"),
                      ).collect(engine=STREAM)  # fmt: skip
    total, judged = int(df["steps"][0]), int(df["judged"][0] or 0)
    statuses = _status_counts(lf, name)
    reasons = {STATUS_REASONS[s]: statuses[s] for s in STATUS_REASONS if statuses.get(s)}
    rest = total - judged - sum(reasons.values())
    if rest > 0 and last_only:
        unclosed_n = min(rest, int(df["unclosed"][0] or 0))
        plain = {"the thinking never closed (no final answer)": unclosed_n,
                 "no reference to check against": rest - unclosed_n}
        reasons = {**{k: v for k, v in plain.items() if v}, **reasons}
    elif rest > 0:
        reasons = {"nothing it could check": rest, **reasons}
    return {"steps": total, "judged": judged, "reasons": reasons}


def self_confidence(lf: pl.LazyFrame) -> dict[str, Any] | None:
    """The MC completer's successes from the bare question, per problem then pooled."""
    if "mc_self_confidence" not in lf.collect_schema().names():
        return None
    df = (lf.select("problem_id", "mc_self_confidence")
          .filter(pl.col("mc_self_confidence").is_not_null())
          .unique(subset="problem_id", keep="first")
          .unnest("mc_self_confidence")
          .filter(pl.col("decided") > 0)
          .collect(engine=STREAM))
    if not df.height:
        return None
    rates = (df["successes"] / df["decided"]).to_list()
    successes, decided = int(df["successes"].sum()), int(df["decided"].sum())
    return {"problems": df.height, "successes": successes, "decided": decided,
            "rate": successes / decided,
            "low_problems": sum(r < LOW_SELF_CONFIDENCE for r in rates)}


def source_coverage(lf: pl.LazyFrame) -> dict[str, Any]:
    """Per source that ran: steps it could speak about, judged, and the unverifiable ones by
    reason; and the completer's self-confidence (None when MC did not run)."""
    names = lf.collect_schema().names()
    out: dict[str, Any] = {"sources": {}, "self_confidence": self_confidence(lf)}
    for spec in registry.specs():
        if spec.role == registry.Role.reviewer or spec.labels_column not in names:
            continue
        ran = lf.select(pl.col(spec.labels_column).is_not_null().any()).collect().item()
        if not ran:
            continue
        if spec.name == "mc" and "mc_rollouts" in names:
            out["sources"][spec.name] = _mc(lf)
        else:
            out["sources"][spec.name] = _plain(lf, spec.name,
                                               spec.role == registry.Role.whole_chain)
    return out


def coverage_sentences(cov: dict[str, Any]) -> tuple[list[str], str | None]:
    """Plain sentences, one per source; and one on the completer when its self-confidence is
    low (with the figure), else None."""
    out = []
    for name, c in cov["sources"].items():
        unit = "final answers" if name in registry.names(registry.Role.whole_chain) else "steps"
        left = c["steps"] - c["judged"]
        text = f"{name} judged {c['judged']:,} of {c['steps']:,} {unit}"
        if left:
            words = MC_REASONS if name == "mc" else {k: k for k in c["reasons"]}
            why = "; ".join(f"{words[k]}: {v:,}" for k, v in c["reasons"].items())
            text += f" and left {left:,} unverifiable ({why})"
        out.append(text + ".")
    sc = cov.get("self_confidence")
    # Low: overall, or on at least half of the problems (the figure a user acts on).
    if not sc or (sc["rate"] >= LOW_SELF_CONFIDENCE and 2 * sc["low_problems"] < sc["problems"]):
        return out, None
    low = f"{100 * LOW_SELF_CONFIDENCE:.0f}%"
    return out, (
        f"The Monte Carlo completer's self-confidence is low: it reached the right answer in "
        f"{sc['successes']:,} of {sc['decided']:,} tries from the bare question "
        f"({100 * sc['rate']:.0f}%), and under {low} on {sc['low_problems']} of "
        f"{sc['problems']} problems: it rarely solves the problems it completes, so rollouts "
        "say little about their steps (MC's default rule leaves what it cannot tell "
        "unverifiable); a stronger completer, or easier problems, would judge more steps.")
