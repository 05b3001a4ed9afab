"""Whether a decimal slip can be a rounding carried from an earlier value.

A step may show a value rounded ("124 / 7 = 17.714") and compute on with the value it kept
("17.714 * 4 = 70.857"): the result then differs from the product of the numbers shown. That
excuse has a bound: had every number shown been rounded or cut at its last digit (off by less
than one unit there; a number the problem gives is exact), the computed side lies in an
interval, and a claimed value that no value in it rounds or cuts to is a slip whatever was
carried ("17.714 * 4 = 71.456": the sides are 70.852 to 70.860 at most).

The interval is an outer bound (interval arithmetic, exact fractions), so a claim outside it
is outside every reading; a tree it cannot bound (an unknown, a factorial of a shown decimal,
a power with a shown exponent) keeps the excuse.
"""

from __future__ import annotations

import math
from fractions import Fraction

from verifiers.calculator.parse import Node

__all__ = ["exact_given", "may_carry"]

Interval = tuple[Fraction, Fraction]

# pi to 14 decimals, below and above.
_PI = (Fraction(314159265358979, 10**14), Fraction(314159265358980, 10**14))
_MAX_EXPONENT = 40


def exact_given(numbers: frozenset[Fraction]) -> frozenset[Fraction]:
    """The numbers a problem gives, with the forms a percent takes in a computation
    ("15%" is 0.15, a 15% discount multiplies by 0.85, a 15% rise by 1.15): exact values."""
    out = set(numbers)
    for n in numbers:
        out |= {n / 100, 1 - n / 100, 1 + n / 100}
    return frozenset(out)


def may_carry(node: Node, claimed: Fraction, decimals: int, given: frozenset[Fraction]) -> bool:
    """Whether some value of `node`, its shown numbers each off by less than a unit of their
    last digit (those in `given` exact), lies within one unit of `claimed`'s last digit
    (`decimals` of them). True when the tree cannot be bounded."""
    try:
        bounds = _bounds(node, given)
    except (ArithmeticError, ValueError, OverflowError):
        return True
    if bounds is None:
        return True
    unit = Fraction(1, 10**decimals)
    lo, hi = bounds
    return lo - unit < claimed < hi + unit


def _bounds(node: Node, given: frozenset[Fraction]) -> Interval | None:
    kind = node[0]
    if kind == "num":
        value, shown = node[1], node[2]
        if value in given:
            return value, value
        unit = Fraction(1, 10**shown)
        return value - unit, value + unit
    if kind == "pi":
        return _PI
    if kind in ("neg", "pct", "sqrt", "fact"):
        inner = _typed(node[1]) if kind == "fact" else _bounds(node[1], given)
        if inner is None:
            return None
        lo, hi = inner
        if kind == "neg":
            return -hi, -lo
        if kind == "pct":
            return lo / 100, hi / 100
        if kind == "sqrt":
            return _sqrt(lo, hi)
        return (Fraction(math.factorial(int(lo))),) * 2 if lo == hi and _whole(lo) else None
    if kind not in ("+", "-", "*", "/", "^"):
        return None  # an unknown, or an operation this bound does not know
    a = _bounds(node[1], given)
    b = _typed(node[2]) if kind == "^" else _bounds(node[2], given)
    if a is None or b is None:
        return None
    if kind == "+":
        return a[0] + b[0], a[1] + b[1]
    if kind == "-":
        return a[0] - b[1], a[1] - b[0]
    if kind == "*":
        products = [x * y for x in a for y in b]
        return min(products), max(products)
    if kind == "/":
        if b[0] <= 0 <= b[1]:
            return None
        quotients = [x / y for x in a for y in b]
        return min(quotients), max(quotients)
    return _power(a, b)


def _typed(node: Node) -> Interval | None:
    """A whole number typed where no rounding goes (an exponent, a factorial's operand): exact;
    anything else there is not bounded."""
    if node[0] == "num" and node[2] == 0:
        return node[1], node[1]
    return None


def _power(base: Interval, exponent: Interval) -> Interval | None:
    """A whole exponent (written as a number: `_typed`)."""
    e = exponent[0]
    if exponent[0] != exponent[1] or e.denominator != 1 or abs(e) > _MAX_EXPONENT:
        return None
    e = int(e)
    lo, hi = base
    if e < 0:
        if lo <= 0 <= hi:
            return None
        inner = _power(base, (Fraction(-e), Fraction(-e)))
        return None if inner is None else (1 / inner[1], 1 / inner[0])
    values = [lo**e, hi**e]
    if e % 2 == 0 and lo < 0 < hi:
        return Fraction(0), max(values)
    return min(values), max(values)


def _sqrt(lo: Fraction, hi: Fraction) -> Interval | None:
    if lo < 0:
        return None
    # Outward by far more than a float's error: a bound, not a value.
    down = Fraction(math.sqrt(lo)) * (1 - Fraction(1, 10**9))
    up = Fraction(math.sqrt(hi)) * (1 + Fraction(1, 10**9)) + Fraction(1, 10**12)
    return down, up


def _whole(x: Fraction) -> bool:
    return x.denominator == 1 and x >= 0
