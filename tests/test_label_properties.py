"""Property tests over the pure label code (Hypothesis): generated chains, verdicts and rollout
outcomes against the invariants docs/labels.md states."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from labeling.combine import combine
from labeling.first_error import first_error as first_error_step
from labeling.mc import BinarySearch, ChainFacts, Fall, PerStep
from labeling.mc.fall import FallBinary, FallPerStep, FallTest
from labeling.registry import complete_sources, locating_sources
from labeling.schema import Status, StepVerdict
from tests.fakes import absolute, drive, posterior_case, posterior_search
from tests.tiers import examples

COMPLETE_SOURCES, LOCATING_SOURCES = complete_sources(), locating_sources()
SETTINGS = settings(max_examples=examples(300), deadline=None)
CHECKED = {
    "c": StepVerdict(Status.CORRECT, True),
    "i": StepVerdict(Status.INCORRECT, False),
    "-": StepVerdict.unverifiable(),
}
UNDECIDED = [StepVerdict.unverifiable(), StepVerdict(Status.TIMEOUT, None, None, "slow"),
             StepVerdict(Status.ERROR, None, None, "crashed")]  # fmt: skip


@st.composite
def chains(draw):
    """(verdicts by source, n_steps): any subset of sources, any per-step verdicts; the answer
    speaks on the last step only."""
    n = draw(st.integers(1, 7))
    step = st.sampled_from([*CHECKED.values(), *UNDECIDED])
    vs = {}
    for source in draw(st.sets(st.sampled_from(["calc", "mc", "judge", "answer"]))):
        if source == "answer":
            vs[source] = [StepVerdict.unverifiable()] * (n - 1) + [draw(step)]
        else:
            vs[source] = draw(st.lists(step, min_size=n, max_size=n))
    return vs, n


POLICIES = st.sampled_from(["verifier_first", "consensus", "outcome", "mc", "judge"])
AFTER = st.sampled_from(["negative", "mask", "keep"])


@SETTINGS
@given(chains(), POLICIES, AFTER, st.sampled_from(["none", "positive"]))
def test_first_error_step_is_the_first_false_and_minus_one_only_when_all_true(
    chain, policy, after, fill
):
    vs, n = chain
    result = combine(vs, n, policy, after, outcome_fill=fill)
    assert len(result.labels) == n
    falses = [i for i, x in enumerate(result.labels) if x is False]
    if falses:
        assert result.first_error_step == falses[0]
    elif all(x is True for x in result.labels):
        assert result.first_error_step == -1
    else:
        assert result.first_error_step is None
    assert result.first_error_step == first_error_step(result.labels)


@SETTINGS
@given(chains(), st.sampled_from(["negative", "mask", "keep"]))
def test_no_positive_label_without_evidence_about_that_step_by_default(chain, after):
    vs, n = chain
    result = combine(vs, n, "verifier_first", after)
    for i, label in enumerate(result.labels):
        if label is True:
            witnesses = [s for s in ("mc", "judge") if s in vs and vs[s][i].label is True]
            if i == n - 1 and "answer" in vs and vs["answer"][i].label is True:
                witnesses.append("answer")
            assert witnesses, f"step {i} labeled True with no source saying so"


@SETTINGS
@given(chains(), POLICIES, AFTER, st.sampled_from(["none", "positive"]))
def test_the_answer_and_the_labels_never_contradict(chain, policy, after, fill):
    vs, n = chain
    result = combine(vs, n, policy, after, outcome_fill=fill)
    answer = vs.get("answer", [StepVerdict.unverifiable()] * n)[-1].label
    last = result.labels[-1]
    first = result.first_error_step
    earlier_error = first is not None and 0 <= first < n - 1
    if answer is False and policy in ("verifier_first", "consensus", "outcome"):
        # a wrong final answer is a wrong last step (masked when after an earlier first error)
        assert last is False or (after == "mask" and earlier_error and last is None)
    if answer is True and last is False and policy not in ("mc", "judge"):
        # A right answer's step is wrong only when an exact check proved the step itself
        # wrong (its arithmetic, its syntax), or as a step after an earlier first error. (The
        # mc and judge policies take that one source's labels as they are.)
        proved = any(vs[s][-1].status == Status.INCORRECT for s in LOCATING_SOURCES if s in vs)
        after_earlier = result.first_error_step is not None and result.first_error_step < n - 1
        assert proved or after_earlier


def _claims(vs):
    """Each source's claim as the steps (lo, hi) where it puts the first error; n: none."""
    claims = {}
    for s, v in vs.items():
        labels = [x.label for x in v]
        n = len(labels)
        if s in COMPLETE_SOURCES:
            if all(x is None for x in labels):
                return None
            if False in labels:
                first = labels.index(False)
                lead = next(i for i, x in enumerate(labels) if x is not True)
                # a first False after an unlabeled step, before the last: wrong by there
                claims[s] = (lead, first) if first < n - 1 else (first, first)
            elif None in labels:
                return None  # right so far, then silent: no full claim
            else:
                claims[s] = (n, n)
        elif s in LOCATING_SOURCES:
            found = [i for i, x in enumerate(v) if x.status == Status.INCORRECT]
            if found:
                claims[s] = (found[0], found[0])
    return claims


