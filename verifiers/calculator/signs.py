"""A `\\pm` read as the pair of values it writes: one at the upper signs, one at the lower.

`x = \\frac{108 \\pm \\sqrt{67089}}{122} = \\frac{108 \\pm 259}{122}` claims that two
pairs of values are the same: each member read with every `\\pm` as `+` (and every `\\mp` as
`-`), and with the signs the other way. A link holds when the pairs match (in either order: a
writer who divides by -2 turns them), is false only when no reading of one side equals any
reading of the other (a slip in the shared part or in the signed term, as a miscomputed
discriminant; the readings at matching signs must be false claims, the crossed ones need only
differ in value), and says nothing otherwise (`\\sqrt{4} = \\pm 2` holds under one sign alone).
A member with two signs (`\\pm a \\pm b`) means four choices that two readings do not cover:
not read.
"""

from __future__ import annotations

import re

from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import readings
from verifiers.calculator.symbolic import compare_identity

__all__ = ["SIGN", "both_signs", "differ", "signed"]

SIGN = re.compile(r"\\(pm|mp)(?![A-Za-z])")


def signed(members: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The chain at its upper signs and at its lower signs (None: no sign written, or a
    member with more than one)."""
    counts = [len(SIGN.findall(m)) for m in members]
    if not any(counts) or max(counts) > 1:
        return None
    upper = tuple(SIGN.sub(lambda m: "+" if m.group(1) == "pm" else "-", x) for x in members)
    lower = tuple(SIGN.sub(lambda m: "-" if m.group(1) == "pm" else "+", x) for x in members)
    return upper, lower


def both_signs(
    found: list[ClaimResult | None], crossed_differ: bool, text: str
) -> ClaimResult | None:
    """One verdict for a link read four ways (`found`: upper against upper, lower against
    lower, upper against lower, lower against upper). The two values a `\\pm` writes are a
    pair whose order a writer may turn (dividing by -2 turns it): the link holds when one
    matching of the pairs holds in full; it is false when both matched readings are false
    claims and the crossed ones differ in value too (`crossed_differ`), else nothing is said."""
    outcome = [o.outcome if o is not None else "" for o in found]
    if outcome[:2] == ["holds", "holds"] or outcome[2:] == ["holds", "holds"]:
        return ClaimResult("holds", text)
    if outcome[:2] == ["false", "false"] and crossed_differ and (upper := found[0]) is not None:
        reason = f"under either sign of ±; at the upper signs: {upper.reason}"
        return ClaimResult("false", text, upper.claimed, upper.true, reason)
    return None


def differ(left: str, right: str, defs: dict) -> bool:
    """Whether two members differ in value under every reading (wherever both are defined)."""
    lefts, rights = readings(left, defs), readings(right, defs)
    return bool(lefts and rights) and all(
        compare_identity(a, b)[0] == "false" for a in lefts for b in rights
    )
