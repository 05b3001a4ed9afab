"""Linear inequalities in one unknown, solved step by step: each is judged against the one it
is written as following from (a quadratic premise too, `_quadratic_set`, or one with an
absolute value, `_abs_set`, whose solutions are intervals: only those the conclusion cuts
count, one left out whole is a branch dropped on a domain the chain knows). Two bounds of one
expression in one chain (`-3 < 2x + 1 < 5`) are one inequality, their solutions in common
(`_chain_set`); as a conclusion they are judged only after a premise that states both ends
itself (two bounds, or an absolute value): after one bound, the other may be a domain the
chain knows ("$x^2 < 9$, so $0 < x < 3$", x a length).

`-2x > 6`, hence `x > -3`: solving an inequality is a chain of equivalent rewrites, so a
rewrite whose solution set leaves out values the inequality before it allows is a slip (here
`x = -4`). Read only where nothing else can stand between the two: both inequalities linear
in the same single unknown, two members each (or two bounds), the second right after the
first (or opening the step after it) with nothing but a connective between them ("so",
"hence", "gives", "i.e.") or words that name an operation on both sides ("dividing both
sides by -2"). A
conclusion may be weaker than its premise ("x > 3, so x > 1"), and it may be stronger only
by what no integer fills: "n > 2.5, so n >= 3" is right for an integer n, so a False needs an
integer the premise allows and the conclusion does not, at which what the conclusion bounds is
a whole number too ("n < 1000 implies (n+1)/16 <= 62" is right where (n+1)/16 is one).
Domains the chain states elsewhere ("since x is positive") never enter: the words between the
two would say so, and then nothing is judged. A bound of the unknown that a case or a
supposition opens ("Case 1: $x \\ge 3$. Then $x - 3 < 2x - 10$") is such a domain too: what
follows it is the problem's condition in that case, and only a bound is drawn from a bound.
An inequality that gives the sign of what multiplies ("multiplying by $x - 1 > 0$ gives ...",
"Since $x - 1 > 0$, multiplying gives ...") is no premise either: another inequality is the one
operated on.
"""

from __future__ import annotations

import re

from verifiers.calculator.claim_words import (
    ARROWS,
    NOT_CLAIMED,
    lone,
    prose,
    sentence_words,
    word_set,
)
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import readings
from verifiers.calculator.relations import TURNED, admissible, written

INEQUALITIES = frozenset({"<", ">", "<=", ">="})
# The words that draw a conclusion, and the only others that may stand beside them between a
# premise and the inequality drawn from it ("x > 2 and x < 5" states a range: no "so" in it).
_DRAWS = frozenset("so hence thus therefore gives giving yields implies get means then i".split())
_FILLER = frozenset("we have which that is and e this".split())
# Words that name an operation done to both sides ("dividing both sides by $-2$", "subtracting
# 5", "solving for $x$"): each keeps the solutions, so the second inequality is the first
# rewritten. The operand is math and not among the words; a letter written as a word is.
_REWRITES = frozenset(
    "dividing divide divided multiplying multiply multiplied adding add subtracting subtract"
    " solving simplifying rearranging isolating".split()
)
_OPERATED = frozenset("by from to both sides side each through for".split())
# Words that make a bound of the unknown a case or a supposition, where the inequality after it
# is the problem's condition in that case ("Case 1: $x \\ge 3$. Then $x - 3 < 2x - 10$").
_DOMAINS = frozenset("case cases if when for suppose assume assuming consider".split())
_REASONS = frozenset("since because as given".split())
# Words that multiply or divide: after a reason, the inequality operated on is another one.
_OPERATIONS = frozenset("multiplying multiply multiplied dividing divide divided".split())
# An inequality right after "multiplying (both sides) by": the sign of the multiplier.
_OPERAND = re.compile(r"\b(?:multipl|divid)\w*\b[^.;:]*\bby\s*$", re.IGNORECASE)


def _drawn_directly(before: str) -> bool:
    """Whether the text between two inequalities only draws the second from the first."""
    words = set(re.findall(r"[a-z]+", ARROWS.sub(" so ", before.lower())))
    return bool(words & (_DRAWS | _REWRITES)) and words <= _DRAWS | _FILLER | _REWRITES | _OPERATED


# Words right after a conclusion that give it another reason ("so $n \\ge 3$, since the first
# two fail"): then it is not drawn from the premise alone.
_REASON_AFTER = re.compile(r"^[\s,;:(]*(?:since|because|as|for|given|when|if|unless|provided)\b")


# Words right after an inequality that open its alternative ("$x > 5$ or $x < 1$").
_OR_AFTER = re.compile(r"^[\s,;]*or\b", re.IGNORECASE)


