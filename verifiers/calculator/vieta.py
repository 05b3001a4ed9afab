"""Vieta's formulas: a symmetric expression in the roots of the polynomial the text wrote.

"By Vieta's formulas, `r + s = -\\frac{3}{2}` and `rs = -\\frac{5}{2}`" for the roots of
`2x^2 + 3x - 5 = 0`: an expression symmetric in as many letters as the polynomial's degree is
a polynomial in their elementary symmetric sums, which the coefficients give (e_j = (-1)^j
a_{n-j} / a_n, complex and repeated roots counted alike), so its value is exact. Read only in a
step that names Vieta's formulas, or the roots' (or zeros') sum or product, for an `=` link
between such an expression and a number, and only where the problem and the chain wrote one
polynomial equation of degree 2 or more in one letter with rational coefficients (its
multiples written again count once): with two, which one the letters' roots belong to is a
guess, and "two of the roots have product 30" (`rs = 30` beside a cubic) names fewer letters
than the degree, so it is no such claim.
"""

from __future__ import annotations

from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import readings
from verifiers.calculator.relations import admissible
from verifiers.calculator.solutions import difference

__all__ = ["vieta_links"]

_ROOT_WORDS = frozenset("roots root zeros zeroes".split())


def vieta_links(
    members: tuple[str, ...], ops: tuple[str, ...], defs: dict, known: list, words: set[str]
) -> list[ClaimResult]:
    """The verdicts on a chain's `=` links that Vieta's formulas decide (see the module
    docstring); `words`: the step's words, `known`: the equations written so far."""
    import sympy
    from sympy.polys.polyfuncs import symmetrize

    if "vieta" not in words and not (words & _ROOT_WORDS and words & {"sum", "product"}):
        return []
    out, poly = [], None
    for i, op in enumerate(ops):
        if op != "=":
            continue
        for side, other in ((members[i], members[i + 1]), (members[i + 1], members[i])):
            if not (admissible(side) and admissible(other)):
                continue
            a, b = readings(side, defs), readings(other, defs)
            if len(a) != 1 or len(b) != 1 or b[0].free_symbols or not b[0].is_number:
                continue
            names = sorted(a[0].free_symbols, key=str)
            if len(names) < 2 or not a[0].is_polynomial(*names):
                continue  # `\\sqrt[3]{r_1 r_2}`: no polynomial in the roots
            poly = poly or _the_polynomial(known, defs)
            if not poly or poly.degree() != len(names) or poly.gen in names:
                continue
            try:
                written, rest, elementary = symmetrize(a[0], *names, formal=True)
            except (sympy.PolynomialError, ValueError, TypeError):  # sympy's own failures
                continue
            if rest != 0:
                continue  # not symmetric in its letters: no function of the roots alone
            lead, *coeffs = poly.all_coeffs()
            values = {s: (-1) ** j * coeffs[j - 1] / lead for j, (s, _) in enumerate(elementary, 1)}
            true = sympy.nsimplify(written.xreplace(values))
            text = f"{members[i]} = {members[i + 1]}"
            if sympy.simplify(true - b[0]) == 0:
                out.append(ClaimResult("holds", text))
            else:
                why = f"by Vieta's formulas for `{poly.as_expr()} = 0` it is {true}"
                out.append(ClaimResult("false", text, f"{b[0]}", f"{true}", why))
            break
    return out


def _the_polynomial(known: list, defs: dict):
    """The one monic polynomial of degree 2 or more in one letter, rational coefficients, that
    the equations written so far give (False: none, or several)."""
    import sympy

    found = set()
    for left, right in known:
        e = difference(left, right, defs)
        if e is None or len(e.free_symbols) != 1:
            continue
        try:
            poly = sympy.Poly(sympy.fraction(sympy.together(e))[0], *e.free_symbols)
        except sympy.PolynomialError:
            continue
        if poly.degree() >= 2 and all(c.is_Rational for c in poly.all_coeffs()):
            found.add(poly.monic())
    return found.pop() if len(found) == 1 else False
