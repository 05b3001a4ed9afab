"""Identities a step claims: which links between expressions claim to hold for every value.

See `verifiers.calculator.claims_kind` for the rules in words; `judge_link` applies them to one
link and evaluates it (`symbolic.compare_identity`, exact numbers for relations between
numbers), `known_polynomials` and `symbolic.follows` spare a link that the problem's or the
chain's conditions make true. What the forms of its sides say (grouped or expanded, terms
apart, an attempt at an expansion) is read by `forms`.
"""

from __future__ import annotations

import re

from verifiers.calculator.applications import opaque_sides
from verifiers.calculator.claim_words import (
    BARE_LETTERS,
    LETTER,
    PLAIN,
    applies,
    compact,
    free_letters,
    last_sentence,
    left_to_numbers,
    lone,
    numeric,
)
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.counting import simplified
from verifiers.calculator.decimal_rewrites import decimal_rewrite
from verifiers.calculator.elided_terms import ELLIPSIS
from verifiers.calculator.forms import (
    alike,
    atomized,
    attempt,
    cancels,
    combines,
    factoring_slip,
    fraction_parts,
    grouped,
    kept_part,
    rational_degree,
    same_degree,
    terms,
)
from verifiers.calculator.known import known_polynomials
from verifiers.calculator.latex_math import LEIBNIZ
from verifiers.calculator.readers import fixed_letters, readings
from verifiers.calculator.relations import admissible, primes_written
from verifiers.calculator.symbolic import (
    check_number,
    compare_identity,
    fmt,
    follows,
    same_value,
    sides_at,
)


def judge_link(
    members: tuple[str, ...], i: int, op: str, defs: dict, known: list, before: str,
    as_written: bool = True, computed: bool = False,
) -> ClaimResult | None:
    """A claim's outcome, or None when the link is a condition (or unreadable). `as_written`:
    the link is in the text as it stands, so a relation between numbers that the numeric
    reader reads is its to judge (a sign's reading, `signs`, is one it never sees).
    `computed`: both sides are values computed (a pair written with `\\pm` on each side),
    so the link claims a rewrite, never sets up an equation."""
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
        # A letter the problem fixed (`T = 8`) is no number the numeric reader knows.
        if as_written and not fixed_letters(text, defs) and (theirs := left_to_numbers(text)):
            return theirs
        outcome = check_number(left, op, right, defs)
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
    if lone(right) and not (_restricted(left, defs) and not _SETS_UP.search(before.lower()[-40:])):
        return None
    one_sided = not all(e.free_symbols for e in lefts + rights)
    if not one_sided and any(a.free_symbols != b.free_symbols for a in lefts for b in rights):
        return None  # a member brings unknowns of its own: coefficients to match, a condition
    if one_sided and (found := _cancelled(left, right, lefts, rights, before)) is not None:
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
    # A chain is one of rewrites when another of its links between expressions holds as an
    # identity; `a/b = c/d = e/f` and `abc = 6(a + b + c)` set up conditions instead. A link
    # on its own claims an identity when it rewrites one form into another (factored or
    # grouped against expanded) keeping the leading terms, as a slip in a rewrite does.
    if constant is None and not (
        computed
        or i >= 1 and lone(members[0]) and _exponential(lefts[0], rights[0])
        or _evaluated(left, right, defs, before)
        or _rewrites(members, i, defs)
        and (_rewritten(*atomized(lefts[0], rights[0]), before) or simplified(lefts[0], rights[0]))
        or _rewrite_of(left, right, lefts[0], rights[0], before)
        or _factored_known(left, right, lefts[0], rights[0], known)
    ):
        return None
    if follows(lefts[0] - rights[0], known_polynomials(known, defs, lefts[0], rights[0])):
        return None  # true given what the problem or the chain wrote about its symbols
    if constant is not None:
        return ClaimResult("false", text, reason=f"the two sides differ by {fmt(constant)}")
    subs, a, b = witness
    return ClaimResult("false", text, reason=f"at {sides_at(subs, a, b)}")


# Words that announce a rewrite of one expression, not an equation to solve; the first few
# say it is multiplied out (so the expanded side's degree is the one to believe).
_EXPANDS = re.compile(r"expan|multiply(ing)? out|distribut")
# Words that say fractions are put together (not "factoring", which rewrites denominators of
# an equation as readily as it combines anything).
_COMBINING = re.compile(r"combin|common denominator|telescop|partial fraction")
# Words that make the link an equation to solve whatever else the text says of it.
_SETS_UP = re.compile(r"equation|solv|satisf|such that|want|need")
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


def _rewrite_of(left: str, right: str, a, b, before: str) -> bool:
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
        combined = combines(a, b)
        common = combined == "common" and len(a.free_symbols | b.free_symbols) > 1
        says = bool(_COMBINING.search(before.lower()[-80:]))
        if combined and (says or common) and not _SETS_UP.search(before.lower()[-40:]):
            return True
        return bool(_FORMULA.search(before.lower()[-30:]))
    forms = (grouped(left), grouped(right))
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


def _exponential(a, b) -> bool:
    """Both sides powers with an unknown in the exponent: after a name given a value, `V_k =
    (5 \\sqrt{3}^{k-1})^3 = 125 \\cdot 3^{k-1}` rewrites by the laws of exponents (a name given
    two expressions in polynomials, `N = abc = 6(a + b + c)`, sets up a condition)."""
    import sympy

    return all(
        any(p.exp.free_symbols for p in side.atoms(sympy.Pow)) for side in (a, b)
    )


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
    if _SETS_UP.search(said):
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


def _factored_known(left: str, right: str, a, b, known: list) -> bool:
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


def _cancelled(left: str, right: str, lefts, rights, before: str) -> ClaimResult | None:
    """"After canceling the like terms, x^2 - 2x^2 + x^2 + 10x - 10x + 25 = x^2": a side
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


def _rewritten(earlier, later, before: str) -> bool:
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


def _cued(before: str) -> bool:
    return bool(_REWRITE.search(before.lower()[-80:]))


def _rewrites(members: tuple[str, ...], i: int, defs: dict) -> bool:
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
