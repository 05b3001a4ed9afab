"""Which values of a step that speaks of cases answer an equation the step wrote.

In a step of cases ("Case 2: $x + 1 = -2$, so $x = -3$"; "either ... or ...") each value is its
own case's, and a case's equation may come after its value or not be written at all. A value
is put back only into an equation in its own unknown written right before it, in the same case:
nothing between them but the values of that unknown listed with "or" or "and" (the roots of one
equation, `x = 3 or x = -3`), and no word before them that opens another case.
"""

from __future__ import annotations

from verifiers.calculator.claim_words import CASES, word_set

__all__ = ["in_own_case"]

# Words that join the values of one unknown into a list of one equation's roots.
_LISTS = frozenset({"or", "and"})


def in_own_case(value, assignments: list, own: list) -> bool:
    """Whether `value` (an `Assignment`) answers one of `own` (the `Condition`s in its unknown
    written before it): one sits in the clause right before the run of values `value` ends,
    with no case opened between them ("either $y = -1$ and $x = y + 4 = 3$, or $y = -3$": -3 is
    the second case's, whose equation `y + 4 = 1` comes after it)."""
    by_clause = {a.clause: a for a in assignments}
    first = value
    while (
        (prior := by_clause.get(first.clause - 1)) is not None
        and prior.name == value.name
        and word_set(first.before) <= _LISTS
    ):
        first = prior
    if word_set(first.before) & (CASES - {"and"}):
        return False
    return any(c.clause == first.clause - 1 for c in own)
