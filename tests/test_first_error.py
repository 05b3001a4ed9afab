"""One first-error rule (labeling/first_error.py), and the places that ask it agree."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from labeling.combine import combine
from labeling.first_error import first_error, first_flag, located_first_error, prefix_claim
from labeling.mc import BinarySearch, ChainFacts
from labeling.schema import Status, StepVerdict
from tests.fakes import absolute
from tests.tiers import examples

LABELS = st.lists(st.sampled_from([True, False, None]), max_size=8)


def test_the_rule():
    assert first_error([True, False, None]) == 1
    assert first_error([None, None, False]) == 2  # an unlabeled step does not hide it
    assert first_error([True, True]) == -1 and first_error([]) == -1
    assert first_error([True, None, True]) is None  # nothing located, nothing proven right


def test_the_two_wrappers_say_what_differs():
    assert first_flag([False, True, True]) == 1 and first_flag([False, False]) == -1
    assert located_first_error([True, False]) == 1
    assert located_first_error([None, None, False]) is None  # may be any of the three
    # a prefix claim: the first False after an unlabeled step, not the last step
    assert prefix_claim([True, None, False, False]) == 2
    assert prefix_claim([True, False, None]) is None  # located
    assert prefix_claim([None, None, False]) is None  # the last step: the chain's own answer
    assert prefix_claim([None, True]) is None and prefix_claim([]) is None


@settings(max_examples=examples(300), deadline=None)
@given(LABELS)
def test_wrappers_agree_with_the_rule_where_they_should(labels):
    found = first_error(labels)
    if found is not None and found >= 0:
        assert labels[found] is False and False not in labels[:found]
    # a flagging labeler whose flags are the False labels predicts the same step
    assert first_flag([x is False for x in labels]) == (-1 if found is None else found)
    located = located_first_error(labels)
    assert located is None or located == found
    # every first False before the last step is either located or a prefix claim
    claim = prefix_claim(labels)
    assert claim is None or (claim == found and located is None)
    if found is not None and 0 <= found < len(labels) - 1:
        assert (located is None) == (claim is not None)


@settings(max_examples=examples(200), deadline=None)
@given(LABELS.filter(bool))
def test_the_policy_column_is_the_rule(labels):
    verdicts = [StepVerdict(Status.UNVERIFIABLE if x is None else
                            Status.CORRECT if x else Status.INCORRECT, x) for x in labels]
    result = combine({"mc": verdicts}, len(labels), policy="mc", after_error="keep")
    assert result.first_error_step == first_error(labels) == result.mc_first_error


def test_the_mc_search_reports_only_a_located_error():
    est = BinarySearch(ChainFacts(9, outcome=False, after_error="mask"), absolute(k=2))
    est.record(4, [False, False])  # the first probe failed; nothing before it is known
    assert first_error([v.label for v in est.verdicts()]) == 4
    assert est.first_error() is None
