"""Values said to be the roots of the equation named right after them.

"Thus $x = 2$ or $x = 4$ are the solutions of $x^2 - 5x + 6 = 0$." names the equation after
the values (`solutions.claimed_root` reads "x = 3 is a root of the equation", the one before).
Read where values of one letter (plain numbers, joined by "or", "and" or a comma) are followed
by nothing but "is" or "are", an article, perhaps "real", and "root(s)", "solution(s)" or
"zero(s)" with "of" or "to", then by an equation in that letter alone: each value must be a
root (a root left out is not judged: the text may have discarded it). Not for a value set
aside or supposed before it ("if", "check"), decimals (which may be rounded), or an equation
with trig (its unknown may be degrees). Plain numbers in math before those words ("Thus $2$
and $3$ are the roots of ...") are given to the equation's one letter; a polynomial expression
after them, no equation ("$x = 4$ is a root of $x^3 - 4x^2 + x - 4$"), must vanish there.
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
    out = []
    for k, (members, ops, before, _, _, lead, rest) in enumerate(clauses):
        if list(ops) != ["="] or len(members) != 2:
            continue
        if (named := _ROOT_OF_EXPRESSION.match(rest)) and (values := _values_before(
            clauses[: k + 1], defs
        )):
            # "$x = 4$ is a root of $x^3 - 4x^2 + x - 4$": an expression, no equation.
            expression = named.group(1) or named.group(2)
            out.extend(_judged(expression, "0", values, defs, expression=True))
            continue
        if not _ARE_ROOTS.match(before):
            continue
        values = _values_before(clauses[:k], defs) or _bare_before(lead, before, members, defs)
        out.extend(_judged(members[0], members[1], values, defs))
    return out


def _judged(left: str, right: str, values: list, defs: dict, expression=False) -> list:
    """(outcome, members to confirm) for each value that is no root of `left = right` (of
    the expression `left` alone, where `expression`)."""
    import sympy

    e = difference(left, right, defs)
    if not values or e is None or DECIMAL.search(left + right) or trig_atoms(e):
        return []
    names, out = {str(s) for s in e.free_symbols}, []
    for name, text, value in values:
        if names != {name}:
            break
        at = value_at(e, {sympy.Symbol(name): value})
        if at is None or same_value(at, sympy.Integer(0)):
            continue
        if expression:
            why = f"is not a root of `{left}`, named right after it (it is {fmt(at)} there)"
        else:
            why = f"is not a root of `{left} = {right}`, named right after it (the sides"
            why += f" differ by {fmt(at)} there)"
        found = ClaimResult("false", f"{name} = {text}", text, "-", why)
        out.append((found, (left, right, text)))
    return out


def _bare_before(lead: str, before: str, members: tuple, defs: dict) -> list:
    """"Thus $2$ and $3$ are the roots of $x^2 - 5x + 6 = 0$": plain numbers in math that end
    the text before the words naming them roots, given to the equation's one letter."""
    head = lead[: len(lead) - len(before)] if lead.endswith(before) else ""
    found = _BARE_RUN.search(head)
    e = difference(members[0], members[1], defs)
    if found is None or e is None or len(e.free_symbols) != 1:
        return []
    if word_set(re.split(r"[.;!?]\s", head[: found.start()])[-1]) & NOT_CLAIMED:
        return []  # "if $2$ is a root of ...": supposed, not claimed
    name, values = str(next(iter(e.free_symbols))), []
    for text in re.findall(r"\$([^$]+)\$", found.group(0)):
        if (value := plain_number(text, defs)) is None:
            return []
        values.append((name, text.strip(), value))
    return values


# "$x = 4$ is a root of $x^3 - 4x^2 + x - 4$": the words, then one expression in math.
_ROOT_OF_EXPRESSION = re.compile(
    r"^\W*(?:is|are)\s+(?:(?:the|a|one|both)\s+)?(?:real\s+)?(?:roots?|zeros?|zeroes)\s+of\s+"
    r"(?:the\s+(?:polynomial|expression|quadratic|cubic)\s+)?"
    r"(?:\$([^$=<>]{1,200})\$|\\\(((?:(?!\\\)).){1,200}?)\\\))",
    re.IGNORECASE,
)
# Plain numbers in math joined by commas, "and" or "or", ending the text: a run of values.
_BARE_RUN = re.compile(r"(?:\$[^$]{1,40}\$\s*(?:,\s*(?:and|or)?|and|or)?\s*)+$", re.IGNORECASE)


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
