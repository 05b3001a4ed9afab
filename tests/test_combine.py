"""Label policies: every case the issue names, on hand-built verdicts."""

from __future__ import annotations

import pytest

from labeling.combine import combine, exact_first_error
from labeling.schema import Status, StepVerdict

U = StepVerdict.unverifiable()
OK = StepVerdict(Status.CORRECT, True, 1.0)
BAD = StepVerdict(Status.INCORRECT, False, 0.0)
TIMEOUT = StepVerdict(Status.TIMEOUT)


def mc(*labels):
    return [StepVerdict(Status.UNVERIFIABLE if x is None else Status.CORRECT if x else
                        Status.INCORRECT, x, None if x is None else float(x), rollouts=8)
            for x in labels]  # fmt: skip


def outcome(n, right):
    return [U] * (n - 1) + [OK if right else BAD]


def test_config_errors_raise_and_name_the_choices():
    with pytest.raises(ValueError, match="verifier_first"):
        combine({}, 2, policy="majority")
    with pytest.raises(ValueError, match="negative"):
        combine({}, 2, after_error="zero")
    with pytest.raises(ValueError, match="3 verdicts for 2 steps"):
        combine({"mc": mc(True, True, True)}, 2)


def test_empty_chain():
    assert combine({}, 0).labels == []


def test_mc_policy_uses_mc_labels_only():
    vs = {"mc": mc(True, False, None, False), "calc": [BAD, U, U, U]}
    c = combine(vs, 4, policy="mc", after_error="keep")
    assert c.labels == [True, False, None, False] and c.first_error_step == 1
    assert combine({}, 3, policy="mc").labels == [None] * 3


def test_verifier_first_exact_incorrect_wins_mc_elsewhere():
    vs = {"mc": mc(True, True, True, False), "calc": [OK, BAD, U, U]}
    c = combine(vs, 4, policy="verifier_first", after_error="keep")
    assert c.labels == [True, False, True, False]
    assert c.first_error_step == 1 and c.exact_first_error == 1 and c.mc_first_error == 3


def test_verifier_first_falls_back_to_a_right_outcome_where_mc_is_silent():
    vs = {"mc": mc(None, None, True), "answer": outcome(3, True)}
    assert combine(vs, 3, policy="verifier_first").labels == [True, True, True]
    vs["answer"] = outcome(3, False)
    assert combine(vs, 3, policy="verifier_first").labels == [None, None, False]


def test_a_calc_correct_verdict_does_not_make_a_step_positive():
    vs = {"calc": [OK, OK, U], "answer": [U, U, TIMEOUT]}
    assert combine(vs, 3, policy="verifier_first").labels == [None, None, None]


@pytest.mark.parametrize(
    ("after_error", "expected"),
    [
        ("negative", [True, False, False, False]),
        ("mask", [True, False, None, None]),
        ("keep", [True, False, True, None]),
    ],
)
def test_after_error(after_error, expected):
    vs = {"mc": mc(True, False, True, None)}
    assert combine(vs, 4, policy="mc", after_error=after_error).labels == expected


def test_consensus_drops_disagreeing_chains_with_a_reason():
    vs = {"mc": mc(True, True, False, False), "calc": [U, BAD, U, U]}
    c = combine(vs, 4, policy="consensus")
    assert not c.keep and "MC first error 2" in c.reason and "exact first error 1" in c.reason


def test_consensus_keeps_agreeing_chains():
    vs = {"mc": mc(True, False, False), "calc": [U, BAD, U], "answer": outcome(3, False)}
    c = combine(vs, 3, policy="consensus")
    assert c.keep and c.labels == [True, False, False] and c.first_error_step == 1


@pytest.mark.parametrize(
    "vs",
    [
        {"mc": mc(True, True, True), "calc": [U, BAD, U]},  # MC found no error
        {"mc": mc(True, False, False), "calc": [OK, U, U]},  # calc found no error
        {"mc": mc(True, False, False), "answer": outcome(3, False)},  # outcome does not locate
        {"mc": mc(True, False, False), "answer": [U, U, BAD]},  # nor do failing unit tests
    ],
)
def test_consensus_keeps_chains_where_one_side_has_no_located_error(vs):
    assert combine(vs, 3, policy="consensus").keep


def test_failing_tests_and_outcome_still_make_their_step_negative():
    assert exact_first_error({"answer": outcome(3, False)}) == -1
    assert exact_first_error({"answer": outcome(3, False), "tests": [U, U, BAD]}) == 2
    vs = {"tests": [U, U, BAD], "mc": mc(True, True, None)}
    assert combine(vs, 3, policy="verifier_first").labels == [True, True, False]


def test_outcome_policy():
    assert combine({"answer": outcome(3, True)}, 3, policy="outcome").labels == [True] * 3
    wrong = combine({"answer": outcome(3, False)}, 3, policy="outcome")
    assert wrong.labels == [None, None, False] and wrong.first_error_step == 2
