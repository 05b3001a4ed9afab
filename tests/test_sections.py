"""split.mode=sections: reasoning traces cut into sections (labeling/steps/sections.py, cues.py)
through the one split entry point (labeling/steps/splitters.py)."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeling.steps.cues import Move, cue
from labeling.steps.sections import (
    SectionOptions,
    approx_tokens,
    paragraphs,
    section_spans,
    turn_strengths,
)
from labeling.steps.splitters import split_spans, split_steps
from tests.conftest import shared
from tests.synthetic_traces import long_trace, self_correction_trace
from tests.tiers import examples


def _check_spans(text: str, spans: list[tuple[int, int]]) -> None:
    """Spans in order, not overlapping, stripped, whitespace between them, and every
    non-space character after the `<think>` opener inside a section."""
    pos = 0
    opener = text.find("<think>")
    covered_from = opener + len("<think>") if opener >= 0 else 0
    assert not text[:covered_from].replace("<think>", "").strip()
    for a, b in spans:
        assert covered_from <= a < b <= len(text)
        gap = text[max(pos, covered_from):a]
        assert not gap.strip(), f"text outside every section: {gap!r}"
        assert text[a:b] == text[a:b].strip()
        pos = b
    assert not text[pos:].strip()


@pytest.mark.parametrize("finished", [True, False])
@pytest.mark.parametrize("n", [3, 40, 300])
def test_a_trace_is_covered_by_its_sections(n, finished):
    trace = long_trace(n, seed=n, finished=finished)
    spans = section_spans(trace.text)
    _check_spans(trace.text, spans)
    assert 1 <= len(spans) <= SectionOptions().max_sections
    last = trace.text[spans[-1][0]:spans[-1][1]]
    if finished:  # the answer is its own section, starting at the closing tag
        assert last.startswith("</think>") and "\\boxed" in last
        assert all("</think>" not in trace.text[a:b] for a, b in spans[:-1])
    else:  # no closing tag: no answer section
        assert "</think>" not in trace.text and "\\boxed" not in last


def test_the_budget_bounds_every_section_but_single_paragraphs():
    trace = long_trace(300, seed=3)
    opts = SectionOptions(tokens=120, max_sections=200)
    spans = section_spans(trace.text, opts)
    for a, b in spans[:-1]:
        if len(paragraphs(trace.text, a, b)) > 1:
            assert approx_tokens(trace.text[a:b]) <= opts.tokens


def test_the_cap_wins_over_the_budget():
    trace = long_trace(300, seed=4)
    spans = section_spans(trace.text, SectionOptions(tokens=20, max_sections=7))
    assert len(spans) == 7
    _check_spans(trace.text, spans)


def test_a_300_paragraph_trace_gets_tens_of_sections_at_reasoning_moves():
    trace = long_trace(300, seed=5)
    spans = section_spans(trace.text)
    assert 10 <= len(spans) <= SectionOptions().max_sections
    opened = [cue(trace.text[a:b]) for a, b in spans[1:-1]]
    strong = sum(1 for c in opened if c is not None and c.strength >= 2)
    assert strong >= 0.8 * len(opened)  # the cuts fall on moves, not at random


def test_a_slip_and_its_correction_land_in_different_sections():
    trace = self_correction_trace()
    steps = split_steps(trace.text, "sections")
    assert steps == ["I need 23 × 6 + 4.\n\n23 × 6 = 128.",
                     "Wait, 23 × 6 = 138, not 128. Let me redo it.\n\nSo 138 + 4 = 142.",
                     "</think>\n\nThe answer is \\boxed{142}."]


def test_a_chain_without_tags_ends_with_its_answer_paragraph():
    trace = long_trace(60, seed=6, think_tags=False)
    spans = section_spans(trace.text)
    _check_spans(trace.text, spans)
    assert trace.text[slice(*spans[-1])].startswith("**Final Answer**")


@pytest.mark.parametrize(("paragraph", "move"), [
    ("Wait, that's not right.", Move.correction),
    ("But wait, 3 × 4 = 12.", Move.correction),
    ("Alternatively, we can use generating functions.", Move.attempt),
    ("Let me double-check the sum.", Move.check),
    ("**Final Answer**", Move.conclusion),
    ("So the answer is 12.", Move.conclusion),
    ("Case 2: n is odd.", Move.part),
    ("等等，这里算错了。", Move.correction),
    ("或者，我们换个思路。", Move.attempt),
    ("让我验证一下这个结果。", Move.check),
    ("综上所述，答案是 12。", Move.conclusion),
    ("首先，我们计算分母。", Move.part),
    ("The sum is 12.", None),
])
def test_cues_in_english_and_chinese(paragraph, move):
    found = cue(paragraph)
    assert (found.move if found else None) == move


def test_chinese_moves_cut_a_chinese_trace():
    body = "\n\n".join(["我们先算 23 × 6。", "23 × 6 = 128。", "等等，23 × 6 = 138，不是 128。",
                        "所以 138 + 4 = 142。"])
    text = f"<think>\n{body}\n</think>\n\n答案是 \\boxed{{142}}。"
    steps = split_steps(text, "sections")
    assert steps[0].endswith("128。") and steps[1].startswith("等等")
    assert steps[-1].startswith("</think>")


def test_the_cut_is_a_pure_function_of_the_text():
    text = long_trace(200, seed=7).text
    assert section_spans(text) == section_spans(text[:] + "")
    assert split_spans(text, "sections", SectionOptions(300, 20)) == \
        split_spans(text, "sections", SectionOptions(300, 20))


@pytest.mark.parametrize("mode", ["auto", "blank_line", "step_marker", "line", "sections"])
def test_every_mode_gives_spans_of_its_steps(mode):
    text = "Step 1: a = 2\n\nmore\n\nStep 2: b = 3\nWait, b = 4.\n\nThe answer is \\boxed{4}."
    spans = split_spans(text, mode)
    assert [text[a:b] for a, b in spans] == split_steps(text, mode)


def test_bad_options_fail_in_one_sentence():
    with pytest.raises(ValueError, match="must be >= 1"):
        SectionOptions(tokens=0)


_WORDS = st.sampled_from(["Wait,", "So", "Alternatively,", "2 + 2 = 4.", "x", "等等，", "综上",
                          "Let me check.", "\\boxed{3}", "</think>", "<think>", "Case 1:"])
_PARA = st.lists(_WORDS, min_size=1, max_size=8).map(" ".join)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(_PARA, max_size=30), st.sampled_from(["\n\n", "\n \n", "\n\n\n", "\n"]),
       st.integers(1, 60), st.integers(1, 12))
def test_any_text_is_cut_into_ordered_stripped_spans(paras, sep, tokens, cap):
    text = sep.join(paras)
    spans = section_spans(text, SectionOptions(tokens, cap))
    assert len(spans) <= cap
    prev = 0
    for a, b in spans:
        assert prev <= a < b <= len(text)
        assert text[a:b].strip() == text[a:b]
        assert not re.search(r"\S", text[prev:a].replace("<think>", "")) or prev == 0
        prev = b


# Paragraphs whose turn strength the cue tables fix: an explicit new strategy (3), a hedge (2),
# a weak transition (1), and plain working that neither turns nor closes a thought.
_STRONG = "Alternatively, I could factor the polynomial first."
_HEDGE = "Maybe I can use the symmetry of the roots."
_WEAK = "Then the value of x is 4."
_PLAIN = "The value of y is 7 and the value of z is 9."


def _turns_and_cut(kinds: list[str], opts: SectionOptions) -> tuple[list[float], list[int]]:
    """A trace with each paragraph of `kinds` followed by two plain ones; the turn strength of
    each paragraph and the indices of the paragraphs that open a thinking section."""
    paras = [p for kind in kinds for p in (kind, _PLAIN, _PLAIN)]
    text = "<think>\n" + "\n\n".join(paras) + "\n</think>\n\nThe answer is 4."
    spans = section_spans(text, opts)[:-1]
    starts = [a for a, _ in paragraphs(text, text.index("\n") + 1, text.index("</think>"))]
    return turn_strengths(paras), [starts.index(a) for a, _ in spans]


def test_cue_strength_orders_the_turns():
    strengths = turn_strengths([_PLAIN, _STRONG, _HEDGE, _WEAK, _PLAIN])
    assert strengths[1] > strengths[2] > strengths[3] > strengths[4]


def test_a_closed_thought_and_a_stated_answer_strengthen_the_next_turn():
    after = [turn_strengths([before, _HEDGE])[1]
             for before in (_PLAIN, "So y is 7.", "Hence y = \\boxed{7}.")]
    assert after[0] < after[1] < after[2]


@pytest.mark.parametrize("seed", range(5))
def test_over_the_cap_the_weakest_turns_are_merged_first(seed):
    rng = random.Random(seed)
    kinds = [_STRONG] * 4 + [_HEDGE] * 4 + [_WEAK] * 4
    rng.shuffle(kinds)
    for cap in (3, 5, 7, 9):
        strength, opened = _turns_and_cut(kinds, SectionOptions(tokens=10_000, max_sections=cap))
        assert len(opened) == cap - 1  # the final section takes one
        kept = [strength[k] for k in opened[1:]]
        dropped = [s for k, s in enumerate(strength) if k and k not in opened]
        assert min(kept) >= max(dropped)


def test_the_cap_keeps_the_strongest_turns_where_they_are_not_spread_evenly():
    # Four strong turns in the first fifth of a long trace, hedges after: over the cap, the
    # cuts stay at the strong turns instead of moving to even spacing.
    kinds = [_WEAK] + [_STRONG] * 4 + [_HEDGE] * 15
    _, opened = _turns_and_cut(kinds, SectionOptions(tokens=10_000, max_sections=6))
    assert opened == [0, 3, 6, 9, 12]


def test_without_a_binding_cap_the_count_follows_the_turns():
    # Weak transitions and plain working make no section of their own: the trace's three
    # strong turns give four sections however high the cap.
    kinds = [_WEAK, _STRONG, _WEAK, _STRONG, _WEAK, _WEAK, _STRONG, _WEAK]
    for cap in (5, 24, 100):
        _, opened = _turns_and_cut(kinds, SectionOptions(tokens=10_000, max_sections=cap))
        assert opened == [0, 3, 9, 18]


def test_between_equal_turns_the_smaller_pair_is_merged_first():
    # Three equal turns and room for one: the two that join the smaller pairs go, the one
    # between the two largest sections stays.
    paras = [_PLAIN, _STRONG, _STRONG, _PLAIN, _STRONG, _PLAIN, _PLAIN, _PLAIN]
    text = "<think>\n" + "\n\n".join(paras) + "\n</think>\n\nThe answer is 4."
    spans = section_spans(text, SectionOptions(tokens=10_000, max_sections=3))
    assert [text[a:b] for a, b in spans[:-1]] == ["\n\n".join(paras[:4]), "\n\n".join(paras[4:])]


def test_on_deltabench_traces_the_cap_keeps_the_strongest_turns():
    # Real R1-style traces (78-362 paragraphs) are over the cap: no boundary kept is weaker
    # than one merged away, and the count stays at the cap. A one-token budget leaves every
    # paragraph its own section before the cap (with the default budget, a strong turn right
    # after another is merged first as a section under the floor).
    import json

    path = shared("deltabench/deltabench_examples_dev.jsonl")
    opts = SectionOptions(tokens=1)
    for line in path.read_text().splitlines():
        text = json.loads(line)["long_cot"]
        spans = section_spans(text, opts)
        assert len(spans) == opts.max_sections
        paras = paragraphs(text, 0, spans[-1][0])
        strength = turn_strengths([text[a:b] for a, b in paras])
        starts = [a for a, _ in paras]
        opened = {starts.index(a) for a, _ in spans[1:-1]}
        assert min(strength[k] for k in opened) >= max(
            s for k, s in enumerate(strength) if k and k not in opened)
