"""The format rule of a PRM reward: a completion that says nothing checkable is not scored.

A PRM rates the steps it is shown; it was never trained to rate a completion that stops
after `<think>`, thinks forever without closing, or ends without an answer, and it pays such
text about what it pays a solution (a step of nothing looks like a harmless step). A GRPO
policy then learns to say nothing. Rule-based rewards (verl's, OpenRLHF's) give a format
failure 0 or less; this rule does the same for the PRM reward, before any scoring:

- `answer` (default, math): the thinking never closed (`<think>` without `</think>`), or no
  final answer can be read after it the way the outcome check reads one (`\\boxed{}`,
  `####`, "the answer is", else the last number: `verifiers.answer.extract_answer`);
- `thinking`: only the thinking that never closed;
- `off`: the PRM scores whatever is there.
Under every rule but `off`, a completion that is nothing but think tags and blank space is
empty (`no_steps`). Code completions (`reward.domain=code`) are checked for the thinking
only: their answer is the code, which the splitter reads.

What it promises: a pure decision on the text (no model, no reference), the same for the
same text. What it does not: judge the answer (the outcome check does, when a reference is
given) or catch a completion that states an answer without working (the PRM rates that).
"""

from __future__ import annotations

from enum import StrEnum

from labeling.prm.reward import Note
from labeling.steps.thinking import THINK_CLOSE, THINK_OPEN, parse_trace
from verifiers.answer import extract_answer


class FormatRule(StrEnum):
    """Which completions get `reward.format_reward` instead of the PRM's score."""

    answer = "answer"  # unfinished thinking, or no final answer after it
    thinking = "thinking"  # unfinished thinking only
    off = "off"  # no format rule


def format_note(text: str, rule: FormatRule | str, code: bool = False) -> Note | None:
    """The note of a completion the rule fails (`no_steps`: only tags; `unfinished`: the
    thinking never closed; `no_answer`: nothing answer-like after it), or None: it passes."""
    rule = FormatRule(rule)
    if rule is FormatRule.off:
        return None
    if not text.replace(THINK_OPEN, "").replace(THINK_CLOSE, "").strip():
        return Note.no_steps
    trace = parse_trace(text)
    if trace.finished is False:
        return Note.unfinished
    if rule is FormatRule.answer and not code:
        answer, _ = extract_answer(text)
        if answer is None or not answer.strip():
            return Note.no_answer
    return None
