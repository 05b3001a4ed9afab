"""The least or greatest whole number of a kind, stated in words, checked exactly (read by
`number_facts`).

"The smallest 3-digit number divisible by 33 is 102", "the largest prime less than 50 is 47",
"the smallest perfect square greater than 50 is 64", "the largest prime factor of 1001 is 13",
"105 is the smallest multiple of 7 greater than 100": the kind is an arithmetic property (a
multiple of one number, a prime, a perfect square or cube, a prime factor of a number), and
the range is a digit count or one bound written as a number. Such a sentence names exactly one
number, and a search over a short stretch of whole numbers finds it.

Not read: a kind without an arithmetic property ("the largest 5-digit number is 98765" may
carry the problem's own conditions, as "with distinct digits" there did), anything said of
the kind beyond it ("the smallest 3-digit multiple of 33 whose digits ...", "in this range"),
a list of divisors ("divisible by 6 and 8"), a bound that is an expression, a value the
sentence goes on computing ("is 15 × 7 = 105"), a range with no such number (positive whole
numbers only), and a search longer than `_MAX_SEARCH` numbers or past `_LIMIT`.
"""

from __future__ import annotations

import re

from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.digit_facts import DIGIT_WORDS
from verifiers.calculator.range_counts import NUMBER

__all__ = ["EXTREMAL", "judge_extremal", "whole_root"]

_WHICH = r"(?P<which>smallest|least|lowest|largest|greatest|biggest|highest)"
_SIZE = (
    rf"(?:(?P<positive>positive|natural)\s+)?(?:(?P<k>\d{{1,2}}|{'|'.join(DIGIT_WORDS)})\s*-?\s*digits?\s+)?"
    r"(?:(?P<positive2>positive)\s+)?"
)
_NOUN = r"(?:number|integer|whole\s+number|natural\s+number)"
_KIND = (
    r"(?:(?P<prime>prime)(?:\s+number)?(?!\s+(?:factor|divisor))"
    rf"|(?P<pfactor>prime)\s+(?:factor|divisor)\s+of\s+(?P<m>{NUMBER})"
    rf"|multiple\s+of\s+(?P<d>{NUMBER})"
    rf"|{_NOUN}\s+(?:that\s+is\s+|which\s+is\s+)?(?:divisible\s+by|a\s+multiple\s+of)\s+(?P<d2>{NUMBER})"
    r"|perfect\s+(?P<power>square|cube)(?:\s+number)?)"
)
_BOUND = (
    r"(?:\s+(?P<rel>greater\s+than\s+or\s+equal\s+to|less\s+than\s+or\s+equal\s+to"
    r"|greater\s+than|larger\s+than|more\s+than|bigger\s+than|exceeding|above|over"
    r"|less\s+than|smaller\s+than|below|under|at\s+least|at\s+most|not\s+exceeding"
    rf"|no\s+more\s+than|no\s+less\s+than)\s+(?P<x>{NUMBER}))?"
)
# The value ends the claim: no expression, list or digit goes on from it.
_VALUE_ENDS = (
    r"(?![\d.,]\d)(?!\s*(?:[×·÷=<>*/+\-^!(%]|\\times|\\cdot|\\div|\\le|\\ge|\\approx|\\neq"
    r"|mod\b|and\s+\d|or\s+\d))"
)
_PHRASE = rf"\bthe\s+{_WHICH}\s+{_SIZE}{_KIND}{_BOUND}"
EXTREMAL = (
    re.compile(
        rf"{_PHRASE}\s*,?\s*(?:which\s+)?(?:is|equals|=|would\s+be|will\s+be)\s+"
        rf"(?P<y>{NUMBER}){_VALUE_ENDS}",
        re.IGNORECASE,
    ),
    # "102 is the smallest 3-digit number divisible by 33." (the sentence ends with it)
    re.compile(
        rf"(?<![\d.,])(?P<y>{NUMBER})\s+is\s+{_PHRASE}(?=\s*(?:[.;:)]|,\s*(?:so|and|which|since)\b|$))",
        re.IGNORECASE,
    ),
)
# Words that make the phrase part of another subject ("the sum of the smallest ...").
_OBJECT = re.compile(
    r"(?:\b(?:of|for|to|from|than|by|with|in|on|at|times|plus|minus|between|as)|'s)\s*$",
    re.IGNORECASE,
)
_MAX_SEARCH = 2000
_LIMIT = 10**12
_STRICT_ABOVE = ("greater than", "larger than", "more than", "bigger than", "exceeding", "above",
                 "over")  # fmt: skip
_AT_LEAST = ("greater than or equal to", "at least", "no less than")
_STRICT_BELOW = ("less than", "smaller than", "below", "under")
_AT_MOST = ("less than or equal to", "at most", "not exceeding", "no more than")


def _int(text: str) -> int:
    return int(text.replace(",", ""))


