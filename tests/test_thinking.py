"""The thinking part of a trace (labeling/steps/thinking.py) and where answers are read from it:
final answers (verifiers/answer.py), rollouts (verifiers/mc/outcome.py), and the
engine's prompt for a chat template that opens the thinking (pipelines/engine/actor.py)."""

from __future__ import annotations

import pytest

from labeling.engine_result import EngineResult, Finish
from labeling.schema import Problem, Status
from labeling.steps.thinking import (
    answer_region,
    compose,
    parse_trace,
    rollout_answer_text,
    template_opener,
    thinking_open,
)
from pipelines.engine.actor import format_prompt
from verifiers.answer import UNFINISHED, AnswerChecker, extract_answer
from verifiers.mc.outcome import MathOutcome


@pytest.mark.parametrize(("text", "finished", "answer"), [
    ("<think>\nhmm 41\n</think>\n\nIt is \\boxed{42}.", True, "\n\nIt is \\boxed{42}."),
    ("hmm 41\n</think>\nIt is 42.", True, "\nIt is 42."),  # the template opened it
    ("<think>\nhmm, maybe \\boxed{41}", False, None),  # cut at max_tokens
    ("Step 1: 2 + 2 = 4. The answer is 4.", None, "Step 1: 2 + 2 = 4. The answer is 4."),
    ("<think>a</think> b </think> c", True, " c"),  # the last closing tag ends it
])
def test_the_parts_of_a_trace(text, finished, answer):
    assert parse_trace(text).finished is finished
    assert answer_region(text) == answer


def test_an_unfinished_thinking_has_no_final_answer():
    text = "<think>\nSo the answer is \\boxed{41}. Wait, let me re-check"
    assert extract_answer(text) == (None, UNFINISHED)
    assert extract_answer("<think>I guess 41</think>\nThe answer is \\boxed{42}.")[0] == "42"
    out = AnswerChecker().outcome(text, "41")
    assert out.correct is None and out.status == Status.UNVERIFIABLE
    assert "never closed" in out.evidence


def test_rollouts_continue_inside_the_thinking():
    inside = "<think>\nFirst, 6 × 7 = 42.\n\n"
    assert thinking_open(inside)
    assert rollout_answer_text(inside, "So \\boxed{41} maybe") is None  # still thinking
    assert rollout_answer_text(inside, "ok.\n</think>\n\\boxed{42}") == "\n\\boxed{42}"
    assert rollout_answer_text("Plain prefix.\n\n", "The answer is 42.") == "The answer is 42."
    assert rollout_answer_text(inside + "</think>\n\\boxed{42}", "") == "\n\\boxed{42}"
    check = MathOutcome()
    problem = Problem("p", "math", "t", "What is 6 × 7?", "42")
    try:
        assert check(problem, inside, "Hmm \\boxed{42}") is None  # undecided, not a failure
        assert check(problem, inside, "Done.\n</think>\nThe answer is \\boxed{42}.") is True
        assert check(problem, inside, "Done.\n</think>\nThe answer is \\boxed{41}.") is False
    finally:
        check.close()


def test_compose_puts_a_reasoning_field_back_in_its_tags():
    text = compose(" think hard \n", "The answer is 4.")
    assert text == "<think>\nthink hard\n</think>\n\nThe answer is 4."
    assert parse_trace(text).finished and answer_region(text) == "\n\nThe answer is 4."


class _Tok:
    """A tokenizer whose chat template opens the thinking, as DeepSeek-R1's does."""

    chat_template = "r1"

    def apply_chat_template(self, messages, tokenize, add_generation_prompt):
        return f"<|User|>{messages[0]['content']}<|Assistant|><think>\n"


def test_the_engine_keeps_a_thinking_the_template_opened():
    tok, chat = _Tok(), [{"role": "user", "content": "Q"}]
    assert template_opener(format_prompt(tok, chat, "", True)) == "<think>\n"
    sampled = EngineResult.of(["hmm\n</think>\n42"], [3], [Finish.STOP]).with_opener("<think>\n")
    text = sampled.texts[0]
    assert text == "<think>\nhmm\n</think>\n42" and parse_trace(text).finished
    # A rollout from a prefix of that text sees exactly what the chain was sampled with.
    assert format_prompt(tok, chat, text[:12], True) == "<|User|>Q<|Assistant|>" + text[:12]
    assert template_opener("<|Assistant|>") == "" and template_opener("<think>x") == ""
    cut = EngineResult.of(["hmm, 41"], [2], [Finish.LENGTH]).with_opener("<think>\n")
    assert parse_trace(cut.texts[0]).finished is False  # cut inside: unfinished
    too_long = EngineResult.too_long()
    assert too_long.with_opener("<think>\n") == too_long  # an empty answer stays empty


def test_the_simulated_engine_closes_a_thinking_it_continues():
    from labeling.engine_request import EngineRequest
    from pipelines.engine.actor import SimulatedEngine

    engine = SimulatedEngine()
    inside, plain = (EngineRequest.user("Q", n=2, seed=1, max_tokens=64, temperature=0.8,
                                        prefix=p) for p in ("<think>\nhmm\n\n", ""))
    [a, b] = engine.generate([inside, plain])
    assert all(rollout_answer_text(inside.prefix, t) is not None for t in a.texts)
    assert all("</think>" not in t for t in b.texts)
