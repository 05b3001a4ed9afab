"""Identities a step claims: which links between expressions claim to hold for every value.

See `verifiers.calculator.claims_kind` for the rules in words; `judge_link` applies them to one
link and evaluates it (`symbolic.compare_identity`, exact numbers for relations between
numbers), `known_polynomials` and `ideals.follows` spare a link that the problem's or the
chain's conditions make true. Whether the words and forms around a link that fails make it a
rewrite claimed rather than an equation is `rewrite_cues`'; what the forms of its sides say
(grouped or expanded, terms apart, an attempt at an expansion) is read by `forms`.
"""

from __future__ import annotations

import re
from dataclasses import replace

from verifiers.calculator.applications import opaque_sides
from verifiers.calculator.claim_words import (
    LETTER,
    PLAIN,
    applies,
    free_letters,
    left_to_numbers,
    lone,
    numeric,
    says_none_solve,
)
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.counting import simplified
from verifiers.calculator.decimal_rewrites import decimal_rewrite
from verifiers.calculator.elided_terms import ELLIPSIS
from verifiers.calculator.excluded_roots import set_up_over_denominators
from verifiers.calculator.forms import (
    atomized,
)
from verifiers.calculator.ideals import follows
from verifiers.calculator.known import known_polynomials
from verifiers.calculator.latex_math import LEIBNIZ
from verifiers.calculator.readers import fixed_letters, readings
from verifiers.calculator.relations import primes_written
from verifiers.calculator.rewrite_cues import (
    SETS_UP,
    cancelled,
    factored_known,
    rewrite_of,
    rewrites,
    rewritten,
)
from verifiers.calculator.symbolic import (
    check_number,
    compare_identity,
    fmt,
    same_value,
    sides_at,
)


