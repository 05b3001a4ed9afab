"""Whether an equation that does not follow from the one before it is spared: it may come from
the other equations written with it (a system's next line, a sum of two), not from that one.
`claims_kind` asks this before a derivation's False stands.
"""

from __future__ import annotations

from verifiers.calculator.derivations import derivation
from verifiers.calculator.excluded_roots import no_point
from verifiers.calculator.forms import offset, shifted
from verifiers.calculator.solutions import (
    Condition,
    Step,
    derived_from_any,
    derived_from_known,
    difference,
    unknowns,
)

__all__ = ["spared"]


def spared(
    here: Condition, previous: Condition, step: Step, known: list, defs: dict, before: str
) -> bool:
    """Whether an equation that does not follow from the one before it may come from the
    other equations written with it (a system's next line, a sum of two). An application
    misread (`applications`) is read no other way: nothing spares it."""
    if difference(here.left, here.right, defs) is None:
        return False
    # An equation no point satisfies (`\frac{x + 1}{x - 3} = \frac{4}{x - 3}`, 1 in lowest
    # terms) would make anything follow; what it is cleared to is judged against it instead.
    others = [
        c for c in step.conditions
        if (e := difference(c.left, c.right, defs)) is None or not no_point(e)
    ]
    if derived_from_any(here, others, defs):
        return True
    if len(unknowns(here, defs)) > 1:
        return derived_from_known(here, known, defs)
    # One unknown: consistent with another equation of the step in that unknown; where the
    # slip is a term moved wrongly (`shifted`), only an equation it rearranges exactly is.
    mine = difference(here.left, here.right, defs)
    shift = shifted(difference(previous.left, previous.right, defs), mine)
    return any(
        (derivation(other, here, before, defs) is None if shift is None else offset(
            difference(other.left, other.right, defs), mine) == 0)
        and difference(other.left, other.right, defs) is not None
        and unknowns(other, defs) == unknowns(here, defs)
        for other in step.conditions if other is not previous
    )  # fmt: skip

