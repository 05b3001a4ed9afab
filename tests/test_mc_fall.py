"""The `fall` rule: a step is False only where the completer's success rate falls across it,
judged against its self-confidence on the problem; unverifiable where it cannot tell."""

from __future__ import annotations

import math

import pytest

from labeling.mc import ChainFacts, Fall, method
from labeling.mc.fall import FallBinary, FallPerStep, FallTest
from labeling.mc.stats import bayes_factor, betainc
from labeling.schema import SelfConfidence, Status
from tests.fakes import drive, every, mean_score


def fall(base, own=0, cap=20, chunk=1, level=0.05):
    return FallTest(Fall(level=level, max_rollouts=cap, chunk=chunk), base, own)


def test_betainc_matches_closed_forms():
    assert betainc(1, 1, 0.3) == pytest.approx(0.3)
    assert betainc(2, 3, 0.4) == pytest.approx(0.5248)  # 1 - sum_{j<2} C(4,j) .4^j .6^(4-j)
    assert betainc(0.5, 0.5, 0.5) == pytest.approx(0.5)
    assert betainc(3, 2, 0.0) == 0.0 and betainc(3, 2, 1.0) == 1.0


def test_the_bayes_factor_follows_the_counts():
    base = (6, 12)
    assert bayes_factor((0, 12), base, 0.1, 0.75) > 20  # twelve failures: fell
    assert bayes_factor((4, 6), base, 0.1, 0.75) < 0.05  # four of six: kept
    # more failures, more evidence of a fall; a success, less
    fs = [bayes_factor((0, n), base, 0.1, 0.75) for n in range(1, 10)]
    assert fs == sorted(fs)
    assert bayes_factor((1, 5), base, 0.1, 0.75) < bayes_factor((0, 5), base, 0.1, 0.75)
    assert all(math.isfinite(bayes_factor((x, n), (0, 0), 0.1, 0.75))
               for n in range(0, 30, 7) for x in range(n + 1))


def test_a_harmless_opening_line_is_not_called_wrong():
    # The completer solves the problem 3 times in 12 from the question; the opening line
    # ("To solve this problem, we need to find...") changes nothing (rate 1/4 after it too),
    # the real error is step 3 (rate 0 from there). Today's absolute rule (2 successes in
    # 5..10 rollouts) would often call step 0 wrong; the fall rule places the error at 3.
    est = drive(FallBinary(ChainFacts(6, outcome=False), fall((3, 12))),
                lambda i, j: i < 3 and every(4)(j))
    labels = [v.label for v in est.verdicts()]
    assert labels == [True, True, True, False, False, False]
    v = est.verdicts()[3]
    assert v.status == Status.INCORRECT and "falls across this step" in v.evidence
    assert v.successes == 0 and v.decided == v.rollouts > 0


def test_a_weak_completer_labels_nothing_and_says_why():
    est = FallBinary(ChainFacts(6, outcome=False), fall((1, 12)))
    assert est.futile and est.pending() == [] and est.rollouts == 0
    verdicts = est.verdicts()
    assert [v.label for v in verdicts] == [None] * 5 + [False]  # the chain's own answer
    assert all(v.status == Status.UNVERIFIABLE for v in verdicts[:5])
    assert "cannot show a fall" in verdicts[0].evidence and "1/12" in verdicts[0].evidence


def test_undecided_within_the_cap_is_unverifiable_with_its_counts():
    # A step whose rate sits between "fell" and "kept" (a third of the self-confidence)
    # never decides: after max_rollouts it is unverifiable and the search stops there.
    est = drive(FallBinary(ChainFacts(4, outcome=False), fall((8, 16), cap=12)),
                lambda i, j: every(6)(j))
    mid = next(i for i in range(3) if est.rollouts_at(i))
    v = est.verdicts()[mid]
    assert v.label is None and v.rollouts == 12 and "decide nothing" in v.evidence
    assert est.done and est.first_error() is None


def test_the_first_fall_needs_a_kept_step_before_it():
    # Step 1 is off track but step 0 was never decided (its rollouts were all undecided):
    # the fall is somewhere in 0..1, so neither is called wrong.
    est = FallPerStep(ChainFacts(4, outcome=False), fall((6, 12), cap=12))
    est.record(0, [None] * 12)
    est.record(1, [False] * 12)
    est.record(2, [False] * 12)
    assert est.settled(1) is False and est.pending() == []
    assert [v.label for v in est.verdicts()] == [None, None, None, False]
    assert "not placed" in est.verdicts()[1].evidence


