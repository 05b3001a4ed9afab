"""prm-report statistics on small hand-made shards (pyarrow, LABELED_SCHEMA), checked against
numbers worked out by hand in the comments. Also: null columns, an empty dataset, a diff."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from labeling.report import diff as report_diff
from labeling.report import stats as rs
from labeling.shards import DatasetDir, summarize_units


def verdict(source: str, step: int, status: str, label: bool | None, score=None, rollouts=0):
    return {"source": source, "step": step, "status": status, "label": label, "score": score,
            "rollouts": rollouts, "evidence": f"{source} says {status}"}  # fmt: skip


def row(pid: str, index: int, labels: list, dataset: str = "gsm8k", **kw: Any) -> dict:
    """One labeled chain; every optional column null unless given."""
    first = next((i for i, x in enumerate(labels) if x is False), -1)
    base = {
        "prompt": f"question {pid}", "completions": [f"step {i}" for i in range(len(labels))],
        "labels": labels, "problem_id": pid, "chain_id": f"{pid}-c{index}", "chain_index": index,
        "domain": "code" if dataset == "mbpp" else "math", "source_dataset": dataset,
        "first_error_step": first, "verdicts": [], "sample_tokens": 0, "rollout_tokens": 0,
        "rollouts": 0, "model": "m", "label_policy": "verifier_first", "config_hash": "h",
    }  # fmt: skip
    base.update(kw)
    return base


def quarantined(dataset: str, index: int, reason: str, raw: str, stage="load", chain=None):
    return {"source_dataset": dataset, "record_index": index, "problem_id": None,
            "chain_id": chain, "stage": stage, "reason": reason, "raw": raw,
            "config_hash": "h"}  # fmt: skip


def make_dataset(root: Path, units: list[tuple[list, list]], previous: Path | None = None):
    """Write units with the real shard writer, then a manifest as the label job does."""
    out = DatasetDir(root)
    records = []
    for unit, (rows, bad) in enumerate(units):
        steps = sum(len(r["labels"]) for r in rows)
        counts = {"rows": len(rows), "chains": len(rows), "steps": steps,
                  "problems_in": len({r["problem_id"] for r in rows}) + len(bad),
                  "problems_quarantined": len(bad)}  # fmt: skip
        tokens = {"sample": sum(r["sample_tokens"] for r in rows)}
        records.append(out.write_unit(unit, f"k{unit}", rows, bad, counts, tokens, 0.5))
    summary = summarize_units(records)
    manifest = {**summary, "created_at": "2026-01-01T00:00:00+00:00", "wall_time_s": 2.0,
                "config": {"labels": {"calc": {}, "mc": {"k": 8}, "tests": None}},
                "lineage": {"previous": str(previous) if previous else None},
                "units": len(records), "units_reused": 0}  # fmt: skip
    out.write_manifest(manifest)
    return root


R1 = row(
    "p1", 0, [True, False, False], human_labels=[True, False, False], human_first_error=1,
    calc_labels=[True, False, None], mc_scores=[0.75, 0.0, None], outcome_correct=False,
    sample_tokens=100, rollout_tokens=400, rollouts=16,
    verdicts=[verdict("calc", 0, "correct", True), verdict("calc", 1, "incorrect", False),
              verdict("mc", 0, "correct", True, 0.75, 8),
              verdict("mc", 1, "incorrect", False, 0.0, 8),
              verdict("answer", 2, "incorrect", False)],
)  # fmt: skip
R2 = row(
    "p1", 1, [True, True], human_labels=[True, False], human_first_error=1,
    calc_labels=[None, True], mc_scores=[1.0, None], outcome_correct=True,
    sample_tokens=80, rollout_tokens=200, rollouts=8,
    verdicts=[verdict("calc", 1, "correct", True), verdict("mc", 0, "correct", True, 1.0, 8),
              verdict("answer", 1, "correct", True)],
)  # fmt: skip
R3 = row(
    "p2", 0, [None, False], dataset="mbpp", tests_labels=[None, False], outcome_correct=False,
    sample_tokens=50,
    verdicts=[verdict("calc", 0, "timeout", None), verdict("tests", 1, "incorrect", False)],
)  # fmt: skip
BAD = [
    quarantined("gsm8k", 3, "missing field 'answer'", '{"q": 1}'),
    quarantined("gsm8k", 7, "missing field 'answer'", '{"q": 2}'),
    quarantined("mbpp", 2, "<script>alert(1)</script> broke", "<img src=x onerror=alert(2)>",
                stage="verify", chain="c9"),
]  # fmt: skip


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    # Two units, so the scan really spans several shards (and one quarantine file per unit).
    return make_dataset(tmp_path / "ds", [([R1, R2], BAD[:2]), ([R3], BAD[2:])])


def by(df: pl.DataFrame, key: str) -> dict[Any, dict]:
    return {r[key]: r for r in df.iter_rows(named=True)}


def test_counts_per_dataset_and_domain(dataset):
    s = rs.dataset_stats(dataset)
    assert s["rows"] == s["manifest_rows"] == 3 and s["quarantined_rows"] == 3
    assert s["sources"] == ["answer", "calc", "mc", "tests"]
    got = by(s["by_dataset"], "source_dataset")
    assert got["gsm8k"] == {
        "source_dataset": "gsm8k",
        "domain": "math",
        "problems": 1,
        "chains": 2,
        "steps": 5,
        "labeled_steps": 5,
        "wrong_steps": 2,
        "chains_with_error": 1,
        "outcome_known": 2,
        "outcome_correct": 1,
        "models": 1,
    }
    assert got["mbpp"]["domain"] == "code"
    assert (got["mbpp"]["labeled_steps"], got["mbpp"]["wrong_steps"]) == (1, 1)


def test_label_distribution_per_source(dataset):
    labels = by(rs.dataset_stats(dataset)["labels"], "source")
    # (true, false, unlabeled) over the 7 steps; verdict sources read from `verdicts`.
    expect = {"combined": (3, 3, 1), "human": (2, 3, 2), "answer": (1, 1, 5), "calc": (2, 1, 4),
              "mc": (2, 1, 4), "tests": (0, 1, 6)}  # fmt: skip
    assert list(labels) == list(expect)  # combined and human first, then verdict sources
    for source, (t, f, u) in expect.items():
        assert (labels[source]["true"], labels[source]["false"]) == (t, f), source
        assert labels[source]["unlabeled"] == u and labels[source]["steps"] == 7


def test_agreement_matrix_and_kappa(dataset):
    agree = {(r["a"], r["b"]): r for r in rs.dataset_stats(dataset)["agreement"].iter_rows(
        named=True)}  # fmt: skip
    ch = agree[("combined", "human")]
    # Both labeled on 5 steps: TT=2, FF=2, combined T / human F once. po=.8, pe=12/25.
    assert ch["n"] == 5 and ch["agree"] == pytest.approx(0.8)
    assert ch["kappa"] == pytest.approx((0.8 - 0.48) / 0.52)
    assert agree[("human", "calc")]["n"] == 3
    assert agree[("human", "calc")]["agree"] == pytest.approx(2 / 3)
    never = agree[("mc", "tests")]
    assert never["n"] == 0 and never["agree"] is None and never["kappa"] is None
    assert len(agree) == 15  # every pair of the 6 sources, "never overlapped" included


def test_statuses_first_error_mc_cost(dataset):
    s = rs.dataset_stats(dataset)
    st = {(r["source"], r["status"]): r["verdicts"] for r in s["statuses"].iter_rows(named=True)}
    assert st[("calc", "timeout")] == 1 and st[("calc", "correct")] == 2
    assert st[("tests", "incorrect")] == 1 and sum(st.values()) == 10
    fe = by(s["first_error"], "position")
    assert {p: (r["combined"], r["human"]) for p, r in fe.items()} == {-1: (1, 0), 1: (2, 2)}
    mc = by(s["mc"], "bin")
    # 0.0 -> first bin; 0.75 -> bin 7; 1.0 belongs to the last bin, not an 11th one.
    assert set(mc) == {0, 7, 9}
    assert (mc[0]["false"], mc[7]["true"], mc[9]["true"]) == (1, 1, 1)
    cost = by(s["cost"], "source_dataset")
    assert cost["gsm8k"]["tokens_per_step"] == pytest.approx((180 + 600) / 5)
    assert cost["gsm8k"]["rollouts_per_step"] == pytest.approx(24 / 5)
    assert cost["(all)"]["labeled_steps"] == 6
    assert cost["(all)"]["tokens_per_step"] == pytest.approx(830 / 6)


def test_first_error_positions_are_pooled_at_max(dataset):
    fe = rs.first_error_histogram(rs.scan_dataset(dataset)[0], max_position=0)
    assert fe["position"].to_list() == [-1, 0]  # "no error" stays apart from the pooled bar


def test_quarantine_reasons_most_frequent_first(dataset):
    s = rs.dataset_stats(dataset)
    q = s["quarantine"]
    assert q["reason"].to_list() == ["missing field 'answer'", "<script>alert(1)</script> broke"]
    assert q["rows"].to_list() == [2, 1] and q["example"][0] == '{"q": 1}'
    qd = {(r["source_dataset"], r["stage"]): (r["problems"], r["chains"])
          for r in s["quarantine_by_dataset"].iter_rows(named=True)}  # fmt: skip
    assert qd == {("gsm8k", "load"): (2, 0), ("mbpp", "verify"): (0, 1)}


def test_sources_that_did_not_run_leave_null_columns(tmp_path):
    # Only the outcome source ran: calc/test/mc/human columns are null in every row.
    rows = [
        row("p1", 0, [None, True], verdicts=[verdict("answer", 1, "correct", True)]),
        row("p2", 0, [None, False], verdicts=[verdict("answer", 1, "incorrect", False)]),
    ]
    s = rs.dataset_stats(make_dataset(tmp_path / "ds", [(rows, [])]))
    assert s["sources"] == ["answer"]
    assert by(s["labels"], "source")["human"]["unlabeled"] == 4
    assert s["mc"].height == 0 and s["quarantine"].height == 0
    assert by(s["first_error"], "position")[-1]["human"] == 0


def test_empty_dataset(tmp_path):
    s = rs.dataset_stats(make_dataset(tmp_path / "ds", []))
    assert s["rows"] == 0 and s["sources"] == []
    assert s["by_dataset"].height == 0 and s["first_error"].height == 0
    assert s["labels"]["steps"].to_list() == [0, 0]  # combined, human: nothing at all
    assert s["agreement"]["n"].to_list() == [0]
    assert by(s["cost"], "source_dataset")["(all)"]["tokens_per_step"] is None


def test_only_manifest_shards_are_read_and_a_missing_manifest_is_named(dataset, tmp_path):
    stale = DatasetDir(dataset).shard_path(7)  # an earlier, longer run's leftover
    stale.write_bytes(DatasetDir(dataset).shard_path(0).read_bytes())
    assert rs.dataset_stats(dataset)["rows"] == 3
    with pytest.raises(FileNotFoundError, match="manifest.json"):
        rs.dataset_stats(tmp_path / "nothing")


def test_diff_of_two_versions(tmp_path, dataset):
    r2 = dict(R2, labels=[True, False], first_error_step=1)  # relabeled
    r4 = row("p3", 0, [True])  # new
    new = make_dataset(tmp_path / "new", [([R1, r2, r4], [])], previous=dataset)
    d = report_diff.diff_stats(new, dataset)
    assert (d["added"], d["removed"], d["both"]) == (1, 1, 2)
    assert (d["labels_changed"], d["first_error_moved"]) == (1, 1)
    assert d["added_examples"]["chain_id"].to_list() == ["p3-c0"]
    assert d["removed_examples"]["source_dataset"].to_list() == ["mbpp"]
    assert d["changed_examples"]["chain_id"].to_list() == ["p1-c1"]
    trans = {(r["old"], r["new"]): r["steps"] for r in d["transitions"].iter_rows(named=True)}
    assert trans == {(True, True): 2, (False, False): 2, (True, False): 1}
    counts = by(d["counts"], "key")
    assert (counts["rows"]["old"], counts["rows"]["new"], counts["rows"]["delta"]) == (3, 3, 0)
    assert counts["problems_quarantined"]["delta"] == -3
    assert d["lineage"]["previous_is_old"] is True
    assert report_diff.diff_stats(dataset, new)["lineage"]["previous_is_old"] is False


def test_chain_origins_tell_given_from_sampled_chains(tmp_path):
    """A sampled chain carries its sampler seed; a given one has none and keeps its writer."""
    rows = [row("p1", 0, [True], model="m1", sampler_seed=3),
            row("p1", 1, [True], model="m1", sampler_seed=4),
            row("p2", 0, [False], model="gpt-4o"), row("p3", 0, [True], model="qwen")]
    origins = rs.dataset_stats(make_dataset(tmp_path / "ds", [(rows, [])]))["origins"]
    assert origins.rows() == [(False, "m1", 2), (True, "gpt-4o", 1), (True, "qwen", 1)]
