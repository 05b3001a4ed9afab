"""What the text around a step says about reading it: cut expressions and defined operations.

Two things a single step cannot show:
- A splitter (lines, sentences) can cut an expression in two: "... there are $7\\cdot 6\\cdot"
  then "5\\cdot 4\\cdot 3 = 2520$ sequences". The side at the cut is a fragment; `mark_cuts`
  puts the fragment mark "…" there, so the extractor reads no claim that touches the cut.
- A problem may define an operation with `*` ("If $a*b=a^2+ab-b^2$, find $3*2$"). Then `*` in
  its chains is that operation, not multiplication; `read_as_defined` makes it unreadable.

What this does NOT do: find the expression's other half, or learn what a defined operation
computes. Both only remove claims, never add one.
"""

from __future__ import annotations

import re

# A step ends inside an expression: an operator or a subscripted operator is its last thing
# ("7\\cdot 6\\cdot", "...}{2}+", "\\log_{2002}"). Markdown bold ("**") and rules ("---") are
# no operators; a closing "=" cuts nothing (the next step opens with a whole side).
_ENDS_OPEN = re.compile(
    r"(?:[+/^]|(?<!\\)[(\[]|(?<!-)-|(?<!\*)\*|\\(?:cdot|times|div)|\\(?:log|ln)\s*(?:_\s*\{[^{}]*\}|_\w)?)\s*$"
)
# A step starts with an operator: it goes on with the expression of the step before
# ("24" then "- 4 = \\boxed{20}"). After an align row ("... \\\\") only a row that opens with
# "&" and then the operator goes on ("&\\qquad+ (80+7)"); "-2&=a" is a new row.
_OPERATOR = r"(?:[-+]\s*[\d(\\]|\\(?:cdot|times|div)(?![A-Za-z]))"
_STARTS_OPEN = re.compile(rf"^\s*{_OPERATOR}")
_ROW_GOES_ON = re.compile(rf"^\s*&\s*(?:\\q?quad\s*)*{_OPERATOR}")
_ROW_END = re.compile(r"\\\\\s*$")
# The step before ended a sentence: then a leading "-" is a minus sign or a bullet, not a cut.
_SENTENCE_END = re.compile(r"[.!?;:,]\s*(?:\$|\\\]|\\\))?\s*$")
_ROW_BREAK_END = re.compile(r"(?:\\\\|\s)*$")
CUT = "…"

# "$a*b = ...$", "$x * y$" in the problem: `*` between letters is an operation it defines.
_DEFINED_STAR = re.compile(r"(?<![A-Za-z])[A-Za-z]\s*(?<!\*)\*(?!\*)\s*[A-Za-z](?![A-Za-z])")
_STAR = re.compile(r"(?<!\*)\*(?!\*)")


def mark_cuts(steps: list[str] | tuple[str, ...]) -> list[str]:
    """The steps, with "…" where a split cut an expression (at the start or end of a step)."""
    out = list(steps)
    for i in range(len(out) - 1):
        before, after = steps[i], steps[i + 1]
        if _ENDS_OPEN.search(before):
            out[i + 1] = f"{CUT} {out[i + 1]}"
        row = _ROW_END.search(before)
        goes_on = _ROW_GOES_ON.match(after) if row else _STARTS_OPEN.match(after)
        if goes_on and not _SENTENCE_END.search(before):
            # before a closing row break: "\\" would put the mark on a line of its own
            out[i] = f"{_ROW_BREAK_END.sub('', out[i])} {CUT}"
    return out


def defines_star(question: str) -> bool:
    """True when the problem uses `*` between letters: an operation of its own."""
    return bool(_DEFINED_STAR.search(question))


def read_as_defined(step: str) -> str:
    """`step` with each single `*` made unreadable (the problem defines what it computes)."""
    return _STAR.sub(" mathop ", step) if "*" in step else step
