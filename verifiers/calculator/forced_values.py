"""A value the problem's conditions force: `a^2 + b^2 = 19` where it gave `a + b = 5`, `ab = 6`.

The equations the problem writes about its unknowns are read as one system. Where an
expression's numerator and denominator each reduce, modulo that system's ideal (a Groebner
basis over the rationals), to a number, and the ideal is not the whole ring (the system has a
solution), the expression takes that one value on every solution of the system: claiming
another is false whatever the solution is. That catches the classic slip `(a + b)^2 - ab` for
`a^2 + b^2`, and `xyz = 8` after the problem's `x + y + z = 6`, `x - y = 1`, `y - z = 1`.

Only the problem's own equations count. The ones a chain writes include cases, factor pairs
("(i) x + y = 23, x - y = 1; (ii) x + y = -23, ...") and other curves in the same letters: on
MATH train solutions they gave eight false flags. A problem about lines, curves or points is
not read at all (`y = x + 1` and `y = 3 - x` are two asymptotes, not a system), nor a claim in
one unknown (`z^6 = 1` beside `z^4 - z^2 + 1 = 0` names other roots; "given that x = 5/7 is a
solution", the other one is `x = 7/8`), nor a linear one alone (`x + 2y = 4` may set up
another question in the same letters; `x + 2y = 3 + 10 = 13` computes), nor problem equations
that contradict each other (alternatives, parts) or one about these unknowns the reader cannot
read (`known.known_polynomials`). Clauses that test, suppose or try never reach this check
(`claims_kind`).
"""

from __future__ import annotations

import functools
import re

from verifiers.calculator.claim_words import COMMANDS, compact, lone, numeric
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.known import known_polynomials
from verifiers.calculator.readers import readings
from verifiers.calculator.relations import admissible

__all__ = ["CURVES_GIVEN", "curves_problem", "forced"]

# Marks a problem about curves among its relations' texts (`given`): there `y = x + 1` and `y =
# 3 - x` are two lines, not one system, and a point of one need not lie on the other.
CURVES_GIVEN = r"\curves"
_CURVES = re.compile(
    r"\b(?:lines?|graphs?|curves?|parabola|hyperbola|ellipse|circles?|planes?|asymptotes?"
    r"|coordinates?|points?|intersect\w*|slopes?|axis|axes|tangent|region|locus|plotted)\b",
    re.IGNORECASE,
)

_LETTERS = re.compile(r"[A-Za-z]")  # in a member with its commands taken out
# Beyond these, a Groebner basis may take longer than a step's time limit.
_MAX_UNKNOWNS = 4
_MAX_CONDITIONS = 6


def forced(
    members: tuple[str, ...], ops: tuple[str, ...], defs: dict, known: list, given: frozenset
) -> tuple | None:
    """(False, the link's members) for the first `=` link of a chain between an expression in
    two or more unknowns and a number that the problem's equations give another value (see the
    module docstring); None when there is none."""
    if CURVES_GIVEN in given or set(ops) != {"="}:
        return None  # `a | b = ...`, `A = B < C`: not a value alone
    # Cheap tests first: every link of every step asks, and few hold two letters.
    if not any(len(set(_LETTERS.findall(COMMANDS.sub("", m)))) > 1 for m in members):
        return None
    known = _problem_equations(tuple(known), given)
    if not known:
        return None
    for i in range(len(ops)):
        left, right = members[i], members[i + 1]
        if lone(left) or lone(right) or not numeric(right, defs):
            continue  # `x + (-x)`: an expression, however it simplifies, is no value
        if not (admissible(left) and admissible(right)):
            continue
        a, b = readings(left, defs), readings(right, defs)
        if len(a) != 1 or len(b) != 1:
            continue
        expr, value = a[0], b[0]
        if value.free_symbols or len(expr.free_symbols) < 2 or not value.is_number:
            continue  # one unknown: `z^6 - 1 = 0` beside `z^4 - z^2 + 1 = 0` is another equation
        if len(members) == 2 and _linear(expr):
            continue  # "Next, `x + 2y = 4`": another question's equation, unless computed
        found = _forced(expr, value, known, defs)
        if found is None or _rounded(right, found[0]):
            continue
        text = f"{left} = {right}"
        reason = f"the problem's equations {found[1]} give {left} = {found[0]}"
        return ClaimResult("false", text, str(value), str(found[0]), reason), (left, right)
    return None


