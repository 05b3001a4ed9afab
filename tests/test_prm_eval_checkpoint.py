"""ProcessBench F1, threshold choice, best-of-N and the scoring helper on a tiny checkpoint;
third-party PRMs (Qwen2.5-Math-PRM style, Math-Shepherd style) built locally as tiny models."""

from __future__ import annotations

import json

import pytest
import torch

from pipelines.checkpoint.export import QWEN_PRM_TEMPLATE, new_prm, save_checkpoint
from pipelines.checkpoint.format import StepFormat
from pipelines.checkpoint.model import load_tokenizer
from pipelines.eval.checkpoint import (
    aggregate,
    best_of_n,
    choose_threshold,
    evaluate_checkpoint,
    format_table,
    processbench_f1,
)
from pipelines.scoring import PRMScorer
from tests.prm_fixtures import build_tiny_model, synthetic_rows, write_shards


def test_a_prm_flags_steps_under_the_threshold_and_never_an_unscored_one():
    recs = [{"subset": "s", "label": 1}, {"subset": "s", "label": -1}]
    out = processbench_f1(recs, [[0.9, 0.2, 0.1], [0.9, None, 0.8]], 0.5)["s"]
    assert out["acc_erroneous"] == 1.0 and out["acc_correct"] == 1.0
    assert (out["flags_right"], out["flags_wrong"], out["flags_after"]) == (1, 0, 1)


def test_processbench_f1_by_hand():
    recs = [
        {"subset": "gsm8k", "label": 1},
        {"subset": "gsm8k", "label": -1},
        {"subset": "gsm8k", "label": 0},
        {"subset": "math", "label": -1},
    ]
    scores = [[0.9, 0.1], [0.9, 0.8], [0.9, 0.9], [0.2]]
    out = processbench_f1(recs, scores, 0.5)
    # gsm8k: errors 1 of 2 right, correct 1 of 1 -> F1 = 2*.5*1/1.5; math: no error records,
    # so no F1 (not 0.0), and the average is over gsm8k alone.
    assert out["gsm8k"]["f1"] == pytest.approx(2 / 3)
    math = out["math"]
    assert (math["chains"], math["acc_erroneous"], math["acc_correct"], math["f1"]) == (
        1, None, 0.0, None)
    assert out["average"]["f1"] == pytest.approx(2 / 3)


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
        aggregate([0.5], "median")


def test_best_of_n_majority_vote_is_the_searchs_majority_vote():
    """prm-eval's best-of-N and prm-search vote the same way: "1,000", "1000" and "$1000" are
    one answer (three votes against two), and the chosen chain is the search's choice."""
    from labeling.prm.search import majority_vote

    answers = ["7", "1,000", "1000", "$1000", "7"]
    chains = [{"problem_id": "a", "final_answer": a, "outcome_correct": a != "7"}
              for a in answers]  # fmt: skip
    out = best_of_n(chains, [[0.5]] * len(chains), ["last"])
    choice = majority_vote(answers)
    assert out["majority_vote"] == float(chains[choice.index]["outcome_correct"]) == 1.0


def test_checkpoint_f1_is_the_label_evals_f1():
    """One ProcessBench F1: a subset with no erroneous record has no F1 (None, not 0.0) in
    both prm-eval modes, and the average is over the subsets that have one."""
    from labeling.prm.processbench import ChainScore, table

    recs = [{"subset": "gsm8k", "label": 1}, {"subset": "gsm8k", "label": -1},
            {"subset": "math", "label": -1}]  # fmt: skip
    scores = [[0.9, 0.1], [0.9, 0.8], [0.9]]
    out = processbench_f1(recs, scores, 0.5)
    same = table({"gsm8k": [ChainScore(1, 1), ChainScore(-1, -1)], "math": [ChainScore(-1, -1)]})
    assert out["math"]["f1"] is None and same["math"]["f1"] is None
    assert out["average"]["f1"] == same["average"]["f1"] == pytest.approx(1.0)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    root = tmp_path_factory.mktemp("ev")
    rows = synthetic_rows(12, 4, seed=5)
    write_shards(rows, root / "bon")
    texts = [r["prompt"] + " \n\n " + " \n\n ".join(r["completions"]) for r in rows]
    path = build_tiny_model(root / "tiny", texts)
    model, tok, _ = new_prm(path, StepFormat(max_length=128))
    torch.manual_seed(0)
    with torch.no_grad():  # an opinionated (random) pair of label rows
        torch.nn.init.normal_(model.lm.get_output_embeddings().weight, std=0.5)
    save_checkpoint(model, tok, root / "ck")
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
        },
        str(checkpoint / "eval"),
    )
    pb = result["processbench"]
    assert pb["threshold_from"] == "dev" and 0 < pb["threshold"] < 1
    assert pb["dev_records"] + pb["test_records"] == 48
    # One subset: its F1 is the harmonic mean of its two accuracies, and the average is it.
    sub = pb["gsm8k"]
    a, b = sub["acc_erroneous"], sub["acc_correct"]
    assert sub["f1"] == pytest.approx(2 * a * b / (a + b) if a + b else 0.0)
    assert pb["average"]["f1"] == pytest.approx(sub["f1"]) and sub["chains"] == pb["test_records"]
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
        },
        str(checkpoint / "eval2"),
    )
    assert result["processbench"]["threshold_from"] == "fixed"
    with pytest.raises(ValueError, match="nothing to evaluate"):
        evaluate_checkpoint({"checkpoint": str(checkpoint / "ck")}, checkpoint / "eval3")


