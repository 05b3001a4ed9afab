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

from verifiers.calculator.claim_words import compact, confirmed, lone, word_set
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.identities import judge_link
from verifiers.calculator.readers import readings
from verifiers.calculator.relations import admissible
from verifiers.calculator.symbolic import compare_identity

__all__ = ["SIGN", "judged_signed", "restated_signed", "signed", "signed_texts"]

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


def signed_texts(member: str) -> tuple[str, ...]:
    """A member written with one `\\pm` (`\\frac{7 \\pm 5}{2}`) as the two it stands for, at
    its upper and lower signs; any other member as itself."""
    found = signed((member,))
    return (found[0][0], found[1][0]) if found else (member,)


def _both_signs(
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


def _differ(left: str, right: str, defs: dict) -> bool:
    """Whether two members differ in value under every reading (wherever both are defined)."""
    lefts, rights = readings(left, defs), readings(right, defs)
    return bool(lefts and rights) and all(
        compare_identity(a, b)[0] == "false" for a in lefts for b in rights
    )


def judged_signed(
    signs: tuple[tuple[str, ...], ...], i: int, op: str, defs: dict, known: list, before: str,
    text: str,
) -> ClaimResult | None:
    """A link with a `\\pm` (`text`) judged at both signs (`signs`), each side against each,
    each reading confirmed (see `_both_signs`)."""
    upper, lower = signs
    # Both sides signed: the pairs of values a formula gives, computed, not an equation.
    computed = upper[i] != lower[i] and upper[i + 1] != lower[i + 1]
    chains = (upper, lower, upper[: i + 1] + lower[i + 1 :], lower[: i + 1] + upper[i + 1 :])
    if not all(admissible(chain[i]) and admissible(chain[i + 1]) for chain in chains):
        return None

    def judged(chain: tuple[str, ...]) -> ClaimResult | None:
        outcome = judge_link(chain, i, op, defs, known, before, False, computed)
        # Confirmed by both readers whatever the sides: the numeric reader, which would judge
        # a relation between numbers, never sees a sign's reading.
        if outcome is not None and outcome.outcome == "false":
            if not confirmed((chain[i], chain[i + 1]), defs):
                return None
        return outcome

    # The crossed readings are judged only where the matched ones leave it open: both matched
    # holding settle it, and crossed ones that differ in value cannot hold.
    found: list[ClaimResult | None] = [judged(upper), judged(lower), None, None]
    settled = {o.outcome if o is not None else "" for o in found[:2]}
    crossed_differ = settled == {"false"} and (
        _differ(upper[i], lower[i + 1], defs) and _differ(lower[i], upper[i + 1], defs)
    )
    if settled != {"holds"} and not crossed_differ:
        found[2:] = [judged(chains[2]), judged(chains[3])]
    return _both_signs(found, crossed_differ, text)


def restated_signed(
    before_clause: tuple, members: tuple, ops: tuple, before: str, defs: dict, known: list
) -> ClaimResult | None:
    """`a = \\frac{108 \\pm \\sqrt{67089}}{122}`, then on the next display with no word between,
    `a = \\frac{108 \\pm 259}{122}`: the two signed values are claimed equal, as one chain
    `a = ... = ...` would claim them (after "or" they are alternatives: `p = 5m \\pm 1` or
    `p = 5m \\pm 2`)."""
    last_members, last_ops = before_clause[0], before_clause[1]
    if len(members) != 2 or ops != ("=",) or len(last_members) < 2 or last_ops[-1] != "=":
        return None
    if not lone(members[0]) or compact(members[0]) != compact(last_members[0]):
        return None
    if word_set(before) or not (
        SIGN.search(members[1]) and SIGN.search(last_members[-1])
    ):
        return None
    signs = signed((members[0], last_members[-1], members[1]))
    text = f"{last_members[-1]} = {members[1]}"
    return None if signs is None else judged_signed(signs, 1, "=", defs, known, "", text)