def _rounded(written: str, true) -> bool:
    """Whether a decimal written for the value is within one unit of its last place."""
    places = [len(d) for d in re.findall(r"\d\.(\d+)", written)]
    if not places:
        return False
    value = readings(written, {})
    return len(value) == 1 and abs(float(value[0] - true)) <= 10.0 ** -max(places)


def _linear(expr) -> bool:
    """Whether the expression is of degree one in its unknowns (`x + 2y`, not `xy`, `1/a`)."""
    import sympy

    try:
        return expr.is_polynomial() and sympy.Poly(expr).total_degree() <= 1
    except Exception:  # noqa: BLE001 - sympy's own failures on odd input: not linear
        return False


def curves_problem(question: str) -> bool:
    """Whether the problem speaks of curves or points, whose equations are no system."""
    return _CURVES.search(question) is not None


def _forced(expr, value, known: list, defs: dict):
    """(the value the conditions force, their text) when they force one other than `value`."""
    import sympy

    polys = known_polynomials(known, defs, expr)
    if not polys:
        return None
    # The conditions that share an unknown with these, transitively.
    while True:
        more = known_polynomials(known, defs, expr, *polys)
        if more is None:
            return None
        if len(more) == len(polys):
            break
        polys = more
    names = sorted(set().union(expr.free_symbols, *(p.free_symbols for p in polys)), key=str)
    if len(names) > _MAX_UNKNOWNS or len(polys) > _MAX_CONDITIONS:
        return None
    try:
        nums = [_numerator(p) for p in polys]
        # The expression as a quotient: its value is forced when its numerator and its
        # denominator each reduce to a number (`\\frac{a + b}{ab}` after `a + b = 6, ab = 4`).
        top, bottom = sympy.fraction(sympy.cancel(sympy.together(expr)))
        parts = [sympy.expand(top), sympy.expand(bottom), *nums]
        if not all(n.is_polynomial(*names) for n in parts) or not all(
            c.is_Rational for n in parts for c in sympy.Poly(n, *names).coeffs()
        ):
            return None
        basis = _basis(tuple(nums), tuple(names))
        if basis == [1]:
            return None  # conditions that contradict each other: cases, not one system
        top, bottom = (sympy.reduced(n, basis, *names, order="grevlex")[1] for n in parts[:2])
    except Exception:  # noqa: BLE001 - sympy's own failures on odd input: say nothing
        return None
    if not (top.is_Rational and bottom.is_Rational) or bottom == 0:
        return None
    forced = top / bottom
    off = abs(complex(sympy.N(forced - value, 30)))
    if off <= 1e-9 * max(1.0, abs(float(forced))):
        return None  # the value written (or one too close to tell from it)
    return forced, "; ".join(_texts(known, defs, polys))


@functools.lru_cache(maxsize=64)
def _problem_equations(known: tuple, given: frozenset) -> list:
    return [(a, b) for a, b in known if compact(f"{a}={b}") in given]


@functools.lru_cache(maxsize=64)
def _basis(polys: tuple, names: tuple) -> list:
    """The problem's equations' Groebner basis: each link of every step asks again."""
    import sympy

    return list(sympy.groebner(list(polys), *names, order="grevlex").exprs)


@functools.lru_cache(maxsize=256)
def _numerator(expr):
    import sympy

    return sympy.expand(sympy.fraction(sympy.cancel(sympy.together(expr)))[0])


def _texts(known: list, defs: dict, polys: list) -> list[str]:
    """The conditions as the text wrote them, in its order."""
    out = []
    for left, right in known:
        a, b = readings(left, defs), readings(right, defs)
        if len(a) == 1 and len(b) == 1 and a[0] - b[0] in polys:
            out.append(f"{left} = {right}")
    return list(dict.fromkeys(out))
