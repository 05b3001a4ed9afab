"""PRM800K adapter on minimal hand-made records: the error step a labeler stopped at is kept,
ratings stay three-way, and `labels.neutral` decides what neutral becomes."""

from __future__ import annotations

import json

import pytest

from labeling.datasets import load_problems
from labeling.schema import Neutral, Problem, Quarantined, rating_label


def _step(*ratings, chosen=0):
    return {"completions": [{"text": f"s{r}-{i}", "rating": r} for i, r in enumerate(ratings)],
            "chosen_completion": chosen, "human_completion": None}


def _record(steps, finish="solution"):
    return {"question": {"problem": "p?", "ground_truth_answer": "1"},
            "label": {"steps": steps, "finish_reason": finish}}


def _load(tmp_path, *records):
    path = tmp_path / "prm.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return list(load_problems({"name": "prm800k", "path": str(path)}))


def test_found_error_step_is_kept(tmp_path):
    # rated 0, 0, then the labeler found the error and stopped: chosen_completion is null
    rec = _record([_step(0), _step(0), _step(-1, chosen=None)], finish="found_error")
    [p] = _load(tmp_path, rec)
    g = p.given_chains[0]
    assert len(g.steps) == 3
    assert g.human_ratings == (0, 0, -1)
    assert g.human_labels == (True, True, False)
    assert g.human_first_error == 2


def test_error_among_alternatives_is_the_one_rated_minus_one(tmp_path):
    rec = _record([_step(1), _step(1, 0, -1, chosen=None)], finish="found_error")
    g = _load(tmp_path, rec)[0].given_chains[0]
    assert g.steps == ("s1-0", "s-1-2") and g.human_first_error == 1


def test_give_up_without_error_adds_no_step(tmp_path):
    rec = _record([_step(1), _step(0, 1, chosen=None)], finish="give_up")
    g = _load(tmp_path, rec)[0].given_chains[0]
    assert g.steps == ("s1-0",) and g.human_first_error == -1


@pytest.mark.parametrize(
    "steps, finish, words",
    [
        ([_step(1), _step(0, chosen=None)], "found_error", "no step is rated -1"),
        ([_step(7)], "solution", "rating 7"),
        ([_step(1, chosen=5)], "solution", "names no completion"),
        ([_step(True)], "solution", "rating True"),
    ],
)
def test_inconsistent_records_are_quarantined(tmp_path, steps, finish, words):
    [q] = _load(tmp_path, _record(steps, finish))
    assert isinstance(q, Quarantined) and words in q.reason


def test_rating_label_neutral_option():
    assert [rating_label(r) for r in (1, 0, -1, None)] == [True, True, False, None]
    assert rating_label(0, Neutral.negative) is False
    assert rating_label(0, Neutral.mask) is None
    assert rating_label(1, Neutral.mask) is True and rating_label(-1, "mask") is False


def test_phase_two_record_of_shared_sample_keeps_its_chain(tmp_path):
    rec = _record([_step(1), _step(0), _step(-1, chosen=None)], finish="found_error")
    [p] = _load(tmp_path, rec)
    assert isinstance(p, Problem) and p.given_chains[0].human_labels[-1] is False
