"""A refresh is keyed by content: tonight's dump under a new, dated name reuses every unit
whose problems are unchanged, bad lines quarantined last night are carried (not tonight's
work), and the manifest keeps tonight's cost apart from what was copied."""

from __future__ import annotations

import json
import random

import pyarrow.parquet as pq
import pytest

from tests.conftest import run_app

PROBLEMS = [{"problem": f"What is {i} + {i + 1}?", "gold": str(2 * i + 1)} for i in range(12)]
BAD = ["broken line {", json.dumps({"problem": "no gold answer here"})]


def write_dump(path, problems, seed):
    lines = [json.dumps(p) for p in problems] + BAD
    random.Random(seed).shuffle(lines)  # another night's export order
    path.write_text("\n".join(lines) + "\n")
    return path


def label(tmp_path, dump, out, *extra):
    proc = run_app("prm-label", ["dataset=generic", "dataset.name=team_math",
                                 "dataset.fields.question=problem", "dataset.fields.answer=gold",
                                 f"dataset.path={dump}", "engine=simulated", "ray=inprocess",
                                 "output.report=false", "output.problems_per_unit=4",
                                 f"output.dir={out}", *extra], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((out / "manifest.json").read_text())


def rows(out):
    shards = sorted((out / "shards").glob("*.parquet"))
    return sorted((r["chain_id"], tuple(r["labels"])) for p in shards
                  for r in pq.read_table(p, columns=["chain_id", "labels"]).to_pylist())


@pytest.mark.app
def test_a_dated_dump_refreshes_only_its_new_problems(tmp_path):
    day1 = label(tmp_path, write_dump(tmp_path / "dump-2026-12-02.jsonl", PROBLEMS[:10], 1),
                 tmp_path / "v1")
    assert day1["config"]["dataset"]["name"] == "team_math"  # one key names the dataset
    day2 = label(tmp_path, write_dump(tmp_path / "dump-2026-12-03.jsonl", PROBLEMS, 2),
                 tmp_path / "v2", f"output.previous={tmp_path / 'v1'}")
    assert day2["lineage"]["refresh"]["problems_labeled"] == 2  # the two new problems only
    assert day2["cost"]["tonight"]["problems"] == 2
    assert day2["cost"]["tonight"]["problems_quarantined"] == 0  # last night's, carried
    assert day2["cost"]["copied"]["problems_quarantined"] == 2
    assert day2["cost"]["copied"]["problems"] == 12
    assert day2["counts"]["problems_in"] == 14 and day2["counts"]["problems_quarantined"] == 2
    tonight = day2["cost"]["tonight"]["tokens"]["sample"]
    assert 0 < tonight < day2["tokens"]["sample"]
    kept = set(rows(tmp_path / "v1"))
    assert kept < set(rows(tmp_path / "v2"))  # every old row copied as it was
    assert len(rows(tmp_path / "v2")) == len(kept) + 2 * 4


@pytest.mark.app
def test_a_resume_reads_last_nights_bad_lines_as_kept(tmp_path):
    dump = write_dump(tmp_path / "dump.jsonl", PROBLEMS[:6], 3)
    label(tmp_path, dump, tmp_path / "v1")
    again = label(tmp_path, dump, tmp_path / "v1")
    assert again["units_reused"] == again["units"]
    assert again["cost"]["tonight"]["units"] == 0 and again["cost"]["rollouts"] == 0
