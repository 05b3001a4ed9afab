"""How many divisors a number has, stated in words, checked exactly (read by `number_facts`).

"There are 5 divisors of 50", "50 has 6 positive divisors", "the number of positive divisors
of 36 is 9": the count of a whole number's positive divisors, which its factorisation gives.
"Factors" count as divisors only after "positive" ("30 has 3 factors" may count its prime
factors), and "integer divisors" only after "positive" too (negative ones may count). Not read:
a count narrowed after it ("divisors of 50 less than 10", "that are even"), proper or prime
divisors, a hedged count, a number past `_LIMIT`.
"""

from __future__ import annotations

import re

from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.range_counts import WHOLE as _N
from verifiers.calculator.range_counts import ends_plainly

__all__ = ["DIVISOR_COUNTS", "judge_divisor_count"]

_KIND = (
    r"(?P<kind>(?:(?:positive|distinct|integer|natural|whole[- ]number)\s+)*)"
    r"(?P<noun>divisors|factors)"
)
DIVISOR_COUNTS = (
    re.compile(rf"\bthere\s+(?:are|were)\s+(?P<k>{_N})\s+{_KIND}\s+of\s+(?P<n>{_N})", re.I),
    re.compile(
        rf"(?<![\d,.])(?P<n>{_N})\s+has\s+(?:exactly\s+|a\s+total\s+of\s+)?(?P<k>{_N})\s+{_KIND}\b",
        re.I,
    ),
    re.compile(
        rf"\bthe\s+number\s+of\s+{_KIND}\s+of\s+(?P<n>{_N})\s*,?\s*(?:is|equals|=)\s+(?P<k>{_N})",
        re.I,
    ),
)
_LIMIT = 10**10  # trial division up to its square root stays within milliseconds


def _count(n: int) -> int:
    """The number of positive divisors of n (n >= 1), by trial division."""
    count, p = 1, 2
    while p * p <= n:
        power = 0
        while n % p == 0:
            n //= p
            power += 1
        count *= power + 1
        p += 1 if p == 2 else 2
    return count * (2 if n > 1 else 1)


def judge_divisor_count(m: re.Match, tail: str, prime_of: object = None) -> ClaimResult | None:
    """A count of divisors judged (None: a reading we cannot be sure of); `number_facts` calls
    it as it calls its own judges, with the rest of the sentence and a primality it ignores."""
    kind = m["kind"].lower().split()
    if "positive" not in kind and (m["noun"].lower() == "factors" or "integer" in kind):
        return None
    if not ends_plainly(m, tail):
        return None
    n, k = (int(m[g].replace(",", "")) for g in "nk")
    if not 1 <= n <= _LIMIT:
        return None
    true = _count(n)
    text = re.sub(r"\s+", " ", m.group(0)).strip()
    return ClaimResult("holds" if true == k else "false", text, str(k), f"{true} divisors")
