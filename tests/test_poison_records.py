"""A record that cannot be written (a lone surrogate from a JSON `\\ud800` escape) is
quarantined with one sentence, and the job finishes: it used to stop every run at
shard-write time with `UnicodeEncodeError: surrogates not allowed`."""

from __future__ import annotations

import json
import re

import polars as pl

from pipelines.label.app import run
from tests.conftest import compose

# Written with json.dumps's default ensure_ascii, the surrogate travels as the six characters
# `\ud800`: valid JSON that json.loads turns into a lone surrogate.
GOOD = [{"question": f"What is {i}+{i}?", "answer": f"#### {2 * i}"} for i in range(1, 5)]
POISON = {"question": "What is 2+2?\ud800", "answer": "#### 4"}


def one_sentence(reason: str) -> bool:
    return bool(reason.strip()) and "\n" not in reason and len(re.split(r"[.!?]\s", reason)) == 1


def test_a_lone_surrogate_record_is_quarantined_and_the_job_finishes(tmp_path):
    path = tmp_path / "poison.jsonl"
    records = GOOD[:2] + [POISON] + GOOD[2:]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    assert "\\ud800" in path.read_text()  # the minimal input of the issue
    cfg = compose(["engine=simulated", "ray=inprocess", "labels=[answer]", "dataset=gsm8k",
                   f"dataset.path={path}", "sampler.n=2", f"output.dir={tmp_path / 'out'}"])
    m = run(cfg)
    c = m["counts"]
    assert c["problems_in"] == len(records)
    assert c["problems_in"] == c["problems_labeled"] + c["problems_quarantined"]
    assert (c["problems_labeled"], c["problems_quarantined"]) == (len(GOOD), 1)
    q = pl.read_parquet(tmp_path / "out" / "quarantine" / "*.parquet")
    assert q.height == 1
    reason, raw = q["reason"][0], q["raw"][0]
    assert one_sentence(reason) and "'question'" in reason and "surrogate" in reason
    assert q["record_index"][0] == 2 and "\\ud800" in raw  # the record, escaped
    rows = pl.read_parquet(tmp_path / "out" / "shards" / "*.parquet")
    assert rows["problem_id"].n_unique() == len(GOOD)
