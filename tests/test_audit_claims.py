"""What each label claims (step, a check's own claim, or prefix), how a reviewer's answers
decide it, and the estimate scoring every label against its own claim."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labeling.audit.claims import (
    Claim,
    answered_first_error,
    chain_answer_steps,
    chain_claims,
    claim_right,
    column_claims,
    prefix_right,
)
from labeling.audit.estimate import Reviewed, estimate
from labeling.audit.sample import chain_views, parse_stratum, strata, stratum_name
from labeling.combine import combine
from labeling.schema import Status, StepVerdict

S, P, A = Claim.step, Claim.prefix, Claim.arithmetic
CODE = {"c": StepVerdict(Status.CORRECT, True), "i": StepVerdict(Status.INCORRECT, False),
        "-": StepVerdict.unverifiable()}  # fmt: skip


def columns(after_error: str = "negative", **codes: str) -> dict[str, list[bool | None]]:
    """Every source's column and the real `verifier_first` labels (as `policy`)."""
    vs = {s: [CODE[c] for c in code] for s, code in codes.items()}
    n = len(next(iter(codes.values())))
    labels = combine(vs, n, "verifier_first", after_error).labels
    return {"policy": labels, **{s: [v.label for v in x] for s, x in vs.items()}}


def test_a_false_after_the_first_error_claims_the_prefix():
    cols = columns(calc="-i--", answer="---c")
    assert cols["policy"] == [None, False, False, False]
    claims = chain_claims(cols, "policy", "negative")
    # step 1 is calc's own flag; steps 2-3 are False only as steps after it, though the
    # answer called the last step right
    assert claims["policy"] == [None, S, P, P]
    assert claims["calc"] == [None, A, None, None]  # calc claims only the arithmetic
    assert claims["answer"] == [None, None, None, S]


def test_a_step_an_exact_source_proved_wrong_is_its_own_claim_after_the_first_error():
    cols = columns(calc="-i-i", answer="---i")
    assert chain_claims(cols, "policy", "negative")["policy"] == [None, S, P, S]
    # the exact sources judge each step on its own: every False of theirs is about that
    # step (calc's: its arithmetic), never a prefix claim
    cols = columns(calc="ii-i", answer="---i")
    claims = chain_claims(cols, "policy", "negative")
    assert claims["calc"] == [A, A, None, A] and claims["answer"] == [None, None, None, S]


def test_mc_after_its_first_error_claims_the_prefix():
    # the MC estimator writes False after its first error whatever later rollouts said
    claims = chain_claims(columns(mc="ciii", answer="---c"), "policy", "negative")
    assert claims["mc"] == [S, S, P, P]
    assert claims["policy"] == [S, S, P, P]


def test_a_first_false_after_an_unlabeled_step_claims_the_prefix():
    # MC's `posterior` prefix claim: wrong by step 2, where is not located
    claims = chain_claims(columns(mc="--ii", answer="---i"), "policy", "negative")
    assert claims["mc"] == [None, None, P, P]
    # the policy takes MC's labels; the last step is the answer check's own verdict
    assert claims["policy"] == [None, None, P, S]
    # the chain's own wrong answer alone (the last step) is a claim about that step
    assert chain_claims(columns(mc="---i"), "policy", "negative")["mc"] == [None] * 3 + [S]
    # a calc flag after unlabeled steps is still calc's own step claim
    cols = columns(calc="--i-", mc="----")
    assert chain_claims(cols, "policy", "negative")["policy"] == [None, None, S, P]


@pytest.mark.parametrize("after_error", ["mask", "keep"])
def test_without_after_error_negative_every_label_is_a_step_claim(after_error):
    cols = columns(after_error, calc="-i--", mc="ciii", answer="---c")
    claims = chain_claims(cols, "policy", after_error)
    assert {c for s, cs in claims.items() if s != "calc" for c in cs} <= {S, None}
    assert claims["calc"] == [None, A, None, None]
    assert column_claims([True, False, False], after_error, [False] * 3) == [S, S, S]


