"""The row transform, the collator, the head's losses and the checkpoint round trip."""

from __future__ import annotations

import math

import pytest
import torch

from pipelines.train.model import (
    IGNORE,
    ProcessRewardModel,
    StepFormat,
    build_tiny_model,
    collate,
    load_backbone,
    load_prm,
    load_tokenizer,
    save_prm,
    tokenize_row,
)

TEXTS = ["Start at 3 and add 4 .\n\n3 + 4 = 7\n\n7 + 2 = 9\n\n", "what is 1 + 1 ? 2"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = build_tiny_model(tmp_path_factory.mktemp("tiny"), TEXTS)
    return path, load_tokenizer(path)


def test_hard_labels_sit_on_the_separator(tiny):
    _, tok = tiny
    fmt = StepFormat(separator="\n\n", prompt_template="{prompt}\n\n")
    row = tokenize_row("Start at 3", ["3 + 4 = 7", "7 + 2 = 9"], [True, False], tok, fmt)
    sep = tok.convert_tokens_to_ids("\n\n")
    assert len(row["input_ids"]) == len(row["targets"])
    assert row["input_ids"][0] == tok.bos_token_id
    for pos in row["step_positions"]:
        assert row["input_ids"][pos] == sep
    assert [row["targets"][p] for p in row["step_positions"]] == [1, 0]
    assert sum(t != IGNORE for t in row["targets"]) == 2


def test_soft_labels_and_masked_steps(tiny):
    _, tok = tiny
    row = tokenize_row(
        "Start at 3",
        ["3 + 4 = 7", "7 + 2 = 9", "9"],
        [0.75, None, 0.0],
        tok,
        StepFormat(),
        soft=True,
    )
    at = [row["targets"][p] for p in row["step_positions"]]
    assert at[0] == 0.75 and math.isnan(at[1]) and at[2] == 0.0
    assert sum(not math.isnan(t) for t in row["targets"]) == 2


def test_steps_past_max_length_get_no_position(tiny):
    _, tok = tiny
    fmt = StepFormat(max_length=20)
    row = tokenize_row("Start at 3", ["3 + 4 = 7"] * 5, [True] * 5, tok, fmt)
    assert len(row["input_ids"]) <= 20
    assert row["step_positions"][0] > 0 and row["step_positions"][-1] == -1


def test_labels_must_match_steps(tiny):
    _, tok = tiny
    with pytest.raises(ValueError):
        tokenize_row("p", ["a", "b"], [True], tok, StepFormat())


def test_collate_pads_and_masks(tiny):
    _, tok = tiny
    rows = [
        tokenize_row("Start", s, [True] * len(s), tok, StepFormat()) for s in (["3"], ["3", "4"])
    ]
    batch = collate(rows, tok.pad_token_id, soft=False)
    assert batch["input_ids"].shape == batch["targets"].shape
    assert batch["attention_mask"][0].sum() == len(rows[0]["input_ids"])
    assert int((~torch.isnan(batch["targets"])).sum()) == 3


@pytest.mark.parametrize("head", ["classes", "scalar"])
@pytest.mark.parametrize("soft", [False, True])
def test_losses_start_at_log2_and_learn(tiny, head, soft):
    path, tok = tiny
    torch.manual_seed(0)
    model = ProcessRewardModel(load_backbone(path), head)
    rows = [
        tokenize_row("Start at 3", ["3 + 4 = 7", "7 + 2 = 9"], lab, tok, StepFormat(), soft)
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
    assert first == pytest.approx(math.log(2), abs=1e-4)  # the zero-initialised head says 0.5
    assert loss.item() < first


def test_checkpoint_round_trip_keeps_format_and_scores(tiny, tmp_path):
    path, tok = tiny
    fmt = StepFormat(separator="\n\n", max_length=77, head="scalar")
    model = ProcessRewardModel(load_backbone(path), "scalar")
    torch.nn.init.normal_(model.head.weight)
    save_prm(model, tok, fmt, tmp_path / "ck")
    loaded, tok2, fmt2 = load_prm(tmp_path / "ck")
    assert fmt2 == fmt
    row = tokenize_row("Start", ["3 + 4 = 7"], [True], tok2, fmt2)
    batch = collate([row], tok2.pad_token_id, soft=False)
    where = ~torch.isnan(batch["targets"])
    with torch.no_grad():
        a = model.eval()(batch["input_ids"], batch["attention_mask"], where)
        b = loaded(batch["input_ids"], batch["attention_mask"], where)
    torch.testing.assert_close(a, b)


def test_loading_a_non_checkpoint_names_the_fix(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a PRM checkpoint"):
        load_prm(tmp_path)
