"""The symbolic checker: relations between expressions, decided exactly, run in a killable child.

What a link claims is decided by `verifiers.calculator.claims_kind` (which calls these in the
killable worker, one step at a time); this module only reads members and evaluates:

- **Identity** (`A = B` claimed for every value of its symbols): both sides are evaluated
  exactly at several rational and integer points. A point where either side is undefined or
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
e); a link is false only when false under every reading.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.relations import DEGREES

__all__ = ["compare_identity", "confirmed", "follows", "readings", "warm"]

_POINTS = (
    (Fraction(7, 3), Fraction(-5, 4), Fraction(11, 7), Fraction(13, 5), Fraction(-17, 6)),
    (Fraction(3, 2), Fraction(19, 9), Fraction(-2, 7), Fraction(5, 11), Fraction(23, 4)),
    (Fraction(-9, 5), Fraction(4, 13), Fraction(29, 8), Fraction(-1, 3), Fraction(6, 17)),
    (Fraction(2), Fraction(3), Fraction(5), Fraction(7), Fraction(11)),
    (Fraction(4), Fraction(9), Fraction(6), Fraction(13), Fraction(8)),
)
_DIGITS = 40  # working precision of a numeric comparison
_MAX_NESTING = 8  # applications of the chain's functions replaced in one member




def warm() -> None:
    """Import the parser and sympy in a fresh child before its first timed check."""
    _parse("x^2 + \\frac{1}{2}", "10")


def _config():
    from latex2sympy2_extended.latex2sympy2 import ConversionConfig
    from latex2sympy2_extended.math_normalization import NormalizationConfig

    return (
        NormalizationConfig(
            basic_latex=True, units=False, malformed_operators=False, nits=False,
            boxed="all", equations=False,
        ),
        ConversionConfig(
            interpret_as_mixed_fractions=False, interpret_simple_eq_as_assignment=False,
            interpret_contains_as_eq=False, lowercase_symbols=False,
        ),
    )  # fmt: skip


@lru_cache(maxsize=4096)
def _library_reading(member: str, log_base: str = "10"):
    """The member as `latex2sympy2_extended` reads it (None: it cannot), for confirmation."""
    import sympy
    from latex2sympy2_extended import latex2sympy

    if log_base != "10":
        member = member.replace("\\log", "\\ln")
    # The parser reads `2(3)` as 5 and `8(1) - 6j` as 9 - 6j: a number before a parenthesis
    # is a product, so say so.
    member = re.sub(r"(\d)\s*\(", r"\1\\cdot(", member)
    norm, conv = _config()
    try:
        expr = latex2sympy(member, normalization_config=norm, conversion_config=conv)
    except Exception:  # the parser's own errors: a member it cannot read is not confirmed
        return None
    if not isinstance(expr, sympy.Expr):
        return None
    try:
        return expr.doit()
    except Exception:
        return None


def _exact(expr):
    """The library reads `1.5` as a float: the decimal it writes, as an exact number."""
    import sympy

    floats = expr.atoms(sympy.Float)
    return expr.xreplace({f: sympy.Rational(str(f)) for f in floats}) if floats else expr


def confirmed(members: tuple[str, ...], defs: dict | None = None) -> bool:
    """Whether `latex2sympy2_extended` reads every member as the same expression we do: a
    False stands only when two readers agree on what is written."""
    for member in members:
        # Decimals read as written: whether a rounding excuses the claim is the caller's.
        ours = readings(member, defs, decimals=True)
        theirs = [_exact(e) for e in readings(member, defs, library=True, decimals=True)]
        if not ours:
            return False
        if defs and re.search(rf"(?<![A-Za-z\\])[{''.join(defs)}]\s*\(", member):
            continue  # `h(-1)` applies a function the chain defined; the library reads -h
        if not theirs:
            continue  # the library cannot read it (`\\log_2 (4x)`, `f(x + 1)`): ours stands
        if len(ours) != len(theirs):
            return False
        for a, b in zip(ours, theirs, strict=True):
            if (b.free_symbols - a.free_symbols) or compare_identity(a, b)[0] != "holds":
                return False
    return True


@lru_cache(maxsize=8192)
def _parse(member: str, log_base: str = "10", functions: frozenset = frozenset()):
    """Our reading of the member (None: outside the grammar)."""
    from verifiers.calculator.latex_math import ParseError, read_member

    try:
        return read_member(member, log_base, functions)
    except (ParseError, ValueError, TypeError, ZeroDivisionError):
        return None


def readings(
    member: str, defs: dict | None = None, library: bool = False, decimals: bool = False
) -> list:
    """Every reading of a member (one, or two for an unbased log) with the chain's functions
    applied; empty: unreadable (a function nobody defined is not read). `library`: as
    `latex2sympy2_extended` reads it, for `confirmed`. `decimals`: a decimal beside unknowns
    is read as the exact number it writes (for a caller that allows for its rounding)."""
    # Cached: a chain restates its members step after step, and each link reads both sides.
    return list(_readings(member, tuple(sorted((defs or {}).items())), library, decimals))


@lru_cache(maxsize=8192)
def _readings(member: str, definitions: tuple, library: bool, decimals: bool) -> tuple:
    import sympy
    from sympy.core.function import AppliedUndef

    defs = dict(definitions)
    functions = frozenset(defs)
    bases = ["10", "e"] if "\\log" in member and "\\log_" not in member else ["10"]
    # A number of degrees is that many 180ths of pi, for both readers alike (the library
    # reads `\\tan 30^\\circ` as the tangent of 30 radians).
    member = DEGREES.sub(r"(\1 \\cdot \\frac{\\pi}{180})", member)
    if library:
        found = [_library_reading(member, base) for base in bases]
    else:
        found = [_parse(member, base, functions) for base in bases]
    if (
        not decimals
        and any(e is not None and e.free_symbols for e in found)
        and DECIMAL.search(member)
    ):
        return ()  # decimals beside unknowns: an approximation, never an identity
    out = []
    for expr in found:
        if expr is None:
            return ()
        # Applications replaced innermost first, pass after pass: `P(P(x))` holds `P(x)`, and
        # the order a set of atoms comes in must not decide what is read.
        for _ in range(_MAX_NESTING):
            apps = expr.atoms(AppliedUndef)
            if not apps:
                break
            inner = {}
            for app in apps:
                name = app.func.__name__
                if not defs or name not in defs or len(app.args) != 1:
                    return ()
                if not app.args[0].atoms(AppliedUndef):
                    arg, body = defs[name]
                    inner[app] = body.xreplace({arg: app.args[0]})
            expr = expr.xreplace(inner)
        if expr.atoms(AppliedUndef) or not isinstance(expr, sympy.Expr):
            return ()
        out.append(expr)
    return tuple(out)


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
    for row in _POINTS:
        subs = {s: sympy.Rational(row[i % len(row)].numerator, row[i % len(row)].denominator)
                for i, s in enumerate(names)}  # fmt: skip
        point = tuple(subs.items())
        a, b = _point_value(left, point), _point_value(right, point)
        if a is None or b is None:
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


def _rational(expr, names) -> bool:
    try:
        return bool(names) and expr.is_rational_function(*names)
    except (TypeError, ValueError):
        return False


def _decimals(member: str) -> int | None:
    """Digits after the point of the least precise decimal written in the member."""
    import re

    found = re.findall(r"\d\.(\d+)", member)
    return min(len(d) for d in found) if found else None


def _show(value) -> str:
    import sympy

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
    if any(verdicts):
        return ClaimResult("holds", text, numbers=True)
    a, b = shown
    return ClaimResult("false", text, _show(b), _show(a), "the two sides differ", numbers=True)


@lru_cache(maxsize=4096)
def roots_of(expr, var):
    """The set of roots of a polynomial equation `expr = 0` in one unknown (None: not one)."""
    import sympy

    try:
        num, den = sympy.fraction(sympy.together(expr))
        poly = sympy.Poly(sympy.expand(num), var)
    except Exception:
        return None
    if poly.degree() < 1 or poly.degree() > 6 or not all(c.is_Rational for c in poly.coeffs()):
        return None
    found = sympy.roots(poly)
    if sum(found.values()) != poly.degree():
        return None  # roots sympy cannot write exactly: say nothing
    return frozenset(r for r in found if den.subs(var, r) != 0)


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


# A decimal written in a member (`1.5`): read exactly, it may still be a rounding.
DECIMAL = re.compile(r"\d\.\d")
# Beyond these, a Groebner basis can take far longer than a step's time limit.
_MAX_IDEAL_UNKNOWNS = 6


def _rational_coefficients(poly, names) -> bool:
    import sympy

    return all(c.is_Rational for c in sympy.Poly(sympy.expand(poly), *names).coeffs())


def follows(expr, conditions: list | None) -> bool:
    """Whether `expr = 0` may follow from `conditions` (each an expression equal to zero).

    True when it does (its numerator lies in the ideal the conditions' numerators generate)
    and when nothing can be said (None: a condition we could not read; one that is not
    polynomial); False only when there are no conditions or reduction leaves a remainder."""
    import sympy

    if conditions is None:
        return True
    if not conditions:
        return False
    # Functions of the unknowns (sin x, a root) become unknowns of their own, one per atom:
    # the conditions then speak about them as polynomials do ("sin^2 x + cos^2 x = 1").
    atoms = set().union(*(e.atoms(sympy.Function, sympy.Pow) for e in [expr, *conditions]))
    opaque = [a for a in atoms if a.free_symbols and (isinstance(a, sympy.Function)
              or not (a.exp.is_Integer))]  # fmt: skip
    rename = {a: sympy.Dummy(f"u{i}") for i, a in enumerate(sorted(opaque, key=str))}
    expr = expr.xreplace(rename)
    conditions = [c.xreplace(rename) for c in conditions]
    names = sorted(set().union(expr.free_symbols, *(c.free_symbols for c in conditions)), key=str)
    try:
        # Numerators in lowest terms: `together` keeps a factor its denominators share, and
        # the same condition written over another denominator would then not contain itself.
        target = sympy.fraction(sympy.cancel(sympy.together(expr)))[0]
        polys = [sympy.fraction(sympy.cancel(sympy.together(c)))[0] for c in conditions]
        if not all(p.is_polynomial(*names) for p in [target, *polys]):
            return True
        if len(names) > _MAX_IDEAL_UNKNOWNS or (
            len(names) > 4 and not all(_rational_coefficients(p, names) for p in polys)
        ):
            return True  # a basis that may take minutes to compute: say nothing
        basis = sympy.groebner([sympy.expand(p) for p in polys], *names, order="grevlex")
        return bool(basis.contains(sympy.expand(target)))
    except Exception:  # sympy's own failures on odd input: say nothing rather than guess
        return True
