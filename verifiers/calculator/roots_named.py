"""Values said to be the roots of the equation named right after them.

"Thus $x = 2$ or $x = 4$ are the solutions of $x^2 - 5x + 6 = 0$." names the equation after
the values (`solutions.claimed_root` reads "x = 3 is a root of the equation", the one before).
Read where values of one letter (plain numbers, joined by "or", "and" or a comma) are followed
by nothing but "is" or "are", an article, perhaps "real", and "root(s)", "solution(s)" or
"zero(s)" with "of" or "to", then by an equation in that letter alone: each value must be a
root (a root left out is not judged: the text may have discarded it). Not for a value set
aside or supposed before it ("if", "check"), decimals (which may be rounded), or an equation
with trig (its unknown may be degrees).
"""

from __future__ import annotations

import re

from verifiers.calculator.claim_words import NOT_CLAIMED, compact, lone, word_set
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import DECIMAL, plain_number, trig_atoms
from verifiers.calculator.solutions import difference
from verifiers.calculator.symbolic import fmt, same_value, value_at

__all__ = ["roots_named"]

# The words between the values and the equation that name them its roots.
_ARE_ROOTS = re.compile(
    r"^\W*(?:is|are)\s+(?:(?:the|all\s+the|a|one|both)\s+)?(?:real\s+)?"
    r"(?:roots?|solutions?|zeros?|zeroes)\s+(?:of|to)(?:\s+the\s+equation)?\W*$",
    re.IGNORECASE,
)


def roots_named(clauses: list, defs: dict) -> list:
    """(outcome, members to confirm) for each value the equation named after it does not
    solve (see the module docstring)."""
    import sympy

    out = []
    for k, (members, ops, before, *_) in enumerate(clauses):
        if not _ARE_ROOTS.match(before) or list(ops) != ["="] or len(members) != 2:
            continue
        values = _values_before(clauses[:k], defs)
        if not values:
            continue
        left, right = members
        e = difference(left, right, defs)
        if e is None or DECIMAL.search(left + right) or trig_atoms(e):
            continue
        names = {str(s) for s in e.free_symbols}
        for name, text, value in values:
            if names != {name}:
                break
            at = value_at(e, {sympy.Symbol(name): value})
            if at is None or same_value(at, sympy.Integer(0)):
                continue
            why = f"is not a root of `{left} = {right}`, named right after it (the sides"
            why += f" differ by {fmt(at)} there)"
            found = ClaimResult("false", f"{name} = {text}", text, "-", why)
            out.append((found, (left, right, text)))
    return out


def _values_before(clauses: list, defs: dict) -> list[tuple[str, str, object]]:
    """The values (name, text, value) of one letter that end `clauses`, last one last, joined
    by "or", "and" or a comma (empty when the last clause gives none)."""
    found: list[tuple[str, str, object]] = []
    for j in range(len(clauses) - 1, -1, -1):
        members, ops, before, *_ = clauses[j]
        if list(ops) != ["="] or len(members) != 2 or not lone(members[0]):
            break
        value = plain_number(members[1], defs)
        if value is None or found and compact(members[0]) != found[0][0]:
            break
        found.insert(0, (compact(members[0]), members[1].strip(), value))
        if not word_set(before) <= {"or", "and"} or re.search(r"[.;:!?]", before):
            break  # the run's first value
    if found and word_set(clauses[len(clauses) - len(found)][2]) & NOT_CLAIMED:
        return []  # "if $x = 2$ is a root of ...": supposed, not claimed
    return found
