"""MC estimators: probe choice, early stop, reuse, labels, accounting.

The binary search is checked against brute force on random chains: with every prefix's
rollouts fixed in advance, the search must land on a place where the brute-force labels
switch from on track to off track, and on the brute-force first error when those labels are
monotone (the case the search is built for).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeling.mc import BinarySearch, ChainFacts, PerStep, Probe, Search, method
from labeling.mc.searches import step_search
from labeling.schema import Status
from tests.fakes import absolute, drive, mean_score
from tests.tiers import examples


def truth_oracle(first_error):
    return lambda step, j: step < first_error


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(k=0),
        dict(threshold=1.0),
        dict(threshold=-0.1),
        dict(chunk=9),
        dict(chunk=0),
        dict(after_error="drop"),
        dict(confirm=0),
        dict(confirm=2, threshold=0.5),
    ],
)
def test_bad_options_raise(kwargs):
    after = kwargs.pop("after_error", "negative")
    with pytest.raises(ValueError):
        make_estimator("binary_search", 5, absolute(**kwargs), after_error=after)


def make_estimator(name, n_steps, rule, probe_right=True, **kw):
    return step_search(Search(name), ChainFacts(n_steps, **kw), rule, probe_right=probe_right)


def test_unknown_estimator_names_the_choices():
    with pytest.raises(ValueError, match="per_step"):
        method("absolute", estimator="bisect")


@pytest.mark.parametrize("name", ["per_step", "binary_search"])
@pytest.mark.parametrize("outcome", [True, False, None])
def test_empty_and_single_step_chains_need_no_rollouts(name, outcome):
    assert make_estimator(name, 0, absolute(), outcome=outcome).verdicts() == []
    est = make_estimator(name, 1, absolute(), outcome=outcome)
    assert est.done and est.pending() == []
    (v,) = est.verdicts()
    assert v.label is outcome and v.rollouts == 0
    assert v.score == (None if outcome is None else float(outcome))


def test_last_step_is_never_rolled_out():
    est = make_estimator("binary_search", 4, absolute(), outcome=False)
    with pytest.raises(IndexError):
        est.record(3, [True])
    assert all(p.step < 3 for p in PerStep(ChainFacts(4, outcome=False), absolute()).pending())


def test_binary_search_right_answer_chain_is_free_only_when_asked():
    est = make_estimator("binary_search", 10, absolute(k=8), outcome=True, probe_right=False)
    assert est.done and est.rollouts == 0
    assert [v.label for v in est.verdicts()] == [True] * 10
    assert est.first_error() == -1


def test_binary_search_probes_a_right_answer_chain_and_finds_its_wrong_step():
    # The chain reached the right answer, but fresh rollouts from step 4 on never do.
    est = drive(BinarySearch(ChainFacts(10, outcome=True), absolute(k=4)), truth_oracle(4))
    assert est.rollouts > 0 and est.first_error() == 4
    labels = [v.label for v in est.verdicts()]
    assert labels[:4] == [True] * 4 and labels[4] is False


def test_binary_search_right_answer_chain_on_track_everywhere_costs_log_probes():
    est = drive(BinarySearch(ChainFacts(10, outcome=True), absolute(k=4)), truth_oracle(99))
    assert est.first_error() == -1 and 0 < est.rollouts <= 4 * math.ceil(math.log2(10))


@pytest.mark.parametrize("length", [2, 3, 5, 8, 13, 32])
def test_binary_search_finds_every_first_error_with_log_probes(length):
    for error in range(length):
        est = drive(BinarySearch(ChainFacts(length, outcome=False), absolute(k=4)),
                    truth_oracle(error))
        assert est.first_error() == error
        probes = sum(1 for i in range(length) if est.rollouts_at(i))
        assert probes <= math.ceil(math.log2(length))
        labels = [v.label for v in est.verdicts()]
        assert labels == [True] * error + [False] * (length - error)


def test_binary_search_with_unknown_outcome_leaves_the_last_step_open():
    est = drive(BinarySearch(ChainFacts(6, outcome=None), absolute(k=2)), truth_oracle(99))
    verdicts = est.verdicts()
    assert [v.label for v in verdicts] == [True] * 5 + [None]
    assert verdicts[-1].status == Status.UNVERIFIABLE
    assert est.first_error() is None
    # ... but an error before the last step is still found.
    est = drive(BinarySearch(ChainFacts(6, outcome=None), absolute(k=2)), truth_oracle(2))
    assert est.first_error() == 2


def _transitions(settled):
    """Indices where [True (the question), *settled] switches from True to False."""
    seq = [True, *settled]
    return {i for i in range(len(settled)) if seq[i] is True and seq[i + 1] is False}


@st.composite
def rollout_tables(draw):
    """A chain's length, k, and every prefix's k rollouts fixed in advance: each reaches the
    answer with one rate before the chain's first error and another from there on."""
    length, k = draw(st.integers(2, 20)), draw(st.sampled_from([1, 2, 4, 8]))
    error = draw(st.integers(0, length - 1))
    p_ok, p_bad = draw(st.sampled_from([(1.0, 0.0), (0.9, 0.0), (0.5, 0.1), (0.3, 0.05)]))
    rng = draw(st.randoms(use_true_random=False))
    draws = {
        (i, j): rng.random() < (p_ok if i < error else p_bad)
        for i in range(length)
        for j in range(k)
    }
    return length, k, draws


