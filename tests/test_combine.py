"""Label policies: every case the issue names, on hand-built verdicts."""

from __future__ import annotations

import pytest

from labeling.combine import Policy, combine, consensus_reason, exact_first_error
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


def test_verifier_first_leaves_steps_without_evidence_unlabeled_in_a_right_chain():
    vs = {"mc": mc(None, None, True), "answer": outcome(3, True)}
    comb = combine(vs, 3, policy="verifier_first")
    assert comb.labels == [None, None, True] and comb.first_error_step is None


def test_outcome_fill_positive_is_the_math_shepherd_convention_by_name():
    vs = {"mc": mc(None, None, True), "answer": outcome(3, True)}
    comb = combine(vs, 3, policy="verifier_first", outcome_fill="positive")
    assert comb.labels == [True, True, True] and comb.first_error_step == -1
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
    assert not c.keep and c.reason == "first errors disagree: mc 2, calc 1"


def test_consensus_reads_a_prefix_claim_as_wrong_by_that_step():
    # MC: wrong by step 2, where not located (steps 0-1 unlabeled); calc flags step 1: one
    # first error (step 1) fits both, so the chain is kept and calc's flag places it
    vs = {"mc": mc(None, None, False, False), "calc": [U, BAD, U, U]}
    c = combine(vs, 4, policy="consensus")
    assert c.keep and c.labels == [None, False, False, False] and c.first_error_step == 1
    # a flag after the step by which MC says the chain went wrong does not fit
    vs = {"mc": mc(None, None, False, False), "calc": [U, U, U, BAD]}
    assert consensus_reason(vs) == "first errors disagree: mc by 2, calc 3"
    # nor one before MC's last True step
    vs = {"mc": mc(True, None, False, False), "calc": [BAD, U, U, U]}
    assert consensus_reason(vs) == "first errors disagree: mc by 2, calc 0"


def test_consensus_keeps_agreeing_chains():
    vs = {"mc": mc(True, False, False), "calc": [U, BAD, U], "answer": outcome(3, False)}
    c = combine(vs, 3, policy="consensus")
    assert c.keep and c.labels == [True, False, False] and c.first_error_step == 1


@pytest.mark.parametrize(
    "vs",
    [
        {"mc": mc(True, False, False), "calc": [OK, U, U]},  # calc found no error
        {"mc": mc(True, False, False), "answer": outcome(3, False)},  # outcome does not locate
        {"mc": mc(True, False, False), "answer": [U, U, BAD]},  # nor do failing unit tests
    ],
)
def test_consensus_keeps_chains_where_one_side_has_no_located_error(vs):
    assert combine(vs, 3, policy="consensus").keep


def test_consensus_drops_no_error_against_a_located_error():
    # MC says no error, calc finds one at step 1: docs/labels.md calls this a disagreement.
    c = combine({"mc": mc(True, True, True), "calc": [U, BAD, U]}, 3, policy="consensus")
    assert not c.keep and "mc none" in c.reason and "calc 1" in c.reason


def test_failing_tests_and_outcome_still_make_their_step_negative():
    assert exact_first_error({"answer": outcome(3, False)}) == -1
    assert exact_first_error({"answer": outcome(3, False), "tests": [U, U, BAD]}) == 2
    vs = {"tests": [U, U, BAD], "mc": mc(True, True, None)}
    assert combine(vs, 3, policy="verifier_first").labels == [True, True, False]


def test_outcome_policy():
    assert combine({"answer": outcome(3, True)}, 3, policy="outcome").labels == [True] * 3
    wrong = combine({"answer": outcome(3, False)}, 3, policy="outcome")
    assert wrong.labels == [None, None, False] and wrong.first_error_step == 2


# -- judge sources and the configurable consensus (labels.consensus) ------------------------


