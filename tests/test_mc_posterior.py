"""The `posterior` rule: the chain's first error located by its posterior over every probe,
the chain's own outcome and the completer's self-confidence (labeling/mc/posterior.py, the
model; labeling/mc/bisection.py, the search and the labels)."""

from __future__ import annotations

import math

import pytest

from labeling.mc import (
    ChainFacts,
    FirstErrorModel,
    Posterior,
    PosteriorSearch,
    bisection,
    estimator,
    method,
)
from labeling.mc import first_error_model as model
from labeling.mc.bisection import AHEAD_ROLLOUTS
from labeling.schema import SelfConfidence, Status
from tests.fakes import drive, every, posterior_case, posterior_search


def rule(base, sampled=True, level=0.05, factor=3.0, budget=32, chunk=1):
    return posterior_case(base, sampled, level, factor, budget, chunk)


# --- the model, against closed forms and an independent integral ------------------------------


def _beta_moment(a, b, t):
    """E[s^t] for s ~ Beta(a, b)."""
    return math.exp(math.lgamma(a + t) - math.lgamma(a) + math.lgamma(a + b)
                    - math.lgamma(a + b + t))


@pytest.mark.parametrize("base", [(3, 16), (10, 20), (1, 4)])
def test_the_hazard_prior_matches_its_closed_form(base):
    # A sampled chain of M steps, outcome unknown, nothing rolled out: e is the first of M
    # steps that errs, each with hazard h = 1 - s^(1/M), so P(e <= i) = 1 - E[s^((i+1)/M)]
    # with s ~ Beta(successes + 1/2, failures + 1/2).
    m = 6
    post = FirstErrorModel(m, base, None, sampled=True).posterior([(0, 0)] * (m - 1))
    a, b = base[0] + 0.5, base[1] - base[0] + 0.5
    for i in range(m):
        assert post.p_le[i] == pytest.approx(1 - _beta_moment(a, b, (i + 1) / m), abs=2e-3)
    assert post.factor == (1.0,) * (m - 1)  # no rollout: the rollouts favour nothing


def _integral(f, base, points=20000):
    """The integral of f(s) over the Jeffreys posterior of the base counts (midpoints)."""
    a, b = base[0] + 0.5, base[1] - base[0] + 0.5
    norm = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    total = 0.0
    for j in range(points):
        s = (j + 0.5) / points
        total += math.exp(norm + (a - 1) * math.log(s) + (b - 1) * math.log1p(-s)) * f(s)
    return total / points


def _bb(x, n, a, b):
    return math.exp(math.lgamma(a + x) + math.lgamma(b + n - x) - math.lgamma(a + b + n)
                    - math.lgamma(a) - math.lgamma(b) + math.lgamma(a + b))


@pytest.mark.parametrize("counts", [(0, 0), (0, 6), (2, 6), (1, 1), (5, 12)])
def test_a_two_step_given_chain_against_the_integral_written_out(counts):
    # Another model's chain of two steps with a wrong answer: e is 0 or 1 (uniform prior,
    # "none" ruled out by the answer). Prefix 0's counts (x of n): on track (e = 1) beta-
    # binomial around the flat profile s; off track (e = 0) binomial at r s with r ~ Beta(1, 9);
    # the wrong answer has probability 1 - RECOVERY s after an error at 0 and 1 - RECOVERY
    # after one at the last step. Written out here on its own and integrated over s and r.
    x, n = counts
    base = (4, 16)
    k_on, rec = model.KAPPA_ON, model.RECOVERY
    b = 1 / rec - 1
    rs = [(j + 0.5) / 400 for j in range(400)]
    dens = [b * (1 - r) ** (b - 1) / 400 for r in rs]

    def off_lik(s):
        return sum(d * (r * s) ** x * (1 - r * s) ** (n - x) for r, d in zip(rs, dens,
                                                                             strict=True))

    off = _integral(lambda s: (1 - rec * s) * off_lik(s), base, points=2000)
    on = _integral(lambda s: (1 - rec) * _bb(x, n, k_on * s, k_on * (1 - s)), base, points=2000)
    prior_off = _integral(lambda s: 1 - rec * s, base, points=2000)
    post = FirstErrorModel(2, base, False, sampled=False).posterior([counts])
    assert post.p_le[0] == pytest.approx(off / (off + on), rel=2e-3)
    assert post.p_le[1] == 1.0
    assert post.factor[0] == pytest.approx((off / on) / (prior_off / (1 - rec)), rel=5e-3)


