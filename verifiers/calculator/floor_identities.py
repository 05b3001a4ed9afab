"""Floors and ceilings of expressions in letters, rewritten along a chain:
`\\lfloor \\frac{x}{2} \\rfloor = \\lfloor \\frac{7k + r}{2} \\rfloor = 3k + \\lfloor \\frac{r}{2}
\\rfloor` claims that its last two members are one value for the k and r the text means.

The readers leave a floor of a letter unread, and sympy cannot decide such identities, so a
link is tried at points: every letter a whole number from 2 to 12, a number with a fractional
part between, or a far one (37 to 1000), all combinations for up to two letters (`_points`).
The text may mean the letters to be whole numbers, or to lie in a range ("0 <= r < 7"), or a
case ("for even n"), and it does not say which in a form we read; so a link is False only where
the sides differ at every point tried where both are real, and holds where they agree at every
one. A range or a case that holds at any point of the grid (any parity, any residue up to 11,
fractional parts from a tenth to nine tenths) then spares it; pulling a multiple out of a floor
(`\\lfloor \\frac{7k}{2} \\rfloor = 3k`) fails at all of them. Letters below 2 are not tried:
there many slips vanish (k = 0), and a claim meant only there would be read as false (none is
written in MATH train solutions).

Read only for a link after a chain's first (the first may be the equation being solved, and a
floor equation in x is a condition, not a claim), between members with the same letters (a
letter of one side alone is a value being found), up to three letters, each member read whole.
"""

from __future__ import annotations

import itertools
import re

from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import readings
from verifiers.calculator.symbolic import fmt
from verifiers.calculator.worked_values import FLOOR_CLOSE, FLOOR_OPEN, same_real

__all__ = ["floor_links"]

# Names a floor is read as while the text around it is read (never letters of the text).
_SPARE = "uvwqzy"
_WHOLE = tuple(range(2, 13))
_FRACTIONAL = ((5, 2), (7, 3), (29, 10), (17, 4), (26, 3), (39, 4), (61, 10), (111, 10))
# Far points, so that agreement at every point is no accident of small values
# (`\\lfloor \\frac{n}{13} \\rfloor = \\lfloor \\frac{n}{14} \\rfloor` up to 12).
_FAR = ((37, 1), (101, 1), (1000, 1), (2021, 4), (3001, 3))
_MIN_DEFINED = 10  # points where both sides are real, or no verdict
_MAX_LETTERS = 3


def floor_links(members: tuple[str, ...], ops: tuple[str, ...], defs: dict) -> list[ClaimResult]:
    """The verdicts on a chain's `=` links after its first with a floor or ceiling of an
    expression in letters on either side (see the module docstring)."""
    import sympy

    out = []
    for i in range(1, len(ops)):
        pair = members[i : i + 2]
        if ops[i] != "=" or not any(FLOOR_OPEN.search(m) for m in pair):
            continue
        sides = [_expression(member, defs) for member in pair]
        if sides[0] is None or sides[1] is None:
            continue
        letters = sides[0].free_symbols
        if not letters or letters != sides[1].free_symbols or len(letters) > _MAX_LETTERS:
            continue
        powers = [p for side in sides for p in side.atoms(sympy.Pow) if p.exp.free_symbols]
        if any(q.exp.free_symbols for p in powers for q in p.exp.atoms(sympy.Pow)):
            continue  # `2^{2^n}`: a tower we would not build at the points
        verdict = _tried(pair, sides, sorted(letters, key=str), far=not powers)
        if verdict is not None:
            out.append(verdict)
    return out


def _expression(member: str, defs: dict):
    """The member as a sympy expression, its floors and ceilings read innermost first; None
    when a part is not read whole, a floor does not close, or no spare name is left."""
    import sympy

    spare = [c for c in _SPARE if not re.search(rf"(?<![\\A-Za-z]){c}(?![A-Za-z])", member)]
    floors = {}
    while opened := list(FLOOR_OPEN.finditer(member)):
        found = opened[-1]
        closed = FLOOR_CLOSE.search(member, found.end())
        if closed is None or closed["kind"][1:] != found["kind"][1:] or not spare:
            return None
        inside = _read(member[found.end() : closed.start()], defs, floors)
        if inside is None:
            return None
        name = spare.pop(0)
        floors[sympy.Symbol(name)] = (
            sympy.floor(inside) if found["kind"] == "lfloor" else sympy.ceiling(inside)
        )
        member = f"{member[: found.start()]}({name}){member[closed.end() :]}"
    return _read(member, defs, floors)


def _read(text: str, defs: dict, floors: dict):
    found = readings(text, defs) if text.strip() else []
    if len(found) != 1:
        return None
    return found[0].xreplace(floors)


def _points(letters: list, far: bool) -> list[dict]:
    """The grid (see the module docstring); without the far points where a letter stands in
    an exponent (`3^{n}` at n = 1000 is a number we need not build)."""
    import sympy

    values = [sympy.Integer(n) for n in _WHOLE]
    values += [sympy.Rational(p, q) for p, q in _FRACTIONAL + (_FAR if far else ())]
    if len(letters) <= 2:
        grid = itertools.product(values, repeat=len(letters))
    else:  # three letters: whole numbers to 7, 5/2 and the last point each, 512 points
        grid = itertools.product(values[:6] + [values[len(_WHOLE)], values[-1]], repeat=3)
    return [dict(zip(letters, point, strict=True)) for point in grid]


def _tried(pair: tuple[str, ...], sides: list, letters: list, far: bool) -> ClaimResult | None:
    """Holds where the sides agree at every point tried, False where they differ at every one
    (at least `_MIN_DEFINED` where both are real), else None."""
    import sympy

    text = f"{pair[0]} = {pair[1]}"
    agree, misses = 0, []
    counts = [a for side in sides for a in side.atoms(sympy.factorial, sympy.binomial)]
    for subs in _points(letters, far):
        if any(not arg.is_Integer or arg < 0 for a in counts for arg in a.xreplace(subs).args):
            continue  # `n!` counts at whole n only
        try:
            values = [side.xreplace(subs) for side in sides]
            if not all(v.is_number and v.is_real for v in values):
                continue  # a root of a negative number, a zero denominator: no point
            same = same_real(*values)
        except (ArithmeticError, TypeError, ValueError):  # sympy's precision ran out
            continue
        if same is None:
            return None
        agree += same
        misses += [] if same else [(subs, *values)]
        if agree and misses:
            return None
    if agree + len(misses) < _MIN_DEFINED:
        return None
    if not misses:
        return ClaimResult("holds", text)
    subs, a, b = misses[0]
    where = ", ".join(f"{k} = {fmt(v)}" for k, v in subs.items())
    reason = (
        f"the sides differ at every point tried ({len(misses)}); at {where} they are "
        f"{fmt(a)} and {fmt(b)}"
    )
    return ClaimResult("false", text, fmt(b), fmt(a), reason)
