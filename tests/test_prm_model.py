"""The row transform, the collator, both trained formats, the checkpoint round trip and
prm-export."""

from __future__ import annotations

import json
import math

import pytest
import torch

from pipelines.checkpoint.export import export, load_checkpoint, new_prm, save_checkpoint
from pipelines.checkpoint.export import main as export_main
from pipelines.checkpoint.format import StepFormat
from pipelines.checkpoint.model import IGNORE, collate, tokenize_row
from tests.prm_fixtures import build_tiny_model

TEXTS = ["Start at 3 and add 4 .\n\n3 + 4 = 7\n\n7 + 2 = 9\n\n", "what is 1 + 1 ? 2"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = build_tiny_model(tmp_path_factory.mktemp("tiny"), TEXTS)
    model, tok, fmt = new_prm(path, StepFormat(max_length=64))
    return path, model, tok, fmt


@pytest.fixture(scope="module")
def tiny_qwen(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("tinyq"), TEXTS, arch="qwen2")


def test_hard_labels_sit_on_the_step_tag(tiny):
    _, _, tok, fmt = tiny
    assert fmt.step_tag_id == tok.get_vocab()["<extra_0>"]  # added to the tokenizer
    row = tokenize_row("Start at 3", ["3 + 4 = 7", "7 + 2 = 9"], [True, False], tok, fmt)
    assert len(row["input_ids"]) == len(row["targets"])
    assert row["input_ids"][0] == tok.bos_token_id
    assert [i for i, t in enumerate(row["input_ids"]) if t == fmt.step_tag_id] == row[
        "step_positions"
    ]
    assert [row["targets"][p] for p in row["step_positions"]] == [1, 0]
    assert sum(t != IGNORE for t in row["targets"]) == 2


def test_the_tag_text_inside_a_chain_adds_no_score(tiny):
    _, _, tok, fmt = tiny
    row = tokenize_row("Start <extra_0> at 3", ["3 + 4<extra_0> = 7"], None, tok, fmt)
    assert row["input_ids"].count(fmt.step_tag_id) == 1


def test_soft_labels_and_masked_steps(tiny):
    _, _, tok, fmt = tiny
    row = tokenize_row(
        "Start at 3", ["3 + 4 = 7", "7 + 2 = 9", "9"], [0.75, None, 0.0], tok, fmt, soft=True
    )
    at = [row["targets"][p] for p in row["step_positions"]]
    assert at[0] == 0.75 and math.isnan(at[1]) and at[2] == 0.0
    assert sum(not math.isnan(t) for t in row["targets"]) == 2


def test_steps_past_max_length_get_no_position(tiny):
    _, _, tok, fmt = tiny
    row = tokenize_row(
        "Start at 3",
        ["3 + 4 = 7"] * 5,
        [True] * 5,
        tok,
        fmt.__class__(**{**fmt.__dict__, "max_length": 20}),
    )
    assert len(row["input_ids"]) <= 20
    assert row["step_positions"][0] > 0 and row["step_positions"][-1] == -1


def test_labels_must_match_steps(tiny):
    _, _, tok, fmt = tiny
    with pytest.raises(ValueError):
        tokenize_row("p", ["a", "b"], [True], tok, fmt)


def test_collate_pads_and_masks(tiny):
    _, _, tok, fmt = tiny
    rows = [tokenize_row("Start", s, [True] * len(s), tok, fmt) for s in (["3"], ["3", "4"])]
    batch = collate(rows, tok.pad_token_id, soft=False)
    assert batch["input_ids"].shape == batch["targets"].shape
    assert batch["attention_mask"][0].sum() == len(rows[0]["input_ids"])
    assert int((~torch.isnan(batch["targets"])).sum()) == 3


@pytest.mark.parametrize("fmt_name", ["causal_lm", "qwen2_prm"])
@pytest.mark.parametrize("soft", [False, True])
def test_losses_start_at_log2_and_learn(tiny, tiny_qwen, fmt_name, soft):
    path = tiny[0] if fmt_name == "causal_lm" else tiny_qwen
    torch.manual_seed(0)
    model, tok, fmt = new_prm(path, StepFormat(format=fmt_name))
    rows = [
        tokenize_row("Start at 3", ["3 + 4 = 7", "7 + 2 = 9"], lab, tok, fmt, soft)
        for lab in ([1.0, 0.0], [1.0, 1.0])
    ]
    batch = collate(rows, tok.pad_token_id, soft)
    where = ~torch.isnan(batch["targets"])
    targets = batch["targets"][where]
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    first = None
    for _ in range(15):
        loss = model.loss(model(batch["input_ids"], batch["attention_mask"], where), targets, soft)
        first = loss.item() if first is None else first
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert first == pytest.approx(math.log(2), abs=1e-4)  # new label rows / zero head: p=0.5
    assert loss.item() < first


def test_qwen2_prm_needs_a_qwen2_backbone(tiny):
    with pytest.raises(ValueError, match="needs a Qwen2 backbone"):
        new_prm(tiny[0], StepFormat(format="qwen2_prm"))


def _logits(model, tok, fmt, chains):
    rows = [tokenize_row(p, s, [True] * len(s), tok, fmt) for p, s in chains]
    batch = collate(rows, tok.pad_token_id, soft=False)
    where = ~torch.isnan(batch["targets"])
    with torch.no_grad():
        return model.eval()(batch["input_ids"], batch["attention_mask"], where)


@pytest.mark.parametrize("fmt_name", ["causal_lm", "qwen2_prm"])
def test_checkpoint_is_a_plain_hf_directory_that_round_trips(tiny, tiny_qwen, fmt_name, tmp_path):
    path = tiny[0] if fmt_name == "causal_lm" else tiny_qwen
    torch.manual_seed(1)
    model, tok, fmt = new_prm(path, StepFormat(format=fmt_name, max_length=77))
    with torch.no_grad():  # an opinionated model, so equal scores are not equal 0.5s
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    save_checkpoint(model, tok, tmp_path / "ck")
    arch = json.loads((tmp_path / "ck" / "config.json").read_text())["architectures"]
    assert arch == (
        ["LlamaForCausalLM"] if fmt_name == "causal_lm" else ["Qwen2ForProcessRewardModel"]
    )
    assert (tmp_path / "ck" / "model.safetensors").exists()
    card = (tmp_path / "ck" / "README.md").read_text()
    assert "vllm serve" in card and "--runner pooling" in card and str(fmt.step_tag_id) in card
    loaded, tok2, fmt2 = load_checkpoint(tmp_path / "ck")
    assert fmt2 == fmt
    chains = [("Start", ["3 + 4 = 7", "7 + 2 = 9"])]
    a, b = _logits(model, tok, fmt, chains), _logits(loaded, tok2, fmt2, chains)
    torch.testing.assert_close(a, b)
    assert (a[:, 1] - a[:, 0]).abs().max() > 1e-3


def test_export_writes_a_copy_that_scores_the_same(tiny, tmp_path):
    torch.manual_seed(3)
    model, tok, fmt = new_prm(tiny[0], StepFormat(max_length=64))
    with torch.no_grad():  # an opinionated model, so equal scores are not equal 0.5s
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    save_checkpoint(model, tok, tmp_path / "ck")
    report = export(tmp_path / "ck", tmp_path / "out")
    assert (report["format"], report["step_tag_id"]) == (fmt.format, fmt.step_tag_id)
    assert " serve " in report["serve"] and str((tmp_path / "out").resolve()) in report["serve"]
    chains = [("Start", ["3 + 4 = 7", "7 + 2 = 9"])]
    before = _logits(*load_checkpoint(tmp_path / "ck"), chains)
    torch.testing.assert_close(_logits(*load_checkpoint(tmp_path / "out"), chains), before)
    assert (before[:, 1] - before[:, 0]).abs().max() > 1e-3
    with pytest.raises(ValueError, match="must differ"):
        export(tmp_path / "ck", tmp_path / "ck")


def test_prm_export_cli_says_one_sentence_on_a_bad_path(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        export_main([str(tmp_path / "missing"), str(tmp_path / "out")])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("prm-export: error: ")


def test_loading_a_non_checkpoint_names_the_fix(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a PRM checkpoint"):
        load_checkpoint(tmp_path)
