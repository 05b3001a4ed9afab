"""Interval estimators against exact binomial values, the stratified sampler's strata and
seeds, the uncertainty queue's order, and the quality estimate on a known set."""

from __future__ import annotations

import math
import random

import pytest

from labeling.audit.estimate import Reviewed, coverage, estimate
from labeling.audit.intervals import binom_sf, clopper_pearson, reviews_for, stratified, wilson
from labeling.audit.sample import (
    StepView,
    review_plan,
    stratified_sample,
    uncertainty_queue,
)


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [  # R: binom.test(k, n)$conf.int
        (3, 10, 0.06673951, 0.65245285),
        (0, 10, 0.0, 0.30849710),
        (10, 10, 0.69150290, 1.0),
        (81, 263, 0.25273675, 0.36762192),
        (1, 1, 0.025, 1.0),
    ],
)
def test_clopper_pearson_known_values(k, n, low, high):
    iv = clopper_pearson(k, n)
    assert iv.low == pytest.approx(low, abs=1e-7) and iv.high == pytest.approx(high, abs=1e-7)
    assert iv.estimate == k / n and iv.n == n


def test_clopper_pearson_closed_forms_at_the_edges():
    # k = 0: high = 1 - (a/2)^(1/n); k = n: low = (a/2)^(1/n).
    for n in (1, 7, 40):
        assert clopper_pearson(0, n).high == pytest.approx(1 - 0.025 ** (1 / n), abs=1e-9)
        assert clopper_pearson(n, n).low == pytest.approx(0.025 ** (1 / n), abs=1e-9)


def test_binomial_tail_is_exact():
    # P(X >= 2), X ~ Bin(4, 0.5) = 11/16
    assert binom_sf(2, 4, 0.5) == pytest.approx(11 / 16, abs=1e-12)
    assert binom_sf(0, 4, 0.3) == 1.0 and binom_sf(5, 4, 0.3) == 0.0


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [(81, 263, 0.2552885, 0.3662096), (0, 10, 0.0, 0.2775328), (5, 10, 0.2365931, 0.7634069)],
)
def test_wilson_known_values(k, n, low, high):
    iv = wilson(k, n)
    assert iv.low == pytest.approx(low, abs=1e-6) and iv.high == pytest.approx(high, abs=1e-6)


def test_no_reviews_is_the_whole_range_and_bad_counts_raise():
    assert wilson(0, 0).estimate is None and (wilson(0, 0).low, wilson(0, 0).high) == (0, 1)
    with pytest.raises(ValueError):
        wilson(5, 3)
    with pytest.raises(ValueError):
        clopper_pearson(-1, 3)


def test_reviews_for_a_halfwidth():
    n = reviews_for(0.05)
    assert n == 381  # the textbook 1.96^2 / (4 * 0.05^2) = 384, less Wilson's shrinkage
    assert wilson(190, 380).halfwidth > 0.05 >= wilson(191, 382).halfwidth
    assert reviews_for(0.05, 0.9) < n


def test_wilson_coverage_is_near_nominal():
    """Simulated: 2,000 samples of 200 at p = 0.8; the 95% interval holds p 93-97% of the time."""
    rng = random.Random(7)
    held = sum(
        wilson(k, 200).low <= 0.8 <= wilson(k, 200).high
        for k in (sum(rng.random() < 0.8 for _ in range(200)) for _ in range(2000))
    )
    assert 0.93 <= held / 2000 <= 0.97


def test_stratified_weights_strata_by_size():
    iv = stratified([(90, 100, 900), (50, 100, 100)])
    assert iv.estimate == pytest.approx(0.9 * 0.9 + 0.1 * 0.5)
    assert iv.low < iv.estimate < iv.high and iv.n == 200
    assert stratified([(0, 0, 10)]).estimate is None


def view(chain: str, step: int, n: int, mc: float | None = None, fe: int | None = -1, **labels):
    return StepView(f"{chain}#{step}", "p" + chain, chain, step, n, labels, mc, None, fe)


def toy_views() -> list[StepView]:
    out = []
    for c in range(30):
        n = 4
        for s in range(n):
            calc = None if s == 3 else (c + s) % 5 != 0
            answer = (c % 2 == 0) if s == 3 else None
            out.append(view(f"c{c}", s, n, calc=calc, answer=answer, policy=answer))
    return out


