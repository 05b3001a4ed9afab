"""Inequalities the text says hold for every value of a named kind: an order claimed in words.

"$\\left(\\frac{a+b}{2}\\right)^2 \\geq \\frac{a^2+b^2}{2}$, which holds for all real numbers
$a$ and $b$" claims the order at every real point, so one point of that kind where the order
fails (exactly evaluated) proves the claim false. Unlike an identity, an inequality depends on
its domain (`a + b \\geq 2\\sqrt{ab}` holds for positive numbers only), so it is judged only
where the words name the kind of value ("real", "positive", "nonnegative", "integer") and only
at positive points of that kind: the counterexample is one the text's own words admit, and
one a problem about positive numbers admits too (such a problem's solution may say "for all
real numbers" of an order it only needs for positive ones).

Not judged: a domain the words leave unnamed ("for all $x$": the problem's own conditions may
be meant), a condition or a set ("with", "where", "such that", "\\in"), letters the problem or
the chain tied by an equation (`a + b = 1` makes `ab \\leq 1/4` true), sides other than
rational functions and roots of them (a log's or a trig function's domain matters), and a
failure only at the boundary: a strict order (`x^2 > 0`) that fails only by equality is the
common loose wording of a non-strict one, so a False needs a point where even the non-strict
order fails.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction

from verifiers.calculator.claim_words import lone
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import readings
from verifiers.calculator.relations import admissible
from verifiers.calculator.symbolic import fmt, point, value_at

__all__ = ["affirmed_order", "names_only"]

# "for all positive real numbers", "for any real", "for every nonnegative integer".
_KIND = re.compile(
    r"\bfor\s+(?:all|any|every|each)\s+(?P<sign>positive|non-?negative)?\s*"
    r"(?P<kind>real|integer|rational)?\s*(?:numbers?|values?|reals|integers|rationals)?"
    r"\s*(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)
# What may follow the kind in the same sentence: the letters it names, nothing that narrows.
# Math there holds letters only (`$a$ and $b$`): `$x > 1$` or `$x \\neq 0$` narrows the kind.
_NAMES = r"[A-Za-z0-9_{},\s]*"
_REST = re.compile(
    rf"^(?:\${_NAMES}\$|\\\({_NAMES}\\\)|[\s,.]|\band\b|[a-zA-Z](?![a-zA-Z]))*$", re.DOTALL
)
# Positive values only: every kind the words name holds them, and a problem about positive
# numbers may say "for all real numbers" of an order it only needs there.
_VALUES = tuple(Fraction(v) for v in ("1/3", "1/2", "1", "2", "3", "5", "10"))
_OPS = {">": ">=", ">=": ">=", "<": "<=", "<=": "<="}
_TRIES = 60


def _domain(sentence: str) -> tuple[str, str] | None:
    """(sign, kind) the words name, or None when they name none or narrow it further."""
    found = _KIND.search(sentence)
    if found is None or not (found.group("sign") or found.group("kind")):
        return None
    if not _REST.match(found.group("rest")):
        return None  # "... for all real $x$ with $x \\neq 1$": a condition follows
    sign = (found.group("sign") or "").lower().replace("-", "")
    return sign, (found.group("kind") or "real").lower()


def names_only(sentence: str) -> bool:
    """Whether "for all ..." in the sentence goes on with nothing but the letters it names
    ("for all real numbers $a$ and $b$."), whatever kind it names or leaves unnamed."""
    found = _KIND.search(sentence)
    return found is not None and bool(_REST.match(found.group("rest")))


def _values(kind: str) -> list[Fraction]:
    return [v for v in _VALUES if kind != "integer" or v.denominator == 1]


def _fails(op: str, a, b) -> bool:
    """Whether even the non-strict form of `a op b` is false (a strict one failing only by
    equality is loose wording, not a slip)."""
    return a < b if _OPS[op] == ">=" else a > b


def _algebraic(expr) -> bool:
    """A rational function of its symbols, or roots of such: no log, trig or letter exponent."""
    import sympy

    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Function) or isinstance(node, sympy.Pow) and not (
            node.exp.is_Rational
        ):
            return False
    return True


def affirmed_order(
    left: str, op: str, right: str, sentence: str, known: list, defs: dict
) -> ClaimResult | None:
    """The order `left op right` judged as the words claim it ("which holds for all real
    numbers"): False at a point of the named kind where it fails; None when the words name no
    kind, the letters are tied by a known equation, or no such point is found."""
    domain = _domain(sentence)
    if domain is None or op not in _OPS:
        return None
    if not (admissible(left) and admissible(right)):
        return None
    a, b = readings(left, defs), readings(right, defs)
    if len(a) != 1 or len(b) != 1:
        return None
    a, b = a[0], b[0]
    names = sorted(a.free_symbols | b.free_symbols, key=str)
    if not names or len(names) > 4 or not (_algebraic(a) and _algebraic(b)):
        return None
    if any(lone(side) and not other.has(*side_read.free_symbols) for side, side_read, other
           in ((left, a, b), (right, b, a))):
        return None  # `a_n > 0`: a name's bound, no order between two expressions
    letters = {str(s) for s in names}
    for condition in known:
        written = set(re.findall(r"(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])", " ".join(condition)))
        if written & letters:
            return None  # `a + b = 1` may be what the order rests on
    values = _values(domain[1])
    rng = random.Random(len(names))  # the same points for the same letters, every run
    for _ in range(_TRIES):
        subs = {s: rng.choice(values) for s in names}
        exact = {s: _rational(v) for s, v in subs.items()}
        x, y = value_at(a, exact), value_at(b, exact)
        if x is None or y is None:
            continue
        loose = (x.is_Float or y.is_Float) and abs(x - y) <= 1e-12 * max(1, abs(x), abs(y))
        if _fails(op, x, y) and not loose:  # a root's value differs from its rival at once
            why = (
                f"said to hold for all {' '.join(filter(None, domain))} values, but at "
                f"{point(exact)} the sides are {fmt(x)} and {fmt(y)}"
            )
            return ClaimResult("false", f"{left} {op} {right}", reason=why)
    return None


def _rational(value: Fraction):
    import sympy

    return sympy.Rational(value.numerator, value.denominator)
