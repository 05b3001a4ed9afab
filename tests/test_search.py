"""The pure parts of PRM-guided search (labeling.prm.search): checks, aggregation, votes, shapes."""

from __future__ import annotations

import math

import pytest

from labeling.prm.search import (
    Aggregation,
    PRMScoreError,
    aggregate,
    beam_shape,
    best_index,
    canonical_answer,
    check_scores,
    majority_vote,
    top_k,
    weighted_vote,
)


@pytest.mark.parametrize(
    ("how", "expected"),
    [("last", 0.5), ("min", 0.2), ("prod", 0.9 * 0.2 * 0.5), ("mean", (0.9 + 0.2 + 0.5) / 3)],
)
def test_aggregate(how, expected):
    assert aggregate([0.9, 0.2, 0.5], Aggregation(how)) == pytest.approx(expected)


def test_aggregate_ranks_an_unscored_chain_last_and_refuses_unknown_names():
    assert aggregate([], Aggregation.min) == float("-inf")
    assert aggregate([None, None], "prod") == float("-inf")
    assert aggregate([0.9, None, 0.5], "min") == 0.5  # an unscored step says nothing
    with pytest.raises(ValueError, match="choose from"):
        aggregate([0.5], "median")


@pytest.mark.parametrize(
    ("scores", "fragment"),
    [
        ([0.5, None], "None for step 2 of 2"),
        ([math.nan, 0.5], "nan for step 1 of 2"),
        ([0.5, math.inf], "inf for step 2"),
        ([0.5, 1.5], "1.5 for step 2"),
        ([0.5], "1 scores for 2 steps"),
        ([0.5, 0.4, 0.3], "3 scores for 2 steps"),
        ([0.5, "0.4"], "'0.4' for step 2"),
        ([True, 0.5], "True for step 1"),
        (None, "NoneType instead of a list"),
    ],
)
def test_check_scores_refuses_what_is_not_a_probability_per_step(scores, fragment):
    with pytest.raises(PRMScoreError, match="chain x") as info:
        check_scores(scores, 2, "chain x")
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


def test_check_scores_passes_probabilities_through():
    assert check_scores([0, 1, 0.25], 3, "c") == [0.0, 1.0, 0.25]


@pytest.mark.parametrize(
    ("a", "b"),
    [("1,000", "1000"), ("$5.50", "5.5"), (" 3/6 ", "1/2"), ("x + 1", "x  +  1"), ("7.", "7")],
)
def test_canonical_answer_groups_equal_looking_answers(a, b):
    assert canonical_answer(a) == canonical_answer(b)


def test_canonical_answer_keeps_different_answers_apart():
    assert canonical_answer("12") != canonical_answer("21")
    assert canonical_answer(None) is None and canonical_answer("  ") is None


def test_majority_vote_counts_equal_answers_and_breaks_ties_by_position():
    c = majority_vote(["3", "1,000", None, "1000", "3", "1000.0"])
    assert (c.index, c.answer) == (1, "1,000")
    assert majority_vote(["5", "6"]).index == 0  # tie: the earlier answer
    assert majority_vote([None, None]).answer is None  # nobody answered


def test_weighted_vote_sums_weights_per_answer():
    answers = ["5", "6", "6", "5", "7"]
    # 5: 0.9 + 0.1 = 1.0, 6: 0.45 + 0.45 = 0.9, 7: 0.95 -> 5 wins though 7 has the best chain
    c = weighted_vote(answers, [0.9, 0.45, 0.45, 0.1, 0.95])
    assert (c.index, c.answer) == (0, "5")
    assert weighted_vote(answers, [0.1, 0.1, 0.1, 0.1, 0.95]).answer == "7"
    with pytest.raises(ValueError):
        weighted_vote(["1"], [0.5, 0.5])


def test_best_index_and_top_k_are_stable():
    assert best_index([0.2, 0.9, 0.9]) == 1
    assert top_k([0.2, 0.9, 0.5, 0.9], 3) == [1, 3, 2]
    assert top_k([0.2], 0) == []
    with pytest.raises(ValueError):
        best_index([])


@pytest.mark.parametrize(
    ("budget", "width", "shape"),
    [(16, 4, (4, 4)), (4, 4, (1, 4)), (1, 4, (1, 1)), (2, 4, (1, 2)), (8, 2, (4, 2))],
)
def test_beam_shape(budget, width, shape):
    kept, children = beam_shape(budget, width)
    assert (kept, children) == shape
    assert kept * children <= budget


def test_beam_shape_refuses_non_positive():
    with pytest.raises(ValueError):
        beam_shape(0, 4)