def test_more_failures_move_the_error_earlier_and_a_success_later():
    m = model_ = FirstErrorModel(5, (5, 20), False, sampled=True)
    fails = [m.posterior([(0, 0), (0, n), (0, 0), (0, 0)]).p_le[1] for n in range(0, 12, 2)]
    assert fails == sorted(fails) and fails[-1] > 0.9
    one = model_.posterior([(0, 0), (1, 6), (0, 0), (0, 0)]).p_le[1]
    assert one < model_.posterior([(0, 0), (0, 6), (0, 0), (0, 0)]).p_le[1]
    assert one < fails[0]  # a success from step 1 is evidence that it is on track


def test_the_outcome_bounds_the_error():
    wrong = FirstErrorModel(4, (5, 20), False, sampled=True).posterior([(0, 0)] * 3)
    assert wrong.p_le[-1] == 1.0  # a wrong answer: some step is wrong
    right = FirstErrorModel(4, (5, 20), True, sampled=True).posterior([(0, 0)] * 3)
    # a right answer: most likely no error; an error then needs a recovery (rate about
    # RECOVERY x q: 0.1 x 0.5 here) against P(no error) = s (about 0.27)
    assert 0.05 < right.p_le[-1] < 0.2


@pytest.mark.parametrize("outcome", [True, False, None])
@pytest.mark.parametrize("sampled", [True, False])
def test_probabilities_and_factors_stay_finite_at_any_counts(outcome, sampled):
    m = FirstErrorModel(5, (0, 0), outcome, sampled)
    for counts in ([(0, 500)] * 4, [(500, 500)] * 4, [(0, 0), (500, 500), (0, 500), (1, 1)]):
        post = m.posterior(counts)
        assert all(0.0 <= p <= 1.0 for p in post.p_le)
        assert all(math.isfinite(f) and f > 0 for f in post.factor)
        assert all(math.isfinite(g) and g >= 0 for g in m.gains(counts, 3))


def test_bad_model_input_raises():
    with pytest.raises(ValueError):
        FirstErrorModel(0, (1, 2), None, True)
    with pytest.raises(ValueError):
        FirstErrorModel(3, (3, 2), None, True)


# --- the labels -----------------------------------------------------------------------------


def test_a_harmless_opening_line_is_not_called_wrong():
    # The completer reaches the answer from the question about 1 time in 4 (5/20), from
    # steps 0..2 half the time (the opening line costs nothing; the rate rises along a right
    # chain as the hazard model has it), never from step 3 on: the error is located at 3.
    est = drive(posterior_search(6, rule((5, 20)), outcome=False),
                lambda i, j: i < 3 and every(2)(j))
    labels = [v.label for v in est.verdicts()]
    assert labels == [True, True, True, False, False, False]
    v = est.verdicts()[3]
    assert v.status == Status.INCORRECT and "first error located here" in v.evidence
    assert est.belief().p_le[3] >= 0.95 and est.belief().p_le[2] <= 0.05
    assert est.rollouts <= 32


def test_a_rate_that_does_not_rise_leaves_steps_open_never_wrong():
    # The same at exactly the question's rate, 1/4: a sampled chain's right steps usually
    # raise the rate (the hazard model), so the rule cannot be sure they are right within
    # its budget; it leaves them open and calls none of them wrong.
    est = drive(posterior_search(6, rule((5, 20)), outcome=False),
                lambda i, j: i < 3 and every(4)(j))
    assert False not in est.labels()[:3]
    assert est.rollouts <= 32 and est.pending() == []


