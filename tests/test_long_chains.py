"""Chains longer than `model.max_length` in training and scoring: the question and as many
whole steps as fit, from the first; what is dropped is counted and reported, never cut
silently, and no label is trained against text it was cut from."""

from __future__ import annotations

import json
import logging

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.checkpoint.format import StepFormat
from pipelines.checkpoint.model import cut_counts, load_tokenizer, tokenize_row
from pipelines.label.app import run as label
from pipelines.train.app import run as train
from tests.conftest import compose
from tests.prm_fixtures import build_tiny_model
from tests.synthetic_traces import long_trace
from tests.tiers import examples

WORDS = ["alpha", "beta", "gamma", "delta", "wait", "so", "=", "1", "2", "3"]


@pytest.fixture(scope="module")
def tok(tmp_path_factory):
    root = tmp_path_factory.mktemp("tok")
    return load_tokenizer(build_tiny_model(root / "m", [" ".join(WORDS * 3)]))


def _fmt(tok, max_length: int, prompt_length: int = 64) -> StepFormat:
    return StepFormat(step_tag_id=tok.eos_token_id, max_length=max_length,
                      max_prompt_length=prompt_length)


def test_a_step_that_does_not_fit_drops_every_later_one(tok):
    fmt = _fmt(tok, max_length=12)
    steps = ["alpha beta", "gamma " * 8, "so"]  # the short third step would still fit
    row = tokenize_row("wait 1", steps, [True, False, True], tok, fmt)
    assert row["step_positions"][1:] == [-1, -1]
    assert sum(t != -100 for t in row["targets"]) == 1  # only the first label is trained
    assert cut_counts(row, [True, False, True]) == {
        "chains": 1, "chains_cut": 1, "steps": 3, "steps_dropped": 2, "labels": 3,
        "labels_dropped": 2, "prompts_cut": 0}
    long_prompt = "wait " * 70
    whole = len(tok(fmt.prompt_template.format(prompt=long_prompt),
                    add_special_tokens=False)["input_ids"])
    assert tokenize_row(long_prompt, ["so"], [True], tok, fmt)["prompt_cut"] == whole - 64 > 0


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12), min_size=1,
                max_size=12),
       st.integers(4, 60), st.integers(1, 10))
def test_no_label_is_trained_against_text_it_was_cut_from(tok, steps, max_length, prompt_len):
    """Every trained label sits right after the complete prompt tokens kept and the complete
    tokens of every step up to its own: nothing before it was cut or skipped."""
    texts = [" ".join(s) for s in steps]
    fmt = _fmt(tok, max_length, prompt_len)
    labels = [i % 2 == 0 for i in range(len(texts))]
    row = tokenize_row("wait so 1 2 3", texts, labels, tok, fmt)
    prompt_ids = tok(fmt.prompt_template.format(prompt="wait so 1 2 3"),
                     add_special_tokens=False)["input_ids"][-prompt_len:]
    step_ids = tok([fmt.step_template.format(step=t) for t in texts],
                   add_special_tokens=False)["input_ids"]
    expected = list(prompt_ids)
    positions = row["step_positions"]
    assert len(row["input_ids"]) <= max_length
    kept = [p for p in positions if p >= 0]
    assert positions[: len(kept)] == kept  # kept steps are a prefix of the chain
    for i, pos in enumerate(kept):
        expected += step_ids[i] + [fmt.step_tag_id]
        assert row["input_ids"][: pos + 1] == expected
        assert row["targets"][pos] == int(labels[i])
    trained = [i for i, t in enumerate(row["targets"]) if t != -100]
    assert trained == [p for i, p in enumerate(kept)]


@pytest.mark.train
def test_prm_train_on_long_traces_reports_what_it_dropped(tmp_path, caplog):
    traces = [long_trace(n, seed=n, error_at=n // 2) for n in (60, 80, 100, 120)]
    data = tmp_path / "t.jsonl"
    data.write_text("".join(json.dumps({"q": t.question, "a": t.reference, "r": t.text}) + "\n"
                            for t in traces))
    label(compose(["dataset=generic", f"dataset.path={data}", "dataset.fields.question=q",
                   "dataset.fields.answer=a", "dataset.fields.response=r", "split.mode=sections",
                   "labels=[answer,calc]", "ray=inprocess", "output.report=false",
                   f"output.dir={tmp_path / 'labels'}"]))
    rows = pl.read_parquet(tmp_path / "labels" / "shards" / "*.parquet")
    model = build_tiny_model(tmp_path / "tiny", [t.text for t in traces])
    cfg = {
        "model": {"path": str(model), "max_length": 256, "max_prompt_length": 64},
        "data": {"shards": [str(tmp_path / "labels")], "val_fraction": 0.0,
                 "label_source": "calc_labels"},
        "optim": {"warmup_steps": 0},
        "train": {"max_steps": 2, "batch_size": 2, "grad_accum": 1, "torch_threads": 1,
                  "save_every": 0, "eval_every": 0},
        "output": {"dir": str(tmp_path / "prm")},
    }
    with caplog.at_level(logging.WARNING, logger="prm-train"):
        summary = train(cfg)
    long = summary["long_chains"]
    assert long["max_length"] == 256 and long["chains"] == 4 and long["chains_cut"] == 4
    assert 0 < long["steps_dropped"] < long["steps"] and long["labels_dropped"] > 0
    assert long["steps_trained"] == long["steps"] - long["steps_dropped"]
    assert long["steps"] <= rows["completions"].list.len().sum()
    assert "longer than model.max_length=256" in caplog.text
    saved = json.loads((tmp_path / "prm" / "summary.json").read_text())
    assert saved["long_chains"] == long


@pytest.mark.train
def test_a_run_where_no_label_fits_stops_with_the_fix(tmp_path):
    from pipelines.cli import UserError
    from tests.prm_fixtures import synthetic_rows, write_shards

    rows = synthetic_rows(6, 1, seed=0)
    write_shards(rows, tmp_path / "labels")
    model = build_tiny_model(tmp_path / "tiny", [r["prompt"] + " " + " ".join(r["completions"])
                                                 for r in rows])
    cfg = {"model": {"path": str(model), "max_length": 8, "max_prompt_length": 8},
           "data": {"shards": [str(tmp_path / "labels")], "val_fraction": 0.0},
           "optim": {"warmup_steps": 0},
           "train": {"max_steps": 3, "batch_size": 2, "grad_accum": 1, "torch_threads": 1,
                     "save_every": 0, "eval_every": 0},
           "output": {"dir": str(tmp_path / "prm")}}
    with pytest.raises(UserError, match="no label of the first 2 chains fits model.max_length=8"):
        train(cfg)
