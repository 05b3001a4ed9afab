"""The rollout driver's continuous schedule with an asynchronous fake engine: every chain's
probes in flight at once, answers out of order, speculation, and the same labels as the
round-by-round schedule."""

from __future__ import annotations

import random
import threading
import time

import pytest

from labeling.engine_request import EngineRequest
from tests.fakes import FakeCompleter, mc_verifier
from tests.test_mc_driver import ERR, error_aware, labels, math_item, posterior_rule, sampled_items
from verifiers.mc import driver
from verifiers.mc.driver import AsyncCompleter, Completer, Completion
from verifiers.mc.outcome import MathOutcome
from verifiers.mc.schedule import Schedule


class ThreadedCompleter:
    """An `AsyncCompleter`: each request is answered by FakeCompleter's rule from a thread of
    its own, after a delay of its own (so requests finish out of order) and after `hold(r)`
    returns (a test holds a request back on an event); `on_finish(r)` runs after each answer."""

    def __init__(self, fake: FakeCompleter, delay, hold=None, on_finish=None) -> None:
        self.fake, self.delay = fake, delay
        self.hold, self.on_finish = hold, on_finish
        self.sent: list[tuple[float, EngineRequest]] = []
        self.finished: list[tuple[float, EngineRequest]] = []
        self._lock = threading.Lock()

    def submit(self, requests):
        from concurrent.futures import Future

        futures = []
        for r in requests:
            fut: Future = Future()
            with self._lock:
                self.sent.append((time.monotonic(), r))

            def answer(r=r, fut=fut):
                wait = self.delay(r)
                if wait:
                    time.sleep(wait)
                if self.hold is not None:
                    self.hold(r)
                result = self.fake.complete([r])[0]
                with self._lock:
                    self.finished.append((time.monotonic(), r))
                if self.on_finish is not None:
                    self.on_finish(r)
                fut.set_result(result)

            threading.Thread(target=answer, daemon=True).start()
            futures.append(fut)
        return futures


def _verify(completer, items, estimator: str, k: int):
    """The labels and stats of one MC run over `items` (chunk=1, confirm=2): the schedule tests
    run it once per engine and compare."""
    mc = mc_verifier(completer, estimator=estimator, k=k, chunk=1, confirm=2)
    return mc.verify(items), mc.last_stats


@pytest.mark.parametrize("estimator", ["binary_search", "per_step"])
def test_continuous_schedule_gives_the_labels_of_the_round_schedule(estimator):
    items = [math_item(i, 9, i % 9) for i in range(12)]

    def rule(r):
        return 0.1 if ERR in r.prefix else 0.7

    rounds, s1 = _verify(FakeCompleter(rule), items, estimator, k=3)
    slow = ThreadedCompleter(FakeCompleter(rule), lambda r: 0.002 * (hash(r.seed) % 5))
    continuous, s2 = _verify(slow, items, estimator, k=3)
    assert isinstance(slow, AsyncCompleter) and not isinstance(slow, Completer)
    assert continuous == rounds  # same probes, seeds and labels in any timing
    assert (s2.requests, s2.completions, s2.tokens) == (s1.requests, s1.completions, s1.tokens)


def test_a_chain_does_not_wait_for_another_chains_slow_probe():
    items = [math_item(0, 16, 11), math_item(1, 16, 11)]  # both need ~4 sequential probes
    # Chain 1 alone: how many requests its whole search takes (seeds are per chain).
    alone = ThreadedCompleter(error_aware(), lambda r: 0)
    mc_verifier(alone, estimator="binary_search", k=1).verify([items[1]])
    fast_total = len(alone.sent)
    assert fast_total >= 3
    # Together: chain 0's requests are held until chain 1's whole search has been answered.
    # A driver that made chain 1 wait for chain 0 would never answer them all: the hold
    # times out and the event stays unset.
    fast_done = threading.Event()
    held: list[bool] = []

    def fast_answered(r):
        done = sum(x.user_text == "Question 1?" for _, x in completer.finished)
        if done >= fast_total:
            fast_done.set()

    def hold(r):
        if r.user_text == "Question 0?":
            held.append(fast_done.wait(timeout=10))

    completer = ThreadedCompleter(error_aware(), lambda r: 0, hold, fast_answered)
    mc_verifier(completer, estimator="binary_search", k=1).verify(items)
    assert held and all(held)  # every slow answer came after chain 1 had finished


