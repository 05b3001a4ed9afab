"""Rational equations whose every root is excluded: `\\frac{x + 1}{x - 3} = \\frac{4}{x - 3}`.

Its sides are 1 apart wherever both are defined, so as an identity it is false, and as an
equation it has no solution: cleared of its denominators (`x + 1 = 4`) it holds only at
x = 3, where a denominator vanishes. Texts set such equations up and solve them to that
excluded root as often as they miswrite a rewrite, so `set_up_over_denominators` tells the
identity checks when the shape says "equation", and `poles_only` gives the derivation checks
the roots clearing the denominators may bring (sympy cancels the written denominators
against the numerator and is left with a constant, no equation to compare with).
"""

from __future__ import annotations

from verifiers.calculator.rewrite_cues import SETS_UP

__all__ = ["no_point", "poles_only", "set_up_over_denominators"]


def _denominators(side) -> set:
    """The powers with a negative exponent and a letter, as read (`\\frac{2x + 6}{x + 3}` keeps
    its `(x + 3)^{-1}`, where sympy's `together` would cancel it to 2)."""
    import sympy

    return {p for p in side.atoms(sympy.Pow) if p.exp.is_negative and p.base.free_symbols}


def set_up_over_denominators(a, b, before: str) -> bool:
    """Whether an equation whose sides are a constant apart where defined is one set up: the
    same denominators as written on both sides (`\\frac{6}{x - 3} + 1 = \\frac{2x}{x - 3}`;
    `x^2 + \\frac{1}{x^2} = (x + \\frac{1}{x})^2 - 1` rewrites a square, over x^2 on one side
    and x on the other), or letter denominators after words that set up an equation."""
    under = [_denominators(a), _denominators(b)]
    one = bool(under[0]) and under[0] == under[1]
    return one or any(under) and bool(SETS_UP.search(before.lower()[-40:]))


def no_point(expr) -> bool:
    """Whether `expr = 0`, with letters, is a nonzero constant in lowest terms: no point of its
    domain satisfies it (as a condition it would make anything follow)."""
    import sympy

    if not expr.free_symbols:
        return False
    whole = sympy.together(expr)
    return not whole.free_symbols and whole != 0


def poles_only(expr, var) -> frozenset | None:
    """The real zeros of the written denominators of `expr = 0` when it is such an equation (its
    sides a nonzero constant apart where defined): every root clearing them can bring. None
    when it is not one, or a zero is not exact."""
    import sympy

    under = _denominators(expr)
    if not under or expr.free_symbols != {var}:
        return None
    try:
        if not no_point(expr):
            return None
        zeros = set()
        for power in under:
            found = sympy.roots(sympy.Poly(power.base, var))
            if sum(found.values()) != sympy.degree(power.base, var):
                return None
            zeros |= {r for r in found if r.is_real}
    except (sympy.PolynomialError, ValueError, TypeError):
        return None
    return frozenset(zeros)
