"""The `deltabench` adapter (labeling/datasets/deltabench.py): human sections as steps, error
sections as human labels, and DeltaBench through the label job."""

from __future__ import annotations

import json

import polars as pl
import pytest

from labeling.datasets import gives_sections, load_problems
from labeling.schema import Problem, Quarantined
from pipelines.label.app import run
from tests.conftest import compose, shared


def _record(**changes) -> dict:
    cot = "\n\n".join(["Let me start.", "23 × 6 = 128.", "Wait, 23 × 6 = 138.",
                       "So 138 + 4 = 142.", "**Final Answer**\n\\boxed{142}"])
    record = {
        "id": "r1", "task_l1": "math", "question": "What is 23 × 6 + 4?", "answer": "142",
        "long_cot": cot, "final_correct": 1,
        "sections": [{"start": 1, "end": 2, "content": "Let me start.\n\n23 × 6 = 128."},
                     {"start": 3, "end": 4, "content": "Wait, 23 × 6 = 138.\n\nSo 138 + 4 = 142."}],
        "sections_labeled_info": [{"reasoning_correctness": "1"}, {"reasoning_correctness": "0"}],
        "reason_error_section_numbers": [1], "reason_unuseful_section_numbers": [],
    }
    return record | changes


def _load(tmp_path, *records) -> list:
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return list(load_problems({"name": "deltabench", "path": str(path)}))


def test_human_sections_are_the_steps_and_errors_the_labels(tmp_path):
    [p] = _load(tmp_path, _record())
    assert isinstance(p, Problem) and p.reference == "142" and gives_sections("deltabench")
    [g] = p.given_chains
    # the paragraph after the last section (the final answer) is one more, unlabeled, step
    assert g.steps == ("Let me start.\n\n23 × 6 = 128.", "Wait, 23 × 6 = 138.\n\nSo 138 + 4 = 142.",
                       "**Final Answer**\n\\boxed{142}")
    assert g.human_labels == (False, True, None) and g.human_first_error == 0
    assert g.outcome_correct is True


@pytest.mark.parametrize(("changes", "reason"), [
    ({"task_l1": "code"}, "only math records"),
    ({"sections": [{"start": 2, "end": 1}]}, "does not follow"),
    ({"reason_error_section_numbers": [2]}, "labeled without error"),
    ({"reason_error_section_numbers": [5]}, "not a list of sections 1..2"),
    ({"sections_labeled_info": [{}, {}, {"reasoning_correctness": "1"}]}, "labels 3 sections"),
    ({"final_correct": 2}, "0 or 1"),
])
def test_bad_records_are_quarantined_with_the_reason(tmp_path, changes, reason):
    [q] = _load(tmp_path, _record(**changes))
    assert isinstance(q, Quarantined) and reason in q.reason


def test_deltabench_labels_sections_on_their_own_merits(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(_record()) + "\n")
    m = run(compose(["dataset=deltabench", f"dataset.path={path}", "labels=[answer,calc]",
                     "ray=inprocess", "output.report=false", f"output.dir={tmp_path / 'o'}"]))
    assert m["split"]["after_error"] == "keep"  # its chains are sections: a trace run
    [row] = pl.read_parquet(tmp_path / "o" / "shards" / "*.parquet").to_dicts()
    assert row["human_labels"] == [False, True, None]
    assert row["calc_labels"][:2] == [False, True] and row["labels"] == [False, None, True]


def test_the_published_examples_load():
    path = shared("deltabench/deltabench_examples_dev.jsonl")
    items = list(load_problems({"name": "deltabench", "path": str(path)}))
    assert len(items) == 4 and all(isinstance(p, Problem) for p in items)
    counts = [len(p.given_chains[0].steps) for p in items]
    assert counts == [34, 14, 26, 15]  # 13 human sections + the final answer's paragraphs
    assert [p.given_chains[0].human_first_error for p in items] == [6, 6, 13, 1]