def _range(m: re.Match) -> tuple[int, int] | None:
    """The whole numbers the kind is sought in, [low, high] (high None: unbounded)."""
    low, high = 1, None
    if m["k"]:
        k = DIGIT_WORDS.get(m["k"].lower()) or int(m["k"])
        if not 1 <= k <= 12:
            return None
        low, high = 10 ** (k - 1), 10**k - 1  # positive: one digit is 1 to 9
    if m["rel"]:
        rel, x = " ".join(m["rel"].lower().split()), _int(m["x"])
        if rel in _STRICT_ABOVE:
            low = max(low, x + 1)
        elif rel in _AT_LEAST:
            low = max(low, x)
        elif rel in _STRICT_BELOW:
            high = x - 1 if high is None else min(high, x - 1)
        elif rel in _AT_MOST:
            high = x if high is None else min(high, x)
    return low, high


def _is_kind(n: int, m: re.Match, prime_of) -> bool | None:
    """Whether n is of the kind (None: unknown, the worker failed)."""
    if n < 1:
        return False  # only positive whole numbers are sought
    if m["d"] or m["d2"]:
        return n % _int(m["d"] or m["d2"]) == 0
    if m["power"]:
        return whole_root(n, _exponent(m), floor=True) ** _exponent(m) == n
    if m["pfactor"]:
        whole = _int(m["m"])
        if whole % n:
            return False
    found = prime_of(n)
    return None if found is None else found[0]


def _search(m: re.Match, low: int, high: int | None, smallest: bool, prime_of) -> int | None:
    """The least (or greatest) number of the kind in [low, high]; None when there is none,
    the search is too long or the worker fails."""
    if m["d"] or m["d2"]:
        d = _int(m["d"] or m["d2"])
        if d == 0:
            return None
        found = -(-low // d) * d if smallest else (high // d) * d
        return found if low <= found and (high is None or found <= high) else None
    if m["power"]:
        k = _exponent(m)
        root = whole_root(low, k) if smallest else whole_root(high, k, floor=True)
        found = root**k
        return found if low <= found and (high is None or found <= high) else None
    if m["pfactor"]:
        whole = _int(m["m"])
        factors = _prime_factors(whole, prime_of)
        if factors is None:
            return None
        inside = [p for p in factors if low <= p and (high is None or p <= high)]
        return (min(inside) if smallest else max(inside)) if inside else None
    # primes: walk from the end the claim names
    steps = (
        range(low, low + _MAX_SEARCH) if smallest else range(high, max(high - _MAX_SEARCH, 1), -1)
    )
    for n in steps:
        if high is not None and n > high or n < low:
            return None
        is_prime = prime_of(n)
        if is_prime is None:
            return None
        if is_prime[0]:
            return n
    return None


def _exponent(m: re.Match) -> int:
    return 2 if m["power"].lower() == "square" else 3


def whole_root(n: int, k: int, floor: bool = False) -> int:
    """The least whole r with r^k >= n (floor: the greatest with r^k <= n)."""
    r = max(int(round(n ** (1 / k))), 0)
    while r**k > n:
        r -= 1
    while (r + 1) ** k <= n:
        r += 1
    return r if floor or r**k == n else r + 1


def _prime_factors(n: int, prime_of) -> list[int] | None:
    """n's prime factors, by the worker's smallest factors (below a million: n up to 10^12)."""
    out = []
    while n > 1:
        found = prime_of(n)
        if found is None:
            return None
        prime, factor = found
        if prime:
            out.append(n)
            break
        if not factor:
            return None
        out.append(factor)
        while n % factor == 0:
            n //= factor
    return out


def judge_extremal(m: re.Match, tail: str, prime_of=None) -> ClaimResult | None:
    """The claim judged (None: a reading we cannot be sure of). `number_facts` calls it as it
    calls its own judges; primes need `prime_of`, `primality` run in the worker."""
    if m.re is EXTREMAL[0] and _OBJECT.search(m.string[: m.start()]):
        return None  # "the product of the digits of the smallest ... is 0" speaks of another
    smallest = m["which"].lower() in ("smallest", "least", "lowest")
    needs_primes = bool(m["prime"] or m["pfactor"])
    if needs_primes and prime_of is None:
        return None
    bounds = _range(m)
    if bounds is None:
        return None
    low, high = bounds
    if high is None and not smallest and not m["pfactor"]:
        return None  # "the largest multiple of 7": no such number without an upper bound
    if smallest and not (m["k"] or m["rel"] or m["positive"] or m["positive2"]):
        # "the smallest multiple of 7" may count 0 or negatives; a prime or a prime factor
        # is positive all the same
        if not needs_primes:
            return None
    y = _int(m["y"])
    if max(y, low, high or 0) > _LIMIT or m["m"] and _int(m["m"]) > _LIMIT:
        return None
    if high is not None and high < low:
        return None
    true = _search(m, low, high, smallest, prime_of)
    if true is None:
        return None
    text = re.sub(r"\s+", " ", m.group(0)).strip()
    if true == y:
        return ClaimResult("holds", text, str(y), str(true))
    kind = _is_kind(y, m, prime_of)
    # The evidence says what the stated number misses: not of the kind, out of the range, or
    # not the least (greatest) of them.
    if kind is False:
        why = "not of that kind"
    elif y < low or high is not None and y > high:
        why = "outside the range"
    else:
        why = f"{true} comes {'before' if smallest else 'after'} it"
    return ClaimResult("false", text, str(y), str(true), f"{y}: {why}")
