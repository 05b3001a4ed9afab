"""The sum or product of an equation's roots, stated as a bare number.

"The sum of the roots of $x^2 - 7x + 10 = 0$ is $-7$", "$x^2 - 7x + 10 = 0$, so by Vieta's
formulas the product of its roots is $10$": one plain number (as `listed_roots` reads them)
right after "is" or "equals", the equation named right before ("the sum of the roots of") or
right after ("so the sum of its roots is"). The equation is a polynomial equation in one
letter alone (no denominator with the letter) whose roots sympy writes out. "The roots" may
count a repeated root once or twice, and may mean the real ones only: the value is false only
where it is none of these four sums (or products), Vieta's included. Not read: a qualifier
that picks some roots ("the positive roots", "the integer solutions"), a sentence that sets
the value aside, trig, decimals.
"""

from __future__ import annotations

import re

from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.listed_roots import stands_for, values_listed, vanishing
from verifiers.calculator.readers import trig_atoms
from verifiers.calculator.symbolic import fmt, same_value

__all__ = ["root_sums"]

_OF_ROOTS = (
    r"(sum|product)\s+of\s+(?:the|its|all(?:\s+the)?|all\s+of\s+the)\s+"
    r"(?:(?:two|three|real|distinct)\s+)*(?:roots|solutions|zeros|zeroes)"
)
_BEFORE = re.compile(
    rf"\b{_OF_ROOTS}\s+(?:of|to)(?:\s+the\s+(?:equation|quadratic|polynomial|cubic))?\W*$",
    re.IGNORECASE,
)
_VIETA = r"(?:(?:by|from|using)\s+vieta'?s?(?:\s+formulas?)?\W+)?"
_AFTER = re.compile(
    rf"^\W*(?:(?:so|thus|hence|therefore|and)\W+)?{_VIETA}the\s+{_OF_ROOTS}\s+(?:is|equals)"
    r"\s*:?\s*",
    re.IGNORECASE,
)
_IS = re.compile(r"^\s*(?:is|equals)\s*:?\s*", re.IGNORECASE)


def root_sums(clauses: list, defs: dict, known: list) -> list:
    """(outcome, members to confirm) for each sum or product of roots stated wrong (see the
    module docstring); `known`: the pairs written before the step."""
    out = []
    for k, (members, ops, before, _, _, _, rest) in enumerate(clauses):
        if list(ops) != ["="] or len(members) != 2 or not rest:
            continue  # not an equation, or not its region's last clause (`rest` is empty)
        named = _AFTER.match(rest)
        if named is None and (said := _BEFORE.search(before)) and (named := _IS.match(rest)):
            kind = said.group(1).lower()
        elif named is not None:
            kind = named.group(1).lower()
        else:
            continue
        values = values_listed(rest[named.end() :], defs)
        if len(values) != 1:
            continue
        left, right = members
        e, _ = vanishing(left, right, defs)  # `p(x) = x^2 - 4`: its zeros
        if e is None or trig_atoms(e) or (found := _totals(e, kind)) is None:
            continue
        if stands_for(str(next(iter(e.free_symbols))), clauses[:k], known):
            continue  # "Let $u = x^2$ ... the sum of the roots": x's roots, maybe
        text, value = values[0]
        if any(same_value(value, t) for t in found):
            continue
        shown = " or ".join(sorted({fmt(t) for t in found}))
        why = f"the {kind} of the roots of `{left} = {right}` is {shown}"
        result = ClaimResult("false", f"{kind} of the roots = {text}", text, shown, why)
        out.append((result, (left, right, text)))
    return out


def _totals(e, kind: str) -> set | None:
    """The sums (or products) of the roots of `e = 0` that "the roots" may mean: each root
    once or as often as it repeats, all of them or the real ones (None: not a polynomial in
    one letter whose roots sympy writes out)."""
    import sympy

    if len(e.free_symbols) != 1:
        return None
    x = next(iter(e.free_symbols))
    top, bottom = sympy.fraction(sympy.together(e))
    if x in bottom.free_symbols:
        return None  # a root of the cleared numerator may make a denominator 0
    try:
        poly = sympy.Poly(sympy.expand(top), x)
    except sympy.PolynomialError:
        return None
    if poly.degree() < 2 or not all(c.is_Rational for c in poly.all_coeffs()):
        return None  # one root is no sum: `x = 8` is a value given, "the roots" a list's
    roots = sympy.roots(poly)
    if sum(roots.values()) != poly.degree():
        return None  # roots sympy cannot write: which are real is unknown
    if any(r.is_real is None for r in roots):
        return None  # a root whose realness sympy cannot decide: which are real is unknown
    combine = sympy.Add if kind == "sum" else sympy.Mul
    totals = set()
    for real in (False, True):
        kept = [(r, m) for r, m in roots.items() if not real or r.is_real]
        if kept:
            totals.add(sympy.simplify(combine(*(r for r, _ in kept))))
            totals.add(sympy.simplify(combine(*(r for r, m in kept for _ in range(m)))))
    return totals
