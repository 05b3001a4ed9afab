"""Orders between numbers stated in words, checked exactly (read by `number_facts`).

"45 is between 40 and 44", "23 is less than 20", "51 is greater than 44", "2.5 is at most 2",
and a number checked in a list with a colon, "Fifth, 45: This number is between 40 and 44":
each compares numbers written as digits, and a false one is as much a slip as `45 < 44`.

"Between" is read both ways: a number outside the two ends is false however it is meant, one
inside them holds, and one at an end is not judged unless the words say "inclusive" or
"strictly". Not read: a side that goes on ("less than 3 times 5", "more than 10%"), a number
with a unit or a word after it ("5 feet is less than"), negative subjects (a sign glued to the
subject is an expression's), a number that may end another subject ("a value of m such that
f(m) = 1991 is greater than 7964": only a clause's opening words may come before it), nor a
sentence that asks, supposes or checks (`number_facts`).
"""

from __future__ import annotations

import re
from fractions import Fraction

from verifiers.calculator.claims import ClaimResult

__all__ = ["ORDER_FACTS", "judge_order"]

_NUM = r"\d{1,3}(?:,\d{3})+(?!\d)|\d{1,15}(?:\.\d{1,15})?(?!\d|\.\d)"
_SIGNED = rf"-?\s*(?:{_NUM})"
_RELATION = (
    r"(?P<neg>not\s+)?(?:"
    r"(?P<rel>less\s+than|smaller\s+than|greater\s+than|larger\s+than|bigger\s+than|more\s+than"
    rf"|at\s+least|at\s+most)\s+(?P<m>{_SIGNED})"
    rf"|(?P<strict>strictly\s+)?between\s+(?P<a>{_SIGNED})\s+and\s+(?P<b>{_SIGNED})"
    r"(?P<inclusive>\s*,?\s*\(?\s*inclusive)?)"
    # the other side ends the claim: no expression, unit or percent goes on from it
    r"(?!\s*(?:%|[*/^×·÷+\-]|\\times|\\cdot|\\div|times\b|percent\b))"
)
ORDER_FACTS = (
    re.compile(rf"(?<![\d,.])(?P<n>{_NUM})\s+is\s+{_RELATION}", re.IGNORECASE),
    # "Fifth, 45: This number is between 40 and 44" (a list checked item by item)
    re.compile(
        rf"(?<![\d,.])(?P<n>{_NUM})\s*:\s*(?:this\s+number|it)\s+is\s+{_RELATION}", re.IGNORECASE
    ),
)
# What may come right before the subject: a clause's start. Anything else may make the number
# the end of another subject ("a value of m such that f(m) = 1991 is greater than 7964").
_OPENS = re.compile(
    r"(?:^|[,:;.(!?]|\b(?:since|so|thus|hence|therefore|because|as|and|but|then|here|now|clearly"
    r"|obviously|that|value|number|result|answer|sum|total|product|difference|integer|get|have))"
    r"\s*$",
    re.IGNORECASE,
)
_LESS = ("less than", "smaller than")
_MORE = ("greater than", "larger than", "bigger than", "more than")


def _value(text: str) -> Fraction:
    return Fraction(re.sub(r"[\s,]", "", text))


def judge_order(m: re.Match, tail: str, prime_of: object = None) -> ClaimResult | None:
    """An order judged (None: a reading we cannot be sure of); `number_facts` calls it as it
    calls its own judges, with the rest of the sentence and a primality it ignores."""
    if not _OPENS.search(m.string[max(0, m.start() - 40) : m.start()]):
        return None
    n = _value(m["n"])
    text = re.sub(r"\s+", " ", m.group(0)).strip()
    if m["rel"]:
        rel, other = " ".join(m["rel"].lower().split()), _value(m["m"])
        if rel in _LESS:
            holds = n < other
        elif rel in _MORE:
            holds = n > other
        else:
            holds = n >= other if rel == "at least" else n <= other
        claimed = f"{rel} {_shown(other)}"
        true = _compared(n, other)
    else:
        low, high = sorted((_value(m["a"]), _value(m["b"])))
        if n in (low, high) and not (m["strict"] or m["inclusive"]):
            return None  # at an end: "between" may or may not take it
        holds = low < n < high if m["strict"] else low <= n <= high
        claimed = f"between {_shown(low)} and {_shown(high)}"
        true = _compared(n, low) if n <= low else _compared(n, high)
    if m["neg"]:
        holds, claimed = not holds, f"not {claimed}"
    return ClaimResult("holds" if holds else "false", text, claimed, true)


def _shown(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else str(float(x))


def _compared(a: Fraction, b: Fraction) -> str:
    return f"{_shown(a)} {'<' if a < b else '>' if a > b else '='} {_shown(b)}"
