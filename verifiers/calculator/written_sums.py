"""Sums and products written with their bounds (`\\sum_{k=1}^{10} body`): where the body ends,
and the total in exact fractions when the body is a fraction of its index.

`latex_math.read_member` reads the body; this module finds the bounds, says when the body's
extent is not written (`\\sum k + 1`), which ranges and bodies it totals (`total`), and adds
or multiplies the terms of a rational body as Python fractions (a thousand sympy
substitutions take the better part of a second; the same thousand terms as fractions, a few
milliseconds), a polynomial's over a long range in closed form.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

MAX_RANGE = 2000  # a written sum or product longer than this is not expanded
MAX_SURD_TERMS = 100  # terms of a sum or product whose body is not a fraction of its index
# Past MAX_RANGE terms only a polynomial's sum is read, up to this degree: its closed form
# takes about degree^2 steps (sympy's own summation can take minutes on a high power).
MAX_LONG_DEGREE = 30

_BOUNDS = re.compile(
    r"^\s*\\(sum|prod)\s*_\s*\{\s*([a-z])\s*=\s*(-?\d+)\s*\}\s*\^\s*(?:\{\s*(-?\d+)\s*\}|(\d))"
    r"\s*(.+)$",
    re.S,
)


def written_bounds(text: str) -> tuple[str, int, int, str, str] | None:
    """`\\sum_{k=1}^{10} body` as (op, low, high, index, body text); None for anything else."""
    m = _BOUNDS.match(text)
    if not m:
        return None
    high = int(m.group(4) or m.group(5))
    return m.group(1), int(m.group(3)), high, m.group(2), m.group(6)


def covers_unwritten(body: str) -> bool:
    """Whether a `+` or `-` past the body's first character stands outside every bracket:
    `\\sum k + 1` may end before or after it, `\\frac{1}{k(k+1)}` is one term."""
    depth = 0
    for i, char in enumerate(body.strip()):
        if char in "({[":
            depth += 1
        elif char in ")}]":
            depth -= 1
        elif char in "+-" and depth == 0 and i > 0:
            return True
    return False


def total(op: str, low: int, high: int, symbol, body):
    """The sum (`op` "sum") or product of `body` for `symbol` from `low` to `high`;
    `ValueError` for a range or body not read (an empty or too long range, an angle whose
    unit is a guess, a term dividing by zero)."""
    import sympy
    from sympy.functions.elementary.trigonometric import TrigonometricFunction

    if high < low:
        raise ValueError("an empty range")
    if high - low > MAX_RANGE and not (
        op == "sum"
        and body.is_polynomial(symbol)
        and sympy.degree(body, symbol) <= MAX_LONG_DEGREE
    ):
        raise ValueError("range too long")
    if body.atoms(TrigonometricFunction) and not body.has(sympy.pi):
        raise ValueError("`\\sum \\cos 2x`: an angle in degrees or in radians is a guess")
    try:
        exact = exact_total(op, body, symbol, low, high)
    except ZeroDivisionError as exc:
        raise ValueError("a term of the sum divides by zero") from exc
    if exact is not None:
        return exact
    if high - low >= MAX_SURD_TERMS:
        # A thousand surds add up to no closed form anyone states; reading it costs a second.
        raise ValueError("a long sum of terms that are not fractions of the index")
    values = [body.xreplace({symbol: sympy.Integer(k)}) for k in range(low, high + 1)]
    return sympy.Add(*values) if op == "sum" else sympy.Mul(*values)


def exact_total(op: str, body, symbol, low: int, high: int):
    """The sum (`op` "sum") or product of a body that is a rational function of its index
    alone with rational coefficients, as a sympy Rational; None for any other body.
    `ZeroDivisionError` when a term divides by zero."""
    import sympy

    if body.free_symbols - {symbol} or not body.is_rational_function(symbol):
        return None
    num, den = (sympy.Poly(part, symbol) for part in sympy.fraction(sympy.cancel(body)))
    if not all(c.is_Rational for c in num.all_coeffs() + den.all_coeffs()):
        return None
    top = [Fraction(int(c.p), int(c.q)) for c in num.all_coeffs()]
    bottom = [Fraction(int(c.p), int(c.q)) for c in den.all_coeffs()]
    if op == "sum" and len(bottom) == 1 and high - low > MAX_RANGE:
        closed = _polynomial_sum(top, low, high) / bottom[0]
        return sympy.Rational(closed.numerator, closed.denominator)
    running = Fraction(0) if op == "sum" else Fraction(1)
    for k in range(low, high + 1):
        term = _horner(top, k) / _horner(bottom, k)  # ZeroDivisionError where it is 1/0
        running = running + term if op == "sum" else running * term
    return sympy.Rational(running.numerator, running.denominator)


def _polynomial_sum(coefficients: list[Fraction], low: int, high: int) -> Fraction:
    """The sum of a polynomial (coefficients from the highest) from `low` to `high` at once:
    the partial sums are a polynomial of one degree more in the number of terms, so its first
    degree + 2 values and their forward differences give the last (Newton's formula)."""
    sums, running = [], Fraction(0)
    for k in range(low, low + len(coefficients) + 1):
        running += _horner(coefficients, k)
        sums.append(running)
    out = Fraction(0)
    for order in range(len(sums)):
        out += math.comb(high - low, order) * sums[0]
        sums = [b - a for a, b in zip(sums, sums[1:], strict=False)]
    return out


def _horner(coefficients: list[Fraction], k: int) -> Fraction:
    value = Fraction(0)
    for c in coefficients:
        value = value * k + c
    return value
