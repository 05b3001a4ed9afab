"""Values drawn from a supposed equation: "If $2x - 3 = -5$, then $x = -1$."

A case analysis often supposes an equation and states what it gives ("If $2x - 3 = 5$, then
$x = 4$. If $2x - 3 = -5$, then $x = -1$."). The supposition is no claim, but what it is said to
give is: a value of the equation's one unknown, right after it with nothing but words that
draw it between ("then", "we get", "so"), must solve it. Read only where the word right before
the equation supposes it ("if", "when", "suppose", "assume"), the equation is in one unknown
and is no value given (`x = 2` is a trial), it has a real root (an equation with none implies
anything) and sympy finds every root, and the values (one, or several joined by "or" or "and")
are plain numbers no word sets aside or rounds, before them or after them in their sentence
("then $x = 1$, which is impossible"). A trig function in the equation is not read (its
unknown may be degrees).
"""

from __future__ import annotations

import re

from verifiers.calculator.claim_words import compact, lone, set_aside, word_set
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import DECIMAL, plain_number, trig_atoms
from verifiers.calculator.solutions import difference, roots_text
from verifiers.calculator.symbolic import roots_of, same_value

__all__ = ["supposed_values"]

# The word right before an equation that supposes it.
_SUPPOSES = re.compile(r"\b(?:if|when|whenever|suppose|supposing|assume|assuming)\W*$")
# The only words that may stand between the supposed equation and the values it gives.
_GIVES = frozenset("then so we get have gives giving which yields thus".split())


def supposed_values(clauses: list, defs: dict) -> list[tuple[ClaimResult, tuple]]:
    """(outcome, members to confirm) for each value a supposed equation is said to give that
    does not solve it (see the module docstring)."""
    out = []
    for k, (members, ops, before, *_) in enumerate(clauses):
        if len(members) != 2 or list(ops) != ["="] or not _SUPPOSES.search(before.lower()):
            continue
        left, right = members
        if lone(left) or lone(right) or DECIMAL.search(left + right):
            continue
        e = difference(left, right, defs)
        if e is None or len(e.free_symbols) != 1 or trig_atoms(e):
            continue
        var = next(iter(e.free_symbols))
        values = _values(clauses[k + 1 :], str(var), defs)
        if not values:
            continue
        roots = roots_of(e, var)
        if not roots or not any(r.is_real for r in roots):
            continue  # no real root: the supposition is false, and implies anything
        for text, value in values:
            if not any(same_value(value, r) for r in roots):
                why = f"does not solve `{left} = {right}`, supposed right before it"
                found = ClaimResult("false", f"{var} = {text}", text, roots_text(var, roots), why)
                out.append((found, (left, right, text)))
    return out


def _values(rest: list, name: str, defs: dict) -> list[tuple[str, object]]:
    """The values of `name` the clauses after the equation give it, one after another."""
    found: list[tuple[str, object]] = []
    for members, ops, before, after, *_ in rest:
        joins = {"or", "and"} if found else _GIVES
        lone_value = len(members) == 2 and list(ops) == ["="] and compact(members[0]) == name
        if not lone_value or not word_set(before) <= joins or set_aside(before, after):
            break
        if (value := plain_number(members[1], defs)) is None:
            break
        found.append((members[1], value))
    return found