def test_a_right_chain_is_right_after_one_success_near_its_end():
    est = drive(posterior_search(6, rule((8, 20)), outcome=True), lambda i, j: True)
    assert [v.label for v in est.verdicts()] == [True] * 6
    assert est.rollouts <= 2


def test_no_label_rests_on_the_prior_alone():
    # A right answer from a completer that solves most of its problems: "no error" is likely
    # before any rollout, but nothing is labeled until a rollout says so.
    est = posterior_search(5, rule((18, 20)), outcome=True)
    assert est.belief().p_gt(3) > 0.95
    assert est.labels() == [None] * 4 + [True]
    assert est.pending()  # it asks instead


def test_a_completer_that_never_solved_the_problem_is_not_asked():
    est = posterior_search(5, rule((0, 16)), outcome=False)
    assert est.pending() == [] and est.rollouts == 0
    verdicts = est.verdicts()
    assert [v.label for v in verdicts] == [None] * 4 + [False]
    assert "never reached the answer" in verdicts[0].evidence and "0/16" in verdicts[0].evidence
    assert verdicts[0].score is None


def test_an_error_somewhere_in_a_span_places_no_false():
    # Step 0 keeps the rate, steps 1..3 all fail, but step 1 is never decided on its own
    # (a cheap budget): the chain went wrong somewhere from 1 on; no step claim is made.
    est = drive(posterior_search(5, rule((5, 20), budget=6), outcome=False),
                lambda i, j: i == 0 and j % 2 == 0)
    labels = est.labels()
    assert False not in labels[:-1]
    assert est.rollouts <= 6 and est.pending() == []


def test_a_probe_is_topped_up_to_its_decided_rollouts():
    est = posterior_search(5, rule((5, 20), chunk=2), outcome=False)
    (p,) = est.pending()
    assert p.n == 2 and est.pending() == [p]  # pure: asking twice gives the same
    est.record(p.step, [None, False])
    assert est.pending() == [type(p)(p.step, 1)]  # one decided rollout still owed
    est.record(p.step, [None])
    assert est.pending() == [type(p)(p.step, 1)]
    assert est.counts(p.step) == (0, 1) and est.rollouts_at(p.step) == 3


def test_the_budget_stops_the_search():
    # Half the rollouts succeed before step 2, none after: locating the error needs more
    # than the budget of 10, which the search spends and then stops.
    est = drive(posterior_search(4, rule((10, 20), budget=10), outcome=False),
                lambda i, j: i < 2 and every(2)(j))
    assert est.rollouts == 10 and est.pending() == [] and est.room(0) == 0
    assert False not in est.labels()[:-1]


def test_a_search_that_cannot_place_a_label_stops_before_its_budget():
    # A weak completer (5/20 from the question) fails from every prefix of an 8-step chain:
    # once no first error could be located even if every remaining rollout went its way,
    # the search stops; no step is called wrong on the way (no first error is located), but
    # the chain has gone wrong by some step: a prefix claim, False from there on.
    est = drive(posterior_search(8, rule((5, 20)), outcome=False), lambda i, j: False)
    assert est.rollouts < 32 and est.pending() == []
    labels, at = est.labels(), est.prefix_claim()
    assert est.first_error() is None and at is not None and at > 0
    assert labels[:at] == [None] * at and labels[at:] == [False] * (8 - at)
    assert "prefix claim" in est.verdicts()[at].evidence
    # under after_error=mask or keep no prefix claim is written
    masked = drive(posterior_search(8, rule((5, 20)), outcome=False, after_error="mask"),
                   lambda i, j: False)
    assert masked.rollouts == est.rollouts and masked.prefix_claim() is None
    assert masked.labels()[:-1] == [None] * 7