@settings(max_examples=examples(300), deadline=None)
@given(rollout_tables())
def test_binary_search_agrees_with_brute_force_on_random_chains(table):
    length, k, draws = table
    est = drive(BinarySearch(ChainFacts(length, outcome=False), absolute(k=k)),
                lambda i, j: draws[i, j])
    brute = PerStep(ChainFacts(length, outcome=False), absolute(k=k))
    for i in range(length - 1):
        brute.record(i, [draws[i, j] for j in range(k)])
    settled = [brute.settled(i) for i in range(length)]
    found = est.first_error()
    assert found in _transitions(settled)
    if settled == sorted(settled, reverse=True):  # monotone: the answer is unique
        assert found == settled.index(False)
    # Never more than one probe of k rollouts per halving.
    assert est.rollouts <= k * math.ceil(math.log2(length))


def test_early_stop_settles_a_probe_at_its_first_success():
    est = BinarySearch(ChainFacts(9, outcome=False), absolute(k=8, chunk=1))
    assert est.pending() == [Probe(3, 1)]
    est.record(3, [False])
    assert est.pending() == [Probe(3, 1)]  # still open: one failure decides nothing
    est.record(3, [True])
    assert est.settled(3) is True and est.pending()[0].step == 5
    v = est.verdicts()[3]
    # Stopping at the first success, the only unbiased rate estimate is the first rollout's
    # own result (here a failure), not the 1/2 that overstates such probes on average.
    assert (v.score, v.rollouts, v.label) == (0.0, 2, True)
    assert "1/2 rollouts reached the answer" in v.evidence


def test_pending_is_idempotent():
    est = PerStep(ChainFacts(5, outcome=False), absolute(k=4, chunk=2))
    assert est.pending() == est.pending() == [Probe(i, 2) for i in range(4)]


def test_later_success_settles_earlier_prefixes_without_rollouts():
    est = BinarySearch(ChainFacts(8, outcome=False), absolute(k=4))
    est.record(3, [False, True, False, False])
    verdicts = est.verdicts()
    for v in verdicts[:3]:
        assert v.label is True and v.rollouts == 0 and v.score is None
        assert "later prefix" in v.evidence
    assert verdicts[3].score == 0.25


def test_threshold_decides_labels_and_early_stop():
    est = PerStep(ChainFacts(3, outcome=False), absolute(k=4, threshold=0.5, chunk=1))
    est.record(0, [True, True, True])  # 3 > 0.5*4: on track whatever comes next
    assert est.settled(0) is True
    est.record(1, [False, False, False])  # at most 1 of 4 left: off track
    assert est.settled(1) is False
    assert [p.step for p in est.pending()] == []
    est2 = PerStep(ChainFacts(2, outcome=False), absolute(k=4, threshold=0.5))
    est2.record(0, [True, True, False, False])  # exactly 0.5 is not above the threshold
    assert est2.settled(0) is False


def test_confirm_needs_repeated_success_and_extends_the_budget():
    est = BinarySearch(ChainFacts(4, outcome=False), absolute(k=2, confirm=2, chunk=1))
    assert est.pending() == [Probe(1, 1)]
    est.record(1, [True])
    assert est.settled(1) is None and est.pending() == [Probe(1, 1)]
    est.record(1, [False, False, False])  # 4 = 2*(1+1) rollouts with one success: off track
    assert est.settled(1) is False
    est2 = BinarySearch(ChainFacts(4, outcome=False), absolute(k=2, confirm=2))
    est2.record(1, [False, True])
    est2.record(1, [False, True])
    assert est2.settled(1) is True


