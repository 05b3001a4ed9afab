"""Values listed for one letter: `x = 2, 6` and `x \\in \\{2, 6\\}` say `x = 2` or `x = 6`.

A step often gives an equation's roots as one list. A math region that is nothing but such a
list is read as the alternatives written out (`x = 2 \\text{ or } x = 6`), so the checks of
claimed solutions put each value back into the equation it is said to solve, as they do when
the text writes "or". Any other list of numbers for one letter (candidates, a range with
dots, more than six) is read as values tried in turn, none of them claimed (not even its
first one, which is all a reader of one value would see). Read only where:

- the list is the whole region, after a lone letter, of two to six values that are numbers
  (digits, signs, fractions, square roots; no letter) and no dots (`n = 1, 2, \\ldots, 10`);
- a comma between two values is followed by a space (`x = 1,000` is one number, `x = 2,5`
  may be a decimal comma), or "or" / "and" joins them;
- the words before the region in its sentence present the values as found ("so", "the
  solutions are", "which gives") and name no trial, test or case (`checking $n = 1, 2, 3$`,
  `for $n = 1, 2, 3$`), and the words after it in the sentence name none either, nor
  candidates ("so $n = 1, 2$ are the candidates"): there the values are candidates, not
  what solving gave; "the positive divisors $d = 1, 2, 3, 6$" lists what a set holds.
"""

from __future__ import annotations

import re

from verifiers.calculator.claim_words import NOT_CLAIMED, prose, word_set
from verifiers.calculator.relations import math_regions

__all__ = ["listed_values"]

_EQUALS = re.compile(r"^\s*(?P<name>[A-Za-z])\s*=\s*(?P<list>.+?)\s*[.,;]?\s*$", re.S)
_IN_SET = re.compile(
    r"^\s*(?P<name>[A-Za-z])\s*\\in\s*(?:\\left)?\\\{(?P<list>.+?)(?:\\right)?\\\}\s*[.,;]?\s*$",
    re.S,
)
# What joins two values: a comma and a space, or "or" / "and" written as text.
_JOIN = re.compile(
    r",\s+|\s*(?:\\q?quad\s*|\\[ ,;]\s*)*\\text\{\s*(?:or|and)\s*\}(?:\s*\\q?quad|\s*\\[ ,;])*\s*"
)
_SET_JOIN = re.compile(r",\s*")
# A number: digits, signs, a point, fractions and square roots of numbers, brackets.
_VALUE = re.compile(r"(?:[\d\s+\-./^(){}]|\\[dt]?frac|\\sqrt)+")
_DOTS = frozenset({"\\ldots", "\\dots", "\\cdots", "..."})
_NO_LIST = frozenset({"for", "each", "case", "cases", "when", "where", "every", "all"})
_CANDIDATES = frozenset("candidate candidates possible possibilities options choices".split())
# Words that present the values as what solving found.
_FOUND = frozenset(
    "so thus hence therefore gives giving get gets obtain find yields solving solved solution"
    " solutions root roots zero zeros zeroes means implies".split()
)


def listed_values(text: str) -> str:
    """The text with each region that lists values for one letter written as alternatives."""
    out, last = [], 0
    for start, end, body in math_regions(text):
        listed = _listed(body)
        if listed is None:
            continue
        name, values = listed
        claimed = _claimed(text[:start], text[end:])
        if len(values) <= 6 and not _DOTS & set(values) and claimed:
            written = " \\text{ or } ".join(f"{name} = {v}" for v in values)
        else:
            # Candidates, a range or a set's members: values gone through, none claimed (`k =
            # 1, 2, 3` would otherwise read as `k = 1`). The first stays a clause, tried, so
            # that it still ends the inequality the step drew before it.
            written = f"\\text{{trying each of}} {name} = {values[0]}"
        opened = text.index(body, start)
        out.append(text[last:opened])
        out.append(written)
        last = opened + len(body)
    out.append(text[last:])
    return "".join(out)


def _listed(body: str) -> tuple[str, list[str]] | None:
    """The letter and its values, where the region is nothing but such a list."""
    for form, join in ((_EQUALS, _JOIN), (_IN_SET, _SET_JOIN)):
        found = form.match(body)
        if found is None:
            continue
        values = [v.strip() for v in join.split(found.group("list"))]
        if len(values) < 2 or not all(_number(v) or v in _DOTS for v in values):
            return None
        return found.group("name"), values
    return None


def _number(value: str) -> bool:
    return (
        bool(_VALUE.fullmatch(value))
        and any(c.isdigit() for c in value)
        and value.count("{") == value.count("}")
        and value.count("(") == value.count(")")
    )


def _claimed(before: str, after: str) -> bool:
    """Whether the words around the region in its sentence present the values as found
    rather than as candidates or cases ("so $n = 1, 2$ are the candidates")."""
    opening = word_set(prose(re.split(r"(?<=[.!?])\s+|\n", before)[-1]))
    closing = word_set(prose(re.split(r"[.!?](?:\s|$)|\n", after)[0]))
    return (
        bool(opening & _FOUND)
        and not opening & (NOT_CLAIMED | _NO_LIST)
        and not closing & (NOT_CLAIMED | _CANDIDATES)
    )
