"""Compare the label columns of two `prm-label` output directories, chain by chain.

Used to check that a change of code (not of config) leaves every label where it was:

    PYTHONPATH=. .venv/bin/python benchmarks/compare_label_columns.py runs/before runs/after

Reads every shard under each directory's `shards/`, keys rows by (problem_id, chain_id),
and compares the step text (`completions`), the final labels and every source's label
columns (`*_labels`, `*_scores`, `*_ratings`, the `mc_*` counts, the first-error and
outcome columns); `verdicts` is compared twice, without its evidence text (what each source
said) and the evidence alone (why). Values are compared exactly (floats by their repr).
Prints per column the rows (chains) and steps that differ with the first few examples, and
exits 1 if any column, chain or column set differs; 0 means the label columns are identical.
Columns that carry no label (tokens, model, seed, config hash, spans) are not compared.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

KEY = ("problem_id", "chain_id")
FIXED = ("completions", "labels", "first_error_step", "outcome_correct", "final_answer",
         "human_first_error")
LABEL_SUFFIXES = ("_labels", "_scores", "_ratings")
EVIDENCE = "verdicts.evidence"
EXAMPLES = 3


def read_run(run_dir: Path) -> tuple[dict[tuple[str, str], dict], set[str]]:
    """Every row of the run's shards keyed by (problem_id, chain_id), and the column names.

    Fails in one sentence if the directory has no shard or a key repeats (the comparison
    would then be ambiguous)."""
    files = sorted((run_dir / "shards").glob("*.parquet"))
    if not files:
        sys.exit(f"{run_dir} has no shards/*.parquet; give a prm-label output directory.")
    table = pa.concat_tables([pq.read_table(f) for f in files], promote_options="permissive")
    rows: dict[tuple[str, str], dict] = {}
    for row in table.to_pylist():
        key = tuple(row[k] for k in KEY)
        if key in rows:
            sys.exit(f"{run_dir}: chain {key} appears twice; cannot compare.")
        rows[key] = _split_verdicts(row)
    return rows, set(rows[next(iter(rows))]) if rows else set(table.column_names)


def _split_verdicts(row: dict) -> dict:
    # The evidence is prose and may be reworded on purpose; keep it apart from the verdicts.
    verdicts = row.get("verdicts")
    if verdicts is not None:
        row[EVIDENCE] = [v.get("evidence") for v in verdicts]
        row["verdicts"] = [{k: x for k, x in v.items() if k != "evidence"} for v in verdicts]
    return row


def label_columns(columns: set[str]) -> list[str]:
    """The compared columns among `columns`, in a stable order."""
    picked = {c for c in columns if c in FIXED or c.endswith(LABEL_SUFFIXES)
              or c.startswith("mc_") or c in ("verdicts", EVIDENCE)}
    return sorted(picked)


def _same(a: object, b: object) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def compare(a_rows: dict, b_rows: dict, columns: list[str]) -> dict[str, list[str]]:
    """Per column, one line per differing chain (with the differing steps where both are lists)."""
    diffs: dict[str, list[str]] = {c: [] for c in columns}
    for key in sorted(a_rows.keys() & b_rows.keys()):
        a, b = a_rows[key], b_rows[key]
        for col in columns:
            va, vb = a.get(col), b.get(col)
            if _same(va, vb):
                continue
            if isinstance(va, list) and isinstance(vb, list) and len(va) == len(vb):
                steps = [i for i, (x, y) in enumerate(zip(va, vb, strict=True)) if not _same(x, y)]
                shown = "; ".join(f"#{i}: {va[i]!r} -> {vb[i]!r}" for i in steps[:2])
                diffs[col].append(f"{'/'.join(key)} steps {steps}: {shown}")
            else:
                diffs[col].append(f"{'/'.join(key)}: {va!r} -> {vb!r}")
    return diffs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    a_rows, a_cols = read_run(args.before)
    b_rows, b_cols = read_run(args.after)
    columns = label_columns(a_cols & b_cols)
    differ = False
    for side, only in (("before", a_cols - b_cols), ("after", b_cols - a_cols)):
        if label_columns(only):
            differ = True
            print(f"label columns only {side}: {label_columns(only)}")
    for side, keys in (("before", a_rows.keys() - b_rows.keys()),
                       ("after", b_rows.keys() - a_rows.keys())):
        if keys:
            differ = True
            print(f"{len(keys)} chains only {side}, e.g. {sorted(keys)[:EXAMPLES]}")
    common = len(a_rows.keys() & b_rows.keys())
    steps = sum(len(a_rows[k]["completions"]) for k in a_rows.keys() & b_rows.keys())
    print(f"{common} chains ({steps} steps) in both; {len(columns)} columns compared")
    for col, lines in compare(a_rows, b_rows, columns).items():
        print(f"  {col:22s} {len(lines)} chains differ")
        for line in lines[:EXAMPLES]:
            print(f"      {line[:300]}")
        differ = differ or bool(lines)
    print("DIFFERENT" if differ else "IDENTICAL")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
