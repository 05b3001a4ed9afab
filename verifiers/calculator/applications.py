"""A function the text never defines, applied: `f(x + 1)` read as an application, not a
product, for the checks that compare two equations term by term (a functional equation with
a value put in, or simplified), and for identities claimed about expressions that hold such
values, each application one unknown (`opaque_sides`).

`f(x + \\frac{x}{x}) = f(x) + 1 + 2x`, "which simplifies to" `f(2x) = f(x) + 1 + 2x`: the
two are the same but for one application whose argument changed (x + 1 written 2x). Nothing
else about such a function is known, so the only claim read is that one: `misapplied` finds
the one application of the new equation that is in no application of the old one, and the
old one's application it stands for (same function; with it put back the two equations are
multiples of each other). An application with the value known and dropped, or another
property used (`f(x + 4) = f(x)` for a period), is never a bare "simplifies to" or
"we get" in the callers' words.
"""

from __future__ import annotations

import re

from verifiers.calculator.readers import readings
from verifiers.calculator.relations import admissible

# The letters that name functions (`latex_math`), applied in a member.
_APPLIED = re.compile(r"(?<![\\A-Za-z])([fgh])\s*(?:\\left)?\s*\(")


def applied_difference(left: str, right: str, defs: dict):
    """left - right with undefined functions kept as applications (None: none applied, a
    function the chain defined applied, or a member not read whole, or read twice)."""
    sides = _applied_sides(left, right, defs)
    return None if sides is None else sides[0] - sides[1]


def _applied_sides(left: str, right: str, defs: dict):
    """Both members read once each with undefined functions kept as applications (None: as
    `applied_difference` says)."""
    names = frozenset(_APPLIED.findall(f"{left} {right}"))
    if not names or names & set(defs) or not (admissible(left) and admissible(right)):
        return None
    sides = [readings(m, defs, applications=names) for m in (left, right)]
    if any(len(side) != 1 for side in sides):
        return None  # unread, or an unbased log read twice
    return sides[0][0], sides[1][0]


def misapplied(old, new):
    """(the old application, the new one) when `new` is `old` but for one application with
    another argument; None otherwise."""
    import sympy
    from sympy.core.function import AppliedUndef

    old, new = _canonical(old), _canonical(new)
    if old is None or new is None:
        return None
    before, after = old.atoms(AppliedUndef), new.atoms(AppliedUndef)
    if len(after - before) != 1 or len(before - after) != 1:
        return None
    (wrote,), (meant,) = after - before, before - after
    if wrote.func != meant.func or wrote.atoms(AppliedUndef) - {wrote} - before:
        return None
    try:
        ratio = sympy.cancel(old / new.xreplace({wrote: meant}))
    except Exception:  # sympy's own failures on odd input: say nothing
        return None
    return (meant, wrote) if ratio.is_number and ratio != 0 else None


def _canonical(expr):
    """Each application's argument in one form (`f(x + x/x)` and `f(1 + x)` alike)."""
    import sympy
    from sympy.core.function import AppliedUndef

    try:
        for _ in range(4):
            apps = {a: a.func(sympy.cancel(a.args[0])) for a in expr.atoms(AppliedUndef)}
            if all(a == b for a, b in apps.items()):
                return expr
            expr = expr.xreplace(apps)
    except Exception:  # sympy's own failures on odd input: say nothing
        return None
    return expr


def confirmable(member: str) -> list[str]:
    """What the library's reader can confirm of a member with applications (it reads `f(x)`
    as an application and `f(2x)` as a product): the member with each application written as
    one letter, and each argument, in turn (`f(x + f(x))`: `\\omega`, `x + \\omega`, `x`)."""
    out, parts, last = [], [], 0
    for start, end, argument in _applications(member):
        if start < last:
            continue  # inside an application already taken
        parts.append(member[last:start] + " \\omega ")
        out.extend(confirmable(argument))
        last = end
    return [("".join(parts) + member[last:]).strip(), *out]


def _applications(member: str):
    """(start, end, argument) of each application, outermost first."""
    for m in _APPLIED.finditer(member):
        depth, i = 1, m.end()
        while i < len(member) and depth:
            depth += {"(": 1, ")": -1}.get(member[i], 0)
            i += 1
        if depth:
            return
        argument = re.sub(r"\\right\s*$", "", member[m.end() : i - 1]).strip()
        yield m.start(), i, argument


def opaque_sides(left: str, right: str, defs: dict):
    """(left read, right read, left, right as their forms are read) with each application of
    a function nobody defined one unknown (`f(x)` the same on both sides, `f(1 - x)` another;
    its brackets are no grouped form): for an identity claimed about an expression that holds
    such values (`(1 - x)^2 (2x - x^2 f(x)) + f(x)` expanded). None when no member applies
    one, or a member is not read whole once."""
    import sympy
    from sympy.core.function import AppliedUndef

    if (sides := _applied_sides(left, right, defs)) is None:
        return None
    sides = [_canonical(side) for side in sides]
    if any(side is None for side in sides):
        return None
    apps = sorted(set().union(*(s.atoms(AppliedUndef) for s in sides)), key=str)
    if any(a.atoms(AppliedUndef) - {a} for a in apps):
        return None  # `f(f(x))`: an application inside another is no plain unknown
    values = {a: sympy.Symbol(str(a).replace(" ", "")) for a in apps}
    read = [[side.xreplace(values)] for side in sides]
    return (*read, *(confirmable(m)[0] for m in (left, right)))
