"""Congruences between whole numbers: `56 \\equiv 6 \\pmod{17}` claims that 17 divides 56 - 6.

A chain of `\\equiv` closed by its modulus (`\\pmod{17}`, `(\\mod 17)`, `\\mod 17`) is read link by
link; a link between two members that are whole numbers as written (`3^3`, `\\boxed{6}`, `-10`)
is checked exactly, and one with an unknown (`n \\equiv 56`) is a condition, never judged. The
words that make a clause a trial or a case still silence it; those that only name the
arithmetic ("modulo 3", "the remainder") do not.
"""

from __future__ import annotations

import re

from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import readings

__all__ = ["MODULAR_WORDS", "congruences"]

# Words that name modular arithmetic: they make an equation "modular" (not claimed), but a
# congruence is exactly what they announce.
MODULAR_WORDS = frozenset("mod modulo pmod congruent remainder remainders".split())
_MODULUS = re.compile(
    r"\s*(?:\\pmod\s*\{?\s*(\d+)\s*\}?|\(\s*\\?b?mod\s*\{?\s*(\d+)\s*\}?\s*\)"
    r"|\\b?mod\s*\{?\s*(\d+)\s*\}?)\s*[.,;]?\s*$"
)
_BOXED = re.compile(r"\\boxed\s*\{([^{}]*)\}")
_HUGE_POWER = re.compile(r"\^\s*\{?\s*\d{4,}")  # a power we would not expand to compare


def congruences(members: tuple[str, ...], ops: tuple[str, ...], defs: dict) -> list[ClaimResult]:
    """The verdicts on a chain's congruences between whole numbers (empty: no modulus)."""
    found = _MODULUS.search(members[-1])
    if "===" not in ops or found is None:
        return []
    modulus = int(next(g for g in found.groups() if g is not None))
    if modulus < 2:
        return []
    members = (*members[:-1], members[-1][: found.start()])
    out = []
    for i, op in enumerate(ops):
        if op != "===":
            continue
        left, right = _whole(members[i], defs), _whole(members[i + 1], defs)
        if left is None or right is None:
            continue
        text = f"{members[i]} \\equiv {members[i + 1]} \\pmod{{{modulus}}}"
        if (left - right) % modulus == 0:
            out.append(ClaimResult("holds", text))
        else:
            reason = f"they leave {left % modulus} and {right % modulus} divided by {modulus}"
            true = f"{left % modulus} (mod {modulus})"
            out.append(ClaimResult("false", text, f"{right % modulus}", true, reason))
    return out


def _whole(member: str, defs: dict) -> int | None:
    member = _BOXED.sub(r"\1", member).strip()
    if not member or _HUGE_POWER.search(member):
        return None
    found = readings(member, defs)
    if len(found) != 1 or found[0].free_symbols or not found[0].is_Integer:
        return None
    return int(found[0])
