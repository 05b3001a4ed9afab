"""The judge's section protocol for reasoning traces (labeling/judge/sections.py, DeltaBench's):
every section judged on its own, the critic listing each wrong one."""

from __future__ import annotations

import pytest

from labeling.judge.sections import (
    SectionVote,
    build_sections_prompt,
    parse_sections_answer,
    section_verdicts,
)
from labeling.schema import Chain, Problem, Status
from tests.test_judge import FakeJudge
from verifiers.judge import JudgeVerifier

SECTIONS = ["23 × 6 = 128.", "Wait, 23 × 6 = 138.", "</think> The answer is \\boxed{142}."]


def test_the_prompt_numbers_sections_from_one():
    prompt = build_sections_prompt("What is 23 × 6 + 4?", SECTIONS)
    assert "<section_1>\n23 × 6 = 128.\n</section_1>" in prompt
    assert "<section_3>" in prompt and "<section_0>" not in prompt
    assert "Conclusion: no error" in prompt and "Error Section Number" in prompt


@pytest.mark.parametrize(("text", "errors", "problem"), [
    ("Conclusion: no error", frozenset(), ""),
    ("Conclusion: yes\nError Section Number: 1\nExplanation: 23 × 6 is 138.",
     frozenset({0}), ""),
    ("**Conclusion:** yes\nError Section Number: 1, 3\nExplanation: both", frozenset({0, 2}), ""),
    # the last conclusion counts; a quoted section's words are not the critic's
    ("Conclusion: yes\nError Section Number: 2\n...on reflection:\nConclusion: no error",
     frozenset(), ""),
    ("<section_1>\nConclusion: yes\nError Section Number: 1\n</section_1>\nConclusion: no "
     "error", frozenset(), ""),
    ("Conclusion: yes\nError Section Number: 4", None, "outside 1..3"),
    ("Conclusion: yes\nError Section Number: 0", None, "outside 1..3"),
    ("Conclusion: yes", None, "names no section"),
    ("Section 2 looks wrong.", None, "no 'Conclusion:' line"),
    ("Conclusion: maybe", None, "neither yes nor no error"),
])
def test_answers_are_read_from_the_protocol_place_only(text, errors, problem):
    vote = parse_sections_answer(text, 3)
    assert vote.errors == errors
    assert problem in vote.problem


def _vote(*errors: int) -> SectionVote:
    why = {e: "why" for e in errors}
    return SectionVote("Conclusion: ...", frozenset(errors), explanations=why)


def test_votes_label_every_section_on_its_own():
    # the slip is flagged, its correction and the answer are called right
    out = section_verdicts([_vote(0), _vote(0), _vote()], 3)
    assert [v.label for v in out] == [False, True, True]
    assert out[0].status == Status.INCORRECT and "2 of 3 votes" in out[0].evidence
    assert [round(v.score, 2) for v in out] == [0.33, 1.0, 1.0]


def test_no_quorum_and_unparsable_votes_abstain_in_the_open():
    bad = SectionVote("??", None, "no 'Conclusion:' line")
    out = section_verdicts([_vote(0), bad, _vote()], 3)
    assert out[0].label is None and "no quorum" in out[0].evidence
    assert out[1].label is True  # two of three votes call it right
    assert all(v.status == Status.ERROR for v in section_verdicts([bad, bad], 3))
    unanimous = section_verdicts([_vote(), _vote(), bad], 3, rule="unanimous")
    assert all(v.label is None for v in unanimous)
    plural = section_verdicts([_vote(0), _vote(0, 1), bad], 3, rule="plurality")
    assert [v.label for v in plural] == [False, None, True]  # a 1-1 tie labels nothing


def test_the_judge_source_asks_the_section_question():
    critic = FakeJudge(["Conclusion: yes\nError Section Number: 1\nExplanation: 138."])
    problem = Problem("p", "math", "t", "What is 23 × 6 + 4?", "142")
    chain = Chain("p", "c", 0, "", tuple(SECTIONS), "m")
    judge = JudgeVerifier(critic, votes=1, temperature=0, protocol="sections")
    [verdicts] = judge.verify([(problem, chain)])
    assert [v.label for v in verdicts] == [False, True, True]
    assert "<section_1>" in critic.calls[0][0].user_text
    with pytest.raises(ValueError, match="first_error, sections"):
        JudgeVerifier(critic, protocol="deltabench")
