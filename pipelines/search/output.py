"""What `prm-search` writes: one Parquet row per (problem, strategy, aggregation, budget),
and the accuracy-per-compute summary the manifest and the report show.

Layout (the prm-label layout, `labeling.shards.DatasetDir`):
    manifest.json                written last: counts, shards with SHA-256, summary, config
    shards/part-00000.parquet    rows of unit 0 (sorted by problem, strategy, agg, budget)
    quarantine/part-00000.parquet  problems that could not be searched, with the reason
    units/unit-00000.json        per-unit record: a finished unit is skipped on re-run
    report.html                  accuracy vs generated tokens (plot and table)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from labeling.schema import QUARANTINE_SCHEMA
from labeling.shards import (
    DatasetDir,
    UnitRecord,
    atomic_write_table,
    read_shard,
    rows_to_table,
    sha256_file,
    shard_files,
)

SEARCH_SCHEMA = pa.schema(
    [
        ("problem_id", pa.string()),
        ("source_dataset", pa.string()),
        ("strategy", pa.string()),  # majority | best_of_n | weighted_vote | beam | dvts
        ("aggregation", pa.string()),  # last | min | prod | mean; "" for majority
        ("budget", pa.int32()),  # N
        ("chosen_answer", pa.string()),  # null: the chosen chain has no final answer
        ("reference_answer", pa.string()),
        ("correct", pa.bool_()),  # the answer source's verdict; null when it could not decide
        ("chosen_score", pa.float32()),  # aggregated PRM score of the chosen chain
        ("chosen_text", pa.string()),  # the chosen chain (assistant text)
        ("candidates", pa.int32()),  # finished chains the choice was made among
        ("generated_tokens", pa.int64()),  # every token generated for this row's search
        ("prm_calls", pa.int64()),  # chains (or prefixes) the PRM scored
        ("rounds", pa.int32()),  # generation rounds (steps for beam and DVTS)
        ("seed", pa.int64()),  # the search's seed, derived from (seed, problem, strategy, N)
        ("model", pa.string()),
        ("prm", pa.string()),  # the PRM checkpoint's directory name ("" without a PRM)
        ("config_hash", pa.string()),
    ]
)
SORT = ("problem_id", "strategy", "aggregation", "budget")


def write_unit(out: DatasetDir, unit: int, key: str, rows: list[dict[str, Any]],
               quarantined: list[dict[str, Any]], counts: dict[str, int],
               tokens: dict[str, int], seconds: float) -> UnitRecord:  # fmt: skip
    """Shard and quarantine first (tmp + rename), the unit record last."""
    out.record_path(unit).unlink(missing_ok=True)
    files = []
    for path, part, schema in (
        (out.shard_path(unit), sorted(rows, key=lambda r: tuple(r[k] for k in SORT)),
         SEARCH_SCHEMA),
        (out.quarantine_path(unit), quarantined, QUARANTINE_SCHEMA),
    ):  # fmt: skip
        if not part:
            path.unlink(missing_ok=True)
            files.append(("", 0, ""))
            continue
        atomic_write_table(path, rows_to_table(part, schema))
        files.append((str(path.relative_to(out.root)), path.stat().st_size, sha256_file(path)))
    (shard, sb, ss), (quar, qb, qs) = files
    record = UnitRecord(unit, key, shard, len(rows), sb, ss, quar, len(quarantined), qb, qs,
                        counts=counts, tokens=tokens, seconds=round(seconds, 3))  # fmt: skip
    out.write_record(record)
    return record


def read_rows(root: str | Path) -> list[dict[str, Any]]:
    """Rows of a finished search run (the shards its manifest lists)."""
    return [r for f in shard_files(root) for r in read_shard(f).to_pylist()]


def summarize(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Accuracy and mean cost per (strategy, aggregation, budget), sorted for reading.
    `accuracy` counts an undecided verdict (null) as wrong and says how many there were."""
    groups: dict[tuple[str, str, int], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["strategy"], r["aggregation"], r["budget"]), []).append(r)
    out = []
    for (strategy, agg, budget), rs in sorted(groups.items()):
        n = len(rs)
        out.append(
            {
                "strategy": strategy,
                "aggregation": agg,
                "budget": budget,
                "problems": n,
                "accuracy": sum(1 for r in rs if r["correct"]) / n,
                "undecided": sum(1 for r in rs if r["correct"] is None),
                "tokens_per_problem": sum(r["generated_tokens"] for r in rs) / n,
                "prm_calls_per_problem": sum(r["prm_calls"] for r in rs) / n,
            }
        )
    return out