@pytest.mark.parametrize("estimator", ["binary_search", "per_step"])
def test_speculation_fills_the_engine_without_changing_a_label(estimator):
    """With room in the engine (`capacity`) and chunk=1, later rollouts of a probe go out
    early; recorded in order, they give exactly the sequential labels and rollouts."""
    items = [math_item(i, 9, i % 9) for i in range(10)]

    def rule(r):
        return 0.05 if ERR in r.prefix else 0.5

    sequential, s1 = _verify(FakeCompleter(rule), items, estimator, k=4)
    # Every answer waits until more requests went out than the sequential search's biggest
    # batch (so a loaded machine answering fast cannot hide whether it sent ahead); a
    # schedule that never sends ahead leaves the wait to time out.
    held: list[bool] = []

    def hold(r):
        held.append(until(lambda: len(fast.sent) > s1.max_batch_requests, timeout_s=10.0))

    fast = ThreadedCompleter(FakeCompleter(rule), lambda r: 0.001 * (r.seed % 7), hold)
    fast.capacity = 256
    speculative, s2 = _verify(fast, items, estimator, k=4)
    assert speculative == sequential
    assert s2.requests - s2.wasted_rollouts == s1.requests  # every useful rollout, once
    assert all(held) and s2.max_in_flight > s1.max_batch_requests  # it did send ahead
    if estimator == "binary_search":  # including probes that were not pending yet
        assert s2.ahead_requests > 0
    recorded = sum(v.rollouts for vs in speculative for v in vs)
    assert recorded == s1.completions == s2.completions - s2.wasted_rollouts


def test_first_probes_go_out_while_later_outcomes_are_still_being_checked():
    """An async engine must not wait for the whole batch's outcome checks (seconds for math,
    minutes for code in a sandbox): each chain's first probe leaves as its outcome is known."""
    items = [math_item(i, 8, 3) for i in range(4)]
    completer = ThreadedCompleter(error_aware(), lambda r: 0.001)
    outcome = MathOutcome()
    waited: list[bool] = []

    def check(problem, prefix, completion):
        if not completion and problem.problem_id != "p0":  # a later chain's own outcome
            waited.append(until(lambda: len(completer.sent) > 0, timeout_s=5.0))
        return outcome(problem, prefix, completion)

    verdicts = mc_verifier(completer, check, estimator="binary_search", k=1).verify(items)
    assert waited == [True, True, True]  # chain 0's probe was out before they were checked
    assert [labels(v) for v in verdicts] == [[True] * 3 + [False] * 5] * 4