def test_the_sample_stratifies_by_claim():
    from labeling.rows import verdict_structs
    from tests.test_report_stats import row

    vs = {"calc": [CODE[c] for c in "-i--"], "answer": [CODE[c] for c in "---c"]}
    comb = combine(vs, 4, "verifier_first", "negative")
    r = row("p", 0, comb.labels, calc_labels=[v.label for v in vs["calc"]],
            answer_labels=[v.label for v in vs["answer"]], verdicts=verdict_structs(vs))
    names = {k: [v.step for v in vs] for k, vs in strata(chain_views(r, "policy")).items()}
    assert names["policy:incorrect:prefix"] == [2, 3]
    assert names["policy:incorrect:step"] == [1]
    assert names["calc:incorrect:arithmetic"] == [1] and names["answer:correct:step"] == [3]
    assert not any(n.startswith("calc:") and n.endswith(":step") for n in names)
    assert "policy:incorrect:prefix" not in strata(chain_views(r, "policy", "mask"))
    assert parse_stratum("calc:incorrect") == ("calc", "incorrect", "step")  # older packs
    assert parse_stratum(stratum_name("calc", "null")) == ("calc", "null", None)


def test_reviewer_answers_decide_claims():
    human = [True, False, None, None]  # a chain answer "first error at step 1"
    assert [prefix_right(human, i) for i in range(4)] == [True, False, False, False]
    assert claim_right(False, P, human, 3) is True  # the chain had gone wrong by step 3
    assert claim_right(False, S, human, 3) is None  # step 3 itself: nobody said
    assert claim_right(False, P, [True, True, True], 2) is False
    assert prefix_right([True, None, False], 1) is None  # step 1 unreviewed
    assert prefix_right([True, None, False], 2) is False
    assert prefix_right([True], 2) is None  # steps 1-2 unknown
    assert answered_first_error([True, True, False, None]) == 2
    assert answered_first_error([True, True]) == -1
    assert answered_first_error([True, None, False]) is None


@given(st.integers(1, 12).flatmap(lambda n: st.tuples(st.just(n), st.integers(-1, n - 1))))
def test_one_chain_answer_decides_every_prefix_claim(n_fe):
    n, fe = n_fe
    steps = chain_answer_steps(fe, n)
    for i in range(n):
        assert prefix_right(steps, i) is (fe < 0 or i < fe)
    assert answered_first_error(steps) == fe


def _items(name: str, chains: dict[str, int]) -> list[Reviewed]:
    return [Reviewed(f"{c}#{s}", c, s, (name,), {"policy": False}, {"policy": 0})
            for c, s in chains.items()]  # fmt: skip


def test_estimate_scores_a_prefix_claim_against_the_chain_first_error():
    name = "policy:incorrect:prefix"
    items = _items(name, {"a": 3, "b": 2, "c": 2})
    human = {}
    for c, fe, n in (("a", 1, 4), ("b", -1, 3), ("c", 2, 3)):  # chain answers
        human |= {f"{c}#{i}": h for i, h in enumerate(chain_answer_steps(fe, n))}
    q = {(x.measure, x.claim): x for x in estimate(items, human, {name: 10})}
    # a: wrong at 1, so wrong by 3 (right); b: all right (wrong claim); c: wrong at 2 (right).
    # Scored as a step claim, a's step 3 (after the error, unjudged) would be no review.
    got = q[("precision_incorrect", "prefix")]
    assert (got.estimate, got.reviews, got.population) == (pytest.approx(2 / 3), 3, 10)
    assert q[("precision_incorrect", "step")].reviews == 0


def test_first_error_agreement_needs_the_steps_before_it_reviewed():
    name = "calc:incorrect:arithmetic"
    items = [Reviewed("a#2", "a", 2, (name,), {"calc": False}, {"calc": 2})]
    sizes = {name: 5}
    fe = {x.measure: x for x in estimate(items, {"a#2": False}, sizes)}["first_error"]
    assert fe.reviews == 0  # steps 0-1 unreviewed: the chain may have gone wrong earlier
    full = {"a#0": True, "a#1": True, "a#2": False}
    assert {x.measure: x for x in estimate(items, full, sizes)}["first_error"].estimate == 1.0
    early = {"a#0": False, "a#2": False}
    assert {x.measure: x for x in estimate(items, early, sizes)}["first_error"].estimate == 0.0
