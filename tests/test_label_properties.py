"""Property tests over the pure label code (Hypothesis): generated chains, verdicts and rollout
outcomes against the invariants docs/labels.md states."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from labeling.combine import combine
from labeling.estimators import BinarySearch, PerStep
from labeling.first_error import first_error as first_error_step
from labeling.registry import complete_sources, locating_sources
from labeling.schema import Status, StepVerdict

COMPLETE_SOURCES, LOCATING_SOURCES = complete_sources(), locating_sources()
SETTINGS = settings(max_examples=300, deadline=None)
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
    claims = {}
    for s, v in vs.items():
        labels = [x.label for x in v]
        if s in COMPLETE_SOURCES:
            if all(x is None for x in labels):
                return None
            if False in labels:
                claims[s] = labels.index(False)
            elif None in labels:
                return None  # right so far, then silent: no full claim
            else:
                claims[s] = -1
        elif s in LOCATING_SOURCES:
            found = [i for i, x in enumerate(v) if x.status == Status.INCORRECT]
            if found:
                claims[s] = found[0]
    return claims


@SETTINGS
@given(chains())
def test_consensus_keeps_exactly_the_chains_whose_sources_agree(chain):
    vs, n = chain
    sources = [s for s in ("mc", "calc", "judge") if s in vs] or ["mc", "calc"]
    result = combine(vs, n, "consensus", consensus=sources)
    claims = _claims({s: vs[s] for s in sources if s in vs})
    agree = claims is not None and len(set(claims.values())) <= 1
    assert result.keep == agree


def _run(est, outcomes_at):
    for _ in range(500):
        probes = est.pending()
        if not probes:
            return est
        for p in probes:
            start = est.rollouts_at(p.step)
            est.record(p.step, [outcomes_at(p.step, start + j) for j in range(p.n)])
    raise AssertionError("estimator did not finish")


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

    kw = dict(k=opts["k"], confirm=opts["confirm"], outcome=outcome,
              chunk=opts["k"] if opts["chunk_all"] else 1)  # fmt: skip
    per_step = _run(PerStep(n, **kw), oracle)
    search = _run(BinarySearch(n, **kw), oracle)
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
        est = PerStep(2, k=k, outcome=False)
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
