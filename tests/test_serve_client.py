"""The vLLM client's pure part: formatting, batching, mapping step-tag rows to steps, and
refusing answers of the wrong shape. The backend is a fake here; the real server and engine
are driven in tests/test_export_parity.py."""

from __future__ import annotations

import math

import pytest

from pipelines.checkpoint.export import new_prm, save_checkpoint
from pipelines.checkpoint.format import StepFormat
from pipelines.checkpoint.model import tokenize_row
from pipelines.serve import PRMClient, ScoringError
from tests.prm_fixtures import build_tiny_model

CHAINS = [("Start at 3", ["3 + 4 = 7", "7 + 2 = 9"]), ("what is 1 + 1 ?", ["2"])]


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    root = tmp_path_factory.mktemp("client")
    path = build_tiny_model(root / "tiny", ["Start at 3 + 4 = 7 7 + 2 = 9 what is 1 ?"])
    # A template that itself holds the tag: the server returns a row there too.
    model, tok, _ = new_prm(path, StepFormat(prompt_template="{prompt}<extra_0>", max_length=40))
    return save_checkpoint(model, tok, root / "ck")


class FakeBackend:
    """Answers like vLLM's STEP pooler: one [p_bad, p_good] row per step-tag occurrence,
    here p_good = (token position) / 1000 so the test can tell which row went where."""

    def __init__(self, tag_id: int) -> None:
        self.tag_id, self.calls = tag_id, []

    def __call__(self, batch):
        self.calls.append(len(batch))
        return [[[1 - i / 1000, i / 1000] for i, t in enumerate(ids) if t == self.tag_id]
                for ids in batch]  # fmt: skip


def test_scores_come_from_the_step_ends_only(ckpt):
    fmt = StepFormat.load(ckpt)
    fake = FakeBackend(fmt.step_tag_id)
    client = PRMClient(ckpt, fake, batch_size=1)
    scores = client.score_many(CHAINS)
    assert fake.calls == [1, 1]  # batched by batch_size
    for (prompt, steps), got in zip(CHAINS, scores, strict=True):
        row = tokenize_row(prompt, steps, None, client.tokenizer, fmt)
        assert row["input_ids"].count(fmt.step_tag_id) == len(steps) + 1  # + the template's
        assert got == pytest.approx([p / 1000 for p in row["step_positions"]])


def test_steps_cut_by_max_length_score_none(ckpt):
    fmt = StepFormat.load(ckpt)
    client = PRMClient(ckpt, FakeBackend(fmt.step_tag_id))
    got = client.score("Start at 3", ["3 + 4 = 7"] * 12)
    assert got[0] is not None and got[-1] is None


@pytest.mark.parametrize(
    "answer",
    [
        lambda rows: rows[:-1],  # a row missing
        lambda rows: [[0.5] for _ in rows],  # one column
        lambda rows: [[0.5, math.nan] for _ in rows],  # not finite
        lambda rows: "oops",
    ],
)
def test_a_malformed_answer_is_an_error_not_a_score(ckpt, answer):
    fmt = StepFormat.load(ckpt)
    fake = FakeBackend(fmt.step_tag_id)
    client = PRMClient(ckpt, lambda batch: [answer(r) for r in fake(batch)])
    with pytest.raises(ScoringError):
        client.score_many(CHAINS)
