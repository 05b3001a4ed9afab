"""The symbolic checker: relations between expressions, decided exactly, run in a killable child.

What a link claims is decided by `verifiers.calculator.claims_kind` (which calls these in the
killable worker, one step at a time); this module evaluates what
`verifiers.calculator.readers` reads:

- **Identity** (`A = B` claimed for every value of its symbols): both sides are evaluated
  exactly at several rational and integer points (whole-number points only where a factorial
  or binomial of a letter is written: `counting`). A point where either side is undefined or
  not real says nothing. If the sides agree at every point that says something, the link
  holds (for polynomials and rational functions agreement at more points than the degree is
  a proof; elsewhere it is overwhelming evidence, and a True only says the check passed). If
  they differ at every point, the identity is false wherever the points lie, so no domain
  restriction the text may intend rescues it; if they agree at some points and not others,
  the claim may hold on a restricted domain, and the checker abstains.
- **Number** (`A = B`, `A < B` without symbols): exact values compared; a member written with
  decimals is compared within the rounding its digits allow.
- **Derivation** (an equation from the one before it): for one unknown, the solution sets
  must overlap as "one contains the other" (squaring adds roots, dividing by a factor loses
  one: both fine; `2x + 5 = 11` then `2x = 16` shares no root: false); with several
  unknowns nothing is judged (a system's lines look like rearrangements of each other).
- **Claimed solution** (`x = 4` after `x^2 - 5x + 6 = 0`): substituted back; false when the
  equation does not hold there.

Every reading that is ambiguous is tried both ways (an unbased `\\log` as base 10 and base
e, `readers`); a link is false only when false under every reading.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.counting import INTEGER_POINTS, counted, counts_at
from verifiers.calculator.readers import fixed_letters, readings, trig_atoms

__all__ = [
    "check_number", "compare_identity", "fmt", "in_degrees", "near", "point", "rational_roots",
    "roots_of", "same_value", "sides_at", "linear_root",
]

_POINTS = (
    (Fraction(7, 3), Fraction(-5, 4), Fraction(11, 7), Fraction(13, 5), Fraction(-17, 6)),
    (Fraction(3, 2), Fraction(19, 9), Fraction(-2, 7), Fraction(5, 11), Fraction(23, 4)),
    (Fraction(-9, 5), Fraction(4, 13), Fraction(29, 8), Fraction(-1, 3), Fraction(6, 17)),
    (Fraction(2), Fraction(3), Fraction(5), Fraction(7), Fraction(11)),
    (Fraction(4), Fraction(9), Fraction(6), Fraction(13), Fraction(8)),
)
_DIGITS = 40  # working precision of a numeric comparison


def _value(expr, subs: dict):
    """The expression's real value at a point to `_DIGITS` digits, or None where undefined."""
    import sympy

    try:
        v = expr.xreplace(subs) if subs else expr
        if v.is_Rational:
            return v  # exact: a rational value is compared exactly, however large
        v = sympy.N(v, _DIGITS)
    except Exception:
        return None
    largest, smallest = _bounds()
    if v.is_Float:  # a real number, the common case, without the general checks below
        return None if abs(v) > largest else v
    if v.is_number and v.is_finite and abs(v) > largest:
        return None  # beyond the digits a float comparison can trust
    if not v.is_number or v.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        return None
    re_part, im_part = v.as_real_imag()
    if abs(im_part) > smallest:
        return None
    return re_part


