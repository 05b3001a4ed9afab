"""Decimal coefficients in a chain of rewrites: `1 - 3y + 3y^2 - 0.7(1 - 2y + 2y^2) = 1 - 3y +
3y^2 - 0.7 + 1.4y - 1.4y^2 = 0.3 + 0.4y + 1.6y^2` multiplies and collects exact coefficients
(the y terms add up to -1.6y). Elsewhere decimals beside unknowns are read as approximations and
never make an identity (`readers.readings`); here they are read as written when the link is not
the chain's first (that one may set up an equation), both sides are polynomials in the same
unknowns, and another link of the chain between such polynomials holds exactly, so the chain is
one of rewrites. A coefficient is wrong only past what the written decimals' rounding explains:
off by more than two units of the last decimal place written and by more than 1% of itself
(`0.33x + 0.33x = 0.67x` holds).
"""

from __future__ import annotations

import re

from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import DECIMAL, readings

_PLACES = re.compile(r"\d\.(\d+)")


def _polynomial(member: str, defs: dict):
    read = readings(member, defs, decimals=True)
    if len(read) != 1 or not read[0].free_symbols:
        return None
    expr = read[0]
    return expr if expr.is_polynomial(*expr.free_symbols) else None


def _off(a, b, unit) -> str | None:
    """The first monomial whose coefficients differ past the rounding, as text, or None."""
    import sympy

    names = sorted(a.free_symbols | b.free_symbols, key=str)
    pa, pb = sympy.Poly(sympy.expand(a), *names), sympy.Poly(sympy.expand(b), *names)
    for monomial in sorted(set(pa.monoms()) | set(pb.monoms()), reverse=True):
        ca, cb = pa.coeff_monomial(monomial), pb.coeff_monomial(monomial)
        if abs(ca - cb) > max(2 * unit, sympy.Rational(1, 100) * max(abs(ca), abs(cb))):
            term = sympy.Mul(*(n**k for n, k in zip(names, monomial, strict=True)))
            return f"the coefficients of {term} are {float(ca):g} and {float(cb):g}"
    return None


def decimal_rewrite(members: tuple[str, ...], i: int, defs: dict) -> ClaimResult | None:
    """The link `members[i] = members[i + 1]` judged with its decimals read as written, or None
    (the first link, not a chain of polynomial rewrites, or no decimal written)."""
    import sympy

    left, right = members[i], members[i + 1]
    if i == 0 or not DECIMAL.search(left + right):
        return None
    a, b = _polynomial(left, defs), _polynomial(right, defs)
    if a is None or b is None or a.free_symbols != b.free_symbols:
        return None
    places = max(len(p) for p in _PLACES.findall(left + right))
    unit = sympy.Rational(1, 10**places)
    if not any(
        (x := _polynomial(members[j], defs)) is not None
        and (y := _polynomial(members[j + 1], defs)) is not None
        and x.free_symbols == y.free_symbols
        and _off(x, y, 0) is None
        for j in range(1, len(members) - 1)
        if j != i
    ):
        return None
    found = _off(a, b, unit)
    text = f"{left} = {right}"
    return ClaimResult("holds", text) if found is None else ClaimResult("false", text, reason=found)
