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

An order written right after the interval of its one letter ("For $0 < x < 1$, $\\frac{1}{1-x} <
(1-x)^{2011}$", "since $x > 2$, we have ...", a sign chart's "On $(-1, 3)$: ..."; which interval
is `interval_scopes`') or right before it ("$n^2 > 2n$ for all $n \\geq 3$"; `interval_order`)
is claimed on that interval, unless it is a case's condition (`interval_scopes.condition_on`).
The words may speak of all of it or of the one x the chain is about, so a False needs the order
to fail at every point tried across the interval (whole numbers only, for a letter that names
them by habit or after "integer"): an order that fails across the interval is not drawn from
it, whichever x is meant. Bounds past a million are not tried (their points' powers are too
large). Brackets that name no letter put an order on them only when one end is a zero or a
pole of its sides, as a sign chart's ends are.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction

from verifiers.calculator.claim_words import NOT_CLAIMED, last_sentence, lone, word_set
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.interval_scopes import (
    CONDITIONS,
    clause_interval,
    condition_on,
    stated_interval,
)
from verifiers.calculator.readers import readings
from verifiers.calculator.relations import admissible, written
from verifiers.calculator.symbolic import fmt, point, value_at

__all__ = ["affirmed_order", "interval_order", "names_only"]

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


def _fails_clearly(op: str, x, y) -> bool:
    """`_fails` at one point, and not by a root's digits alone: sides equal to within their
    rounding, one of them a float, say nothing."""
    loose = (x.is_Float or y.is_Float) and abs(x - y) <= 1e-12 * max(1, abs(x), abs(y))
    return _fails(op, x, y) and not loose


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
        if _fails_clearly(op, x, y):  # a root's value differs from its rival at once
            why = (
                f"said to hold for all {' '.join(filter(None, domain))} values, but at "
                f"{point(exact)} the sides are {fmt(x)} and {fmt(y)}"
            )
            return ClaimResult("false", f"{left} {op} {right}", reason=why)
    return None


def _rational(value: Fraction):
    import sympy

    return sympy.Rational(value.numerator, value.denominator)


# The words after an order that put it on the interval written after it ("... for $x > 1$").
_AFTER = re.compile(r"^\s*(?:for(?:\s+(?:all|every|any))?|whenever)\s*$", re.IGNORECASE)
_WHOLE = frozenset("n m k i j".split())  # letters that name whole numbers by habit
# Points across a finite interval, as fractions of its length, and steps off a one-sided one.
_ACROSS = tuple(Fraction(v) for v in ("1/97", "1/10", "1/4", "1/3", "1/2", "2/3", "3/4", "9/10"))
_OFF = tuple(Fraction(v) for v in ("1/97", "1/3", "1/2", "1", "2", "3", "5", "10", "100"))


def interval_order(clauses: list, k: int, defs: dict) -> tuple[ClaimResult, tuple[str, str]] | None:
    """(False, its sides) for the first link of clause `k` that fails at every point tried of
    the interval the text puts it on (`interval_scopes.stated_interval`: "For $0 < x < 1$,
    ...", a sign chart's "On $(-\\infty, -2)$: ...") or the clause right after it gives its one
    letter ("... for $0 < x < 1$"); None when neither gives an interval, the words set up a
    condition, or no link fails everywhere."""
    members, ops = clauses[k][:2]
    if not set(ops) & set(_OPS):
        return None
    letter = _one_letter(members, defs)
    if letter is None:
        return None
    domain = stated_interval(clauses, k, letter, defs) or _stated_after(clauses, k, letter, defs)
    if domain is None or condition_on(clauses, k, letter, defs):
        return None
    low, high, where, said, named = domain
    whole = str(letter) in _WHOLE or "integer" in said.lower()
    points = _points(low, high, whole)
    if len(points) < 3:
        return None
    for i, op in enumerate(ops):
        if op not in _OPS:
            continue
        left, right = members[i], members[i + 1]
        if not (admissible(left) and admissible(right)):
            continue
        a, b = readings(left, defs), readings(right, defs)
        if len(a) != 1 or len(b) != 1 or (a[0].free_symbols | b[0].free_symbols) != {letter}:
            continue
        if not (a[0].free_symbols and b[0].free_symbols) and (lone(left) or lone(right)):
            continue  # `x < \\frac{1}{2}`: a bound of the letter, not an order of expressions
        if not (_algebraic(a[0]) and _algebraic(b[0])):
            continue
        if not (named or _critical_ends(a[0] - b[0], letter, low, high)):
            continue
        witness = _fails_across(op, a[0], b[0], letter, points)
        if witness is not None:
            at, x, y = witness
            why = (f"said where {where}, but it fails at every point tried there: at "
                   f"{letter} = {at} the sides are {fmt(x)} and {fmt(y)}")  # fmt: skip
            return ClaimResult("false", f"{left} {op} {right}", reason=why), (left, right)
    return None


def _critical_ends(expr, letter, low, high) -> bool:
    """Whether a finite end of an interval that names no letter is a zero or a pole of the
    order's difference: a sign chart's interval runs between such points (`x - 3 > 0` on `(2,
    3)`), while the interval of another letter (`t = x - 2` after "on $(2, 3)$") need not."""
    import sympy

    parts = sympy.fraction(sympy.together(expr))
    ends = [end for end in (low, high) if end is not None]
    return any(sympy.simplify(part.xreplace({letter: end})) == 0 for end in ends for part in parts)


def _one_letter(members: tuple, defs: dict):
    """The one unknown of an order's readable members, or None when they have none or more."""
    letters = set()
    for member in members:
        found = readings(member, defs) if admissible(member) else []
        if len(found) == 1:
            letters |= found[0].free_symbols
    return next(iter(letters)) if len(letters) == 1 else None


def _stated_after(clauses: list, k: int, letter, defs: dict) -> tuple | None:
    """The interval of the clause after clause `k` when only "for" (or "for all", "whenever")
    stands between, and the words before the order set up nothing ("we need ... for $x > 1$")."""
    if k + 1 >= len(clauses) or _AFTER.match(clauses[k + 1][2]) is None:
        return None
    if word_set(last_sentence(clauses[k][2])) & (NOT_CLAIMED | CONDITIONS):
        return None
    members, ops, said = clauses[k + 1][:3]
    found = clause_interval(members, ops, defs)
    if found is None or found[0] != letter:
        return None
    return found[1], found[2], written(members, ops), said, True


def _points(low, high, whole: bool) -> list:
    """Rational points spread inside the interval: whole numbers only when `whole` (each point
    rounded toward the interval's bound, those that leave the interval dropped)."""
    import sympy

    if low is not None and high is not None:
        found = [low + (high - low) * _rational(t) for t in (*_ACROSS, 1 - _ACROSS[0])]
    elif low is not None:
        found = [low + _rational(step) for step in _OFF]
    else:
        found = [high - _rational(step) for step in _OFF]
    if whole:
        found = sorted({sympy.floor(p) if low is not None else sympy.ceiling(p) for p in found})
    return [p for p in found if (low is None or p > low) and (high is None or p < high)]


def _fails_across(op: str, a, b, letter, points: list):
    """(point, a, b) at one point where the order fails, when it fails (even non-strictly) at
    every point where both sides are real, and at five at least; else None."""
    seen, witness = 0, None
    for at in points:
        x, y = value_at(a, {letter: at}), value_at(b, {letter: at})
        if x is None or y is None:
            continue
        if not _fails_clearly(op, x, y):
            return None
        seen += 1
        witness = witness or (at, x, y)
    return witness if seen >= 5 else None