@SETTINGS
@given(chains())
def test_consensus_keeps_exactly_the_chains_whose_sources_agree(chain):
    vs, n = chain
    sources = [s for s in ("mc", "calc", "judge") if s in vs] or ["mc", "calc"]
    result = combine(vs, n, "consensus", consensus=sources)
    claims = _claims({s: vs[s] for s in sources if s in vs})
    # one first error fits every claim
    agree = claims is not None and (not claims or max(lo for lo, _ in claims.values())
                                    <= min(hi for _, hi in claims.values()))
    assert result.keep == agree


MC_OPTIONS = st.fixed_dictionaries({
    "k": st.integers(1, 6), "confirm": st.integers(1, 3), "chunk_all": st.booleans(),
})  # fmt: skip


@SETTINGS
@given(st.integers(2, 12), st.data(), MC_OPTIONS)
def test_binary_search_agrees_with_per_step_on_monotone_success(n, data, opts):
    error = data.draw(st.integers(0, n))  # first step that cannot reach the answer; n: none
    outcome = error > n - 1

    def oracle(step, j):
        return step < error

    rule = absolute(k=opts["k"], confirm=opts["confirm"],
                    chunk=opts["k"] if opts["chunk_all"] else 1)
    per_step = drive(PerStep(ChainFacts(n, outcome=outcome), rule), oracle)
    search = drive(BinarySearch(ChainFacts(n, outcome=outcome), rule), oracle)
    expected = error if error < n else -1
    assert per_step.first_error() == expected
    assert search.first_error() == expected


@SETTINGS
@given(st.integers(1, 6), st.data())
def test_undecided_rollouts_never_change_a_label(k, data):
    # Without early stopping a step's label and score depend on its decided rollouts only:
    # where the undecided ones fall, and how many there are, changes nothing.
    decided = data.draw(st.lists(st.booleans(), min_size=0, max_size=k))
    spare = k - len(decided)
    a = data.draw(st.permutations(decided + [None] * spare))
    b = data.draw(st.permutations(decided + [None] * data.draw(st.integers(0, spare))))
    labels = []
    for results in (a, b):
        est = PerStep(ChainFacts(2, outcome=False), absolute(k=k))
        est.record(0, list(results))
        labels.append((est.settled(0) if est.rollouts_at(0) >= k else None, est.score(0)))
    if len(b) == k:
        assert labels[0] == labels[1]
    label, score = labels[0]
    if not decided:
        assert label is None and score is None
    else:
        assert label == any(decided)
        assert score == sum(decided) / len(decided)


# --- the `fall` rule -------------------------------------------------------------------

FALL_SETTINGS = settings(max_examples=examples(120), deadline=None)
BASES = st.sampled_from([(0, 8), (1, 12), (3, 12), (6, 12), (11, 12), (5, 5)])


def _fall(base, own=0, cap=12, chunk=1):
    return FallTest(Fall(max_rollouts=cap, chunk=chunk), base, own)


def _drive(est, draws):
    """Run `est`, the j-th rollout from step i being draws[i][j] (None once they run out)."""
    def oracle(step, j):
        return draws[step][j] if j < len(draws[step]) else None

    return drive(est, oracle)


