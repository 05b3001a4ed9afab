"""Which steps of a chain can be its first error, read from the text alone.

Monte Carlo blames the step across which the completer's success rate falls. A step that
names nothing cannot be a first error whatever the rollouts show, so the `posterior` rule's
model gives it no prior mass (`FirstErrorModel(may_err=...)`, `labels.mc.spare_steps`): no
number (digits of any script, Chinese numerals; an ordinal like "4th" or a list marker "2."
is a position, not a value), no number word, no symbol, formula or variable, and no
operation prescribed ("divide the boxes by the
pencils" can be a wrong plan; "find the total number of marbles" cannot). Such a step is an
opening line ("To solve this problem, we need to follow the order of operations") or a goal
restated. A weak completer's rate can fall across it all the same (the text derails it: it
goes on listing steps or restating the goal), and MC then measured the completer, not the
step (2 right opening lines of the hand-checked first-run chains were blamed so). On
ProcessBench's dev split (`benchmarks/bench_blame.py`) such steps are 90 of the 5,221 steps
a human called right and 5 of the 858 human first errors (prose claims and a list of cases
in olympiad problems: those are given up).

The last step can always err (a wrong outcome must lie somewhere). A spared step after the
first error still gets `after_error`'s label (the chain has gone wrong by then), and one
between right steps is right with them (it adds nothing that could be wrong). Since such a
line can derail the completer for the rest of the chain, the model takes the rate after it
as its own baseline (`labeling.mc.posterior.DERAIL`).
Pure: `re` only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# list markers at the start of a line: "1.", "2)", "-", "*", "•", "(a)", "Step 3:"
_MARKER = re.compile(r"^\s*(?:\d+[.)]|[-*•]|\([a-z0-9]\)|step\s*\d+\s*[:.])\s+", re.I | re.M)
_ORDINAL = re.compile(r"\b\d+(?:st|nd|rd|th)\b", re.I)
_NUMBER_WORD = (r"\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                r"thirteen|fifteen|twenty|thirty|forty|fifty|hundred|thousand|million|billion|"
                r"half|halves|twice|double|triple|dozen|percent)\b")
# a digit of any script, an operator, relation or money sign, LaTeX, Greek or math symbols,
# a Chinese numeral or operation (三, 两, 半, 乘, 除), a lone letter other than "a", "A" and
# "I" (a variable), a number word, an operation applied
_CONTENT = re.compile(
    r"[\d=+\-*/^<>%$\\×÷·√π∞∑∫≤≥≠≈±\u0370-\u03ff\u2200-\u22ff"
    r"零〇一二三四五六七八九十百千万亿两半倍加减乘除]"
    r"|(?<![\w'’])(?![aAI]\b)[A-Za-z](?![\w'’])|" + _NUMBER_WORD
    + r"|\b(?:add|adds|adding|added|subtract\w*|multiply|multiplies|multiplying|multiplied|"
    r"divide|divides|dividing|divided|sum of|product of|difference (?:between|of)|"
    r"quotient of|square root)\b", re.I)


def _plain(step: str) -> str:
    return _ORDINAL.sub(" ", _MARKER.sub("", step))


def names_nothing(step: str) -> bool:
    """The step names no value, variable or formula (see the module docstring)."""
    return not _CONTENT.search(_plain(step))


def may_err(steps: Sequence[str]) -> tuple[bool, ...]:
    """Per step: whether it can be the chain's first error (the module docstring)."""
    return tuple(i == len(steps) - 1 or not names_nothing(s) for i, s in enumerate(steps))


__all__ = ["may_err", "names_nothing"]
