"""How many numbers a stated range holds, stated in words, checked exactly (read by
`number_facts`).

"There are 45 terms in the sum (from 4° to 176° with a step of 4°)": a range written with both
ends and its step holds (last - first) / step + 1 numbers; "there are 100 integers from 1 to
100" holds last - first + 1 of them. Counting a range is where off-by-one slips live, and the
sentence gives everything the count needs.

Only a count stated as "there are N <things> from A to B" is read, the range right after the
things (or after "in the sum", "in the sequence", "in the list") and the count ending with it
(or with "inclusive"). Not read: "terms" or "values" with no step written (the step the words
leave out is a guess), a range said to be "between" its ends (inclusive or not is a guess),
things qualified after the range ("from 1 to 99 that are divisible by 10", "from 1 to 50: 4,
9, ...", ", not counting 50"), a step that does not reach the last end, and a count hedged
("about 10", "approximately 10").

"There are 15 multiples of 7 between 1 and 100" counts positive multiples the same way
(`judge_multiples`): below a bound, from one end to the other, or between ends (read only
where "between" cannot change the count, or with "inclusive").
"""

from __future__ import annotations

import re

from verifiers.calculator.claims import ClaimResult

__all__ = [
    "MULTIPLES_COUNTS",
    "RANGE_COUNTS",
    "WHOLE",
    "ends_plainly",
    "judge_multiples",
    "judge_range_count",
]

_DEGREE = r"(?:\s*\^\s*\{?\s*\\circ\s*\}?)?"
_INTEGER = r"(?:-\s*)?\d{1,7}(?![\d.,]\d)"
RANGE_COUNTS = re.compile(
    rf"\bthere\s+(?:are|were|will\s+be)\s+(?P<k>\d{{1,7}})\s+"
    r"(?P<what>terms|integers|numbers|values|whole\s+numbers|positive\s+integers)\s+"
    r"(?:in\s+(?:the|this|our)\s+(?:sum|sequence|list|product|series)\s+)?\(?\s*"
    rf"from\s+(?P<a>{_INTEGER}){_DEGREE}\s+(?:to|through)\s+(?P<b>{_INTEGER}){_DEGREE}"
    r"(?:\s*,?\s*(?:with\s+a\s+(?:common\s+)?(?:step|difference)\s+of|in\s+steps\s+of"
    rf"|increasing\s+by)\s+(?P<d>\d{{1,7}}){_DEGREE})?",
    re.IGNORECASE,
)
# The count must end with its range: a bracket closing, the sentence ending, or a comma that
# no qualifier follows ("from 1 to 50 inclusive that are 1 less than a multiple of 5", "from 1
# to 50: 4, 9, ..." narrow what is counted).
_ENDS = re.compile(r"^\s*(?:\(?\s*inclusive\s*\)?\s*)?(?:[).;]|,(?P<rest>.*)|$)", re.S | re.I)
_QUALIFIER = re.compile(
    r"^\s*(?:\S+\s+){0,3}?(?:that|which|namely|those|where|whose|such|satisfying|divisible"
    r"|not|except|excluding|exclusive|other|but|each|of)\b",
    re.IGNORECASE,
)
_HEDGED = re.compile(r"\b(?:about|approximately|roughly|around|nearly|almost|some|over|under)"
                     r"\s*$", re.IGNORECASE)  # fmt: skip


def ends_plainly(m: re.Match, tail: str) -> bool:
    """The count ends with its match (`tail`: the rest of the sentence), nothing narrows what
    is counted after it, and no hedge comes right before the count (group `k`)."""
    ends = _ENDS.match(tail)
    if ends is None or ends["rest"] is not None and _QUALIFIER.match(ends["rest"]):
        return False
    return not _HEDGED.search(m.string[: m.start("k")])


def judge_range_count(m: re.Match, tail: str, prime_of: object = None) -> ClaimResult | None:
    """A count of a range judged (None: a reading we cannot be sure of); `number_facts` calls
    it as it calls its own judges, with the rest of the sentence and a primality it ignores."""
    if not ends_plainly(m, tail):
        return None
    first, last = (int(re.sub(r"\s", "", m[g])) for g in "ab")
    step = int(m["d"]) if m["d"] else None
    if step is None and m["what"].lower() in ("terms", "values"):
        return None  # "50 terms from 1 to 99": odd numbers, or any step the words leave out
    step = step or 1
    if step == 0 or last < first or (last - first) % step:
        return None
    true = (last - first) // step + 1
    text = re.sub(r"\(\s*from", "from", re.sub(r"\s+", " ", m.group(0))).strip()
    holds = true == int(m["k"])
    return ClaimResult("holds" if holds else "false", text, m["k"], f"{true} {m['what'].lower()}")


# A whole number as facts in words write it: digits, or `1,000` grouped (each judge bounds it).
NUMBER = r"\d{1,3}(?:,\d{3})+(?!\d)|\d+"
# A whole number as counts write it (`1,000` grouped), at most 12 digits.
WHOLE = r"\d{1,3}(?:,\d{3})+(?!\d)|\d{1,12}(?!\d|\.\d)"
# "There are 30 multiples of 10 less than or equal to 300", "... from 1 to 100", "... between
# 1 and 100": positive multiples (a count that also takes 0 below a bound is not judged), a
# range with one bound or both.
MULTIPLES_COUNTS = re.compile(
    rf"\bthere\s+(?:are|were|will\s+be)\s+(?P<k>{WHOLE})\s+(?:positive\s+)?multiples\s+of\s+"
    rf"(?P<d>{WHOLE})\s+(?:(?P<rel>less\s+than\s+or\s+equal\s+to|less\s+than|up\s+to|at\s+most"
    rf"|not\s+exceeding|below|under)\s+(?P<x>{WHOLE})"
    rf"|(?P<span>between|from)\s+(?P<a>{WHOLE})\s+(?:and|to|through)\s+(?P<b>{WHOLE}))",
    re.IGNORECASE,
)
_INCLUSIVE = re.compile(r"^\s*,?\s*\(?\s*inclusive", re.IGNORECASE)


def judge_multiples(m: re.Match, tail: str, prime_of: object = None) -> ClaimResult | None:
    """A count of a number's multiples in a range (None: a reading we cannot be sure of):
    "between" an end that is itself a multiple may or may not count it, so such a count is
    read only with "inclusive" written."""
    if not ends_plainly(m, tail):
        return None
    k, d = (int(m[g].replace(",", "")) for g in "kd")
    if d == 0:
        return None
    if m["rel"]:
        x = int(m["x"].replace(",", ""))
        strict = " ".join(m["rel"].lower().split()) in ("less than", "below", "under")
        low, high = 1, x - 1 if strict else x
    else:
        low, high = (int(m[g].replace(",", "")) for g in "ab")
        if m["span"].lower() == "between" and not _INCLUSIVE.match(tail):
            if low % d == 0 or high % d == 0:
                return None  # whether "between" counts its ends decides the count
        if low < 1:
            return None  # 0 is a multiple of every number: whether it counts is a guess
    if high < low:
        return None
    true = high // d - (low - 1) // d
    if m["rel"] and k == true + 1 and "positive" not in m.group(0).lower():
        return None  # "multiples of 3 less than 100" may count 0 as well
    text = re.sub(r"\s+", " ", m.group(0)).strip()
    return ClaimResult("holds" if true == k else "false", text, str(k), f"{true} multiples")