def _labels_nothing_when_nothing_succeeds(est, n, outcome):
    """Drive `est` (n steps) with every rollout failing: no step but the last (the chain's own
    answer, `outcome`) gets a label, and nothing is rolled out."""
    verdicts = _drive(est, [[False] * 20 for _ in range(n)]).verdicts()
    assert [v.label for v in verdicts[:-1]] == [None] * (n - 1)
    assert est.rollouts == 0
    assert verdicts[-1].label is outcome


def _same_verdicts(new_est, decided, mixed):
    """Two fresh estimators from `new_est()`, driven by the `decided` draws and by the same
    draws with undecided ones mixed in, give every step the same label, score and counts."""
    a, b = _drive(new_est(), decided), _drive(new_est(), mixed)
    strip = [(v.label, v.score, v.successes, v.decided) for v in a.verdicts()]
    assert strip == [(v.label, v.score, v.successes, v.decided) for v in b.verdicts()]


def _rate(counts):
    s, n = counts
    return s / n if n else None


@FALL_SETTINGS
@given(st.integers(2, 7), BASES, st.data(), st.sampled_from([FallPerStep, FallBinary]),
       st.sampled_from([True, False, None]), st.booleans())
def test_fall_never_calls_a_step_wrong_where_its_rate_did_not_fall(n, base, data, cls, outcome,
                                                                   own):
    # Any rollout outcomes at all (not drawn from a rate): every False the rule itself places
    # (before after_error, the last step aside: it is the chain's own answer) sits where the
    # observed success rate is lower than just before the step (the question for step 0).
    draws = [data.draw(st.lists(st.sampled_from([True, False, None]), max_size=12))
             for _ in range(n)]
    rule = _fall(base, own=int(own and outcome is not None))
    est = _drive(cls(ChainFacts(n, outcome=outcome), rule), draws)
    for i, label in enumerate(est.labels()[:-1]):
        if label is False:
            before = est.counts(i - 1) if i else base
            assert _rate(est.counts(i)) < _rate(before)


@FALL_SETTINGS
@given(st.integers(1, 7), st.integers(0, 20), st.sampled_from([FallPerStep, FallBinary]),
       st.sampled_from([True, False, None]), AFTER)
def test_a_completer_that_never_succeeds_labels_nothing(n, asked, cls, outcome, after):
    # It never reached the answer from the question, nor from any step: no step but the last
    # (the chain's own answer) gets a label, and nothing is rolled out.
    est = cls(ChainFacts(n, outcome=outcome, after_error=after), _fall((0, asked)))
    _labels_nothing_when_nothing_succeeds(est, n, outcome)


@FALL_SETTINGS
@given(st.integers(2, 6), BASES, st.data(), st.sampled_from([FallPerStep, FallBinary]),
       st.sampled_from([True, False]))
def test_fall_undecided_rollouts_change_nothing(n, base, data, cls, outcome):
    # The same decided outcomes with undecided ones mixed in anywhere (within the budget):
    # the same labels, scores and counts; only the cost differs.
    decided = [data.draw(st.lists(st.booleans(), max_size=8)) for _ in range(n)]
    mixed = []
    for seq in decided:
        nones = data.draw(st.integers(0, 6))
        spots = sorted(data.draw(st.lists(st.integers(0, len(seq)), min_size=nones,
                                          max_size=nones)))
        out, at = [], 0
        for j, x in enumerate(seq):
            while at < len(spots) and spots[at] == j:
                out.append(None)
                at += 1
            out.append(x)
        mixed.append(out + [None] * (len(spots) - at))
    rule = _fall(base, cap=20)
    _same_verdicts(lambda: cls(ChainFacts(n, outcome=outcome), rule), decided, mixed)


# --- the `posterior` rule --------------------------------------------------------------------
# Adapted wording (docs/labels.md): it decides no step on its own counts, so "the rate falls
# across the step" becomes "across some step up to it": a False needs a probed prefix at or
# before it that succeeded less often than the question or an earlier probed prefix.

POSTERIOR_SETTINGS = settings(max_examples=examples(60), deadline=None)


def _posterior(base, sampled, budget=20, chunk=1):
    return posterior_case(base, sampled, budget=budget, chunk=chunk)


