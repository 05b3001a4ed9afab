"""An equation drawn from a linear system by adding or subtracting its equations.

"We have $x + y = 10$ and $x - y = 4$." then "Adding the two equations gives $2x = 15$.": a
sum or a difference of a system's equations holds wherever all of them hold, so at the
system's one solution (x = 7, y = 3) the new equation must hold too; here 2x is 14. Putting
that point in is exact, and it needs no guess about which multiples the text combined.

Read only where nothing else can be meant:
- the words before the new equation, in its sentence, name adding, subtracting or
  eliminating equations ("adding the two equations", "subtracting the second from the
  first", "eliminating y", "adding gives", "multiplying the second by 3 and adding"), none
  that change an equation first ("replacing 10 by 12 in the first", "setting", "instead"),
  and not "adding the third condition", which brings a new equation;
- the system is the last two or three equations written before it (in the step, after any
  trial or case it opened; else the group the step before ended on), with as many unknowns
  as equations, every one linear with numbers for coefficients, and exactly one solution;
- the new equation is linear, in those unknowns only, and fails at that solution.
"""

from __future__ import annotations

import re

from verifiers.calculator.claim_words import last_sentence, prose
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.derivations import linear_in
from verifiers.calculator.solutions import Condition, Step, difference
from verifiers.calculator.symbolic import fmt, point

__all__ = ["eliminated"]

# Words that add or subtract equations ("adding the two equations", "subtracting the second
# equation from the first", "eliminating y", "adding them", "adding gives"); not "adding the
# third condition", which brings a new one.
_COMBINES = re.compile(
    r"\b(?:add|adding|added|subtract|subtracting|subtracted|summing)\b"
    r"(?:(?:(?!\b(?:and|then)\b)[^.;:])*?"
    r"\b(?:equations|them|these|both|the two|(?:from|to) the (?:first|second|third|last|other))\b"
    r"|\s*(?:,|gives|yields|we get|we have|leads))"
    r"|\beliminat\w*\s+[a-z]\b",
    re.IGNORECASE,
)
# Words that change an equation of the system before it is added ("replacing 10 by 12 in the
# first", "setting y = 0", "instead"): then the sum is another system's. An operation that
# keeps the solutions (multiplying an equation by a number first) changes nothing here.
_CHANGED = re.compile(
    r"\b(?:substitut|plug|replac|setting|set\b|instead|doubl|halv|chang|new\b|modif|suppos|if\b)",
    re.IGNORECASE,
)


def eliminated(here: Condition, lead: str, step: Step, system: tuple, defs: dict):
    """A False for an equation written as a sum or difference of the system before it that
    fails at the system's one solution; None otherwise (see the module docstring). `lead`:
    the text since the clause before (math in it); `system`: the group of equations the step
    before ended on, as members."""
    said = last_sentence(prose(lead))
    if not _COMBINES.search(said) or _CHANGED.search(said):
        return None
    # The equations written before it, none before a trial or a case the step opened.
    earlier = [] if step.barriers else [Condition(m[0], m[1], -1, -1) for m in system]
    earlier += [c for c in step.conditions if c.clause > max(step.barriers, default=-1)]
    new = difference(here.left, here.right, defs)
    if new is None or not new.free_symbols or not linear_in(new, sorted(new.free_symbols, key=str)):
        return None
    for size in (2, 3):
        group = earlier[-size:]
        if len(group) < size:
            return None
        solution = _one_solution(group, defs)
        if solution is None or not new.free_symbols <= set(solution):
            continue
        if new.xreplace(solution) == 0:
            return None
        left, right = difference(here.left, "0", defs), difference(here.right, "0", defs)
        if left is None or right is None:
            return None
        shown = " and ".join(f"`{c.left} = {c.right}`" for c in group)
        return ClaimResult(
            "false", f"{here.left} = {here.right}",
            reason=f"at {point(solution)}, where {shown} hold, the sides are "
            f"{fmt(left.xreplace(solution))} and {fmt(right.xreplace(solution))}",
        )  # fmt: skip
    return None


def _one_solution(system: list[Condition], defs: dict) -> dict | None:
    """The one solution of a linear system with rational coefficients and as many unknowns
    as equations, or None."""
    import sympy

    exprs = [difference(c.left, c.right, defs) for c in system]
    if any(e is None or not linear_in(e, sorted(e.free_symbols, key=str)) for e in exprs):
        return None
    names = sorted(set().union(*(e.free_symbols for e in exprs)), key=str)
    if len(names) != len(exprs):
        return None
    found = sympy.linsolve(exprs, names)
    if len(found) != 1:
        return None
    values = next(iter(found))
    if any(v.free_symbols for v in values):
        return None
    return dict(zip(names, values, strict=True))