@pytest.mark.parametrize(("first_error", "chunk"), [(1, 2), (4, 2), (6, 1), (None, 2)])
def test_the_requests_looked_ahead_hold_the_next_two_probes(first_error, chunk):
    # Whatever the pending probe brings (all its rollouts decided), the request the search
    # sends next (its step, first rollout index and n) is among those `lookahead(2)` named
    # before it, and so is the one after (two probes deep), while the budget holds them;
    # `lookahead(1)` names the next one's alone. A driver may therefore send them early.
    est = posterior_search(8, rule((8, 16), chunk=chunk), outcome=first_error is None)

    def success(i, j):
        return first_error is None or (i < first_error and every(2)(j))

    history, checked = [], 0  # (two deep, budget left after two whole probes, one deep)
    while est.pending():
        (p,) = est.pending()
        for ahead, left, _ in history[-2:]:
            if left >= 0:
                assert (p.step, est.rollouts_at(p.step), p.n) in ahead
                checked += 1
        left = est.method.chain_budget - est.rollouts - p.n - 2 * chunk
        one, two = est.lookahead(1), est.lookahead(2)
        assert set(one) <= set(two) and est.lookahead(0) == []
        if history and history[-1][1] >= 0:
            assert (p.step, est.rollouts_at(p.step), p.n) in history[-1][2]
        history.append((two, left, one))
        start = est.rollouts_at(p.step)
        est.record(p.step, [success(p.step, start + j) for j in range(p.n)])
    assert checked >= (0 if first_error is None else 5)  # it went several probes deep
    assert est.lookahead() == []  # a finished search looks nowhere


def test_one_deep_names_only_the_next_probes_when_no_deeper_one_is_likely(monkeypatch):
    # With the likely requests beyond `depth` turned off, lookahead(1) is the next probe
    # after each outcome of the pending one: at most n + 1 requests.
    monkeypatch.setattr(bisection, "LIKELY", 1.01)
    est = posterior_search(8, rule((3, 16), chunk=3), outcome=False)
    while est.pending():
        (p,) = est.pending()
        assert len(est.lookahead(1)) <= p.n + 1
        est.record(p.step, [False] * p.n)


def test_a_search_that_keeps_failing_has_its_likely_later_probes_looked_ahead():
    # A weak completer (3 in 16 from the question) that fails every rollout: the search
    # probes on with failures the likeliest outcome, so lookahead(1) names, besides the
    # next probe after each outcome, the one after that on the likely path; the search
    # then makes it (the driver's early rollouts are used, not wasted).
    est = posterior_search(8, posterior_case((3, 16), True, chunk=2, chunk_max=6), outcome=False)
    made, named = [], []
    while est.pending():
        (p,) = est.pending()
        made.append((p.step, est.rollouts_at(p.step), p.n))
        named.append(est.lookahead(1))
        est.record(p.step, [False] * p.n)
    deeper = [r for i, r in enumerate(made[2:]) if r in named[i]]
    assert len(made) >= 4 and len(deeper) >= 2
    assert all(len(n) > 0 for n in named)


def test_the_predicted_outcomes_are_the_model_s_own_odds():
    # P(k successes in n more | counts) = Z(counts with k of n more) C(n, k) / Z(counts),
    # Z the model's total weight: the predictive the look-ahead ranks paths by.
    m = FirstErrorModel(6, (4, 16), False, True, None)
    counts = ((2, 4), (0, 0), (1, 6), (0, 0), (0, 0))

    def total(c):
        log_j = m._log_joint(c)
        top = log_j.max()
        return top + math.log(float(sum(map(math.exp, (log_j - top).ravel()))))

    for i, n in ((0, 2), (2, 3), (4, 1)):
        got = m.predictive(counts, i, n)
        assert abs(sum(got) - 1) < 1e-9
        for k in range(n + 1):
            c = list(counts)
            c[i] = (c[i][0] + k, c[i][1] + n)
            want = math.comb(n, k) * math.exp(total(tuple(c)) - total(counts))
            assert got[k] == pytest.approx(want, rel=1e-6)


