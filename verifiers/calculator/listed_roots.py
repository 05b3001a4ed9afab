"""Bare values said to be the roots of the equation written just before them.

"The roots of $x^2 - 6x + 8 = 0$ are $2$ and $5$.", "The quadratic $t^2 - 7t + 12 = 0$ has
roots 3 and 5", "... $(x - 2)(x - 4) = 0$, so the solutions are $2$ and $4$": values written
as plain numbers (not `x = 2`, which `solutions` reads), in math or in prose, joined by
commas, "and" or "or", right after words that name them the roots ("are" after "the roots
of" the equation; "has roots", "whose roots are", "so the roots are" after it). The equation
is in one letter alone (a function's definition `p(x) = ...` stands for its right side);
each value must be a root of it (a root left out is not judged: the text may drop it).
Not read: a list that goes on past its last value into more math or words other than a
connective ("2 and 5 times ..."), a sentence that sets a value aside ("extraneous", "but",
"not"), a root of something else ("square roots", "the sum of the roots"), decimals (which
may be rounded), and equations with trig (its unknown may be degrees).
"""

from __future__ import annotations

import re

from verifiers.calculator.claim_words import FUNC_DEF, SET_ASIDE, compact, lone, word_set
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import plain_number, readings, trig_atoms
from verifiers.calculator.solutions import difference
from verifiers.calculator.symbolic import fmt, same_value, value_at

__all__ = ["listed_roots", "stands_for", "values_listed", "vanishing"]

_ROOTS = r"(?:(?:two|both|real|distinct|only)\s+)*(?:roots?|solutions?|zeros?|zeroes)"
# The words before the equation that make "are ..." after it name its roots.
_ROOTS_OF = re.compile(
    rf"(?<!square )(?<!cube )\b(?:the|its)\s+{_ROOTS}\s+(?:of|to)"
    r"(?:\s+the\s+(?:equation|quadratic|polynomial|cubic))?\W*$",
    re.IGNORECASE,
)
# The words after the equation that name the values its roots.
_NAMING = re.compile(
    rf"^\W*(?:(?:has|with)\s+(?:the\s+)?{_ROOTS}|"
    rf"(?:(?:so|thus|hence|therefore|and|which\s+means)\W+)?(?:the|its|whose)\s+{_ROOTS}\s+(?:are|is))"
    r"\s*:?\s*",
    re.IGNORECASE,
)
_ARE = re.compile(r"^\s*(?:are|is)\s*:?\s*", re.IGNORECASE)
# One value: math between dollars or `\( \)`, or a plain number in prose.
_VALUE = re.compile(r"\$([^$]{1,40})\$|\\\((.{1,40}?)\\\)|(-?\d+(?:/\d+)?)(?![\d.,/]\d)")
_JOIN = re.compile(r"^\s*(?:,\s*(?:and|or)\b|,|and\b|or\b)\s*", re.IGNORECASE)
# What may follow the last value: the sentence ends, or a connective opens the next clause.
_ENDS = re.compile(
    r"^\s*(?:[.;!]|,|$|\((?:or|and|respectively)\b|(?:so|and|hence|thus|then|which|respectively)\b)",
    re.IGNORECASE,
)


def listed_roots(clauses: list, defs: dict, known: list) -> list:
    """(outcome, members to confirm) for each listed value the equation before it does not
    solve (see the module docstring); `known`: the pairs written before the step."""
    import sympy

    out = []
    for k, (members, ops, before, _, _, _, rest) in enumerate(clauses):
        if list(ops) != ["="] or len(members) != 2 or not rest:
            continue  # not an equation, or not its region's last clause (`rest` is empty)
        named = _NAMING.match(rest) or (_roots_of(before) and _ARE.match(rest))
        if not named or not (values := values_listed(rest[named.end() :], defs)):
            continue
        left, right = members  # decimals, which may be rounded, are not read
        if lone(left) and plain_number(right, defs) is not None:
            continue  # `x = 8`: a value given, not an equation whose roots are listed
        e, function = vanishing(left, right, defs)
        if e is None or trig_atoms(e) or len(e.free_symbols) != 1:
            continue
        x = next(iter(e.free_symbols))
        if stands_for(str(x), clauses[:k], known):
            continue
        for text, value in values:
            at = value_at(e, {x: value})
            if at is None or same_value(at, sympy.Integer(0)):
                continue
            what = "the function is" if function else "the sides differ by"
            why = f"is not a root of `{left} = {right}`, which the text says it solves"
            why += f" ({what} {fmt(at)} there)"
            found = ClaimResult("false", f"{x} = {text}", text, "-", why)
            out.append((found, (left, right, text)))
    return out


def stands_for(letter: str, clauses: list, known: list) -> bool:
    """Whether the chain named `letter` for an expression in other letters ("Let $u = x^2$",
    "with $t = x + 1$", in the step's `clauses` before or the pairs `known` before it): its
    equation's roots are then the new letter's, and "the roots" may be the old one's."""
    pairs = [(c[0][0], c[0][1]) for c in clauses if list(c[1]) == ["="] and len(c[0]) == 2]
    for left, right in [*known, *pairs]:
        for one, other in ((left, right), (right, left)):
            if compact(one) == letter and set(re.findall(r"[A-Za-z]", other)) - {letter}:
                return True
    return False


def _roots_of(before: str) -> bool:
    """Whether `before` ends on words that name the roots of what follows, and nothing in its
    sentence before them says they are a part or a total of the roots ("the sum of all the
    roots of", "one of the roots of", "the number of solutions to")."""
    found = _ROOTS_OF.search(before)
    if found is None:
        return False
    sentence = re.split(r"[.;!?]\s", before[: found.start()])[-1]
    return not re.search(r"\bof\b", sentence, re.IGNORECASE)


def vanishing(left: str, right: str, defs: dict) -> tuple:
    """(what must vanish at the roots of `left = right`, whether it defines a function): the
    difference of the sides, or the right side of a function's definition (`p(x) = x^2 - 4`,
    "has zeros ..."); None for the first where it is not read."""
    if not FUNC_DEF.match(compact(left)):
        return difference(left, right, defs), False
    read = readings(right, defs)
    return (read[0] if len(read) == 1 else None), True


def values_listed(text: str, defs: dict) -> list[tuple[str, object]]:
    """The values (text, number) listed at the start of `text`, when the list ends there
    (`_ENDS`) and its sentence sets none aside; else none."""
    found: list[tuple[str, object]] = []
    at = start = 0
    while (m := _VALUE.match(text, start)) is not None:
        written = next(g for g in m.groups() if g is not None).strip()
        if (value := plain_number(written, defs)) is None:
            return []
        found.append((written, value))
        at = m.end()
        join = _JOIN.match(text[at:])
        if join is None:
            break
        start = at + join.end()
    tail = text[at:]
    sentence = re.split(r"(?<=[.;!?])\s", tail, maxsplit=1)[0]
    if not _ENDS.match(tail) or word_set(sentence) & SET_ASIDE:
        return []
    return found
