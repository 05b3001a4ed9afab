"""Looping completions: the line runs both the engine's processor and the feed read
(`labeling.text.loops`), the requests that ask for it and the engine that ends them."""

from __future__ import annotations

import pytest

from labeling.engine_request import EngineRequest
from labeling.engine_result import Finish
from labeling.schema import Chain, Problem
from labeling.text.loops import TRAIL, LineRuns, ended_in_loop, line_key
from tests.fakes import mc_verifier
from verifiers.mc.driver import Completion


@pytest.mark.parametrize("line, key", [
    ("14. 6 * 8 = 48", "6 * 8 = 48"),
    ("Step 6: 2 bags of 8 marbles each.", "2 bags of 8 marbles each."),
    ("  (3)   Add   them ", "add them"),
    ("- 6 * 8 = 48", "6 * 8 = 48"),
    ("6 * 8 = 48", "6 * 8 = 48"),  # a number that is not an enumerator stays
    ("48 apples in all", "48 apples in all"),
    ("   ", ""),
])
def test_a_line_s_key_drops_its_numbering_only(line, key):
    assert line_key(line) == key


def feed_all(runs: LineRuns, pieces: list[str]) -> list[bool]:
    return [runs.feed(p) for p in pieces]


def test_a_run_hits_at_the_kth_line_in_a_row_whatever_the_pieces():
    text = "Step 1: x = 2\n\n12. 6 * 8 = 48\n\n13. 6 * 8 = 48\n14. 6 * 8 = 48\nmore"
    whole = LineRuns(3)
    assert whole.feed(text)
    # fed one character at a time, it hits exactly when the third repeat's newline comes
    at = text.index("14. 6 * 8 = 48\n") + len("14. 6 * 8 = 48\n") - 1
    hits = feed_all(LineRuns(3), list(text))
    assert hits.index(True) == at and all(hits[at:])


def test_other_lines_reset_a_run_and_blank_lines_do_not():
    assert not LineRuns(3).feed("a = 1\na = 1\nb = 2\na = 1\n")
    assert LineRuns(3).feed("a = 1\n\n\na = 1\n\n  \na = 1\n")
    assert not LineRuns(3).feed("a = 1\na = 1\na = 1")  # the third line is not finished
    with pytest.raises(ValueError, match="at least twice"):
        LineRuns(1)


def test_a_completion_ended_in_a_loop_only_where_the_run_hit_last():
    loop = ["6 * 8", " = 48", "\n"] * 4
    assert ended_in_loop(loop + ["<|im_end|>"], 4)
    assert ended_in_loop(loop + ["x"] * (TRAIL - 1), 4)  # an engine that saw it late
    # it looped, then went on and answered: not ended by the loop
    assert not ended_in_loop(loop + ["The", " answer", " is", " 48", ".", "<|im_end|>"], 4)
    assert not ended_in_loop(loop[:-3] + ["<|im_end|>"], 4)  # three repeats only


class Recorder:
    """Every completion states the answer; the requests are kept."""

    def __init__(self) -> None:
        self.requests: list[EngineRequest] = []

    def complete(self, requests):
        self.requests += requests
        return [[Completion("So x = 42, \\boxed{42}.", 8)] * r.n for r in requests]


def test_every_rollout_asks_the_engine_to_end_its_loops():
    steps = ("Step 1: x = 40 + 2.", "Step 2: so x = 42, \\boxed{42}")
    item = (Problem("p", "math", "t", "What is x?", reference="42"),
            Chain("p", "c", 0, "\n\n".join(steps), steps, "m"))
    completer = Recorder()
    mc_verifier(completer, rule="any_success", k=2, estimator="per_step", end_loops=4,
                self_rollouts=2).verify([item])
    # the question's rollouts and the steps' alike
    assert {r.prefix for r in completer.requests} == {"", steps[0]}
    assert {r.end_loops for r in completer.requests} == {4}


def test_end_loops_takes_zero_or_two_and_more():
    with pytest.raises(ValueError, match="end_loops must be 0"):
        EngineRequest.user("q", n=1, seed=0, max_tokens=8, temperature=0.0, end_loops=1)
    r = EngineRequest.user("q", n=1, seed=0, max_tokens=8, temperature=0.0, end_loops=3)
    assert EngineRequest.from_plain(r.to_plain()) == r
    with pytest.raises(ValueError, match="labels.mc.end_loops=1: choose 0"):
        mc_verifier(Recorder(), end_loops=1)


@pytest.mark.engine
def test_the_engine_ends_a_looping_rollout_and_leaves_the_rest_of_the_batch_alone(
        smollm2_engine):
    """The embedded model, greedy, continuing a prefix that repeats a line: with end_loops
    the engine stops it after the third repeat of its own, marks it "loop", and every token
    before that is the one it wrote without; a request of the same batch that did not ask
    is sampled exactly as in a batch without it."""
    from dataclasses import replace

    engine = smollm2_engine
    loop = EngineRequest.user("What is 6 * 8?", prefix="1. 6 * 8 = 48\n2. 6 * 8 = 48\n",
                              n=1, seed=3, max_tokens=160, temperature=0.0)
    other = EngineRequest.user("What is 7 + 5?", prefix="Step 1:", n=2, seed=5,
                               max_tokens=40, temperature=0.7)
    free, alone = engine.generate([loop, other], tag="rollout")
    ended, beside = engine.generate([replace(loop, end_loops=3), other], tag="rollout")
    assert ended.finish == [Finish.LOOP] and free.finish != [Finish.LOOP]
    text = ended.texts[0]
    assert free.texts[0].startswith(text) and ended.tokens[0] < free.tokens[0]
    runs = LineRuns(3)
    assert runs.feed(text) and line_key(text.rstrip().splitlines()[-1]) == "6 * 8 = 48"
    assert beside == alone
