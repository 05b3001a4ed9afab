"""A side of an equation rewritten in place while the other is kept.

`(a + b + c + d)(bcd + acd + abd + abc) = 16abcd`, then "expanding the left side, ... =
16abcd": the kept side says the other is the first one's rewritten (`rewritten_side`); values
of a function nobody defined are unknowns there (`applications.opaque_sides`). The
derivations between whole equations are `verifiers.calculator.derivations`'.
"""

from __future__ import annotations

import re

from verifiers.calculator.applications import opaque_sides
from verifiers.calculator.claim_words import compact, lone, nothing_between
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.forms import (
    attempt,
    bracket_dropped,
    factored_attempt,
    grouped,
    like_terms,
)
from verifiers.calculator.ideals import follows
from verifiers.calculator.known import known_polynomials
from verifiers.calculator.readers import readings
from verifiers.calculator.relations import admissible
from verifiers.calculator.solutions import Condition, Step
from verifiers.calculator.symbolic import compare_identity, fmt, point

# Words that say one side of the equation before is being rewritten in place.
_SIDE_REWRITE = re.compile(
    r"expand|multipl|distribut|simplif|factor|rearrang|group|collect|combin|complet\w* the square"
)
# The rewrite's verb right before the math, nothing between: the equation is its object, and
# what it gives comes after ("Simplifying $x-7=x+1$ gives $0=8$").
_OBJECT = re.compile(rf"\b(?:{_SIDE_REWRITE.pattern})\w*\s*$", re.IGNORECASE)
# The rewrite named on both sides at once ("expanding both sides"); "adding 324 to both sides,
# we can factor" does something to the equation instead.
_BOTH_SIDES = re.compile(r"(expand|simplif|multiply(ing)? out|distribut)\w*\s+(both|each) sides?\b")


def names_rewrite(words: str) -> bool:
    """Whether the words just before an equation say one side is being rewritten."""
    return bool(_SIDE_REWRITE.search(words.lower()[-80:]))


def rewritten_side(
    first: Condition, second: Condition, before: str, defs: dict, known: list
) -> ClaimResult | None:
    """`(a + b + c + d)(bcd + acd + abd + abc) = 16abcd`, then "expanding the left side,
    ... = 16abcd": the side kept says the other is the first one's rewritten, so the two
    must be equal for every value, whatever the unknowns (a False needs the text to say it
    rewrites, the new side to be an attempt at that rewrite, and the difference not to
    follow from the conditions known)."""
    # With no words between the two (the next display, or across an arrow), the new side
    # must show the rewrite by its form: a product or power against an expanded side.
    bare = nothing_between(before)
    if not (names_rewrite(before) or bare):
        return None
    if _OBJECT.search(before):
        return None  # "Simplifying $x-7=x+1$ gives $0=8$": the equation is what is simplified
    sides = ((first.left, first.right, second.left, second.right),
             (first.right, first.left, second.right, second.left))  # fmt: skip
    # "Expanding both sides gives: ...": each side is the one before it rewritten, none kept.
    both = not bare and bool(_BOTH_SIDES.search(before.lower()[-80:])) and not _swapped(
        first, second, defs
    )
    for old, kept, new, kept_again in sides:
        if compact(old) == compact(new):
            continue
        if bare and grouped(old) == grouped(new) and not bracket_dropped(old, new):
            continue  # "x + y = 10", "x - y = 10": a system's equations one per line
        if not (both or _same_side(kept, kept_again, defs)):
            continue
        # A side 0 stays 0 in a factor's case (`(x - 3)(x + 1) = 0`, `x - 3 = 0`); a name
        # kept may be given another expression (`u = x + 1`, "the second equation, u = 2x").
        said = not bare and compact(kept) != "0" and not lone(kept)
        factoring = not bare and "factor" in before.lower()[-80:]
        reason = _not_rewritten(old, new, defs, known, said, factoring)
        if reason is not None:
            return ClaimResult("false", f"{second.left} = {second.right}", reason=reason)
        if not both:
            return None  # the one side rewritten is judged; with both, the other side next
    return None


