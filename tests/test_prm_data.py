"""Shard streaming: filters, the split by problem, determinism, dealing to ranks, resume."""

from __future__ import annotations

import pytest

from labeling.shards import input_shards
from pipelines.cli import UserError
from pipelines.train.config import PRMDataConfig
from pipelines.train.data import ChainStream, iter_examples, row_targets, validation_examples
from tests.prm_fixtures import synthetic_rows, write_shards


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    return str(write_shards(synthetic_rows(30, 3, seed=1), tmp_path_factory.mktemp("s"), 20))


def _row(**kw):
    base = {
        "domain": "math",
        "completions": ["a", "b", "c"],
        "labels": [True, False, None],
        "mc_labels": [True, False, None],
        "mc_scores": [0.9, 0.0, None],
        "mc_rollouts": [8, 2, None],
        "verdicts": [],
    }
    return {**base, **kw}


def test_label_sources():
    assert row_targets(_row(), PRMDataConfig()) == [True, False, None]
    assert row_targets(_row(), PRMDataConfig(label_source="mc_scores")) == [0.9, 0.0, None]
    assert row_targets(_row(), PRMDataConfig(label_source="mc_labels")) == [True, False, None]
    assert row_targets(_row(human_labels=None), PRMDataConfig(label_source="human_labels")) is None


def test_filters_mask_or_drop():
    assert row_targets(_row(), PRMDataConfig(min_rollouts=4)) == [True, None, None]
    assert row_targets(_row(), PRMDataConfig(min_rollouts=9)) is None  # nothing left to learn
    assert row_targets(_row(domain="code"), PRMDataConfig(domains=["math"])) is None
    disagree = [_verdict("mc", 0, True), _verdict("mc", 1, False), _verdict("calc", 0, False)]
    agree = [_verdict("mc", 0, True), _verdict("mc", 1, False), _verdict("calc", 1, False)]
    # the final answer does not locate errors: it never makes a chain disagree
    answer_only = [_verdict("mc", 0, True), _verdict("mc", 1, False), _verdict("answer", 2, False)]
    no_error = [_verdict("mc", i, True) for i in range(3)] + [_verdict("calc", 1, False)]
    assert row_targets(_row(verdicts=disagree), PRMDataConfig(consensus_only=True)) is None
    assert row_targets(_row(verdicts=agree), PRMDataConfig(consensus_only=True)) is not None
    assert row_targets(_row(verdicts=answer_only), PRMDataConfig(consensus_only=True)) is not None
    assert row_targets(_row(verdicts=no_error), PRMDataConfig(consensus_only=True)) is None


def _verdict(source, step, label, score=None):
    status = "correct" if label else "incorrect"
    return {"source": source, "step": step, "status": status, "label": label, "score": score,
            "rollouts": 0, "evidence": ""}


def test_mc_labels_are_the_mc_sources_label_not_a_score_threshold():
    # confirm=2: one success in ten rollouts is a False label with score 0.1
    row = _row(mc_labels=[True, False, None], mc_scores=[0.9, 0.1, None])
    assert row_targets(row, PRMDataConfig(label_source="mc_labels")) == [True, False, None]
    # binary search labels a step True by reach, with no rollouts and no score there
    row = _row(mc_labels=[True, True, False], mc_scores=[None, 0.5, 0.0])
    assert row_targets(row, PRMDataConfig(label_source="mc_labels")) == [True, True, False]
    # shards from before the mc_labels column: the mc verdicts hold the labels
    old = _row(mc_labels=None, verdicts=[_verdict("mc", 0, True), _verdict("mc", 1, False)])
    assert row_targets(old, PRMDataConfig(label_source="mc_labels")) == [True, False, None]


def test_bad_rows_and_configs_name_the_fix():
    with pytest.raises(ValueError, match="choose one of"):
        row_targets(_row(), PRMDataConfig(label_source="gold"))
    with pytest.raises(ValueError, match="re-run prm-label"):
        row_targets(_row(labels=[True]), PRMDataConfig())
    with pytest.raises(FileNotFoundError, match="data.shards"):
        input_shards(["/nonexistent"])


def test_split_is_by_problem_and_stream_is_deterministic(shards):
    cfg = PRMDataConfig(shards=[shards], val_fraction=0.3, shuffle_buffer=7, read_batch_rows=5)
    files = input_shards(cfg.shards)
    train = list(iter_examples(cfg, files, "train", seed=0, epoch=0))
    val = list(validation_examples(cfg, seed=0))
    assert not {e.problem_id for e in train} & {e.problem_id for e in val}
    assert len(train) + len(val) == 90 and val
    again = list(iter_examples(cfg, files, "train", seed=0, epoch=0))
    assert [e.chain_id for e in again] == [e.chain_id for e in train]
    other = list(iter_examples(cfg, files, "train", seed=0, epoch=1))
    assert [e.chain_id for e in other] != [e.chain_id for e in train]  # each epoch reshuffles


def test_ranks_get_disjoint_equal_shares(shards):
    cfg = PRMDataConfig(shards=[shards], val_fraction=0.0, shuffle_buffer=16)
    a, b = ChainStream(cfg, 0, rank=0, world=2), ChainStream(cfg, 0, rank=1, world=2)
    xs = [next(a) for _ in range(45)]
    ys = [next(b) for _ in range(45)]
    assert a.position == b.position == {"epoch": 0, "taken": 45}  # 90 chains, 45 each
    next(a)
    assert a.position == {"epoch": 1, "taken": 1}
    assert not {e.chain_id for e in xs} & {e.chain_id for e in ys}
    assert len({e.chain_id for e in xs + ys}) == 90


def test_skip_resumes_the_same_stream(shards):
    cfg = PRMDataConfig(shards=[shards], val_fraction=0.2, shuffle_buffer=8)
    full = ChainStream(cfg, 3)
    seen = [next(full) for _ in range(100)]  # crosses an epoch boundary
    resumed = ChainStream(cfg, 3)
    half = ChainStream(cfg, 3)
    for _ in range(60):
        next(half)
    resumed.skip(half.position)
    assert [next(resumed).chain_id for _ in range(40)] == [e.chain_id for e in seen[60:]]


def test_empty_after_filters_says_so(shards):
    stream = ChainStream(PRMDataConfig(shards=[shards], domains=["code"]), 0)
    with pytest.raises(UserError, match="loosen the filters"):
        next(stream)