def judge(first_error, n, evidence=""):
    """Judge verdicts as labeling.judge writes them: correct before, incorrect at, silent after."""
    out = []
    for i in range(n):
        if first_error == -1 or i < first_error:
            out.append(StepVerdict(Status.CORRECT, True, 1.0))
        elif i == first_error:
            out.append(StepVerdict(Status.INCORRECT, False, 0.0, evidence))
        else:
            out.append(StepVerdict(Status.UNVERIFIABLE, None, 0.0))
    return out


JUDGE_ERROR = [StepVerdict(Status.ERROR, None, None, "unparsable critic answer")] * 3
MC_JUDGE = ("mc", "judge")


def test_judge_policy_uses_the_judge_labels_only():
    vs = {"judge": judge(1, 4), "mc": mc(True, True, True, True), "calc": [BAD, U, U, U]}
    c = combine(vs, 4, policy=Policy.judge)
    assert c.labels == [True, False, False, False] and c.first_error_step == 1
    assert c.judge_first_error == 1 and c.keep
    assert combine({"judge": JUDGE_ERROR}, 3, policy="judge").labels == [None] * 3
    assert combine({}, 2, policy="judge").labels == [None, None]


@pytest.mark.parametrize(
    ("mc_labels", "judge_first", "keep"),
    [
        ((True, False, False), 1, True),  # both at step 1
        ((True, True, True), -1, True),  # both: no error (a claim for complete sources)
        ((True, True, False), 1, False),  # 2 vs 1
        ((True, True, True), 1, False),  # MC none, judge 1: Qwen's recipe drops it
        ((True, False, False), -1, False),  # MC 1, judge none
    ],
)
def test_consensus_mc_judge_keeps_only_agreement(mc_labels, judge_first, keep):
    vs = {"mc": mc(*mc_labels), "judge": judge(judge_first, 3)}
    c = combine(vs, 3, policy="consensus", consensus=MC_JUDGE)
    assert c.keep is keep
    assert (c.reason == "") is keep
    if not keep:
        assert c.reason.startswith("first errors disagree: mc ") and "judge " in c.reason


def test_consensus_drops_a_chain_the_judge_could_not_label_with_its_evidence():
    c = combine({"mc": mc(True, True, True), "judge": JUDGE_ERROR}, 3, policy="consensus",
                consensus=MC_JUDGE)
    assert not c.keep and c.reason == "judge gave no label (unparsable critic answer)"


def test_consensus_ignores_sources_that_are_not_listed():
    vs = {"mc": mc(True, False, False), "judge": judge(1, 3), "calc": [BAD, U, U]}
    assert combine(vs, 3, policy="consensus", consensus=MC_JUDGE).keep
    assert not combine(vs, 3, policy="consensus", consensus=("mc", "calc")).keep
    # the labels still follow verifier_first: calc's proof wins at step 0
    assert combine(vs, 3, policy="consensus", consensus=MC_JUDGE).labels == [False] * 3


def test_consensus_of_three_sources_and_a_source_missing_on_this_chain():
    vs = {"mc": mc(True, False, False), "judge": judge(1, 3), "calc": [U, BAD, U]}
    assert consensus_reason(vs, ("mc", "judge", "calc")) == ""
    vs["calc"] = [U, U, BAD]
    assert "calc 2" in consensus_reason(vs, ("mc", "judge", "calc"))
    # judge did not run here (a code chain): it abstains, MC and calc decide
    assert consensus_reason({"mc": mc(True, False, False)}, MC_JUDGE) == ""


def test_consensus_refuses_a_source_that_does_not_locate_errors():
    with pytest.raises(ValueError, match="answer"):
        combine({"answer": outcome(3, False)}, 3, policy="consensus", consensus=("mc", "answer"))


def test_consensus_drops_a_partial_no_error_claim():
    # the judge labeled step 0 right and had no quorum after it: that is not "no error"
    judge = [OK, U, U]
    c = combine({"mc": mc(True, True, True), "judge": judge}, 3, policy="consensus",
                consensus=("mc", "judge"))
    assert not c.keep and "judge left step 1 unlabeled" in c.reason