def _not_rewritten(
    old: str, new: str, defs: dict, known: list, said: bool, factoring: bool = False
) -> str | None:
    """Why `new` is no rewrite of `old` (None: it is, or we cannot say): it must be an
    attempt at it and differ from it wherever the conditions known do not make them equal.
    Where words name the rewrite ("Combine like terms:"), like terms combined wrongly, with
    coefficients changed, are an attempt too (`forms.like_terms`), and after words that factor,
    a product with a factor of the old side (`forms.factored_attempt`)."""
    a, b = readings(old, defs), readings(new, defs)
    if not (a and b) and (opaque := opaque_sides(old, new, defs)):
        a, b = opaque[:2]  # values of a function nobody defined, each one unknown
    if len(a) != 1 or len(b) != 1 or not a[0].free_symbols:
        return None
    if a[0].free_symbols != b[0].free_symbols or not (
        attempt(a[0], b[0])
        or _one_term(a[0], b[0])
        or (said and like_terms(a[0], b[0]))
        or (factoring and factored_attempt(a[0], b[0]))
    ):
        return None
    verdict, _, witness = compare_identity(a[0], b[0])
    if verdict != "false" or witness is None:
        return None
    if follows(a[0] - b[0], known_polynomials(known, defs, a[0], b[0])):
        return None
    subs, x, y = witness
    return f"`{new}` is not `{old}` rewritten: at {point(subs)} they are {fmt(y)} and {fmt(x)}"


def _one_term(old, new) -> bool:
    """`x(a + a)(a + a)` written `4ax^2`: one term for one term, the coefficient and the letters
    kept and the powers moved between them, is an attempt at the product (an equation would
    change the coefficient or a letter too)."""
    import sympy

    terms = [sympy.expand(e).as_coefficients_dict() for e in (old, new)]
    if any(len(t) != 1 for t in terms):
        return False
    (m1, c1), (m2, c2) = (next(iter(t.items())) for t in terms)
    letters = m1.free_symbols
    if c1 != c2 or not letters or m2.free_symbols != letters:
        return False
    if not (m1.is_polynomial(*letters) and m2.is_polynomial(*letters)):
        return False  # `2^n \cdot 4^n` is no product of letters' powers
    return sympy.Poly(m1, *letters).total_degree() == sympy.Poly(m2, *letters).total_degree()


def _swapped(first: Condition, second: Condition, defs: dict) -> bool:
    """Whether the second equation writes the first's sides the other way round."""
    pairs = ((first.left, second.right), (first.right, second.left))
    for old, new in pairs:
        a, b = readings(old, defs), readings(new, defs)
        if len(a) != 1 or len(b) != 1 or compare_identity(a[0], b[0])[0] != "holds":
            return False
    return True


def _same_side(first: str, second: str, defs: dict) -> bool:
    """The same member, as written or as a value (`16` for `2 \\cdot 8`)."""
    if compact(first) == compact(second):
        return True
    a, b = readings(first, defs), readings(second, defs)
    return len(a) == 1 and len(b) == 1 and compare_identity(a[0], b[0])[0] == "holds"


def named_after(
    named: Condition | None, members, ops, before: str, k: int, region: int, defs: dict,
    known: list, step: Step,
) -> Condition | None:  # fmt: skip
    """The unknown's expression after this clause (None when it is given no expression in
    other unknowns); a rewrite of the last one judged on the way (`rewritten_side`)."""
    if set(ops) != {"="} or not admissible(members[-1]):
        return None
    here = Condition(members[0], members[-1], k, region)
    if named is not None and compact(named.left) == compact(here.left):
        found = rewritten_side(named, here, before, defs, known)
        if found is not None:
            step.add(found, (named.right, here.right), defs)
    value = readings(here.right, defs)
    return here if len(value) == 1 and value[0].free_symbols else None