def _with_reason(after: str) -> bool:
    return bool(_REASON_AFTER.match(after.lower()))


def _row_on(before: str, same_display: bool) -> bool:
    """Whether the second of two inequalities is the next row of the first's display with
    nothing between: drawn from it only as a rewrite of one inequality (`judge`'s `rows`)."""
    return same_display and not before.strip(" ,.;:&\\")


def _bounds(ops: tuple) -> bool:
    """Two bounds of one expression in one chain (`-3 < 2x + 1 \\le 5`)."""
    return len(ops) == 2 and set(ops) <= INEQUALITIES


class Premise:
    """The last inequality a step claimed, (clause, (left, op, right) or two bounds `(a, op,
    x, op, b)`, region), against which the next clause is judged. A step opens with the one the
    step before ended on (clause and region -1), so that "Dividing both sides by $-2$, $x <
    -3$." may open a step."""

    def __init__(self, carried: tuple) -> None:
        self.last: tuple | None = (-1, carried, -1, False) if carried else None

    def drop(self) -> None:
        """A trial or a case: nothing is drawn from it."""
        self.last = None

    def judged(self, k: int, members: tuple, ops: tuple, said: tuple, region: int, defs: dict):
        """(verdict, members read) for clause `k` drawn from the premise, or None; the clause
        is the next premise when it is an inequality. `said`: the words before it, the words
        after it, and the text since the clause before (inline math in it)."""
        if not (len(ops) == 1 and ops[0] in INEQUALITIES or _bounds(ops)):
            self.last = None
            return None
        before, after, lead = said
        here = tuple(x for pair in zip(members, (*ops, ""), strict=True) for x in pair)[:-1]
        told = prose(lead) or before
        if _OPERAND.search(told):
            self.last = None  # "multiplying by $x - 1 > 0$": the sign of what multiplies
            return None
        bare = any(lone(m) for m in members)
        opened = sentence_words(lead)
        # A case's bound ("Case 1: $x \\ge 3$."), or a reason given ("Since $x - 1 > 0$,"):
        # what follows is the case's condition, or another inequality operated on with it.
        kind = "domain" if bare and opened & _DOMAINS else "reason" if opened & _REASONS else ""
        if "or" in word_set(told):  # (`word_set` drops the "or" of "or equivalently")
            kind = "branch"  # the second of two alternatives
        last, self.last = self.last, (k, here, region, kind)
        if last is None or last[0] != k - 1:
            return None
        if last[3] == "branch" and _OR_AFTER.match(after):
            # "$x - 3 > 2$ or $x - 3 < -2$, i.e. $x > 5$ or $x < 1$": alternatives rewritten
            # pair by pair, the first of the second pair drawn from the first of the first.
            return None
        if last[3] == "domain" and not bare:
            return None  # "Case 1: $x \\ge 3$. Then $x - 3 < 2x - 10$": the case's condition
        if last[3] == "reason" and word_set(told) & _OPERATIONS:
            return None  # "Since $x - 1 > 0$, multiplying gives $1 > x - 1$": another one's
        # All the words since the premise, those before inline math too: in "If (or Since)
        # the longest side is $k,$ then $k \ge 15$" the sentence supposes (or gives another
        # reason), where "then" alone would draw.
        rows = _row_on(before, last[2] == region)
        if not (rows or _drawn_directly(told)) or _with_reason(after):
            return None
        found = judge(last[1], here, defs, rows)
        return None if found is None else (found, (*last[1][::2], *members))

    def carried(self, clauses: list) -> tuple:
        """The inequality the step ends on, for the next step: () when it ends on none, on
        the second of two alternatives (the next step may go on from either), or the words
        after it reject it ("which is impossible")."""
        if self.last is None or self.last[0] != len(clauses) - 1 or self.last[3] == "branch":
            return ()
        return () if word_set(clauses[-1][3]) & NOT_CLAIMED else self.last[1]


