"""A computation's value restated through the unknown it was set equal to.

"42 \\cdot 56 = c, or c = 2336": the numeric reader sees two relations, each with an unknown
on one side, and judges neither; read together they claim 42 \\cdot 56 = 2336.
"""

from __future__ import annotations

from verifiers.calculator.claim_words import CONNECTS, PLAIN, compact, numeric, word_set
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.symbolic import check_number

__all__ = ["restated_value"]


def restated_value(
    before_clause: tuple, members: tuple, ops: tuple, before: str, defs: dict
) -> tuple[ClaimResult, tuple[str, str]] | None:
    """`42 \\cdot 56 = c`, "or" `c = 2336`: an unknown set equal to a computation, then given a
    value with only joining words between, claims the computation's value (trial or not:
    the value restates the line before it, it does not answer a supposition)."""
    last_members, last_ops = before_clause[0], before_clause[1]
    words = word_set(before)
    if len(members) != 2 or ops != ("=",) or len(last_members) != 2 or last_ops != ("=",):
        return None
    if not words or not words <= CONNECTS:
        return None
    # The unknown on the right of the computation: `c = 3 / 4 or c = 5 / 2` lists values.
    if compact(members[0]) != compact(last_members[1]):
        return None
    computed = last_members[0]
    value = members[1]
    if PLAIN.match(computed) or not numeric(computed, defs) or not numeric(value, defs):
        return None
    found = check_number(computed, "=", value, defs)
    if found.outcome != "false":
        return None
    # Not a relation the numeric reader sees in the text: the unknown stands between.
    text = f"{computed} = {members[0]} = {value}"
    found = ClaimResult("false", text, found.claimed, found.true, found.reason)
    return found, (computed, value)
