"""Congruences and divisibility between whole numbers: `56 \\equiv 6 \\pmod{17}` claims that
17 divides 56 - 6, `8 \\nmid 2^8` that 8 does not divide 256.

A chain of `\\equiv` closed by its modulus (`\\pmod{17}`, `(\\mod 17)`, `\\mod 17`) is read link by
link; a link between two members that are whole numbers as written (`3^3`, a boxed `6`, `-10`)
is checked exactly, and one with an unknown (`n \\equiv 56`) is a condition, never judged. The
words that make a clause a trial or a case still silence it; those that only name the
arithmetic ("modulo 3", "the remainder") do not. A `\\mid` or `\\nmid` between two whole
numbers as written is judged the same way; one with an unknown (`d \\mid n`) is a condition.
So is a remainder written with "mod" and `=` (`195 \\mod 19 = 1`, judged as a congruence);
a gcd's or an lcm's value is `worked_values`'.
"""

from __future__ import annotations

import re

from verifiers.calculator.claim_words import ARROWS
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import one_unknown, readings

__all__ = ["DIVIDES", "MODULAR_WORDS", "congruences", "divisibility", "drawn_congruence"]

DIVIDES = frozenset({"|", "!|"})

# Words that name modular arithmetic: they make an equation "modular" (not claimed), but a
# congruence is exactly what they announce.
MODULAR_WORDS = frozenset("mod modulo pmod congruent remainder remainders".split())
_MODULUS = re.compile(
    r"\s*(?:\\pmod\s*\{?\s*(\d+)\s*\}?|\(\s*\\?b?mod\s*\{?\s*(\d+)\s*\}?\s*\)"
    r"|\\b?mod\s*\{?\s*(\d+)\s*\}?)\s*[.,;]?\s*$"
)
_HUGE_POWER = re.compile(r"\^\s*\{?\s*\d{4,}")  # a power we would not expand to compare


def congruences(members: tuple[str, ...], ops: tuple[str, ...], defs: dict) -> list[ClaimResult]:
    """The verdicts on a chain's congruences between whole numbers (empty: no modulus), and on
    its remainders written with `=` (`_remainders`)."""
    found = _MODULUS.search(members[-1])
    if "===" not in ops or found is None:
        return _remainders(members, ops, defs)
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
        out.append(_congruence(text, left, right, modulus))
    return out


def _congruence(text: str, left: int, right: int, modulus: int) -> ClaimResult:
    """The verdict on two whole numbers said to be congruent modulo `modulus`."""
    if (left - right) % modulus == 0:
        return ClaimResult("holds", text)
    reason = f"they leave {left % modulus} and {right % modulus} divided by {modulus}"
    true = f"{left % modulus} (mod {modulus})"
    return ClaimResult("false", text, f"{right % modulus}", true, reason)


# Members ending on "mod n": `195 \\mod 19`, `2003 \\bmod 6`, `27 \\text{ mod } 100`, `4 \\pmod{7}`
_REMAINDER = re.compile(
    r"^(?P<number>.*?\S)\s*(?:\(\s*)?(?:\\[pb]?mod\b|\\text\{\s*mod\s*\}|\\operatorname\{mod\}|\bmod\b)"
    r"\s*\{?\s*(?P<modulus>\d+)\s*\}?\s*\)?\s*$"
)


def _remainders(members: tuple[str, ...], ops: tuple[str, ...], defs: dict) -> list[ClaimResult]:
    """`195 \\mod 19 = 1`: an `=` link with "mod n" ending one member (or both, with the same
    n) between whole numbers claims they are congruent modulo n. Judged as a congruence, not
    as a least remainder: `20 \\mod 19 = 20` is loose, not false, and `0 + 20 \\mod 19` is the
    same residue however "mod" binds."""
    out = []
    for i, op in enumerate(ops):
        if op != "=":
            continue
        sides = [_REMAINDER.match(m.strip()) for m in members[i : i + 2]]
        moduli = {int(found["modulus"]) for found in sides if found}
        if len(moduli) != 1 or (modulus := moduli.pop()) < 2:
            continue
        pair = zip(sides, members[i : i + 2], strict=True)
        texts = [found["number"] if found else m for found, m in pair]
        left, right = _whole(texts[0], defs), _whole(texts[1], defs)
        if left is None or right is None:
            continue
        text = f"{members[i]} = {members[i + 1]}"
        out.append(_congruence(text, left, right, modulus))
    return out