def judge(premise: tuple, conclusion: tuple, defs: dict, rows: bool = False):
    """A False when `conclusion` (left, op, right, or two bounds `a, op, x, op, b`) leaves
    out an integer that `premise` allows; None when there is nothing to say (see the module
    docstring). `rows`: two rows of one display, which may list conditions side by side (`n
    \\ge 1 \\ n \\le 9`): judged only when both bound the unknown at one edge, the same
    inequality rewritten."""
    import sympy

    if rows and 5 in (len(premise), len(conclusion)):
        return None  # rows side by side are judged as one half-line rewritten
    if len(conclusion) == 5 and len(premise) == 3 and "|" not in "".join(premise):
        # Two bounds drawn from one: the second may be a domain the chain knows ("x is a
        # length", so $x^2 < 9$ gives $0 < x < 3$). Only a premise that states both ends
        # (two bounds, or an absolute value's) has each of them rewritten.
        return None
    # A quadratic is read in the premise only: a product's sign is drawn from the signs of
    # its factors together ("x - 2 > 0, x - 3 < 0, therefore x^2 - 5x + 6 < 0"), not one.
    first = _chain_set(premise, defs, quadratic=True)
    second = _chain_set(conclusion, defs)
    if first is None or second is None or first[0] != second[0]:
        return None
    if first[1] == sympy.S.Reals:
        return None  # `x^2 + 1 > 0` holds everywhere: a sign used, not a premise solved
    if rows and not all(isinstance(found[1], sympy.Interval) for found in (first, second)):
        return None  # two rows judged only as one half-line rewritten (a quadratic's are not)
    if rows and _edge(first[1]) != _edge(second[1]):
        return None
    var, allowed, drawn = first[0], first[1], second[1]
    witness = _witness(_left_out(allowed, drawn), second[2])
    if witness is None:
        return None
    return ClaimResult(
        "false",
        written(conclusion[::2], conclusion[1::2]),
        reason=f"does not follow from `{written(premise[::2], premise[1::2])}`: {var} = "
        f"{witness} satisfies it, not this",
    )


def _chain_set(chain: tuple, defs: dict, quadratic: bool = False):
    """`_solution_set` of one inequality (left, op, right), or of two bounds of one
    expression (`-3 < 2x + 1 < 5`): each link linear, their solutions in common."""
    import sympy

    if len(chain) == 3:
        return _solution_set(*chain, defs, quadratic=quadratic)
    low, high = _solution_set(*chain[:3], defs), _solution_set(*chain[2:], defs)
    if low is None or high is None or low[0] != high[0] or low[2] != high[2]:
        return None  # not both bounds of the one expression between them
    return low[0], sympy.Intersection(low[1], high[1]), low[2]