def test_looking_ahead_changes_no_choice():
    # `ahead` asks the search about counts it has not seen; the choices it then makes on
    # the real counts are those of a search that never looked ahead.
    def run(look):
        est = posterior_search(8, rule((8, 16), chunk=2), outcome=False)
        steps = []
        while est.pending():
            if look:
                est.lookahead()
            (p,) = est.pending()
            steps.append(p.step)
            start = est.rollouts_at(p.step)
            est.record(p.step, [p.step < 3 and every(2)(start + j) for j in range(p.n)])
        return steps, est.labels()

    assert run(True) == run(False)


def test_scores_are_the_posterior_that_the_chain_is_still_right():
    est = drive(posterior_search(6, rule((5, 20)), outcome=False),
                lambda i, j: i < 3 and every(2)(j))
    scores = [v.score for v in est.verdicts()]
    assert scores[:-1] == pytest.approx([est.belief().p_gt(i) for i in range(5)])
    assert scores[:-1] == sorted(scores[:-1], reverse=True)
    assert scores[-1] == 0.0  # the last step: the chain's own answer, as under every rule


def test_verdicts_carry_the_counts_the_self_confidence_and_the_figures():
    sc = SelfConfidence(5, 20, 16, "chains+rollouts")
    est = drive(posterior_search(6, rule((5, 20)), outcome=False, self_confidence=sc),
                lambda i, j: i < 3 and every(2)(j))
    for i, v in enumerate(est.verdicts()[:-1]):
        assert v.self_confidence == sc and (v.successes, v.decided) == est.counts(i)
        if v.rollouts or v.label is not None:
            assert "P(first error at or before this step)" in v.evidence
    assert "after the first error at step 3" in est.verdicts()[4].evidence


def test_own_outcome_comes_out_of_the_base_of_a_sampled_chain():
    # The driver reports a sampled chain's own answer in the self-confidence but gives the
    # search the others' counts; the model takes the chain's answer as the outcome (once, not
    # twice), the rates a fall is seen against are the problem's.
    est = posterior_search(4, rule((1, 5)), outcome=True)
    assert est.model is not None and est.base == (0, 4) and est.counted == (1, 5)
    assert posterior_search(4, rule((0, 5), sampled=False), outcome=True).model is not None


def test_probe_right_false_skips_right_chains():
    est = posterior_search(4, rule((5, 20)), outcome=True, probe_right=False)
    assert est.pending() == [] and est.labels() == [None, None, None, True]


@pytest.mark.parametrize("n_steps", [0, 1])
def test_chains_too_short_to_probe(n_steps):
    est = posterior_search(n_steps, rule((5, 20)), outcome=False)
    assert est.pending() == [] and [v.label for v in est.verdicts()] == [False] * n_steps


def test_the_rule_by_name_and_its_options():
    opts = method("posterior")
    assert opts == Posterior()
    est = opts.search(ChainFacts(4, False, (2, 8), True))
    assert isinstance(est, PosteriorSearch) and est.method is opts and est.counted == (2, 9)
    # the posterior method searches by its own bisection: no estimator key to set
    with pytest.raises(ValueError, match="estimator is not a key of posterior"):
        method("posterior", estimator="per_step")
    for bad in (dict(factor=0.5), dict(chain_budget=0), dict(level=0.6),
                dict(probe=4, probe_max=3)):
        with pytest.raises(ValueError):
            method("posterior", **bad)
    with pytest.raises(ValueError):
        ChainFacts(4, False, (5, 4))


