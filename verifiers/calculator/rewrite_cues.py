"""Whether a link between expressions claims a rewrite, not an equation to solve: the words
before it ("expanding", "by the double-angle formula", "cancelling") and the forms of its sides
(grouped against expanded, fractions combined or their parts factored, terms cancelled, a
factoring the problem wrote). `identities.judge_link` asks these before it calls a link that
fails as an identity False.
"""

from __future__ import annotations

import re

from verifiers.calculator.claim_words import BARE_LETTERS, compact, last_sentence, lone
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.forms import (
    alike,
    atomized,
    attempt,
    cancels,
    combines,
    factoring_slip,
    fraction_parts,
    gathered,
    grouped,
    kept_part,
    rational_degree,
    same_degree,
    terms,
)
from verifiers.calculator.readers import readings
from verifiers.calculator.relations import admissible
from verifiers.calculator.symbolic import compare_identity, fmt

__all__ = ["SETS_UP", "cancelled", "factored_known", "rewrite_of", "rewrites", "rewritten"]


# Words that announce a rewrite of one expression, not an equation to solve; the first few
# say it is multiplied out (so the expanded side's degree is the one to believe).
_EXPANDS = re.compile(r"expan|multiply(ing)? out|distribut")
# Words that say fractions are put together (not "factoring", which rewrites denominators of
# an equation as readily as it combines anything; not "adding" alone, which adds equations).
_COMBINING = re.compile(
    r"combin|common denominator|telescop|partial fraction"
    r"|\b(?:add|adding|sum|summing)\b(?: (?:up|of|the|these|both|two|its|their))* fractions\b"
)
# Words that make the link an equation to solve whatever else the text says of it.
SETS_UP = re.compile(r"equation|solv|satisf|such that|want|need")
_REWRITE = re.compile(
    r"expan|factor|multiply(ing)? out|distribut|identity|formula|simplif|difference of (two )?"
    r"(squares|cubes)|sum of (two )?cubes|group|combin|common denominator|telescop"
)
_FORMULA = re.compile(r"formula\W*$|the (?:identity|property)\W*$|double.angle|half.angle")
# "Using the fact that \\tan(180^\\circ - x) = \\cot x": after those words only a reduction
# formula is an identity claimed (a trig function of a right angle's multiple and a letter,
# against one of the letter); "the fact that \\sin x = 2\\cos x" recalls a condition.
_FACT = re.compile(r"the fact that\W*$")
_REDUCTION = re.compile(
    r"^\\(?:sin|cos|tan|cot|sec|csc)(?:\\left)?\((?:90|180|270|360)\^(?:\\circ|\{\\circ\})[-+][a-z]"
    r"(?:\\right)?\)=-?\\(?:sin|cos|tan|cot|sec|csc)(?:[a-z]|\([a-z]\))$"
)


def rewrite_of(left: str, right: str, a, b, before: str) -> bool:
    """A two-member link that rewrites one form into another: a grouped form (a power or a
    product of brackets, a fraction) against an expanded one of the same degree, whose
    difference is smaller than either side (a slip changes a term or two), or any two forms
    the text announces as a rewrite ("expanding", "by the double-angle formula")."""
    cue = _cued(before)
    degree = same_degree(a, b)
    if degree is None and rational_degree(a - b) is None:
        said = before.lower()[-30:]
        reduction = _FACT.search(said) and _REDUCTION.match(compact(f"{left}={right}"))
        if _FORMULA.search(said) or reduction:
            return True  # a named identity ("by the double-angle formula")
        # Functions of the unknowns taken as unknowns: `\\sin^2 x (1 + \\cos x)` against its
        # expansion is read as a polynomial in sin x and cos x would be.
        as_atoms = atomized(a, b)
        if (atom_degree := same_degree(*as_atoms)) is not None:
            (a, b), degree = as_atoms, atom_degree
    if degree is None:
        if _CANCELLING.search(before.lower()[-80:]) and _fractions_rewritten(left, right):
            return True
        # "This simplifies to 1/x^2 = 1/(5 - x)^2" is an equation as often as not: beyond
        # polynomials only a named identity makes the link a claim, or fractions combined
        # in the link itself (a sum of fractions against one fraction) after words that say
        # so ("combining", "over a common denominator"; a condition rewritten that way is
        # restated as one fraction against the other side), or, without such words,
        # fractions in two or more letters put over their common denominator (equations of
        # that shape in one unknown are the ones textbooks set to solve).
        combined = combines(a, b, left, right)
        common = combined == "common" and len(a.free_symbols | b.free_symbols) > 1
        says = bool(_COMBINING.search(before.lower()[-80:]))
        if combined and (says or common) and not SETS_UP.search(before.lower()[-40:]):
            return True
        return bool(_FORMULA.search(before.lower()[-30:]))
    forms = (grouped(left), grouped(right))
    if not any(forms) and _gathers(before) and gathered(left, right, a, b):
        return True  # "combining like terms, 3x + 5x = 9x": a side rewritten, not an equation
    if forms[0] == forms[1]:
        return False  # the same form on both sides: an equation between them, as likely
    grouped_side, written = (a, b) if forms[0] else (b, a)
    if not degree:
        # "We expand (m+n+p)(mn+mp+np) = ... + m^2np + ...": a term of the wrong degree is
        # a slip in the expansion the text announces, when the written side is an attempt
        # at that expansion (most of its terms are terms of it); "expanding (x+1)(x+2) =
        # x^3, we get ..." announces what is done to an equation, whose other side shares
        # nothing with the expansion. Without the word, an attempt one stray term off:
        # `(a+b+c)^2 = a^2 + b^2 + c^2 + 2ab + 2bc + 2ca + 2abc`.
        if terms(a - b) == 1 and attempt(grouped_side, written):
            return True
        return bool(_EXPANDS.search(before.lower()[-80:])) and attempt(grouped_side, written)
    # "Expanding the product in (x - 1)(x + 3) = 2x^2 gives ...": the word speaks of what is
    # done to an equation unless the written side is an attempt at the rewrite.
    tried = attempt(grouped_side, written) or factoring_slip(grouped_side, written, before)
    return (cue and tried) or terms(a - b) == 1


