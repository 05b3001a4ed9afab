"""The ProcessBench metric and the step-level precision of `incorrect` flags."""

import pytest

from labeling.first_error import first_flag
from labeling.prm.processbench import ChainScore, format_table, subset_metrics, table

X, OK = "incorrect", "correct"


def test_first_flag():
    assert first_flag([s == X for s in ["", OK, X, X]]) == 2
    assert first_flag([s == X for s in [OK, OK]]) == -1


def test_chain_level_accuracy_and_f1():
    chains = [
        ChainScore(2, 2),  # erroneous, hit
        ChainScore(1, -1),  # erroneous, missed
        ChainScore(-1, -1),  # correct, right
        ChainScore(-1, 0),  # correct, false alarm
    ]
    m = subset_metrics(chains)
    assert m["acc_erroneous"] == 0.5 and m["acc_correct"] == 0.5
    assert m["f1"] == pytest.approx(0.5)
    assert m["erroneous"] == 2 and m["correct"] == 2


def test_step_flags_right_wrong_after():
    chains = [
        ChainScore(2, 0, (X, "", X, X)),  # before (wrong), on (right), after (apart)
        ChainScore(-1, 1, ("", X)),  # any flag in a correct chain is wrong
        ChainScore(1, 1, ("", X)),  # right
        ChainScore(3, -1, ("", "", "", "")),  # missed
    ]
    m = subset_metrics(chains)
    assert (m["flags_right"], m["flags_wrong"], m["flags_after"]) == (2, 2, 1)
    assert m["precision_incorrect"] == 0.5
    assert m["first_error_recall"] == pytest.approx(2 / 3)


def test_unlabeled_chains_are_not_scored():
    m = subset_metrics([ChainScore(None, 0, (X,)), ChainScore(-1, -1, ("",))])
    assert m["unlabeled"] == 1 and m["chains"] == 1 and m["flags_wrong"] == 0


def test_undefined_ratios_are_none():
    m = subset_metrics([ChainScore(-1, -1, ("",))])
    assert m["acc_erroneous"] is None and m["f1"] is None
    assert m["precision_incorrect"] is None


def test_zero_accuracies_give_zero_f1():
    assert subset_metrics([ChainScore(1, -1), ChainScore(-1, 0)])["f1"] == 0.0


def test_average_is_simple_mean_of_subset_f1():
    t = table(
        {
            "a": [ChainScore(0, 0, (X,)), ChainScore(-1, -1, ("",))],  # f1 = 1
            "b": [ChainScore(0, -1, ("",)), ChainScore(-1, -1, ("",))],  # f1 = 0
        }
    )
    assert t["average"]["f1"] == 0.5
    assert t["average"]["precision_incorrect"] == 1.0
    text = format_table(t)
    assert text.splitlines()[0].startswith("subset") and "average" in text


def test_an_undecided_chain_is_a_miss_not_a_no_error_hit():
    # first_error_step null (no step labeled False, some unlabeled) must not read as -1
    m = subset_metrics([ChainScore(-1, None), ChainScore(2, None), ChainScore(-1, -1)])
    assert m["acc_correct"] == 0.5 and m["acc_erroneous"] == 0.0
    assert m["undecided"] == 2 and m["chains_flagged"] == 0
