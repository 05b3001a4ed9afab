"""ProcessBench F1, threshold choice, best-of-N and the scoring helper on a tiny checkpoint."""

from __future__ import annotations

import json

import pytest
import torch

from pipelines.eval.checkpoint import (
    aggregate,
    best_of_n,
    choose_threshold,
    evaluate_checkpoint,
    first_error,
    format_table,
    processbench_f1,
)
from pipelines.scoring import PRMScorer
from pipelines.train.data import synthetic_rows, write_shards
from pipelines.train.model import (
    ProcessRewardModel,
    StepFormat,
    build_tiny_model,
    load_backbone,
    load_tokenizer,
    save_prm,
)


def test_first_error_skips_unscored_steps():
    assert first_error([0.9, 0.2, 0.1], 0.5) == 1
    assert first_error([0.9, None, 0.8], 0.5) == -1
    assert first_error([], 0.5) == -1


def test_processbench_f1_by_hand():
    recs = [
        {"subset": "gsm8k", "label": 1},
        {"subset": "gsm8k", "label": -1},
        {"subset": "gsm8k", "label": 0},
        {"subset": "math", "label": -1},
    ]
    scores = [[0.9, 0.1], [0.9, 0.8], [0.9, 0.9], [0.2]]
    out = processbench_f1(recs, scores, 0.5)
    # gsm8k: errors 1 of 2 right, correct 1 of 1 -> F1 = 2*.5*1/1.5; math: no error records.
    assert out["gsm8k"]["f1"] == pytest.approx(2 / 3)
    assert out["math"] == {"error_acc": 0.0, "correct_acc": 0.0, "f1": 0.0, "n": 1}
    assert out["average_f1"] == pytest.approx(1 / 3)


def test_threshold_is_chosen_on_the_given_records():
    recs = [{"subset": "s", "label": 1}, {"subset": "s", "label": -1}]
    threshold, f1 = choose_threshold(recs, [[0.9, 0.3], [0.8, 0.6]])
    assert 0.3 < threshold <= 0.6 and f1 == pytest.approx(1.0)


def test_best_of_n_against_vote_and_pass_at_n():
    chains = [
        {"problem_id": "a", "final_answer": "1", "outcome_correct": False},
        {"problem_id": "a", "final_answer": "1", "outcome_correct": False},
        {"problem_id": "a", "final_answer": "2", "outcome_correct": True},
        {"problem_id": "b", "final_answer": "5", "outcome_correct": False},
    ]
    scores = [[0.9, 0.2], [0.5, 0.5], [0.8, 0.7], [None]]
    out = best_of_n(chains, scores, ["min", "prod", "last"])
    assert out["prm_min"] == 0.5 and out["prm_last"] == 0.5  # picks chain 3 for "a"
    assert out["majority_vote"] == 0.0 and out["pass_at_n"] == 0.5
    assert out["mean_chain_acc"] == 0.25
    assert aggregate([None], "min") == float("-inf")
    with pytest.raises(ValueError, match="choose from"):
        aggregate([0.5], "mean")


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    root = tmp_path_factory.mktemp("ev")
    rows = synthetic_rows(12, 4, seed=5)
    write_shards(rows, root / "bon")
    texts = [r["prompt"] + " \n\n " + " \n\n ".join(r["completions"]) for r in rows]
    path = build_tiny_model(root / "tiny", texts)
    model = ProcessRewardModel(load_backbone(path), "classes")
    torch.manual_seed(0)
    torch.nn.init.normal_(model.head.weight, std=0.5)  # an opinionated (random) head
    save_prm(model, load_tokenizer(path), StepFormat(max_length=128), root / "ck")
    records = [
        {
            "id": f"gsm8k-{i}",
            "problem": r["prompt"],
            "steps": r["completions"],
            "label": r["first_error_step"],
            "final_answer_correct": r["outcome_correct"],
        }
        for i, r in enumerate(rows)
    ]
    (root / "gsm8k.json").write_text(json.dumps(records))
    return root


def test_scorer_batches_like_single_calls(checkpoint):
    prm = PRMScorer.load(checkpoint / "ck", batch_size=3)
    chains = [("Start at 1", ["1 + 2 = 3"] * k) for k in (1, 4, 2, 3)]
    batched = prm.score_many(chains)
    for (prompt, steps), got in zip(chains, batched, strict=True):
        assert len(got) == len(steps)
        assert got == pytest.approx(prm.score(prompt, steps), abs=1e-5)
    long = prm.score("Start at 1", ["1 + 2 = 3"] * 40)
    assert long[0] is not None and long[-1] is None  # cut by max_length=128: no score


def test_evaluate_checkpoint_end_to_end(checkpoint, capsys):
    result = evaluate_checkpoint(
        {
            "checkpoint": str(checkpoint / "ck"),
            "processbench": [str(checkpoint / "gsm8k.json")],
            "dev_fraction": 0.5,
            "bon_shards": [str(checkpoint / "bon")],
            "output_dir": str(checkpoint / "eval"),
        }
    )
    pb = result["processbench"]
    assert pb["threshold_from"] == "dev" and 0 < pb["threshold"] < 1
    assert pb["dev_records"] + pb["test_records"] == 48
    assert 0.0 <= pb["average_f1"] <= 1.0
    assert result["best_of_n"]["problems"] == 12
    assert json.loads((checkpoint / "eval" / "metrics.json").read_text()) == result
    assert "average F1" in capsys.readouterr().out
    assert "pass_at_n" in format_table(result)


def test_fixed_threshold_and_missing_inputs(checkpoint):
    result = evaluate_checkpoint(
        {
            "checkpoint": str(checkpoint / "ck"),
            "processbench": [str(checkpoint / "gsm8k.json")],
            "threshold": 0.5,
            "output_dir": str(checkpoint / "eval2"),
        }
    )
    assert result["processbench"]["threshold_from"] == "fixed"
    with pytest.raises(ValueError, match="nothing to evaluate"):
        evaluate_checkpoint({"checkpoint": str(checkpoint / "ck")})