def _solution_set(left: str, op: str, right: str, defs: dict, quadratic: bool = False):
    """(unknown, sympy set of its solutions, the expression the inequality bounds) for a
    linear inequality in one unknown whose coefficients are real numbers of a known sign
    (`n \\log(4/5) \\le \\log(1/4)`: dividing by the log turns it round). A log without a
    base is read in base 10 and base e; the two must give the same set. `quadratic`: a
    quadratic inequality too (`_quadratic_set`)."""
    if op not in INEQUALITIES or not (admissible(left) and admissible(right)):
        return None
    lefts, rights = readings(left, defs), readings(right, defs)
    count = max(len(lefts), len(rights))
    if not (lefts and rights) or {len(lefts), len(rights)} - {1, count}:
        return None
    pairs = zip(lefts * (count // len(lefts)), rights * (count // len(rights)), strict=True)
    found = [_one_set(a, b, op, quadratic) for a, b in pairs]
    if None in found or len({read[:2] for read in found}) != 1:
        return None
    return found[0]


def _one_set(a, b, op: str, quadratic: bool):
    """`_linear_set`, else `_quadratic_set` where `quadratic`, of `a op b` read as a
    polynomial in its one unknown (None: it is not one)."""
    import sympy

    expr = sympy.expand(a - b)
    if len(expr.free_symbols) != 1:
        return None
    var = next(iter(expr.free_symbols))
    if expr.has(sympy.Abs):
        return _abs_set(op, expr, var) if quadratic else None
    try:
        poly = sympy.Poly(expr, var)
    except sympy.PolynomialError:
        return None
    found = _linear_set(a, b, op, expr, poly)
    return found if found is not None or not quadratic else _quadratic_set(op, expr, poly)


def _linear_set(a, b, op: str, expr, poly):
    import sympy

    var = poly.gen
    if poly.degree() != 1 or not all(c.is_number and c.is_real for c in poly.all_coeffs()):
        return None
    # What the inequality bounds: its side with the unknown (`\\frac{n+1}{16} <= 62` bounds
    # (n+1)/16), or the difference when both sides hold it.
    bounded = a if not b.free_symbols else b if not a.free_symbols else expr
    slope, offset = poly.all_coeffs()
    if slope.is_negative is None or slope.is_zero is not False:
        return None  # a sign sympy cannot tell: which way the inequality turns is unsure
    bound = -offset / slope
    if not bound.is_Rational:
        # An irrational bound to 50 digits: two spellings of one number (`log 2/(log 10 -
        # 2 log 3)` and `-log 2/(2 log 3 - log 10)`) are then one bound, which sympy cannot
        # always order exactly, and no integer lies between two such readings.
        bound = bound.evalf(50)
    if slope.is_negative:  # dividing by a negative turns the inequality round
        op = TURNED[op]
    if op in ("<", "<="):
        return var, sympy.Interval(-sympy.oo, bound, right_open=op == "<"), bounded
    return var, sympy.Interval(bound, sympy.oo, left_open=op == ">"), bounded


def _left_out(allowed, drawn):
    """What the conclusion leaves out of the premise's solutions that counts against it. Of
    several intervals ("x^2 > 9": x < -3 or x > 3), one left out whole is a branch the chain
    drops on a domain it knows ("so x > 3", x a length) or keeps for another clause ("x > 3
    or x < -3"): only the intervals the conclusion cuts count, or all when it keeps none."""
    import sympy

    pieces = allowed.args if isinstance(allowed, sympy.Union) else (allowed,)
    cut = [p - drawn for p in pieces if not sympy.Intersection(p, drawn).is_empty]
    return sympy.Union(*cut) if cut else allowed - drawn


def _quadratic_set(op: str, expr, poly):
    """(unknown, solution set, the unknown) for a quadratic inequality in one unknown with
    rational coefficients (`x^2 - 5x + 6 < 0`): a union of intervals, empty when it has no
    real solution (beyond degree 2 sympy takes most of a second and often leaves roots
    unsolved)."""
    import sympy

    var = poly.gen
    if poly.degree() != 2 or not all(c.is_Rational for c in poly.all_coeffs()):
        return None
    relation = {"<": sympy.Lt, ">": sympy.Gt, "<=": sympy.Le, ">=": sympy.Ge}[op](expr, 0)
    found = sympy.solveset(relation, var, sympy.S.Reals)
    pieces = found.args if isinstance(found, sympy.Union) else (found,)
    if not all(isinstance(p, sympy.Interval) for p in pieces if not p.is_empty):
        return None  # a lone point (`x^2 <= 0`) or a set sympy leaves unsolved
    return var, found, var


def _abs_set(op: str, expr, var):
    """(unknown, solution set, the unknown) for an inequality with one absolute value of a
    linear expression in a real unknown (`|2x - 1| < 5`, `|x - 3| \\ge 2`): an interval or two."""
    import sympy

    bars = expr.atoms(sympy.Abs)
    if len(bars) != 1:
        return None
    bar = next(iter(bars))
    outside = expr.xreplace({bar: sympy.Dummy()})  # the rest, linear in the unknown too
    if sympy.degree(bar.args[0], var) != 1 or sympy.degree(outside, var) > 1:
        return None
    real = sympy.Symbol(var.name, real=True)
    relation = {"<": sympy.Lt, ">": sympy.Gt, "<=": sympy.Le, ">=": sympy.Ge}[op](expr, 0)
    found = sympy.solveset(relation.xreplace({var: real}), real, sympy.S.Reals)
    pieces = found.args if isinstance(found, sympy.Union) else (found,)
    if not all(isinstance(p, sympy.Interval) for p in pieces if not p.is_empty):
        return None
    return var, found, var


def _edge(interval):
    """The finite end of a half-line, to 30 digits (a bound read two ways is one number)."""
    import sympy

    end = interval.end if interval.start == -sympy.oo else interval.start
    return sympy.Float(end, 30)


_TRIES = 64  # integers tried from the edge of what the conclusion leaves out


def _witness(region, bounded) -> int | None:
    """An integer in `region` (a union of intervals) at which `bounded` is an integer too:
    "n < 1000 implies (n+1)/16 <= 62" is right where (n+1)/16 is a whole number, as the
    chain means it, so only a value both readings allow is a counterexample."""
    import sympy

    var = next(iter(bounded.free_symbols))
    pieces = region.args if isinstance(region, sympy.Union) else (region,)
    for piece in pieces:
        if not isinstance(piece, sympy.Interval) or piece.is_empty:
            continue
        for n in _integers(piece):
            if bounded.xreplace({var: sympy.Integer(n)}).is_integer:
                return n
    return None


def _integers(piece) -> list[int]:
    """Up to `_TRIES` integers of an interval, from its finite end (from 0 when it has none)."""
    import sympy

    low, high = piece.start, piece.end
    if low == -sympy.oo and high == sympy.oo:
        return list(range(_TRIES))
    if low == -sympy.oo:
        top = int(sympy.floor(high)) - (1 if piece.right_open and high.is_integer else 0)
        return list(range(top, top - _TRIES, -1))
    first = int(sympy.ceiling(low)) + (1 if piece.left_open and low.is_integer else 0)
    found = []
    for n in range(first, first + _TRIES):
        if high != sympy.oo and (n > high or (n == high and piece.right_open)):
            break
        found.append(n)
    return found