# Words that rewrite a fraction in place: factoring its parts, cancelling, reducing.
_CANCELLING = re.compile(r"factor|simplif|cancel|reduc|rewrit")


def _fractions_rewritten(left: str, right: str) -> bool:
    """Both sides written as one fraction each, one its parts' rewrite (see `cancels`):
    "rewrite the second fraction: \\frac{72x - 72}{x^2 + 4x} = \\frac{72(x - 1)}{(x - 1)(x + 4)}"
    factors its denominator wrongly, which the sides' values, cancelled, do not show."""
    texts, parts = [], []
    for member in (left, right):
        found = fraction_parts(member)
        if found is None:
            return False
        read = [readings(piece) for piece in found]
        if any(len(r) != 1 for r in read):
            return False
        texts.append(found)
        parts.append((read[0][0], read[1][0]))
    kind = cancels(*parts)
    if kind in ("numerator", "denominator"):
        # The other part rewritten between grouped and expanded: "simplifying, x/(x + 1) =
        # x/(2x - 3)" keeps a numerator too, in an equation.
        other = 1 if kind == "numerator" else 0
        return grouped(texts[0][other]) != grouped(texts[1][other])
    return kind == "cancelled"


def factored_known(left: str, right: str, a, b, known: list) -> bool:
    """`x^3 - 4x^2 + 3 = 0` written before, then `x^3 - 4x^2 + 3 = (x - 1)(x^2 - 3x + 3)`:
    the expression an equation sets to zero, written again as it was against a grouped
    form that is an attempt at it, is being factored, not set equal to something new."""
    for side, other, expanded, factored in ((left, right, a, b), (right, left, b, a)):
        if grouped(side) or not grouped(other):
            continue
        here = compact(side)
        if any(
            here == compact(k_side) and compact(k_other) == "0"
            for k_left, k_right in known
            for k_side, k_other in ((k_left, k_right), (k_right, k_left))
        ) and attempt(factored, expanded):
            return True
    return False


# Words that say the terms of a side are being cancelled or gathered, so that side is a
# rewrite of what came before and not one side of an equation to solve.
_CANCELS = re.compile(r"cancel|like terms|combin|collect")
_BOTH = re.compile(r"both sides|each side|from the equation")


def cancelled(left: str, right: str, lefts, rights, before: str) -> ClaimResult | None:
    """ "After canceling the like terms, x^2 - 2x^2 + x^2 + 10x - 10x + 25 = x^2": a side
    written with unknowns that cancel to a number, against one in those unknowns, after
    words that cancel or gather terms: the rewrite claims an expression in x is a number."""
    # The sentence's words, but not terms taken from both sides of an equation ("subtract
    # x^2 from both sides and cancel: x^2 + 3 - x^2 = x^2 + 2x - x^2": 3 = 2x follows).
    said = last_sentence(before.lower())
    if len(lefts) != 1 or len(rights) != 1 or not _CANCELS.search(said) or _BOTH.search(said):
        return None
    for text, value, other in ((left, lefts[0], rights[0]), (right, rights[0], lefts[0])):
        written = set(BARE_LETTERS.findall(text))
        if value.free_symbols or not other.free_symbols or not written:
            continue
        if {str(s) for s in other.free_symbols} <= written:
            return ClaimResult(
                "false", f"{left} = {right}",
                reason=f"`{text}` is {fmt(value)} for every value of its letters; the other "
                "side is not",
            )  # fmt: skip
    return None


def rewritten(earlier, later, before: str) -> bool:
    """A link of a chain of rewrites that claims one: its sides alike (see `alike`), and
    one term apart, after rewrite words, or the later side an attempt at the earlier one
    ("(x+1)^2 = x^2 + 2x + 1 = 2x^2 - 3" ends on an equation: nothing of it is a term of
    the expansion)."""
    if not alike(earlier, later):
        return False
    return (
        terms(earlier - later) == 1
        or _cued(before)
        or attempt(earlier, later)
        or kept_part(earlier, later)
    )


# Words that gather a side's like terms ("combining like terms", "simplifying"), in the
# sentence the link is in; not of an equation's sides ("on both sides", "the equation").
_GATHERS = re.compile(r"like terms|combin|collect|simplif")


def _gathers(before: str) -> bool:
    said = last_sentence(before.lower())
    return bool(_GATHERS.search(said)) and not (_BOTH.search(said) or SETS_UP.search(said))


def _cued(before: str) -> bool:
    return bool(_REWRITE.search(before.lower()[-80:]))


def rewrites(members: tuple[str, ...], i: int, defs: dict) -> bool:
    """Whether another link of the chain, between expressions with unknowns, is an identity."""
    for j in range(len(members) - 1):
        if j == i or not (admissible(members[j]) and admissible(members[j + 1])):
            continue
        a, b = readings(members[j], defs), readings(members[j + 1], defs)
        if len(a) != 1 or len(b) != 1 or not a[0].free_symbols or not b[0].free_symbols:
            continue
        if lone(members[j]) or lone(members[j + 1]):
            continue
        if compare_identity(a[0], b[0])[0] == "holds":
            return True
    return False
