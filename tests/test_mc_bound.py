"""Exact checks first, rollouts where they cannot tell: a step `calc` or `tests` proved wrong
bounds Monte Carlo's search (`ChainFacts.proven`). Every method, with the fake engine: rollouts
per step with and without the proof, the labels from the proof on against what `combine`
gives, and the label job's order (the exact sources before MC, their proof handed over on
`Chain.proven_error`)."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from labeling.combine import combine, proven_error
from labeling.mc import METHODS, ChainFacts
from labeling.schema import Chain, Problem, ProvenError, Status, StepVerdict
from tests.fakes import FakeCompleter, mc_verifier
from verifiers.mc.driver import prefix_texts

ERR = "[err]"
LENGTH, WRONG = 8, 5  # the chain's first error, and the step calc proves wrong


def _settings() -> list[tuple[str, dict]]:
    """Every registered method, under each search it offers (`estimator`)."""
    out = []
    for name, cls in METHODS.items():
        keys = {f.name for f in dataclasses.fields(cls)}
        if "estimator" in keys:
            out += [(name, {"estimator": e}) for e in ("per_step", "binary_search")]
        else:
            out.append((name, {}))
    return out


SETTINGS = _settings()
IDS = [f"{name}-{s.get('estimator', 'own')}" for name, s in SETTINGS]


def item(answer_right: bool = False, proven: int | None = None) -> tuple[Problem, Chain]:
    # each step names a value (a step that names nothing is never blamed by `posterior`)
    steps = [f"Step {s + 1}: x{s + 1} = {s + 2} {ERR if s == WRONG else 'ok'}"
             for s in range(LENGTH)]
    steps[-1] += f" \\boxed{{{42 if answer_right else 41}}}"
    problem = Problem("p0", "math", "test", "Question?", reference="42")
    chain = Chain("p0", "c0", 0, "\n\n".join(steps), tuple(steps), "m",
                  proven_error=None if proven is None else ProvenError(proven, "calc"))
    return problem, chain


class CountingCompleter(FakeCompleter):
    """The fake engine (success 0.8 before the error, 0.02 from it on, 0.8 from the bare
    question) that counts the rollouts asked from each prefix text."""

    def __init__(self) -> None:
        super().__init__(lambda r: 0.02 if ERR in r.prefix else 0.8)
        self.by_prefix: Counter[str] = Counter()

    def complete(self, requests):
        for r in requests:
            self.by_prefix[r.prefix] += r.n
        return super().complete(requests)

    def per_step(self, chain: Chain) -> list[int]:
        return [self.by_prefix[p] for p in prefix_texts(chain)]


def run(name: str, settings: dict, proven: int | None, answer_right: bool = False,
        after_error: str = "negative"):
    completer = CountingCompleter()
    mc = mc_verifier(completer, rule=name, self_rollouts=16, after_error=after_error,
                     **settings)
    problem, chain = item(answer_right, proven)
    verdicts = mc.verify([(problem, chain)])[0]
    return completer.per_step(chain), verdicts, mc.last_stats


@pytest.mark.parametrize(("name", "settings"), SETTINGS, ids=IDS)
def test_no_rollout_at_or_after_a_proven_error(name, settings):
    free, _, _ = run(name, settings, None)
    bounded, verdicts, stats = run(name, settings, WRONG)
    # Without the proof the search reaches the proven step or beyond; with it, never.
    assert sum(free[WRONG:]) > 0, free
    assert sum(bounded[WRONG:]) == 0, bounded
    assert [v.rollouts for v in verdicts[WRONG:]] == [0] * (LENGTH - WRONG)
    assert verdicts[WRONG].label is False and verdicts[WRONG].status == Status.INCORRECT
    assert "bounded by calc at step 5: no rollout at or after it" in verdicts[WRONG].evidence
    assert all(v.label is False for v in verdicts[WRONG:])  # after_error=negative
    assert all("after the proven error at step 5" in v.evidence for v in verdicts[WRONG + 1:])
    assert (stats.bounded_chains, stats.bounded_prefixes) == (1, LENGTH - 1 - WRONG)


@pytest.mark.parametrize(("name", "settings"), SETTINGS, ids=IDS)
def test_a_proven_error_at_step_0_leaves_nothing_to_roll_out(name, settings):
    free, _, _ = run(name, settings, None)
    bounded, verdicts, stats = run(name, settings, 0)
    assert sum(free) > 0
    assert sum(bounded) == 0  # the question's rollouts (self-confidence) aside
    assert stats.completions == stats.self_completions
    assert [v.label for v in verdicts] == [False] * LENGTH
    assert stats.hopeless_chains == 0  # nothing to search is not a hopeless search


@pytest.mark.parametrize(("name", "settings"), SETTINGS, ids=IDS)
@pytest.mark.parametrize("after_error", ["negative", "mask", "keep"])
@pytest.mark.parametrize("answer_right", [False, True])
def test_mc_labels_from_the_proof_on_are_what_combine_gives(name, settings, after_error,
                                                            answer_right):
    # calc proves step 3 wrong, a slip the completer does not notice (its rate falls at 5)
    at = 3
    _, mc, _ = run(name, settings, at, answer_right, after_error)
    unsure = StepVerdict.unverifiable()
    calc = [unsure] * LENGTH
    calc[at] = StepVerdict(Status.INCORRECT, False, evidence="4 = 5 is false")
    last = StepVerdict(Status.CORRECT, True) if answer_right else \
        StepVerdict(Status.INCORRECT, False)
    verdicts = {"answer": [unsure] * (LENGTH - 1) + [last], "calc": calc, "mc": mc}
    assert proven_error(verdicts) == ProvenError(at, "calc")
    mine = [v.label for v in mc]
    for policy in ("verifier_first", "consensus", "mc"):
        combined = combine(verdicts, LENGTH, policy, after_error).labels
        assert combined[at:] == mine[at:], policy
    assert mine[at] is False  # the proven step, under every after_error


def test_the_bound_is_the_one_place_a_search_is_limited():
    chain = ChainFacts(6, False, proven=ProvenError(3, "tests"))
    assert list(chain.probed) == [0, 1, 2]
    assert list(ChainFacts(6, False, proven=ProvenError(5, "calc")).probed) == [0, 1, 2, 3, 4]
    assert list(ChainFacts(6, False, proven=ProvenError(0, "calc")).probed) == []
    assert not ChainFacts(6, True, proven=ProvenError(3, "calc")).right
    with pytest.raises(ValueError, match="proven error at step 6"):
        ChainFacts(6, False, proven=ProvenError(6, "calc"))


def test_a_right_chain_with_a_proven_error_is_searched_even_without_probe_right():
    """`probe_right=false` skips a right chain; one an exact check proved wrong is not one."""
    free, _, _ = run("any_success", {"estimator": "binary_search", "probe_right": False},
                     None, answer_right=True)
    bounded, verdicts, _ = run("any_success", {"estimator": "binary_search",
                                               "probe_right": False}, WRONG, answer_right=True)
    assert sum(free) == 0 and sum(bounded) > 0 and sum(bounded[WRONG:]) == 0
    assert verdicts[WRONG].label is False


def test_proven_error_is_the_earliest_locating_flag():
    flag = StepVerdict(Status.INCORRECT, False)
    ok = StepVerdict(Status.CORRECT, True)
    assert proven_error({"calc": [ok, ok, ok]}) is None
    assert proven_error({"calc": [ok, flag, flag]}) == ProvenError(1, "calc")
    # the answer only says the end is wrong: it locates nothing, so it bounds nothing
    assert proven_error({"answer": [ok, ok, flag]}) is None
    assert proven_error({"answer": [ok, ok, flag], "calc": [ok, ok, flag]}) == \
        ProvenError(2, "calc")


def test_the_label_job_runs_the_exact_checks_first_and_hands_mc_their_proof():
    from labeling.engine_result import Completion, EngineResult, Finish
    from pipelines.label.app import typed
    from pipelines.label.unit import UnitLabeler
    from tests.conftest import compose

    cfg = typed(compose(["labels=[answer,calc]", "engine=simulated"]))
    seen: list[tuple[str, ProvenError | None]] = []

    class Recorder:
        def __init__(self, name: str, flag: int | None = None) -> None:
            self.name, self.flag = name, flag

        def verify(self, items):
            out = []
            for _, chain in items:
                seen.append((self.name, chain.proven_error))
                out.append([StepVerdict(Status.INCORRECT if i == self.flag else Status.CORRECT,
                                        i != self.flag) for i in range(len(chain.steps))])
            return out

    labeler = UnitLabeler(cfg, "hash")
    # MC first in the table: the job must still run it after the exact checks
    labeler._sources["math"] = {"mc": Recorder("mc"), "calc": Recorder("calc", flag=1),
                                "answer": Recorder("answer")}
    problem, chain = item()
    given = dataclasses.replace(problem, given_chains=())
    sampled = EngineResult((Completion(chain.text, 1, Finish.STOP),))
    res = labeler.label([given], {"p0": (0, sampled)})
    assert [name for name, _ in seen] == ["calc", "answer", "mc"]
    assert seen[0][1] is None and seen[1][1] is None  # the exact checks see no proof
    assert seen[2][1] == ProvenError(1, "calc")
    assert res.rows


@pytest.mark.parametrize(("name", "settings"), SETTINGS, ids=IDS)
def test_no_request_goes_out_past_the_proof_even_sent_ahead(name, settings):
    """With room in the engine the driver sends what a search may ask next (speculation):
    never a prefix at or after the proven error, and the labels are the round-by-round ones."""
    from tests.test_mc_schedule import ThreadedCompleter

    if "chunk" in {f.name for f in dataclasses.fields(METHODS[name])}:
        settings = {**settings, "chunk": 1}  # one rollout a request: what is sent ahead
    problem, chain = item(proven=WRONG)
    counting = CountingCompleter()
    fast = ThreadedCompleter(counting, lambda r: 0.001 * (r.seed % 7))
    fast.capacity = 256
    mc = mc_verifier(fast, rule=name, self_rollouts=16, look_ahead=1, **settings)
    ahead = mc.verify([(problem, chain)])[0]
    stats = mc.last_stats
    assert stats.ahead_requests + stats.wasted_rollouts > 0  # it did send early
    sent = counting.per_step(chain)
    assert sum(sent[:WRONG]) > 0 and sum(sent[WRONG:]) == 0, sent
    _, rounds, _ = run(name, settings, WRONG)
    assert ahead == rounds