@pytest.mark.parametrize("level", [0.05, 0.15, 0.25, 0.35])
def test_a_looser_level_never_stops_the_search_before_it_starts(level):
    # A clear error at step 3 (never reached from there on; half the time before it): every
    # level locates it. The search once skipped first errors the posterior gave less than
    # `level`, so from about 0.25 up (mass spread over nine places) it stopped at once.
    est = drive(posterior_search(6, rule((5, 20), level=level), outcome=False),
                lambda i, j: i < 3 and every(2)(j))
    assert est.rollouts > 0
    assert [v.label for v in est.verdicts()][:4] == [True, True, True, False]


@pytest.mark.parametrize(("base", "chunk", "chunk_max", "budget", "size"), [
    ((10, 20), 2, 6, 32, 2),  # s ~ 0.5: half a success in 1 rollout, the floor holds
    ((4, 20), 2, 6, 32, 3),  # ceil(21 / 9)
    ((2, 20), 2, 6, 32, 5),  # ceil(21 / 5)
    ((1, 20), 2, 6, 32, 6),  # ceil(21 / 3) = 7, capped
    ((1, 20), 2, None, 32, 2),  # no growth asked for
    ((1, 20), 2, 6, 4, 4),  # never past the chain's budget
    ((0, 20), 2, 6, 32, 6),  # nothing is probed then (the search skips), but it is defined
])
def test_probe_grows_on_a_problem_the_completer_rarely_solves(base, chunk, chunk_max, budget,
                                                              size):
    grown = chunk if chunk_max is None else chunk_max
    assert Posterior(chain_budget=budget, probe=chunk, probe_max=grown).request(base) == size


def test_a_grown_probe_is_what_the_search_asks_and_waits_for():
    r = posterior_case((2, 20), False, chunk=2, chunk_max=6)  # 5 rollouts a probe
    est = posterior_search(4, r, outcome=False)
    (probe,) = est.pending()
    assert probe.n == 5
    est.record(probe.step, [False, False, None])  # 2 decided of 5: the probe is not complete
    assert est.pending() == [type(probe)(probe.step, 3)]


def test_looking_ahead_of_grown_probes_stays_within_its_rollouts():
    for base, n in (((2, 20), 5), ((10, 20), 2)):
        est = posterior_search(8, posterior_case(base, False, chunk=2, chunk_max=6), outcome=False)
        ahead = est.lookahead()
        assert ahead and {r[2] for r in ahead} == {n}
        assert sum(r[2] for r in ahead) <= AHEAD_ROLLOUTS


def test_a_probe_at_a_step_with_undecided_rollouts_is_sized_for_them():
    # Nothing undecided yet: a probe goes out as it is.
    est = posterior_search(4, rule((4, 16), chunk=2, budget=12), outcome=False)
    first = est.pending()[0]
    assert est.extra(first) == 0
    # One of its two came back undecided (share 1/2): the top-up of one goes out as
    # 1 / (1 - 1/2) + 1 = 3 rollouts.
    est.record(first.step, [None, False])
    top_up = est.pending()[0]
    assert (top_up.step, top_up.n) == (first.step, 1)
    assert est.extra(top_up) == 2
    # A step whose rollouts mostly decide nothing is sized for at most UNDECIDED_MAX, and
    # never past the chain's budget (12: 3 made, 9 left).
    est.record(first.step, [None])
    est.record(first.step, [None])
    assert est.pending()[0].n == 1
    share = min(3 / 4, estimator.UNDECIDED_MAX)
    assert est.extra(est.pending()[0]) == math.ceil(1 / (1 - share)) + 1 - 1
    est.record(first.step, [None] * 4)
    left = 12 - est.rollouts
    assert est.extra(est.pending()[0]) == left - est.pending()[0].n
    # The cap, exactly: a probe of two that came back all undecided goes out as 2 / (1 - 4/5)
    # + 1 = 11 rollouts.
    est = posterior_search(4, rule((4, 16), chunk=2, budget=32), outcome=False)
    first = est.pending()[0]
    est.record(first.step, [None, None])
    assert est.pending()[0].n + est.extra(est.pending()[0]) == 11