def test_strata_are_drawn_from_their_own_steps_and_seeded():
    views = toy_views()
    a = stratified_sample(views, seed=1, budget=20)
    assert a == stratified_sample(views, seed=1, budget=20)  # reproducible
    assert a != stratified_sample(views, seed=2, budget=20)
    assert set(a) == {"answer:correct:step", "answer:incorrect:step", "calc:correct:arithmetic",
                      "calc:incorrect:arithmetic", "policy:correct:step", "policy:incorrect:step"}
    for name, vs in a.items():
        source, status, _ = name.split(":")
        assert all((v.labels[source] is True) == (status == "correct") for v in vs)
        assert all(v.labels[source] is not None for v in vs)  # null is never sampled
    assert len({v.key for vs in a.values() for v in vs}) == 20
    # no budget: each stratum up to the reviews a ±0.05 interval needs (all of these toy ones)
    full = stratified_sample(views, seed=1)
    assert len(full["calc:correct:arithmetic"]) == sum(v.labels["calc"] is True for v in views)


def test_queue_puts_disagreement_and_near_threshold_first():
    views = [
        view("a", 0, 2, calc=True, policy=True), view("a", 1, 2, calc=True, policy=True),
        view("b", 0, 2, calc=False, answer=None, policy=True),  # disagreement
        view("b", 1, 2, calc=True, policy=True),
        view("c", 0, 2, mc=0.02, policy=True), view("c", 1, 2, mc=0.9, policy=True),
    ]  # fmt: skip
    q = uncertainty_queue(views, seed=0, threshold=0.0)
    assert [v.key for v, _, _ in q][:2] == ["b#0", "c#0"]
    assert "sources disagree" in q[0][2][0]
    assert "a#0" not in [v.key for v, _, _ in q]


def test_review_plan_part_one_then_queue():
    views = toy_views()
    plan = review_plan(views, seed=3, budget=10, queue=5)
    assert sum(1 for it in plan if it.strata) == 10
    tail = plan[10:]
    assert len(tail) == 5 and all(not it.strata and it.queue_rank is not None for it in tail)
    assert [it.queue_rank for it in tail] == sorted(it.queue_rank for it in tail)


def test_estimate_on_a_known_set():
    # Strata named as packs written before claims name them ("calc:incorrect"): step claims.
    # calc says incorrect on 10 steps, humans agree on 7; correct on 20, humans agree on 18.
    items, human = [], {}
    for i in range(30):
        wrong = i < 10
        key = f"c{i}#0"
        items.append(Reviewed(key, f"c{i}", 0, (f"calc:{'incorrect' if wrong else 'correct'}",),
                              {"calc": not wrong}, {"calc": 0 if wrong else -1}))  # fmt: skip
        human[key] = (i >= 7) if wrong else (i < 28)
    sizes = {"calc:incorrect": 100, "calc:correct": 900, "calc:null": 1000}
    q = {x.measure: x for x in estimate(items, human, sizes)}
    assert {x.claim for x in estimate(items, human, sizes)} == {"step", ""}
    assert q["precision_incorrect"].estimate == pytest.approx(0.7)
    assert q["precision_incorrect"].reviews == 10
    assert q["precision_correct"].estimate == pytest.approx(0.9)
    assert q["first_error"].estimate == pytest.approx(0.7) and q["first_error"].reviews == 10
    assert q["accuracy"].estimate == pytest.approx(0.1 * 0.7 + 0.9 * 0.9)
    exact = {x.measure: x for x in estimate(items, human, sizes, "exact")}
    assert exact["precision_incorrect"].low == pytest.approx(clopper_pearson(7, 10).low)
    assert coverage(sizes) == {"calc": 0.5}
    # a queue-only step (no strata) never counts
    extra = Reviewed("q#0", "q", 0, (), {"calc": False}, {"calc": 0})
    again = {x.measure: x for x in estimate([*items, extra], {**human, "q#0": True}, sizes)}
    assert again["precision_incorrect"].reviews == 10
    assert math.isclose(again["accuracy"].estimate, q["accuracy"].estimate)


def test_wilson_finite_population_correction():
    plain = wilson(30, 200)
    assert wilson(30, 200, population=10**9).low == pytest.approx(plain.low, abs=1e-6)
    small = wilson(30, 200, population=465)
    assert plain.low < small.low < 0.15 < small.high < plain.high
    census = wilson(30, 200, population=200)
    assert census.low == census.high == 0.15
    with pytest.raises(ValueError, match="population"):
        wilson(3, 20, population=10)
