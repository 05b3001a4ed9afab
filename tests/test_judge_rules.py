"""The judge's vote rules and where its answer is read, on each defect's minimal input:
votes 1, 2, 3, -1, -1 (a plurality of -1 hid three votes that found an error), one parsable
vote of three (it scored 1.0), and a critic that quotes the solution's boxed answer (read as
a paragraph index). Then a Hypothesis round trip of the protocol's answer place."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeling.judge.protocol import JudgeAnswer, JudgeVote, judge_verdicts, parse_answer
from labeling.schema import Status
from tests.tiers import examples


def votes(*firsts):
    return [JudgeAnswer(f"vote {f}", f, "" if f is not None else "no \\boxed{} answer")
            for f in firsts]


def labels(vs):
    return [v.label for v in vs]


def test_three_of_five_votes_finding_an_error_flag_it_under_majority():
    vs = judge_verdicts(votes(1, 2, 3, -1, -1), 5)  # majority is the default
    assert labels(vs) == [True, True, True, False, None]
    assert vs[3].status == Status.INCORRECT
    assert vs[3].evidence.startswith("3 of 5 votes put the first error at or before step 3")
    assert [v.score for v in vs] == pytest.approx([1.0, 0.8, 0.6, 0.4, 0.4])
    # plurality (kept as an option) still lets the two -1 votes win
    assert labels(judge_verdicts(votes(1, 2, 3, -1, -1), 5, rule="plurality")) == [True] * 5
    # unanimous labels only what all five agree on
    assert labels(judge_verdicts(votes(1, 2, 3, -1, -1), 5, rule=JudgeVote.unanimous)) == [
        True, None, None, None, None]


def test_one_parsable_vote_of_three_is_no_quorum_and_scores_a_third():
    for rule in JudgeVote:
        vs = judge_verdicts(votes(-1, None, None), 3, rule=rule)
        assert labels(vs) == [None, None, None], rule
        assert [v.score for v in vs] == pytest.approx([1 / 3] * 3), rule
        assert "1 of 3 votes parsed" in vs[0].evidence and "no quorum" in vs[0].evidence
    # two of three parsed and agreeing: a majority of all votes, labeled, and said so
    vs = judge_verdicts(votes(-1, None, -1), 3)
    assert labels(vs) == [True] * 3 and "2 of 3 votes parsed" in vs[-1].evidence


def test_a_vote_with_abstentions_keeps_its_quorum_of_all_votes():
    # 2 of 4 name step 1, 2 abstain: 2 is not a strict majority of 4, for step 1's error
    # nor for step 0 being right
    vs = judge_verdicts(votes(1, 1, None, None), 3)
    assert labels(vs) == [None, None, None]
    assert vs[1].status == Status.UNVERIFIABLE and "no quorum" in vs[0].evidence
    assert labels(judge_verdicts(votes(1, 1, None, 1), 3)) == [True, False, None]


STEPS = ("3 + 4 = 7.", "7 * 2 = 14.", "So the answer is \\boxed{1}.")


def test_a_quoted_solution_answer_is_not_the_critics_answer():
    quoted_then_own = ('Paragraph 2 says "So the answer is \\boxed{42}". Paragraph 1 is wrong: '
                       "7 * 2 is 14, fine; the earliest error is\n\n\\boxed{2}")
    assert parse_answer(quoted_then_own, 3, steps=STEPS).first_error == 2
    only_echo = [
        'Every step checks out; the solution ends with "So the answer is \\boxed{1}".',
        "Every step checks out. The last paragraph reads:\nSo the answer is \\boxed{1}.\nGood.",
        "Checking:\n<paragraph_2>\nSo the answer is \\boxed{1}.\n</paragraph_2>\nlooks fine.",
        "Checking:\n> So the answer is \\boxed{1}.\nlooks fine.",
    ]
    for text in only_echo:
        a = parse_answer(text, 3, steps=STEPS)
        assert a.first_error is None and a.problem == "no \\boxed{} answer", text
    # the critic's own box after the quote is read, and the final line as a bare index
    assert parse_answer(only_echo[1] + "\n\\boxed{-1}", 3, steps=STEPS).first_error == -1
    assert parse_answer(only_echo[2] + "\n0", 3, steps=STEPS).first_error == 0


def test_an_out_of_range_box_is_unparsable_never_clamped():
    a = parse_answer("The error is in paragraph 7. \\boxed{7}", 3)
    assert a.first_error is None and "outside -1..2" in a.problem


# -- round trip ------------------------------------------------------------------------

PROSE = st.text(st.characters(exclude_characters='"`>\\{}<\u201c\u201d'), max_size=60)


@st.composite
def critic_text(draw, n_steps: int, index: int) -> tuple[str, tuple[str, ...]]:
    """A critic answer as the protocol asks: any prose and quotes of the solution (boxed
    numbers included), then the index in \\boxed{} at the end."""
    boxes = st.integers(-3, 3 * n_steps + 3).map(lambda k: f"\\boxed{{{k}}}")
    steps = tuple(f"Step {i} gives {draw(boxes)} here." for i in range(n_steps))
    quotes = st.one_of(
        boxes.map(lambda b: f'the solution says "{b}"'),
        boxes.map(lambda b: f"`{b}`"),
        boxes.map(lambda b: f"\n> so {b}\n"),
        st.integers(0, n_steps - 1).map(lambda i: f"\n<paragraph_{i}>\n{steps[i]}\n"
                                                  f"</paragraph_{i}>\n"),
        st.integers(0, n_steps - 1).map(lambda i: f"\nParagraph {i} reads:\n{steps[i]}\n"),
    )
    parts = draw(st.lists(st.one_of(PROSE, quotes), max_size=6))
    ending = draw(st.sampled_from(["\\boxed{%d}", "So the earliest error is \\boxed{%d}.",
                                   "Answer: $\\boxed{%d}$", "\\boxed{paragraph_%d}"]))
    return " ".join(parts) + "\n\n" + ending % index, steps


@settings(max_examples=examples(100), deadline=None)
@given(data=st.data(), n_steps=st.integers(1, 12))
def test_the_protocols_answer_parses_back_to_its_index(data, n_steps):
    index = data.draw(st.integers(-1, n_steps - 1))
    text, steps = data.draw(critic_text(n_steps, index))
    assert parse_answer(text, n_steps, steps=steps).first_error == index


@settings(max_examples=examples(100), deadline=None)
@given(text=st.text(max_size=300) | st.text(st.sampled_from("\\boxed{}-0123456789 \n$"),
                                             max_size=60),
       n_steps=st.integers(1, 12))
def test_no_text_parses_to_an_index_out_of_range(text, n_steps):
    a = parse_answer(text, n_steps)
    assert a.first_error is None or -1 <= a.first_error < n_steps
    assert (a.first_error is None) == bool(a.problem)


def test_the_vote_rule_is_a_config_option_that_reaches_the_verifier():
    from hydra.errors import ConfigCompositionException

    from pipelines.label.app import typed
    from pipelines.label.sources import build_sources
    from tests.conftest import compose

    base = ["labels=[judge]", "engine=simulated", "ray=inprocess", "output.report=false"]
    cfg = typed(compose([*base, "labels.judge.vote=unanimous"]))
    assert cfg.labels.judge.vote == JudgeVote.unanimous
    judge = build_sources(cfg, "math", None, critic=object())["judge"]
    assert judge.vote == JudgeVote.unanimous
    assert typed(compose(base)).labels.judge.vote == JudgeVote.majority
    with pytest.raises(ConfigCompositionException):
        compose([*base, "labels.judge.vote=most"])