def divisibility(members: tuple[str, ...], ops: tuple[str, ...], defs: dict) -> list[ClaimResult]:
    """The verdicts on a chain's `\\mid` and `\\nmid` links between whole numbers."""
    out = []
    for i, op in enumerate(ops):
        if op not in DIVIDES:
            continue
        left, right = _whole(members[i], defs), _whole(members[i + 1], defs)
        if left is None or right is None or left == 0:
            continue
        divides = right % abs(left) == 0
        sign = "\\mid" if op == "|" else "\\nmid"
        text = f"{members[i]} {sign} {members[i + 1]}"
        if divides == (op == "|"):
            out.append(ClaimResult("holds", text))
            continue
        said = "divides" if divides else "leaves " + str(right % abs(left))
        reason = f"{right} divided by {abs(left)}: {said}" if not divides else (
            f"{abs(left)} divides {right} ({right // left} times)"
        )  # fmt: skip
        out.append(ClaimResult("false", text, reason=reason))
    return out


_MAX_RESIDUES = 2000  # a modulus whose residues are all tried


def drawn_congruence(
    last: tuple | None, here: tuple, before: str, defs: dict
) -> ClaimResult | None:
    """`2n \\equiv -10 \\pmod{3} \\implies 2n \\equiv 1 \\pmod{3}`: a congruence in one unknown
    drawn from the one just before it (an arrow or nothing but punctuation between, the same
    modulus) must hold for every residue that satisfies that one (here n = 1 does, and
    2 is not 1 modulo 3). A stronger one is no consequence, so it is a slip; a weaker one
    (`n \\equiv 1 \\implies n^2 \\equiv 1`) is fine. Cases ("or") are never compared."""
    # Only an arrow or punctuation between: words ("... gives 3, x \\equiv 4 gives 4") list
    # cases as often as they derive.
    if last is None or re.search(r"[a-z0-9]", ARROWS.sub(" ", before).lower()):
        return None
    first, second = _condition(*last, defs), _condition(*here, defs)
    if first is None or second is None or first[1] != second[1] or first[2] != second[2]:
        return None
    (e1, modulus, unknown), e2 = first, second[0]
    satisfy = [r for r in range(modulus) if int(e1.subs(unknown, r)) % modulus == 0]
    missed = [r for r in satisfy if int(e2.subs(unknown, r)) % modulus != 0]
    if not missed:
        return None
    members, _ = here
    text = f"{members[0]} \\equiv {_MODULUS.split(members[1])[0].strip()} \\pmod{{{modulus}}}"
    return ClaimResult(
        "false", text, reason=f"does not follow from `{last[0][0]} \\equiv "
        f"{_MODULUS.split(last[0][1])[0].strip()}`: {unknown} = {missed[0]} satisfies that "
        "one, not this",
    )  # fmt: skip


def _condition(members: tuple, ops: tuple, defs: dict):
    """(difference of the sides, modulus, unknown) of a congruence `A \\equiv B \\pmod{m}` in
    one unknown with whole coefficients, or None."""
    if ops != ("===",) or (found := _MODULUS.search(members[1])) is None:
        return None
    modulus = int(next(g for g in found.groups() if g is not None))
    if not 2 <= modulus <= _MAX_RESIDUES:
        return None
    if (read := one_unknown(members[0], members[1][: found.start()], defs)) is None:
        return None
    _, _, expr, unknown, poly = read
    if poly.degree() > 6 or not all(c.is_Integer for c in poly.all_coeffs()):
        return None
    return expr, modulus, unknown


def _whole(member: str, defs: dict) -> int | None:
    member = member.strip()  # a boxed answer comes read as `(6)` (`relations.clauses`)
    if not member or _HUGE_POWER.search(member):
        return None
    found = readings(member, defs)
    if len(found) != 1 or found[0].free_symbols or not found[0].is_Integer:
        return None
    return int(found[0])
