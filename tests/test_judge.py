"""The judge source: critic prompt, defensive parsing of real-looking answers, votes ->
verdicts, the verifier's batching over a fake critic, and the engine-side critic."""

from __future__ import annotations

import pytest

from labeling.engine_request import EngineRequest
from labeling.engine_result import Completion, EngineResult, Finish
from labeling.ids import chain_id
from labeling.judge.protocol import (
    JudgeAnswer,
    build_prompt,
    judge_verdicts,
    parse_answer,
    plurality,
)
from labeling.schema import Chain, Problem, Status
from pipelines.engine.judge import EngineJudge
from verifiers.base import Verifier
from verifiers.judge import JudgeVerifier

STEPS = ("Tom has 3 + 4 = 7 apples.", "He buys 2 more: 7 + 2 = 10.", "The answer is \\boxed{10}.")


def test_prompt_tags_and_indexes_steps_from_zero():
    text = build_prompt("  How many apples? ", STEPS)
    assert "[Math Problem]\n\nHow many apples?\n\n[Solution]" in text
    assert "<paragraph_0>\nTom has 3 + 4 = 7 apples.\n</paragraph_0>" in text
    assert "<paragraph_2>\nThe answer is \\boxed{10}.\n</paragraph_2>" in text
    assert "<paragraph_3>" not in text
    assert "-1" in text and "\\boxed{}" in text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Paragraph 1 adds wrongly: 7 + 2 is 9.\n\nSo the answer is \\boxed{1}.", 1),
        ("All paragraphs are correct. \\boxed{-1}", -1),
        ("The earliest error is in paragraph 0. $\\boxed{0}$", 0),
        ("\\boxed{ 2 }", 2),
        ("\\boxed{paragraph_1}", 1),
        ("\\boxed{\\text{2}}", 2),
        ("I think \\boxed{0} ... no wait, it is \\boxed{2}.", 2),  # the last box counts
        ("\\boxed{+1}", 1),
        ("2", 2),  # what Qwen2.5-Coder-0.5B answers: the bare index, nothing else
        (" -1\n", -1),
    ],
)
def test_parse_reads_the_last_boxed_index(text, expected):
    a = parse_answer(text, 3, tokens=12)
    assert a.first_error == expected and a.problem == "" and a.tokens == 12


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("The error is in paragraph 1.", "no \\boxed{} answer"),
        ("", "no \\boxed{} answer"),
        ("\\boxed{3}", "index 3 is outside -1..2"),
        ("\\boxed{-2}", "index -2 is outside -1..2"),
        ("\\boxed{1.5}", "is not a paragraph index"),
        ("\\boxed{1, 2}", "is not a paragraph index"),
        ("\\boxed{paragraph 1 and 2}", "is not a paragraph index"),
        ("\\boxed{10}", "outside"),
        ("\\boxed{one}", "is not a paragraph index"),
        ("\\boxed{1", "no \\boxed{} answer"),  # never closed
        ("\\boxed{" + "9" * 5000 + "}", "no \\boxed{} answer"),  # absurdly long: not read
        ("The error is in paragraph 2, not 1.", "no \\boxed{} answer"),  # prose: not read
        ("5", "index 5 is outside -1..2"),
        ("2.5", "no \\boxed{} answer"),
    ],
)
def test_parse_never_guesses(text, problem):
    a = parse_answer(text, 3)
    assert a.first_error is None and problem in a.problem


def answers(*firsts, tokens=10):
    return [JudgeAnswer(f"because {f}", f, "" if f is not None else "no \\boxed{} answer",
                         tokens) for f in firsts]


def test_plurality_and_ties_go_to_the_earliest_step():
    assert plurality(answers(1, 1, 2)) == 1
    assert plurality(answers(2, -1, -1)) == -1
    assert plurality(answers(2, 1)) == 1
    assert plurality(answers(-1, 2)) == 2  # -1 counts as after every step
    assert plurality(answers(None, 2, None)) == 2  # the most-named parsed index
    assert plurality(answers(None, None)) is None


def test_verdicts_at_the_voted_first_error():
    vs = judge_verdicts(answers(1, 1, 2), 4)
    assert [v.status for v in vs] == [Status.CORRECT, Status.INCORRECT, Status.UNVERIFIABLE,
                                      Status.UNVERIFIABLE]
    assert [v.label for v in vs] == [True, False, None, None]
    # share of votes placing the first error after the step
    assert [v.score for v in vs] == pytest.approx([1.0, 1 / 3, 0.0, 0.0])
    assert vs[1].evidence.startswith(
        "2 of 3 votes put the first error at or before step 1 (2 name it): because 1"
    )
    assert [v.tokens for v in vs] == [30, 0, 0, 0]  # counted once, on step 0


