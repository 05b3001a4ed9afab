"""Facts about a number's digits stated in words, checked exactly (read by `number_facts`).

"the units digit of 2^{12} is 6", "2^{12} has a units digit of 6", "4096 ends in 96",
"2^{1990} has 600 digits", "the last two digits of 7^4 are 01", "13 is a one-digit number": the
subject is a number or a whole power of one, and a power past `_MAX_DIGITS` digits is not read.
"""

from __future__ import annotations

import math
import re

from verifiers.calculator.claims import ClaimResult

__all__ = ["DIGIT_FACTS", "DIGIT_WORDS", "judge_digits"]

# The subject: a number, or a whole power of one (`2^{12}`, `7^4`).
_SUBJECT = r"(?P<n>(?P<b>\d{1,4})\s*\^\s*(?:\{\s*(?P<e>\d{1,5})\s*\}|(?P<e1>\d{1,5})(?![\d.]))|\d+)"
_LAST = r"(?:(?:two|three)\s+)?(?:units?|ones|last|final)\s+(?:(?:two|three)\s+)?digits?"
_NOT_A_COUNT = (  # (and not inside a longer number: a long one costs its length once)
    r"(?<![\d,])(?<!exactly\s)(?<!only\s)(?<!just\s)(?<!\bof\s)(?<!\ball\s)(?<!least\s)(?<!most\s)"
)
# Counts of digits written as words ("a two-digit number").
DIGIT_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
               "eight": 8, "nine": 9, "ten": 10}  # fmt: skip
DIGIT_FACTS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"\b(?:the\s+)?{_LAST}\s+of\s+{_SUBJECT}\s+(?:is|are|=|will\s+be)\s+"
        r"(?P<neg>not\s+)?(?P<d>\d{1,3})(?![\d.,]\d|\s*[+\-*/^])",
        # (a number, not a count: "exactly 1 ends in 5", "802 end in 1", "has 3816 digits
        # more than 9^1" count or compare)
        rf"{_NOT_A_COUNT}{_SUBJECT}\s+has\s+(?:a|the)\s+{_LAST}\s+(?:of\s+)?(?P<d>\d{{1,3}})"
        r"(?![\d.,]\d)",
        rf"{_NOT_A_COUNT}{_SUBJECT}\s+ends\s+(?:in|with)\s+(?:the\s+digits?\s+)?"
        r"(?P<d>\d{1,3})(?![\d.,]\d|s)",
        rf"{_NOT_A_COUNT}{_SUBJECT}\s+(?:has|contains)\s+(?:exactly\s+)?(?P<k>\d{{1,6}})"
        r"\s+digits\b(?!\s+(?:more|fewer|less|than))",
        # "13 is a one-digit number", "3 is a two-digit number"
        rf"{_NOT_A_COUNT}{_SUBJECT}\s+is\s+(?P<neg>not\s+)?an?\s+(?P<kw>{'|'.join(DIGIT_WORDS)}|\d{{1,2}})"
        r"\s*-?\s*digit\s+(?:positive\s+|whole\s+|natural\s+)?(?:number|integer|numeral)\b",
    )
)
_MAX_DIGITS = 5000


def judge_digits(m: re.Match, tail: str, prime_of: object = None) -> ClaimResult | None:
    """A digit fact judged (None: a reading we cannot be sure of); `number_facts` calls it
    as it calls its own judges, with the rest of the sentence and a primality it ignores."""
    b, e = m["b"], m["e"] or m["e1"]
    if b is None:
        value = int(m["n"])
    elif int(e) * math.log10(max(int(b), 2)) > _MAX_DIGITS:
        return None
    else:
        value = int(b) ** int(e)
    text = re.sub(r"\s+", " ", m.group(0))
    if "kw" in m.re.groupindex:
        k = DIGIT_WORDS.get(m["kw"].lower()) or int(m["kw"])
        true = len(str(value))
        holds = (true == k) != bool(m["neg"])
        claimed = f"{'not ' if m['neg'] else ''}{_digits(k)}"
        return ClaimResult("holds" if holds else "false", text, claimed, _digits(true))
    if "k" in m.re.groupindex:
        true = len(str(value))
        return ClaimResult(
            "holds" if true == int(m["k"]) else "false", text, f"{m['k']} digits",
            f"{true} digits",
        )  # fmt: skip
    words = text.lower()
    width = 3 if "three" in words else 2 if "two" in words else 1
    if "ends" in words:
        width = len(m["d"])
    if len(m["d"]) not in (width, 1) or width >= len(str(value)):
        return None  # "the last two digits are 7": a reading we cannot be sure of
    true = value % 10**width
    negated = "neg" in m.re.groupindex and bool(m["neg"])
    holds = (true == int(m["d"])) != negated
    shown = str(true).zfill(width)
    return ClaimResult("holds" if holds else "false", text, m["d"], f"{m['n']} ends in {shown}")


def _digits(k: int) -> str:
    return f"{k} digit" + ("" if k == 1 else "s")