@lru_cache(maxsize=1)
def _bounds():
    """The largest value a comparison to `_DIGITS` digits trusts, and the smallest it sees."""
    import sympy

    return sympy.Float(10) ** (_DIGITS // 2), sympy.Float(10) ** (-_DIGITS // 2)


@lru_cache(maxsize=16384)
def _point_value(expr, point: tuple):
    """`_value` at a point of (symbol, value) pairs. Cached: a side is compared with each of
    its neighbours, and a restated relation again, at the same points."""
    return _value(expr, dict(point))


def _untrusted(a, b) -> bool:
    """A float beside a value too large for its digits: `(2^x)^2 (2^y)^{11}` against `2^{1003}`
    at a small point differs by about 2^1003 wherever the point lies, which says nothing."""
    largest = _bounds()[0]
    return (a.is_Float or b.is_Float) and max(abs(a), abs(b)) > largest


def _close(a, b, digits: int | None = None) -> bool:
    if a == b:
        return True  # most comparisons agree exactly, and sympy's arithmetic below is slow
    scale = max(abs(a), abs(b), 1)
    tolerance = scale * _bounds()[1]
    if digits is None:
        return abs(a - b) <= tolerance
    return abs(a - b) <= 10 ** (-digits) * 0.5 + tolerance


@lru_cache(maxsize=8192)
def compare_identity(left, right):
    """('holds' | 'false' | 'mixed', constant difference or None, a point where they differ).

    Cached: a chain restates its relations step after step, and a claim is read against
    each of its neighbours (the witness it returns is shared: read it, never change it)."""
    import sympy

    names = sorted(left.free_symbols | right.free_symbols, key=str)
    agree = differ = 0
    diffs = []
    witness = None
    counts = counted(left, right)  # factorials and binomials of letters: whole numbers only
    # Bars make a function piecewise: the usual points may all lie on one piece, where
    # `|x - 20| = 20 - x` holds and `|x - 20| - |x - 18|` is the constant 2.
    bars = (left - right).atoms(sympy.Abs)
    if bars and (spread := _bar_points(bars, names)) is None:
        return "unknown", None, None
    for row in INTEGER_POINTS if counts else _POINTS + (spread if bars else ()):
        subs = {s: sympy.Rational(row[i % len(row)].numerator, row[i % len(row)].denominator)
                for i, s in enumerate(names)}  # fmt: skip
        if counts and not counts_at(counts, subs):
            continue
        point = tuple(subs.items())
        a, b = _point_value(left, point), _point_value(right, point)
        if a is None or b is None or _untrusted(a, b):
            continue
        if _close(a, b):
            agree += 1
        else:
            differ += 1
            diffs.append(a - b)
            witness = witness or (subs, a, b)
    if agree + differ < 3:
        return "unknown", None, None
    if differ == 0:
        return "holds", None, None
    if agree:
        # Rational functions that agree at some points and not at others differ exactly
        # (a nonzero numerator vanishes only on its roots, which a point may hit); other
        # functions may agree on one branch and not another: nothing to say.
        if not _rational(left - right, names):
            return "mixed", None, None
        return "false", None, witness
    constant = all(_close(d, diffs[0]) for d in diffs)
    return "false", (diffs[0] if constant else None), witness


# Far points, either sign: where bars of several letters open the other way.
_FAR = ((Fraction(100003, 3), Fraction(-70001, 9), Fraction(50021, 7)),
        (Fraction(-100003, 3), Fraction(70001, 9), Fraction(-50021, 7)))


def _bar_points(bars, names) -> tuple | None:
    """Points on every piece of a function with bars: in one letter, one on each side of
    every point where a bar's content changes sign (None where sympy cannot place them all);
    in several, far points of either sign beside the usual ones."""
    import sympy

    if len(names) != 1:
        return _FAR
    edges = set()
    for bar in bars:
        try:
            poly = sympy.Poly(bar.args[0], names[0])
        except sympy.PolynomialError:
            return None
        if poly.degree() > 4 or not all(c.is_Rational for c in poly.coeffs()):
            return None
        edges |= {Fraction(str(sympy.N(r, 20))) for r in poly.real_roots()}
    if not edges:
        return ()
    ends = sorted(edges)
    inside = [(a + b) / 2 for a, b in zip(ends, ends[1:], strict=False)]
    return tuple((p,) for p in (ends[0] - Fraction(7, 3), *inside, ends[-1] + Fraction(7, 3)))


def _rational(expr, names) -> bool:
    try:
        return bool(names) and expr.is_rational_function(*names)
    except (TypeError, ValueError):
        return False


def _decimals(member: str) -> int | None:
    """Digits after the point of the least precise decimal written in the member."""
    found = re.findall(r"\d\.(\d+)", member)
    return min(len(d) for d in found) if found else None


def _huge(value) -> bool:
    """A rational past a thousand digits: Python refuses to print one past 4,300."""
    return bool(getattr(value, "is_Rational", False)) and max(abs(value.p), value.q) > 10**1000


def _show(value) -> str:
    import sympy

    if _huge(value):
        return str(sympy.N(value, 8))
    try:
        simple = sympy.nsimplify(value, rational=False, tolerance=None)
    except Exception:
        simple = value
    text = str(simple if len(str(simple)) <= 30 else sympy.N(value, 8))
    return text


def check_number(left_s: str, op: str, right_s: str, defs: dict | None = None) -> ClaimResult:
    """A relation between two numbers, exactly (within the written rounding for decimals)."""
    text = f"{left_s} {op} {right_s}"
    lefts, rights = readings(left_s, defs), readings(right_s, defs)
    if not lefts or not rights:
        return ClaimResult("skipped", text, reason="not read whole")
    digits = min(
        (d for d in (_decimals(left_s), _decimals(right_s)) if d is not None), default=None
    )
    verdicts = []
    shown = None
    for left in lefts:
        for right in rights:
            a, b = _value(left, {}), _value(right, {})
            if a is None or b is None:
                return ClaimResult("skipped", text, reason="not a real number")
            if digits is not None and op == "=":
                near = _close(a, b, digits) or abs(a - b) <= 0.01 * max(abs(a), abs(b))
                verdicts.append(near)
            elif op == "=":
                verdicts.append(_close(a, b))
            elif op in ("<", "<=", ">", ">="):
                if _close(a, b):
                    verdicts.append(op in ("<=", ">="))
                else:
                    verdicts.append((a < b) == (op in ("<", "<=")))
            else:
                return ClaimResult("skipped", text, reason=f"relation {op!r}")
            shown = shown or (a, b)
    # A letter the problem fixed (`T = 8`) is no number the numeric reader knows: ours to judge.
    numbers = not fixed_letters(text, defs or {})
    if any(verdicts):
        return ClaimResult("holds", text, numbers=numbers)
    a, b = shown
    return ClaimResult("false", text, _show(b), _show(a), "the two sides differ", numbers=numbers)


def _polynomial(expr, var):
    """`expr = 0` as a polynomial in `var` of degree 1 to 6 with rational coefficients, and the
    denominator its roots must leave nonzero (None: not one)."""
    import sympy

    try:
        num, den = sympy.fraction(sympy.together(expr))
        poly = sympy.Poly(sympy.expand(num), var)
    except Exception:
        return None
    if poly.degree() < 1 or poly.degree() > 6 or not all(c.is_Rational for c in poly.coeffs()):
        return None
    return poly, den


@lru_cache(maxsize=4096)
def roots_of(expr, var):
    """The set of roots of a polynomial equation `expr = 0` in one unknown (None: not one)."""
    import sympy

    if expr.has(sympy.Abs):
        return _abs_roots(expr, var)
    if (found := _polynomial(expr, var)) is None:
        return None
    poly, den = found
    found = sympy.roots(poly)
    if sum(found.values()) != poly.degree():
        return None  # roots sympy cannot write exactly: say nothing
    return frozenset(r for r in found if den.subs(var, r) != 0)


def _abs_roots(expr, var):
    """The real roots of `expr = 0` where up to two absolute values stand (`|2x - 3| = 5`,
    `|x - 1| = |2x + 4|`): each choice of their signs is a polynomial equation, and its real
    roots count where those signs hold (bars are read of a real unknown). None where a choice
    is not one (`|x| - x` vanishes on a half line), a sign at a root is unknown, or bars nest."""
    import itertools

    import sympy

    bars = sorted(expr.atoms(sympy.Abs), key=str)
    if not 1 <= len(bars) <= 2:
        return None
    out = set()
    for signs in itertools.product((1, -1), repeat=len(bars)):
        case = expr.xreplace({b: s * b.args[0] for b, s in zip(bars, signs, strict=True)})
        if case.has(sympy.Abs):  # bars inside bars: the inner ones stay
            return None
        if var not in sympy.expand(case).free_symbols:  # `|x - 1| + |x - 2| = 3` for 1 < x < 2
            if sympy.simplify(case) == 0:
                return None
            continue
        roots = roots_of(case, var)
        # A root that is not real solves no sign case; one whose realness sympy cannot tell
        # leaves the set unknown.
        if roots is None or any(r.is_real is None for r in roots):
            return None
        for r in (r for r in roots if r.is_real):
            held = [(s * b.args[0].subs(var, r)).is_nonnegative
                    for b, s in zip(bars, signs, strict=True)]
            if None in held:
                return None
            if all(held):
                out.add(r)
    return frozenset(out)


def rational_roots(expr, var) -> list:
    """The rational roots of what `roots_of` reads, in a fixed order (none where it reads no
    polynomial). Found by factoring: a quartic's roots written out in radicals, only to be
    dropped, took seconds."""
    if (found := _polynomial(expr, var)) is None:
        return []
    poly, den = found
    return sorted((r for r in poly.ground_roots() if den.subs(var, r) != 0), key=str)


def value_at(expr, point: dict):
    """The expression's real value at a point (None: undefined, not real, or too large)."""
    return _value(expr, point)


def near(a, b) -> bool:
    """Two numbers within a hundredth of each other's size (or of 1): a written decimal may
    be rounded that far."""
    return abs(complex(a) - complex(b)) <= 0.01 * max(1.0, abs(complex(a)), abs(complex(b)))


def same_value(a, b) -> bool:
    """Two numbers equal to the working precision."""
    va, vb = _value(a, {}), _value(b, {})
    return va is not None and vb is not None and _close(va, vb)


def in_degrees(expr, point: dict) -> bool:
    """Whether `expr` vanishes with each value read as that many degrees, where a sine, a
    cosine or a tangent holds an unknown put in and no value holds pi ("$\\sin x =
    \\frac{1}{2}$, so $x = 30$"): a number of degrees is often written bare, and then the
    reading in radians is not the one meant."""
    import sympy

    if not any(f.has(s) for f in trig_atoms(expr) for s in point):
        return False
    if any(sympy.sympify(v).has(sympy.pi) for v in point.values()):
        return False
    at = _value(expr, {s: sympy.sympify(v) * sympy.pi / 180 for s, v in point.items()})
    return at is not None and _close(at, 0)


def point(subs: dict) -> str:
    """A witness point as evidence writes it: `x = 7/3, y = -5/4`."""
    return ", ".join(f"{name} = {value}" for name, value in subs.items())


def sides_at(subs: dict, a, b) -> str:
    """A witness and the two sides' values there: `x = 7/3 the sides are 4 and 5`; values alike
    in their first digits (`\\binom{10^9}{9}`) also say how far apart they are."""
    shown = f"{point(subs)} the sides are {fmt(a)} and {fmt(b)}"
    return shown if fmt(a) != fmt(b) else f"{shown}, {fmt(abs(a - b))} apart"


def fmt(value) -> str:
    """A sympy value as evidence writes it: a short ratio as it is, else six digits."""
    import sympy

    if _huge(value):
        return str(sympy.N(value, 6))
    simple = sympy.nsimplify(value, tolerance=1e-25, rational=True)
    if simple.is_Rational and len(str(simple)) <= 20:
        return str(simple)
    return str(sympy.N(value, 6))


def linear_root(expr, name):
    """The root of a linear equation whose coefficients are real numbers (None: not one)."""
    import sympy

    try:
        poly = sympy.Poly(sympy.expand(expr), name)
    except sympy.PolynomialError:
        return None
    if poly.degree() != 1 or not all(c.is_number and c.is_real for c in poly.all_coeffs()):
        return None
    slope, offset = poly.all_coeffs()
    return None if slope == 0 else -offset / slope