def test_per_step_and_binary_search_agree_on_a_clear_fall():
    def rate(i, j):
        return i < 2 and every(2)(j)

    a = drive(FallPerStep(ChainFacts(6, outcome=False), fall((6, 12))), rate)
    b = drive(FallBinary(ChainFacts(6, outcome=False), fall((6, 12))), rate)
    assert a.first_error() == b.first_error() == 2
    assert b.rollouts < a.rollouts


def test_the_chains_own_answer_counts_as_one_trial_of_every_step():
    est = FallBinary(ChainFacts(5, outcome=True), fall((6, 12), own=1))
    assert [est.counts(i) for i in range(5)] == [(1, 1)] * 4 + [(0, 0)]
    assert est.rollouts == 0
    with pytest.raises(ValueError, match="outcome"):
        FallBinary(ChainFacts(5, outcome=None), fall((6, 12), own=1))


def test_the_last_step_is_the_chains_outcome_even_after_an_error():
    # docs/labels.md: the last step's measured label is the chain's own answer; after an
    # earlier first error `after_error` decides what it becomes.
    def rate(i, j):
        return i < 1 and every(2)(j)

    for after, last in (("negative", False), ("mask", None), ("keep", True)):
        est = drive(FallBinary(ChainFacts(4, outcome=True, after_error=after), fall((6, 12))), rate)
        v = est.verdicts()[-1]
        assert est.first_error() == 1 and v.label is last and v.score == 1.0
        assert "the chain's own answer is right" in v.evidence


@pytest.mark.parametrize("p", [0.2, 0.5, 0.8])
def test_the_score_is_unbiased_under_the_falls_stopping_rule(p):
    assert mean_score(fall((6, 12), cap=8), p, 8) == pytest.approx(p, abs=1e-9)


def test_verdicts_carry_the_counts_and_the_self_confidence():
    sc = SelfConfidence(6, 12, 8, "chains+rollouts")
    est = drive(FallBinary(ChainFacts(4, outcome=False, self_confidence=sc), fall((6, 12))),
                lambda i, j: i < 1 and every(2)(j))
    for v in est.verdicts():
        assert v.self_confidence == sc
        assert (v.successes, v.decided) == est.counts(est.verdicts().index(v))


def test_rules_by_name_and_their_options():
    # any_success is absolute with one success to confirm and no threshold
    anyone, once = method("any_success", k=3), method("absolute", k=3, confirm=1)
    assert all(anyone.decide(d, s, left) == once.decide(d, s, left)
               for d in range(4) for s in range(d + 1) for left in range(4))
    assert [anyone.budget(s) for s in range(3)] == [once.budget(s) for s in range(3)]
    assert method("absolute").confirm == 2
    d = Fall()
    # a sampled chain's own outcome joins the question's counts and is a trial of every prefix
    est = method("fall").search(ChainFacts(4, False, (2, 8), True))
    assert est.rule == FallTest(d, (2, 9), 1)
    # ... only when it was sampled by the completer and known
    assert method("fall").search(ChainFacts(4, None, (2, 9), True)).rule.own == 0
    assert method("fall").search(ChainFacts(4, True, (2, 9), False)).rule.own == 0
    for name, bad in (("fall", dict(level=0.5)), ("fall", dict(fell_below=0.8)),
                      ("fall", dict(max_rollouts=0)), ("median", {}),
                      ("fall", dict(self_rollouts=-1)), ("fall", dict(chunk=30))):
        with pytest.raises(ValueError):
            method(name, **bad)


def test_a_probe_at_a_step_with_undecided_rollouts_is_sized_for_them_under_fall_too():
    # The chain's own outcome is a decided trial without a rollout: the undecided share is
    # of the rollouts made (1 of 1 here, sized for at most 4 in 5: 1 / (1 - 4/5) + 1 = 6).
    est = method("fall", estimator="binary_search").search(ChainFacts(4, False, (6, 12), True))
    (probe,) = est.pending()
    assert est.counts(probe.step) == (0, 1) and est.extra(probe) == 0
    est.record(probe.step, [None])
    (probe,) = est.pending()
    assert probe.n == 1 and est.extra(probe) == 5
