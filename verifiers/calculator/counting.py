"""Factorials and binomial coefficients of letters (`(n+1)!`, `\\binom{n}{k}`): what is read,
and the points where they are compared.

A factorial or a binomial coefficient of a letter is a count: its letters stand for whole
numbers, and an identity between such expressions (`\\binom{n}{k} = \\frac{n}{k}\\binom{n-1}{k-1}`)
is claimed for them. sympy extends both to other arguments through the gamma function, where
some of its values are conventions (`\\binom{n}{-1} = 0`, `\\binom{2}{3} = 0`), so the two sides
are compared at whole-number points only, and only at those where every factorial's argument is
at least 0 and every binomial's bottom lies between 0 and its top (`symbolic.compare_identity`).
An argument is read when it is a whole number or of the first degree in its letters with whole
coefficients (`n`, `n - k`, `2n + 1`, `10^9 - k`); anything else (`\\binom{n}{k^2}`, `(n/2)!`) is
not read. A written binomial of numbers is read up to `_MAX_BINOMIAL_DIGITS` digits.
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = [
    "INTEGER_POINTS", "binomial_too_large", "counted", "counts_at", "of_letters", "simplified",
]

_MAX_BINOMIAL_DIGITS = 3_000  # about the size of the largest factorial read (1000!)
# The largest factorial (or binomial bottom) of letters evaluated: past it (`(1000n)!`) it costs
# more than it tells.
_MAX_ARGUMENT = 400

# Whole-number points, each letter in turn the larger of a pair, so a binomial's top and bottom
# (whichever letters they are) meet in the right order at about half of them.
INTEGER_POINTS = tuple(
    tuple(Fraction(v) for v in row)
    for row in (
        (9, 4, 6, 11, 7), (4, 9, 12, 5, 8), (12, 5, 3, 8, 10), (6, 10, 8, 4, 13),
        (11, 7, 13, 9, 5), (5, 12, 10, 7, 3), (8, 3, 5, 12, 9), (3, 8, 9, 6, 11),
        (10, 6, 4, 13, 12), (7, 11, 7, 3, 4),
    )
)  # fmt: skip


def of_letters(*args) -> bool:
    """Whether a factorial's or binomial's arguments count with letters: one holds a letter,
    and each is a whole number or of the first degree with whole coefficients."""
    return any(a.free_symbols for a in args) and all(_argument(a) for a in args)


def _argument(expr) -> bool:
    import sympy

    if expr.is_Integer:
        return True
    if not expr.free_symbols:
        return False
    try:
        poly = sympy.Poly(expr, *sorted(expr.free_symbols, key=str))
    except sympy.PolynomialError:
        return False
    return poly.total_degree() == 1 and all(c.is_Integer for c in poly.coeffs())


def counted(*exprs) -> list:
    """The factorials and binomials of letters in the expressions."""
    import sympy

    found = set().union(*(e.atoms(sympy.factorial, sympy.binomial) for e in exprs))
    return sorted((f for f in found if f.free_symbols), key=str)


def simplified(a, b) -> bool:
    """One side counts with factorials or binomials of letters and the other has none: a count
    simplified (`\\frac{(n+2)!}{n!} = (n+2)(n+1)`), a rewrite when the chain's next link is one."""
    return bool(counted(a)) != bool(counted(b))


def counts_at(atoms: list, subs: dict) -> bool:
    """Whether every factorial and binomial in `atoms` counts something at the point."""
    for atom in atoms:
        args = [a.xreplace(subs) for a in atom.args]
        if not all(a.is_Integer and a >= 0 for a in args):
            return False
        if len(args) == 2:  # a binomial costs its smaller bottom (`\binom{10^9}{k}`)
            top, bottom = args
            if bottom > top or min(bottom, top - bottom) > _MAX_ARGUMENT:
                return False
        elif args[0] > _MAX_ARGUMENT:
            return False
    return True


def binomial_too_large(n: int, k: int) -> bool:
    """Whether `\\binom{n}{k}` has over `_MAX_BINOMIAL_DIGITS` digits, no big number built:
    it lies between 2^k and n^k for k up to n/2, log-gamma tells in between, and an n past a
    float's range is far too large all the same."""
    k = min(k, n - k)
    if k <= 4 * _MAX_BINOMIAL_DIGITS and k * n.bit_length() * math.log10(2) <= _MAX_BINOMIAL_DIGITS:
        return False
    try:
        digits = (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)) / math.log(10)
    except OverflowError:
        return True
    return digits > _MAX_BINOMIAL_DIGITS