def _fell_by(counts, base, i, may_err=None):
    """A probed prefix j <= i below the best rate before it, with a step that may err
    between j and the probed prefix before it (a fall across spared steps only, which name
    nothing, moves the baseline instead)."""
    may_err = may_err or [True] * (len(counts) + 1)
    best, previous = (base if base[1] else None), -1
    for j, (x, n) in enumerate(counts[: i + 1]):
        if not n:
            continue
        below = best is not None and x * best[1] < best[0] * n
        if below and any(may_err[previous + 1: j + 1]):
            return True
        if below or best is None or x * best[1] > best[0] * n:
            best = (x, n)
        previous = j
    return False


@POSTERIOR_SETTINGS
@given(st.integers(2, 6), BASES, st.data(), st.sampled_from([True, False, None]),
       st.booleans())
def test_posterior_never_calls_a_step_wrong_where_no_rate_fell(n, base, data, outcome, sampled):
    draws = [data.draw(st.lists(st.sampled_from([True, False, None]), max_size=12))
             for _ in range(n)]
    if sampled and outcome is not None:  # the driver's base holds a sampled chain's outcome
        base = (base[0] + int(outcome), base[1] + 1)
    est = _drive(posterior_search(n, _posterior(base, sampled), outcome=outcome), draws)
    counts = [est.counts(i) for i in range(n - 1)]
    for i, label in enumerate(est.labels()[:-1]):
        if label is False:
            assert _fell_by(counts, base, i)


@POSTERIOR_SETTINGS
@given(st.integers(2, 6), BASES, st.data(), st.sampled_from([True, False, None]),
       st.booleans())
def test_posterior_never_blames_steps_that_name_nothing(n, base, data, outcome, sampled):
    # Steps spared by their text (`labeling.mc.spared`): a False needs a fall across a step
    # that may err, and its span (the steps after the last True one, up to it) holds one.
    draws = [data.draw(st.lists(st.sampled_from([True, False, None]), max_size=12))
             for _ in range(n)]
    flags = [*data.draw(st.lists(st.booleans(), min_size=n - 1, max_size=n - 1)), True]
    if sampled and outcome is not None:
        base = (base[0] + int(outcome), base[1] + 1)
    est = _drive(posterior_search(n, _posterior(base, sampled), outcome=outcome,
                                  may_err=flags), draws)
    counts = [est.counts(i) for i in range(n - 1)]
    labels = est.labels()
    for i, label in enumerate(labels[:-1]):
        if label is False:
            assert _fell_by(counts, base, i, flags)
            last_true = max((j for j in range(i) if labels[j] is True), default=-1)
            assert any(flags[last_true + 1: i + 1])


@POSTERIOR_SETTINGS
@given(st.integers(1, 7), st.integers(0, 20), st.sampled_from([True, False, None]), AFTER,
       st.booleans())
def test_posterior_a_completer_that_never_succeeds_labels_nothing(n, asked, outcome, after,
                                                                  sampled):
    # It never reached the answer from the question, nor from any step (so a chain it
    # sampled itself has no right answer): no step but the last gets a label, and nothing
    # is rolled out.
    sampled = sampled and outcome is not True
    base = (0, asked + int(sampled and outcome is not None))
    est = posterior_search(n, _posterior(base, sampled), outcome=outcome, after_error=after)
    _labels_nothing_when_nothing_succeeds(est, n, outcome)


@POSTERIOR_SETTINGS
@given(st.integers(2, 6), BASES, st.data(), st.sampled_from([True, False]),
       st.sampled_from([1, 2]))
def test_posterior_undecided_rollouts_change_nothing(n, base, data, outcome, chunk):
    # The same decided outcomes with undecided ones mixed in anywhere: the same labels,
    # scores and counts (a probe waits for its decided rollouts; the budget is ample).
    decided = [data.draw(st.lists(st.booleans(), max_size=8)) for _ in range(n)]
    mixed = []
    for seq in decided:
        out = []
        for x in seq:
            out += [None] * data.draw(st.integers(0, 2)) + [x]
        mixed.append(out)
    rule = _posterior((base[0] + int(outcome), base[1] + 1), True, budget=120, chunk=chunk)
    _same_verdicts(lambda: posterior_search(n, rule, outcome=outcome), decided, mixed)