def judge_link(
    members: tuple[str, ...], i: int, op: str, defs: dict, known: list, before: str,
    as_written: bool = True, computed: bool = False, said: tuple[str, str] = ("", ""),
) -> ClaimResult | None:
    """A claim's outcome, or None when the link is a condition (or unreadable). `as_written`:
    the link is in the text as it stands, so a relation between numbers that the numeric
    reader reads is its to judge (a sign's reading, `signs`, is one it never sees).
    `computed`: both sides are values computed (a pair written with `\\pm` on each side),
    so the link claims a rewrite, never sets up an equation. `said`: the step's text since the
    clause before and after the link's clause."""
    left, right = members[i], members[i + 1]
    text = f"{left} {op} {right}"
    if ELLIPSIS.search(left) and ELLIPSIS.search(right):
        # An elided sum rewritten as another (a factor out, an index shifted): ends copied loosely.
        return ClaimResult("skipped", text, reason="an elided sum rewritten as another")
    if not free_letters(left + right, defs) or (
        applies(left + right, defs) and numeric(left, defs) and numeric(right, defs)
    ):
        if op != "=" and LETTER.search(left + right):
            return None  # `f(0) > 0`: a property a function is said to have, often a supposition
        if PLAIN.match(left) and PLAIN.match(right):
            # `10 = -10`: two numbers side by side compare; they compute nothing. `994 < 999`
            # orders them: a false order is a slip, a true one checks nothing computed.
            found = None if op == "=" else check_number(left, op, right, defs)
            return found if found is not None and found.outcome == "false" else None
        # A letter the problem fixed (`T = 8`) is no number the numeric reader knows, nor is
        # a function the chain defined: the numeric reader reads `t(2) = 8` as `2t = 8`, and
        # leaves it (`verifier`), so the outcome is this reader's, not one it shares.
        function = applies(text, defs)
        if as_written and not (fixed_letters(text, defs) or function) and (
            theirs := left_to_numbers(text)
        ):
            return theirs
        outcome = check_number(left, op, right, defs)
        if function and left_to_numbers(text) is not None:
            outcome = replace(outcome, numbers=False)
        if outcome.outcome == "false" and _recovered(members, i, defs):
            return ClaimResult("skipped", text, reason="a later member has the true value")
        return outcome
    if op == "=" and (found := decimal_rewrite(members, i, defs)) is not None:
        return found
    lefts, rights = readings(left, defs), readings(right, defs)
    if not (lefts and rights) and (opaque := opaque_sides(left, right, defs)):
        lefts, rights, left, right = opaque  # values of a function nobody defined, unknowns
    if not lefts or not rights or op != "=" or lone(left):
        return None
    # A lone letter on a side sets it, but for a function's values along a line, listed
    # (`g(0, y) = y`, `_restricted`).
    if lone(right) and not (_restricted(left, defs) and not SETS_UP.search(before.lower()[-40:])):
        return None
    one_sided = not all(e.free_symbols for e in lefts + rights)
    if not one_sided and any(a.free_symbols != b.free_symbols for a in lefts for b in rights):
        return None  # a member brings unknowns of its own: coefficients to match, a condition
    if one_sided and (found := cancelled(left, right, lefts, rights, before)) is not None:
        return found
    symbolic_side = lefts[0] if lefts[0].free_symbols else rights[0]
    # A number on one side: an equation to solve, unless the other side is a function that is
    # constant (`\sin^2 x + \cos^2 x`); a polynomial that collapses to a number is a case
    # tested, not an identity claimed (asked first: it needs no evaluation).
    if one_sided and (
        not symbolic_side.free_symbols
        or symbolic_side.is_polynomial(*symbolic_side.free_symbols)
    ):
        return None
    verdicts = [compare_identity(a, b) for a in lefts for b in rights]
    if one_sided and any(v[1] is None for v in verdicts):
        return None
    if any(v[0] != "false" for v in verdicts):
        return ClaimResult("holds", text) if not one_sided and verdicts[0][0] == "holds" else None
    # From here the link is false wherever it is read; one side a number and the other
    # constant-valued (`\sin^2 x + \cos^2 x = 2`) is no equation anyone solves.
    _, constant, witness = verdicts[0]
    # `\frac{x}{x - 2} = \frac{2}{x - 2}`: sides a constant apart only where a denominator
    # does not vanish are the rational equation whose one root is excluded, set up and solved
    # (the same denominators on both sides, or words that set it up) as often as miswritten: a claim
    # only on the terms below, as with other sides.
    excluded = constant is not None and set_up_over_denominators(lefts[0], rights[0], before)
    # A chain is one of rewrites when another of its links between expressions holds as an
    # identity; `a/b = c/d = e/f` and `abc = 6(a + b + c)` set up conditions instead. A link
    # on its own claims an identity when it rewrites one form into another (factored or
    # grouped against expanded) keeping the leading terms, as a slip in a rewrite does.
    if (constant is None or excluded) and not (
        computed
        or i >= 1 and lone(members[0]) and _exponential(lefts[0], rights[0])
        or _evaluated(left, right, defs, before)
        or rewrites(members, i, defs)
        and (rewritten(*atomized(lefts[0], rights[0]), before) or simplified(lefts[0], rights[0]))
        or rewrite_of(left, right, lefts[0], rights[0], before)
        or factored_known(left, right, lefts[0], rights[0], known)
        or no_real_point(lefts[0], rights[0]) and not SETS_UP.search(before.lower()[-40:])
    ):
        return None
    if follows(lefts[0] - rights[0], known_polynomials(known, defs, lefts[0], rights[0])):
        return None  # true given what the problem or the chain wrote about its symbols
    if constant is not None:
        if says_none_solve(*said):  # "... gives $0=8$, which has no solutions"
            return None
        return ClaimResult("false", text, reason=f"the two sides differ by {fmt(constant)}")
    subs, a, b = witness
    return ClaimResult("false", text, reason=f"at {sides_at(subs, a, b)}")


def no_real_point(a, b) -> bool:
    """`\\frac{1}{a} + \\frac{1}{b} = \\frac{2}{a + b}`: an equation between expressions in two
    or more letters that no real point of its domain satisfies is no condition a text sets up
    (one it shows impossible says so: "which is impossible" makes no claim). Cleared of
    denominators it says a sum of even powers of one sign is 0, or a definite quadratic form
    is: nowhere, with a constant term; else only at the origin, where a denominator vanishes."""
    import sympy

    letters = sorted((a - b).free_symbols, key=str)
    if len(letters) < 2 or not (a.free_symbols and b.free_symbols):
        return False
    top, bottom = sympy.fraction(sympy.together(a - b))
    try:
        p = sympy.Poly(sympy.expand(top), *letters)
        q = sympy.Poly(sympy.expand(bottom), *letters)
    except sympy.PolynomialError:
        return False
    coeffs = p.coeffs()
    if p.is_zero or not all(c.is_Rational for c in coeffs):
        return False
    if all(e % 2 == 0 for m in p.monoms() for e in m) and len({c > 0 for c in coeffs}) == 1:
        if p.coeff_monomial(1) != 0:
            return True
        pure = {i for m in p.monoms() for i, e in enumerate(m) if e and sum(m) == e}
        definite = len(pure) == len(letters)
    elif p.is_homogeneous and p.total_degree() == 2:
        n = len(letters)
        form = sympy.zeros(n, n)
        for m, c in p.terms():
            i, j = [k for k, e in enumerate(m) for _ in range(e)]
            form[i, j] += c / 2
            form[j, i] += c / 2
        definite = form.is_positive_definite or (-form).is_positive_definite
    else:
        return False
    return bool(definite) and q.as_expr().subs(dict.fromkeys(letters, 0)) == 0