def test_verdicts_when_every_step_is_right():
    vs = judge_verdicts(answers(-1, -1, 0), 3)
    assert [v.label for v in vs] == [True, True, True]
    assert [v.score for v in vs] == pytest.approx([2 / 3, 2 / 3, 2 / 3])
    assert "2 of 3 votes: no wrong step" in vs[-1].evidence


def test_unparsable_votes_are_noted_and_all_unparsable_is_an_error_verdict():
    # One vote of three names step 0: not a majority of all votes, so nothing is labeled.
    vs = judge_verdicts(answers(None, 0, None), 2)
    assert [v.label for v in vs] == [None, None]
    assert vs[0].status == Status.UNVERIFIABLE and "1 of 3 votes parsed" in vs[0].evidence
    assert vs[0].score == 0.0
    err = judge_verdicts([JudgeAnswer("I refuse." * 100, None, "no \\boxed{} answer", 7)], 2)
    assert [v.status for v in err] == [Status.ERROR, Status.ERROR]
    assert all(v.label is None and v.score is None for v in err)
    assert err[0].evidence.startswith("unparsable critic answer (no \\boxed{} answer): I refuse.")
    assert len(err[0].evidence) < 500 and err[0].tokens == 7


class FakeJudge:
    """Answers every request with scripted texts; records the calls."""

    def __init__(self, texts, finish=Finish.STOP):
        self.texts, self.finish, self.calls = texts, finish, []

    def critique(self, requests):
        self.calls.append(list(requests))
        return [[Completion(t, 5, self.finish) for t in self.texts[: r.n]] for r in requests]


def items(n_chains=2):
    p = Problem("p1", "math", "t", "Tom has 3 apples and 4 more, then buys 2. How many?", "9")
    return [(p, Chain("p1", chain_id("p1", "m", i), i, "\n\n".join(STEPS), STEPS, "m"))
            for i in range(n_chains)] + [(p, Chain("p1", "cempty", 9, "", (), "m"))]


def test_verifier_sends_one_batch_with_votes_and_stable_seeds():
    critic = FakeJudge(["\\boxed{1}", "\\boxed{1}", "\\boxed{-1}"])
    judge = JudgeVerifier(critic, votes=3, max_tokens=64, temperature=0.7, seed=5)
    assert isinstance(judge, Verifier) and judge.name == "judge"
    out = judge.verify(items())
    assert len(critic.calls) == 1 and len(critic.calls[0]) == 2  # the empty chain is not sent
    r0, r1 = critic.calls[0]
    assert (r0.n, r0.max_tokens, r0.temperature) == (3, 64, 0.7)
    assert r0.seed != r1.seed  # per chain
    assert [x.seed for x in judge.requests([it for it in items()[:2]])] == [r0.seed, r1.seed]
    assert out[2] == []
    assert [v.label for v in out[0]] == [True, False, None]
    assert out[0][0].tokens == 15


def test_verifier_reports_why_a_vote_never_came():
    long_prompt = JudgeVerifier(FakeJudge([""], finish=Finish.PROMPT_TOO_LONG), votes=1)
    v = long_prompt.verify(items(1))[0]
    assert v[0].status == Status.ERROR and "does not fit" in v[0].evidence
    cut = JudgeVerifier(FakeJudge(["Let me check paragraph 0 carefully"], Finish.LENGTH), votes=1)
    assert "cut at max_tokens" in cut.verify(items(1))[0][0].evidence
    nothing = JudgeVerifier(FakeJudge([]), votes=2).verify(items(1))[0]
    assert nothing[0].status == Status.ERROR and "returned nothing" in nothing[0].evidence


def test_verifier_refuses_zero_votes():
    with pytest.raises(ValueError, match="votes"):
        JudgeVerifier(FakeJudge([]), votes=0)


class FakePool:
    def __init__(self):
        self.requests = []

    def generate(self, requests):
        self.requests += requests
        return [EngineResult.of(["\\boxed{0}"] * r.n, [4] * r.n, [Finish.STOP] * r.n)
                for r in requests]


def test_engine_critic_sends_chat_requests_without_prefix():
    pool = FakePool()
    out = EngineJudge(pool, "m").critique(
        [EngineRequest.user("judge this", n=2, seed=11, max_tokens=32, temperature=0.5)])
    assert out == [[Completion("\\boxed{0}", 4, Finish.STOP)] * 2]
    (req,) = pool.requests
    assert req.chat() == [{"role": "user", "content": "judge this"}]
    assert (req.prefix, req.n, req.seed, req.max_tokens) == ("", 2, 11, 32)
    assert EngineJudge(pool).critique([]) == []