def until(condition, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def weak_rule(r):
    """A completer that rarely solves the problem: probes grow past 2 under probe_max 6."""
    if ERR in r.prefix:
        return 0.01
    return 0.1 if not r.prefix else 0.3


@pytest.mark.parametrize(("probe", "probe_max", "rate"), [
    (1, 1, posterior_rule), (2, 2, posterior_rule), (2, 6, weak_rule),
])
def test_posterior_labels_do_not_depend_on_timing_or_speculation(probe, probe_max, rate):
    """The probes a posterior search may make next go out early (whole requests of a probe's
    rollouts each, grown on a weak problem under probe_max); the labels and the recorded
    rollouts are the sequential ones."""
    items = sampled_items(2)

    def run(completer):
        mc = mc_verifier(completer, rule="posterior", probe=probe, probe_max=probe_max,
                         self_rollouts=16, samples_of="m")
        return mc.verify(items), mc.last_stats

    rounds, s1 = run(FakeCompleter(rate))
    fast = ThreadedCompleter(FakeCompleter(rate), lambda r: 0.001 * (r.seed % 7))
    fast.capacity = 256
    continuous, s2 = run(fast)
    assert continuous == rounds
    assert s2.ahead_requests > 0  # it did send ahead
    assert s2.completions - s2.wasted_tokens // 100 == s1.completions  # 100 tokens a rollout
    probes = s1.requests - 2  # one request of the question per problem
    assert (s1.completions - s1.self_completions > probe * probes) == (probe_max > probe)


class SilentAfter(FakeCompleter):
    """FakeCompleter whose rollouts from a prefix ending in `marker` mostly write nothing
    (no attempt: undecided), each by its own seed."""

    def __init__(self, marker: str, p_success) -> None:
        super().__init__(p_success)
        self.marker = marker

    def complete(self, requests):
        out = super().complete(requests)
        for req, got in zip(requests, out, strict=True):
            if req.prefix.endswith(self.marker):
                for j in range(len(got)):
                    if random.Random(f"{req.seed + j}/silent").random() < 0.7:
                        got[j] = Completion("", 1)
        return out


def test_no_attempt_rollouts_under_speculation_change_no_label():
    items = sampled_items(3)

    def run(completer):
        mc = mc_verifier(completer, rule="posterior", probe=2, self_rollouts=8,
                         samples_of="m")
        return mc.verify(items), mc.last_stats

    rounds, s1 = run(SilentAfter("Step 3: x3 ok", posterior_rule))
    fast = ThreadedCompleter(SilentAfter("Step 3: x3 ok", posterior_rule),
                             lambda r: 0.001 * (r.seed % 7))
    fast.capacity = 256
    continuous, s2 = run(fast)
    assert s1.no_attempts > 0  # the silent step was probed, and topped up
    assert continuous == rounds
    assert s2.ahead_requests > 0
    # the rollouts recorded are the sequential search's (what went out early and was not
    # needed is wasted, never recorded)
    assert [v.rollouts for vs in continuous for v in vs] == \
        [v.rollouts for vs in rounds for v in vs]
    # A top-up of the undecided rollouts is served by a request sent early for a bigger
    # probe of the same step (rollout i has its seed in any request): no rollout goes out
    # twice.
    sent = [(r.prefix, r.seed + j) for _, r in fast.sent for j in range(r.n)]
    assert len(sent) == len(set(sent))


def test_top_ups_of_undecided_rollouts_go_out_with_their_probe_never_changing_a_label():
    """A probe at a step whose rollouts come back undecided goes out, with room, sized for
    the step's undecided share (`PosteriorSearch.extra`): fewer requests there one after
    another, the very labels and recorded rollouts of the sequential search."""
    items = sampled_items(3)
    marker = "Step 3: x3 ok"

    def run(speculate: bool):
        fast = ThreadedCompleter(SilentAfter(marker, posterior_rule),
                                 lambda r: 0.001 * (r.seed % 7))
        fast.capacity = 256
        mc = mc_verifier(fast, rule="posterior", probe=2, self_rollouts=8, samples_of="m",
                         speculate=speculate, look_ahead=0)  # no look-ahead: extras only
        out = mc.verify(items)
        return out, mc.last_stats, [r.n for _, r in fast.sent if r.prefix.endswith(marker)], fast

    seq, s1, silent_seq, _ = run(False)
    got, s2, silent_spec, fast = run(True)
    assert s1.no_attempts > 0 and s2.ahead_requests == 0
    assert got == seq
    assert [v.rollouts for vs in got for v in vs] == [v.rollouts for vs in seq for v in vs]
    assert len(silent_spec) < len(silent_seq)  # top-ups served by rollouts sent with a probe
    assert max(silent_spec) > max(silent_seq)
    sent = [(r.prefix, r.seed + j) for _, r in fast.sent for j in range(r.n)]
    assert len(sent) == len(set(sent))  # no rollout goes out twice


@pytest.mark.parametrize("rule", ["posterior", "absolute"])
def test_speculate_off_sends_nothing_ahead_and_gives_the_same_labels(rule):
    """`labels.mc.speculate=false` on an engine with room: one probe at a time per chain, no
    request sent early, and the very labels and rollouts of the speculating run."""
    items = sampled_items(3)

    def run(speculate: bool):
        fast = ThreadedCompleter(FakeCompleter(posterior_rule), lambda r: 0.001 * (r.seed % 7))
        fast.capacity = 256
        settings = {"probe": 2} if rule == "posterior" else {"k": 4, "chunk": 1, "confirm": 2}
        mc = mc_verifier(fast, rule=rule, self_rollouts=8, samples_of="m",
                         speculate=speculate, **settings)
        return mc.verify(items), mc.last_stats

    ahead, s1 = run(True)
    alone, s2 = run(False)
    assert s1.ahead_requests + s1.wasted_rollouts > 0  # the engine's room was used
    assert s2.ahead_requests == s2.wasted_rollouts == 0
    assert alone == ahead
    assert s2.completions == s1.completions - s1.wasted_tokens // 100  # 100 tokens a rollout


def test_the_look_ahead_depth_changes_what_goes_ahead_never_a_label(monkeypatch):
    """`labels.mc.look_ahead`: 0 sends no probe ahead (a pending probe's own rollouts only);
    unset, the completer's own depth (the engines' device) is used, 1 for a completer that
    does not say. The labels and rollouts are the sequential ones at every depth."""
    items = sampled_items(3)
    depths = []

    class Recorded(Schedule):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            depths.append(self.depth)

    monkeypatch.setattr(driver, "Schedule", Recorded)

    def run(look_ahead, own=None):
        fast = ThreadedCompleter(FakeCompleter(posterior_rule), lambda r: 0.001 * (r.seed % 7))
        fast.capacity = 256
        if own is not None:
            fast.look_ahead = own
        mc = mc_verifier(fast, rule="posterior", probe=2, self_rollouts=8, samples_of="m",
                         look_ahead=look_ahead)
        return mc.verify(items), mc.last_stats.ahead_requests

    sequential = mc_verifier(FakeCompleter(posterior_rule), rule="posterior", probe=2,
                             self_rollouts=8, samples_of="m").verify(items)
    assert depths == [0]  # no room in the engine: nothing goes ahead
    for look_ahead, own, depth in [(0, 2, 0), (1, None, 1), (2, None, 2), (None, 2, 2),
                                   (None, None, 1)]:
        got, ahead = run(look_ahead, own)
        assert got == sequential and depths[-1] == depth
        assert (ahead > 0) == (depth > 0)
    with pytest.raises(ValueError, match="look_ahead=-1"):
        mc_verifier(FakeCompleter(posterior_rule), rule="posterior", look_ahead=-1)


def test_early_requests_fill_the_room_in_sequences_one_chain_per_turn():
    """The engines' room is counted in sequences: a request of n rollouts takes n of it, so
    early requests never ask the engines for more than the room they have."""
    from labeling.mc import Probe
    from verifiers.mc.schedule import _fair

    queues = {0: [(0, Probe(1, 4), 0), (0, Probe(2, 4), 0)],
              1: [(1, Probe(3, 2), 0), (1, Probe(5, 2), 2)],
              2: [(2, Probe(0, 1), 4)]}  # fmt: skip
    assert _fair(queues, 7) == [(0, Probe(1, 4), 0), (1, Probe(3, 2), 0), (2, Probe(0, 1), 4)]
    # The second turn's first request (4 sequences) does not fit the 2 left: it stops there
    # rather than letting a later chain jump the queue.
    assert _fair(queues, 9) == _fair(queues, 7)
    assert _fair(queues, 11) == _fair(queues, 7) + [(0, Probe(2, 4), 0)]
    assert _fair(queues, 3) == []  # the first request alone is 4 sequences
    assert _fair(queues, 0) == []


def test_no_private_name_crosses_the_seam_between_driver_and_schedule():
    """The schedule reaches the driver through `Rollouts` only: it reads no private attribute
    of another object, and the driver imports no private name of the schedule's."""
    import ast
    from pathlib import Path

    import verifiers.mc.schedule as schedule

    tree = ast.parse(Path(schedule.__file__).read_text())
    crossing = [f"line {n.lineno}: .{n.attr}" for n in ast.walk(tree)
                if isinstance(n, ast.Attribute) and n.attr.startswith("_")
                and not n.attr.startswith("__")
                and not (isinstance(n.value, ast.Name) and n.value.id == "self")]
    assert not crossing, crossing
    for module in (driver, schedule):
        tree = ast.parse(Path(module.__file__).read_text())
        imported = [a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                    and (n.module or "").startswith("verifiers.mc") for a in n.names]
        assert not [name for name in imported if name.startswith("_")], imported