def _exponential(a, b) -> bool:
    """Both sides powers with an unknown in the exponent: after a name given a value, `V_k =
    (5 \\sqrt{3}^{k-1})^3 = 125 \\cdot 3^{k-1}` rewrites by the laws of exponents (a name given
    two expressions in polynomials, `N = abc = 6(a + b + c)`, sets up a condition)."""
    import sympy

    return all(any(p.exp.free_symbols for p in side.atoms(sympy.Pow)) for side in (a, b))


# A number as an argument: `1`, `-2`, `\frac{1}{2}`.
_ARGUMENT = r"(-?[\d.]+|-?\\frac\{\d+\}\{\d+\})"
_NUMBER = re.compile(rf"^{_ARGUMENT}$")
# A function the chain defined, applied to a number: `p(1)`, `f(-2)`, `g(\frac{1}{2})`.
_APPLIED_TO_NUMBER = re.compile(rf"^([A-Za-z])'*\s*\(\s*{_ARGUMENT}\s*\)$")
# A function applied to several arguments: `g(0, y)`.
_APPLIED_SEVERAL = re.compile(r"^([A-Za-z])\s*\(([^()]*,[^()]*)\)$")
# A derivative written out: `f'(x)` of a function the chain defined, at a letter, or
# `\frac{d}{dx}(...)` (`latex_math.LEIBNIZ`, read only when the brackets hold the rest).
_PRIMED_SIDE = re.compile(r"^([A-Za-z])'+\s*\(\s*[a-z]\s*\)$")


def _restricted(side: str, defs: dict) -> bool:
    """`g(0, y)` of a `g(x, y)` the chain defined: some arguments numbers, the others its own
    letters in their own places, so the side names g on a line (`g(0, y) = y` states what g is
    there, as `p(1) = 3a + 3` states a value; `g(y, x)` or `g(t, 1)` may set up an equation)."""
    m = _APPLIED_SEVERAL.match(side)
    if m is None or m[1] not in defs:
        return False
    args = [a.strip() for a in m[2].split(",")]
    own = [str(a) for a in defs[m[1]][0]]
    if len(args) != len(own):
        return False
    numbers = [_NUMBER.match(a) is not None for a in args]
    return any(numbers) and all(n or a == o for a, o, n in zip(args, own, numbers, strict=True))


def _evaluated(left: str, right: str, defs: dict, before: str) -> bool:
    """`p(x) = x^2 + 3ax + 1` defined, then `p(1) = 3a + 3`: a side that evaluates the
    function at a number, against an expression in the function's other letters, states
    that value (an equation in them only after words that set one up: "we need p(1) = 0").
    So does a side that differentiates (`f'(x) = 3x^2 - 3`), but after "set", "when", "where"."""
    said = before.lower()[-40:]
    if SETS_UP.search(said):
        return False
    sides = [primes_written(side).strip() for side in (left, right)]
    if any((m := _APPLIED_TO_NUMBER.match(s)) is not None and m[1] in defs for s in sides):
        return True
    if any(_restricted(s, defs) for s in sides):
        return True
    m = _PRIMED_SIDE.match(sides[0])
    return (
        (LEIBNIZ.match(sides[0]) is not None or m is not None and m[1] in defs)
        and not applies(right, defs)
        and not re.search(r"\bset|\bwhen|\bwhere", said)
    )


def _recovered(members: tuple[str, ...], i: int, defs: dict) -> bool:
    """`5!/2! = (5·4·3)/(2·1) = 60`: two members on either side of the false link agree, so
    the chain takes the slip back (or the slip is a typo between right values)."""
    values = []
    for member in members:
        found = readings(member, defs)
        values.append(found[0] if len(found) == 1 and not found[0].free_symbols else None)
    return any(
        values[j] is not None
        and values[k] is not None
        and (j, k) != (i, i + 1)
        and same_value(values[j], values[k])
        for j in range(i + 1)
        for k in range(i + 1, len(values))
    )
