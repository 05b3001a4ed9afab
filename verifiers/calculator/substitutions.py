"""Substitutions: an equation written as another one with values or expressions put in.

"Substituting \\(d = 20 - a\\), we get: \\[ \\frac{20}{a - 2} = \\frac{23 - a}{20 - a} \\]" after
`\\frac{a + d}{a - 2} = \\frac{a + 2d + 3}{a + d}` claims the new equation is the old one with
d replaced by 20 - a (here the right side is (43 - a)/20). Read only where the words before the
assignments substitute ("substituting", "plugging", "setting", "putting", "replacing"),
several assignments are joined by a bare "and", and the words between the last one and the
equation only connect ("we get", "into this equation gives us:"), never another operation
("and subtracting"). The equation must no longer hold a substituted unknown, and hold every
other unknown of the condition it comes from (`y = ax + b` with x = 4 put in is no source of
`5 = 3(4) + b`: a value of a, or another equation, came in too). It is a slip only when no
condition the chain or the problem wrote that holds every substituted unknown gives it with
those values put in: the same roots in one unknown (fewer is a root discarded
on the way, not judged), a point that satisfies the substituted condition and fails it in
several (`derivations.polynomial_derivation`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifiers.calculator.applications import applied_difference, misapplied
from verifiers.calculator.claim_words import lone, word_set
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.derivations import polynomial_derivation
from verifiers.calculator.readers import readings
from verifiers.calculator.solutions import Condition, difference, roots_text
from verifiers.calculator.symbolic import roots_of

# Words that put values in; "let" alone names a new unknown instead.
_SUBSTITUTES = re.compile(r"substitut|plug|\bsett?ing\b|\bputt?ing\b|\breplac")
# The only words that may stand between the last assignment and the equation it gives.
_CONNECTS = frozenset(
    "into in this the that equation expression above last it we get gives give us obtain have"
    " yields find then to simplify our calculations calculation result results given original"
    " initial functional".split()
)


@dataclass(frozen=True)
class Substitution:
    values: tuple[tuple[str, str], ...]  # (unknown, what is put in), in order
    clause: int  # the clause of the last assignment


def substituting(
    pending: Substitution | None, members: tuple[str, ...], before: str, k: int
) -> Substitution | None:
    """The substitution an assignment clause opens or goes on with (None: it is none)."""
    if len(members) != 2 or not lone(members[0]):
        return None
    value = (members[0].replace(" ", ""), members[1])
    if pending is not None and pending.clause == k - 1 and word_set(before) <= {"and"}:
        return Substitution((*pending.values, value), k)
    said = re.split(r"[.!?]\s", before.strip())[-1].lower()
    return Substitution((value,), k) if _SUBSTITUTES.search(said) else None


def substituted(
    pending: Substitution, here: Condition, before: str, known: list, defs: dict
) -> tuple[ClaimResult, tuple[str, ...]] | None:
    """A False, with the members it reads, when no known condition with the values put in
    gives `here` (see the module docstring); None when there is nothing to say."""
    import sympy

    if pending.clause != here.clause - 1 or not word_set(before) <= _CONNECTS:
        return None
    values = {}
    for name, value in pending.values:
        symbol, read = readings(name, defs), readings(value, defs)
        if len(symbol) != 1 or not isinstance(symbol[0], sympy.Symbol) or len(read) != 1:
            return None
        values[symbol[0]] = read[0]
    # A functional equation: its applications are kept, and only one put in wrongly is read.
    read = difference
    if (e2 := difference(here.left, here.right, defs)) is None:
        read, e2 = applied_difference, applied_difference(here.left, here.right, defs)
    if e2 is None or not e2.free_symbols or e2.free_symbols & set(values):
        return None
    text, found = f"{here.left} = {here.right}", None
    for left, right in known:
        e1 = read(left, right, defs)
        if e1 is None or not set(values) <= e1.free_symbols:
            continue
        put = e1.subs(values, simultaneous=True)
        put = put if read is applied_difference else sympy.together(put)
        if put == 0 or e2.free_symbols != put.free_symbols:
            continue  # other values put in too, or another equation used: not this one alone
        source = f"`{left} = {right}` with {_said(pending)}"
        if read is applied_difference:
            verdict = _misapplied(put, e2, text, source)
        else:
            verdict = _against(put, e2, text, source)
        if verdict is None:
            return None  # one reading of the substitution gives it
        members = (left, right, *(v for _, v in pending.values), here.left, here.right)
        found = found or (verdict, members)
    return found


def _against(put, e2, text: str, source: str) -> ClaimResult | None:
    names = sorted(put.free_symbols | e2.free_symbols, key=str)
    if len(names) > 1:
        return polynomial_derivation(put, e2, names, text, source)
    r1, r2 = roots_of(put, names[0]), roots_of(e2, names[0])
    if r1 is None or r2 is None or not r1 or not r2 or r2 <= r1 or r1 <= r2:
        return None
    if not all(r.is_real for r in r1 | r2):
        return None
    return ClaimResult(
        "false", text, roots_text(names[0], r2), roots_text(names[0], r1),
        f"is not {source}",
    )  # fmt: skip


def _misapplied(put, e2, text: str, source: str) -> ClaimResult | None:
    if (pair := misapplied(put, e2)) is None:
        return None
    meant, wrote = pair
    return ClaimResult("false", text, reason=f"{wrote} stands where {source} has {meant}")


def _said(pending: Substitution) -> str:
    return ", ".join(f"{name} = {value}" for name, value in pending.values) + " put in"

