"""Equations in the sine and cosine of one angle: `\\sin x + 1 = 2\\cos^2 x`, then
`\\sin^2 x + \\cos^2 x = 2\\cos^2 x`.

`atom_roots` judges a derivation between equations in one function of the unknown; an equation
that writes several (`\\tan x + \\sec x = 2\\cos x`, `\\sin 2x = \\cos x`) is one in the point
(s, c) = (\\sin x, \\cos x) of the unit circle once every function is written in s and c. Its
solutions are the finitely many points of the circle where it holds (an equation that holds on
the whole circle is an identity and says nothing here).

A chain may restrict the angle to a quadrant or an interval D and drop the points outside it
(`\\sin x = \\frac{3}{5}`, so `\\cos x = \\frac{4}{5}`), or square and gain some, so two sets of
points that differ prove nothing. But an equation drawn from another holds wherever that one
holds in D (dividing by a factor the chain knows is not 0 shrinks D, no more), so where the
first has points in D the two share a point. Two equations with no point of the circle in
common are a slip, then, unless D excludes every point of the first: a False needs the first
to have real points and the second none of them, none at all included.
"""

from __future__ import annotations

import re

from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import DECIMAL, readings
from verifiers.calculator.relations import admissible
from verifiers.calculator.symbolic import fmt

__all__ = ["circle_derivation", "identity_on_circle"]

_MAX_DEGREE = 8  # of an equation in s and c: beyond it the roots cost more than a step's limit


def circle_derivation(first, second, defs: dict) -> ClaimResult | None:
    """`second` (a `solutions.Condition`) drawn from `first`, both equations in the sine and
    cosine of one angle; False when they share no point of the circle (see the module
    docstring), None when they share a point or either is no such equation."""
    sides = (first.left, first.right, second.left, second.right)
    if not all(admissible(m) and not DECIMAL.search(m) and "circ" not in m for m in sides):
        return None  # decimals may be rounded; degrees read the angle in other units
    read = [readings(m, defs) for m in sides]
    if not all(len(r) == 1 for r in read):
        return None
    e1, e2 = read[0][0] - read[1][0], read[2][0] - read[3][0]
    if len(names := e1.free_symbols | e2.free_symbols) != 1 or e1.free_symbols != names:
        return None
    name = next(iter(names))
    if len(_kinds(e1, name) | _kinds(e2, name)) < 2:
        return None  # one function alone: `atom_roots` judges it, with its values exactly
    points = [circle_points(e, name) for e in (e1, e2)]
    if points[0] is None or points[1] is None or not points[0]:
        return None
    if {_rounded(p) for p in points[0]} & {_rounded(p) for p in points[1]}:
        return None
    return ClaimResult(
        "false", f"{second.left} = {second.right}", _listed(name, points[1]),
        _listed(name, points[0]), f"does not follow from `{first.left} = {first.right}`",
    )  # fmt: skip


def _kinds(expr, name) -> set:
    """The functions of `name` in `expr`, `\\sin 2x` read as 2 \\sin x \\cos x."""
    import sympy

    plain = sympy.expand_trig(expr)
    return {type(f).__name__ for f in plain.atoms(sympy.Function) if name in f.free_symbols}


def _rounded(point) -> tuple:
    return tuple(round(float(v), 9) + 0.0 for v in point)  # `+ 0.0`: -0.0 is 0.0


def _listed(name, points) -> str:
    if not points:
        return f"no real {name}"
    pairs = sorted({f"({fmt(s)}, {fmt(c)})" for s, c in points})
    return f"(sin {name}, cos {name}) in {{{', '.join(pairs)}}}"


def identity_on_circle(condition, defs: dict) -> bool:
    """Whether an equation (a `solutions.Condition`) in the sine and cosine of one angle holds
    at every point of the circle (`\\sin^2 x + \\cos^2 x = 1`): one written on the way is a fact
    used, and the next equation is still drawn from the one before it."""
    if not re.search(r"\\(?:sin|cos|tan|sec|csc|cot)\b", condition.left + condition.right):
        return False
    a, b = readings(condition.left, defs), readings(condition.right, defs)
    if len(a) != 1 or len(b) != 1 or len(names := (a[0] - b[0]).free_symbols) != 1:
        return False
    reduced = _reduced(a[0] - b[0], next(iter(names)))
    return reduced is not None and reduced[0] == 0 and reduced[1] == 0


def circle_points(expr, name) -> list | None:
    """The points (sin x, cos x), as 30-digit numbers, where `expr` = 0 with x = `name`: None
    where `_reduced` reads no such equation or the equation holds on the whole circle."""
    import sympy

    s = sympy.Symbol("s", real=True)
    reduced = _reduced(expr, name)
    if reduced is None or reduced[0] == 0 and reduced[1] == 0:
        return None
    a, b, bottom = reduced
    try:
        # With c = -A/B, squaring gives A^2 = B^2 (1 - s^2), whose roots in [-1, 1] carry
        # every point.
        squared = sympy.Poly(sympy.expand(a**2 - b**2 * (1 - s**2)), s)
        if squared.is_zero:
            return None
        found = []
        for root in sympy.Poly(sympy.sqf_part(squared.as_expr()), s).real_roots():
            sv = sympy.N(root, 30)
            if abs(sv) > 1:
                continue
            if abs(sympy.N(b.subs(s, root), 30)) > 1e-20:
                found.append((sv, sympy.N(-a.subs(s, root) / b.subs(s, root), 30)))
            elif abs(sympy.N(a.subs(s, root), 30)) <= 1e-20:
                half = sympy.sqrt(1 - sv**2)
                found.extend({(sv, half), (sv, -half)})
        at = [(sv, cv) for sv, cv in found if abs(sympy.N(bottom(sv, cv), 30)) > 1e-20]
        return at  # a point where a denominator is 0 solves nothing
    except (sympy.PolynomialError, sympy.GeneratorsNeeded, ValueError, TypeError):
        return None


def _reduced(expr, name) -> tuple | None:
    """(A(s), B(s), the denominator as a function of (s, c)) with `expr`'s numerator equal to
    A(s) + c B(s) modulo s^2 + c^2 = 1, where s = sin x, c = cos x and x = `name`: None where x
    stands outside the sine, cosine, tangent, secant, cosecant or cotangent of x, of a multiple
    of x or of x plus a constant, or where the coefficients are not rational."""
    import sympy

    s, c = sympy.symbols("s c", real=True)
    try:
        plain = sympy.expand_trig(expr)
        trig = plain.atoms(sympy.sin, sympy.cos, sympy.tan, sympy.sec, sympy.csc, sympy.cot)
        if any(f.args != (name,) for f in trig if name in f.free_symbols):
            return None
        put = plain.xreplace({
            sympy.sin(name): s, sympy.cos(name): c, sympy.tan(name): s / c,
            sympy.sec(name): 1 / c, sympy.csc(name): 1 / s, sympy.cot(name): c / s,
        })  # fmt: skip
        if name in put.free_symbols or not put.free_symbols <= {s, c}:
            return None
        top, bottom = sympy.fraction(sympy.cancel(sympy.together(put)))
        poly = sympy.Poly(top, s, c)
        if poly.total_degree() > _MAX_DEGREE or not all(k.is_Rational for k in poly.coeffs()):
            return None
        rest = sympy.rem(top, c**2 + s**2 - 1, c)
        a, b = sympy.expand(rest.coeff(c, 0)), sympy.expand(rest.coeff(c, 1))
        return a, b, sympy.Lambda((s, c), bottom)
    except (sympy.PolynomialError, sympy.GeneratorsNeeded, ValueError, TypeError):
        return None