QUESTION, STEPS = "Start at 3 and add 4 , 2 .", ["3 + 4 = 7", "7 + 2 = 10"]


def _third_party(root, style):
    """A tiny checkpoint laid out as the published model of `style` is (no prm_format.json)."""
    import safetensors.torch
    from transformers import AutoModel, LlamaForCausalLM

    texts = [
        QUESTION + " " + " ".join(STEPS) + " system user assistant Please reason step by"
        " step , and put your final answer within \\boxed{} ."
    ]
    arch = "qwen2" if style == "qwen" else "llama"
    path = build_tiny_model(root / "base", texts, hidden=64, arch=arch, seed=3)
    tok = load_tokenizer(path)
    special = ["<extra_0>", "<|im_start|>", "<|im_end|>"] if style == "qwen" else ["ки", "+", "-"]
    tok.add_tokens(special, special_tokens=style == "qwen")
    out = root / style
    if style == "qwen":
        body = AutoModel.from_pretrained(path)
        body.resize_token_embeddings(len(tok))
        torch.manual_seed(4)
        score = torch.nn.Sequential(
            torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2)
        )
        state = {f"model.{k}": v for k, v in body.state_dict().items()}
        state.update({f"score.{k}": v for k, v in score.state_dict().items()})
        out.mkdir()
        safetensors.torch.save_file(
            {k: v.contiguous() for k, v in state.items()}, str(out / "model.safetensors")
        )
        body.config.architectures = ["Qwen2ForProcessRewardModel"]
        body.config.save_pretrained(out)
    else:
        lm = LlamaForCausalLM.from_pretrained(path)
        lm.resize_token_embeddings(len(tok))
        lm.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def _published_scores(ckpt, style):
    """Scores by the model card recipe of each family, from text (not our tokenize_row)."""
    import safetensors.torch
    from transformers import AutoModel, AutoModelForCausalLM

    tok = load_tokenizer(ckpt)
    if style == "qwen":
        text = QWEN_PRM_TEMPLATE.format(prompt=QUESTION) + "<extra_0>".join(STEPS) + "<extra_0>"
        tag = tok.get_vocab()["<extra_0>"]
    else:
        text = QUESTION + " " + "".join(f"{s} ки" for s in STEPS)
        tag = tok.get_vocab()["ки"]
    ids = tok(text, add_special_tokens=False)["input_ids"]
    if style != "qwen" and tok.bos_token_id is not None:
        ids = [tok.bos_token_id, *ids]
    pos = [i for i, t in enumerate(ids) if t == tag]
    with torch.no_grad():
        if style == "qwen":
            w = safetensors.torch.load_file(str(ckpt / "model.safetensors"))
            h = AutoModel.from_pretrained(ckpt)(torch.tensor([ids])).last_hidden_state[0][pos]
            h = torch.relu(h @ w["score.0.weight"].T + w["score.0.bias"])
            return (h @ w["score.2.weight"].T + w["score.2.bias"]).softmax(-1)[:, 1].tolist()
        logits = AutoModelForCausalLM.from_pretrained(ckpt)(torch.tensor([ids])).logits[0][pos]
        good, bad = tok.get_vocab()["+"], tok.get_vocab()["-"]
        return logits[:, [good, bad]].softmax(-1)[:, 0].tolist()  # Math-Shepherd's own recipe


@pytest.mark.parametrize(("style", "fmt"), [("qwen", "qwen2_prm"), ("shepherd", "causal_lm")])
def test_third_party_prm_evaluates_by_path(checkpoint, tmp_path, style, fmt):
    ckpt = _third_party(tmp_path, style)
    prm = PRMScorer.load(ckpt)
    assert prm.fmt.format == fmt
    assert prm.score(QUESTION, STEPS) == pytest.approx(_published_scores(ckpt, style), abs=1e-5)
    result = evaluate_checkpoint(
        {
            "checkpoint": str(ckpt),
            "processbench": [str(checkpoint / "gsm8k.json")],
            "threshold": 0.5,
            "bon_shards": [str(checkpoint / "bon")],
        },
        str(tmp_path / "eval"),
    )
    assert result["format"] == fmt and result["processbench"]["test_records"] > 0
    assert result["best_of_n"]["problems"] == 12


def test_third_party_conventions_can_be_overridden(tmp_path):
    ckpt = _third_party(tmp_path, "shepherd")
    default = PRMScorer.load(ckpt).score(QUESTION, STEPS)
    swapped = PRMScorer.load(ckpt, label_tokens=["+", "-"]).score(QUESTION, STEPS)
    assert swapped == pytest.approx([1 - p for p in default], abs=1e-6)
    with pytest.raises(ValueError, match="has no token"):
        PRMScorer.load(ckpt, step_tag="<nope>")


EVAL_TYPOS = [
    ("mode=checkpont", "mode"),
    ("checkpoint.style=qwen", "checkpoint.style"),
    ("checkpoint.device=gpu", "checkpoint.device"),
    ("checkpoint.aggregations=[min,median]", "checkpoint.aggregations"),
    ("subsets=[gsm8k,maths]", "subsets"),
    ("sources=[calc,mc]", "sources"),
]


@pytest.mark.app
@pytest.mark.parametrize(("override", "key"), EVAL_TYPOS)
def test_eval_enum_typo_exits_2_with_one_sentence(tmp_path, override, key):
    from tests.conftest import app_error_line

    line = app_error_line("prm-eval", [override, f"output.dir={tmp_path}/o"], tmp_path)
    assert key in line and "expected one of" in line.lower()
    assert not (tmp_path / "o").exists()