@pytest.mark.parametrize(
    ("after_error", "expected"),
    [
        ("negative", [True, False, False, False, False]),
        ("mask", [True, False, None, None, None]),
        ("keep", [True, False, False, None, False]),
    ],
)
def test_after_error_policies(after_error, expected):
    est = BinarySearch(ChainFacts(5, after_error=after_error, outcome=False), absolute(k=2))
    est.record(2, [False, False])
    est.record(0, [True, False])
    est.record(1, [False, False])
    assert est.done and est.first_error() == 1
    verdicts = est.verdicts()
    assert [v.label for v in verdicts] == expected
    assert verdicts[2].score == 0.0  # measured scores are kept whatever the label becomes


def test_per_step_is_math_shepherd():
    est = PerStep(ChainFacts(5, outcome=False), absolute(k=4))
    assert est.pending() == [Probe(i, 4) for i in range(4)]
    results = [[True] * 4, [False] * 4, [True, False, False, False], [False] * 4]
    for i, r in enumerate(results):
        est.record(i, r, tokens=7)
    assert est.done and est.rollouts == 16 and est.tokens == 28
    verdicts = est.verdicts()
    assert [v.score for v in verdicts] == [1.0, 0.0, 0.25, 0.0, 0.0]
    assert [v.label for v in verdicts] == [True, False, False, False, False]
    assert est.first_error() == 1
    assert [v.rollouts for v in verdicts] == [4, 4, 4, 4, 0]
    assert [v.tokens for v in verdicts] == [7, 7, 7, 7, 0]


def test_statuses_follow_labels():
    est = drive(BinarySearch(ChainFacts(6, outcome=False), absolute(k=2)), truth_oracle(3))
    statuses = [v.status for v in est.verdicts()]
    assert statuses == [Status.CORRECT] * 3 + [Status.INCORRECT] * 3


def test_unfinished_search_labels_only_what_it_knows():
    est = BinarySearch(ChainFacts(9, outcome=False, after_error="mask"), absolute(k=2))
    est.record(4, [False, False])  # first probe failed; the search stops here (max rounds)
    labels = [v.label for v in est.verdicts()]
    assert labels == [None] * 4 + [False] + [None] * 4
    assert est.first_error() is None and not est.done


@pytest.mark.parametrize(
    "k, chunk, confirm, threshold",
    [(5, 1, 2, 0.0), (5, 1, 1, 0.0), (4, 2, 2, 0.0), (5, 1, 1, 0.4), (6, 5, 1, 0.0)],
)
@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_mc_score_is_unbiased_under_early_stopping(k, chunk, confirm, threshold, p):
    # The plain fraction gives 0.606 for p=0.5 with the defaults (k=5, chunk=1, confirm=2).
    rule = absolute(k=k, chunk=chunk, confirm=confirm, threshold=threshold)
    assert mean_score(rule, p, k * confirm) == pytest.approx(p, abs=1e-9)


def test_mc_score_without_early_stopping_is_the_plain_fraction():
    est = PerStep(ChainFacts(3, outcome=False), absolute(k=5))
    est.record(0, [True, False, True, False, False])
    assert est.score(0) == pytest.approx(0.4)


def test_undecided_rollouts_cost_budget_but_decide_nothing():
    est = PerStep(ChainFacts(3, outcome=False), absolute(k=3, chunk=1))
    for _ in range(3):
        est.record(0, [None])
    assert est.exhausted(0) and est.settled(0) is None and est.score(0) is None
    assert all(p.step != 0 for p in est.pending())  # no endless probe of step 0
    v = est.verdicts()[0]
    assert v.status == Status.UNVERIFIABLE and v.label is None and v.rollouts == 3
    # one decided failure among undecided ones is a measured failure (threshold 0)
    est = PerStep(ChainFacts(3, outcome=False), absolute(k=3, chunk=1))
    est.record(0, [None, False, None])
    assert est.settled(0) is False and est.score(0) == 0.0


def test_binary_search_stops_at_a_midpoint_nobody_could_check():
    est = BinarySearch(ChainFacts(9, outcome=False), absolute(k=2, chunk=1))
    mid = est.pending()[0].step
    est.record(mid, [None])
    est.record(mid, [None])
    assert est.done and est.first_error() is None
    assert [v.label for v in est.verdicts()] == [None] * 8 + [False]
