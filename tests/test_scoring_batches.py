"""The scorer's fast path (tokenized once, step positions gathered on the device) gives what
scoring each chain alone gives, and the reward server's batcher puts short requests first."""

from __future__ import annotations

import asyncio

import pytest
import torch

from pipelines.checkpoint.model import collate, tokenize_row, tokenize_rows
from pipelines.reward.batching import PATIENCE, Batcher
from pipelines.scoring import PRMScorer

CHAINS = [
    ("Start at 3 and add 4 , 2 .", ["3 + 4 = 7", "7 + 2 = 9", "The answer is \\boxed{9} ."]),
    ("What is 12 * 3 ?", []),  # no steps: nothing to score
    ("What is 12 * 3 ? <extra_0>", ["12 * 3 = 36 <extra_0>", "So the final answer is 36 ."]),
    ("Start at 3 and add 4 , 2 .", ["Step 1 : 3 + 4 = 7 7 + 2 = 9 " * 3] * 6),  # cut by length
    ("你 好 😀", ["ü é 0 1 5 6 8", "8 + 1 = 9"]),
]


@pytest.fixture(scope="module")
def scorer(prm_ckpt):
    return PRMScorer.load(prm_ckpt, batch_size=3)


def test_tokenizing_all_chains_at_once_equals_one_at_a_time(scorer):
    rows = tokenize_rows(CHAINS, scorer.tokenizer, scorer.fmt)
    alone = [tokenize_row(p, s, None, scorer.tokenizer, scorer.fmt) for p, s in CHAINS]
    assert rows == alone
    assert any(p < 0 for p in rows[3]["step_positions"])  # the long chain really is cut


def test_scores_equal_each_chain_scored_alone_by_a_plain_forward(scorer):
    got = scorer.score_many(CHAINS)
    for (prompt, steps), scores in zip(CHAINS, got, strict=True):
        row = tokenize_row(prompt, steps, None, scorer.tokenizer, scorer.fmt)
        batch = collate([row], scorer.tokenizer.pad_token_id, soft=True)
        where = torch.zeros_like(batch["input_ids"], dtype=torch.bool)
        for p in row["step_positions"]:
            if p >= 0:
                where[0, p] = True
        with torch.no_grad():
            probs = scorer.model.probs(scorer.model(batch["input_ids"], batch["attention_mask"],
                                                    where)).tolist()  # fmt: skip
        expected = iter(probs)
        want = [next(expected) if p >= 0 else None for p in row["step_positions"]]
        assert len(scores) == len(steps)
        assert [s is None for s in scores] == [w is None for w in want]
        assert scores == pytest.approx(want, abs=1e-5)
    assert len({round(s, 4) for s in got[0]}) > 1  # the scores spread: the check has teeth


def _batches(jobs, max_batch, size):
    seen: list[list[str]] = []

    def score(items):
        seen.append(list(items))
        return [len(x) for x in items]

    async def main():
        b = Batcher(score, max_batch=max_batch, max_wait_s=0.0, size=size)
        b.start()
        try:
            return await asyncio.gather(*(b.submit(j) for j in jobs))
        finally:
            await b.stop()

    return asyncio.run(main()), seen


def test_short_requests_are_not_scored_behind_a_long_one():
    long, short = "x" * 16_000, ["", "2 + 2 = 4", "ok"]
    jobs = [[long], [short[0]], [short[1]], [short[2]]]
    out, seen = _batches(jobs, max_batch=8, size=len)
    assert out == [[16_000], [0], [9], [2]]  # every request gets its own results
    assert seen == [sorted(short, key=len), [long]]  # shortest first, the long one alone
    _, fifo = _batches(jobs, max_batch=8, size=None)
    assert fifo == [[long, *short]]  # without sizes: arrival order, one batch


def test_a_long_request_is_delayed_never_starved():
    b = Batcher(lambda items: items, max_batch=1, size=len)
    b.waiting.append([["x" * 16_000], "long", 16_000, 0])
    taken = []
    for i in range(PATIENCE + 2):  # a new short request arrives before every batch
        b.waiting.append([["s"], f"short{i}", 1, 0])
        b.queued += 1
        taken.append(b._take()[0][1])
    assert taken[:PATIENCE] == [f"short{i}" for i in range(PATIENCE)]
    assert taken[PATIENCE] == "long"
