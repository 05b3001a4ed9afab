"""A value the words name by its sign: "keep only the positive solution: \\[u = \\frac{1 +
\\sqrt{5}}{-2}\\]" claims that u is positive (it is about -1.618).

Read only where the words right before the value name it ("the positive root is", "the negative
solution:"), the value is a number written out (no unknown, no `\\pm`), and nothing in its
clause rejects or supposes: "we discard the negative solution: \\[y = ...\\]" shows the value
kept, not the one discarded, and "if the positive root is ..." claims nothing. A value of 0 is
neither sign and never judged.

The words that discard a value by its sign claim that one of the values before them has that
sign: "we discard the negative solution" right after `y = \\frac{15 \\mp 8\\sqrt{3}}{33}`,
whose two values are both positive, discards nothing (`discarded_sign`). Read only where the
relation just before is that unknown given one number with one `\\pm` or `\\mp`.
"""

from __future__ import annotations

import re

from verifiers.calculator.claim_words import NOT_CLAIMED, compact, last_sentence, lone, word_set
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import readings
from verifiers.calculator.relations import admissible
from verifiers.calculator.signs import signed

_NAMED = re.compile(
    r"\b(?P<sign>positive|negative)\s+(?:real\s+)?(?P<noun>solution|root|value|answer)s?\b"
    r"\s*(?:(?:is|will\s+be|we\s+get|gives|as)\b)?\s*[:,]?\s*$",
    re.IGNORECASE,
)
# "we discard the negative solution", "rejecting the positive root"
_DISCARDS = re.compile(
    r"\b(?:discard|reject|ignor|exclud|eliminat|drop)\w*\s+(?:the\s+)?(?P<sign>positive|negative)"
    r"\s+(?:real\s+)?(?P<noun>solution|root|value|answer)\b(?!s)",
    re.IGNORECASE,
)
# Words before a sign named or discarded that suppose it rather than claim it.
_SUPPOSES = frozenset({"if", "suppose", "assume", "whether"})
# Words of a clause that leave the value it names unclaimed, beyond the calculator's own.
_SETS_ASIDE = NOT_CLAIMED | {
    "discarding",
    "rejecting",
    "ignore",
    "ignoring",
    "exclude",
    "excluding",
    "drop",
    "eliminate",
}


def signed_value(
    members: tuple, ops: tuple, before: str, defs: dict, source: tuple | None = None
) -> ClaimResult | None:
    """False when the words before `x = value` name its sign and the value has the other one,
    or discard a value of a sign that none of the values of `source` (the relation before it,
    as (members, ops)) has (None: nothing to say; see the module docstring)."""
    import sympy

    said = last_sentence(before.strip())
    if source and (found := discarded_sign(members, ops, said, source, defs)):
        return found
    if not (m := _NAMED.search(said)) or set(ops) != {"="} or not lone(members[0]):
        return None
    clause = re.split(r"[,;]|\b(?:and|but|then)\b", said[: m.start()])[-1]
    if word_set(said[: m.start()]) & _SUPPOSES or (word_set(clause) & _SETS_ASIDE):
        return None
    value = members[-1]
    if any(r"\pm" in x or r"\mp" in x for x in members) or not admissible(value):
        return None
    read = readings(value, defs)
    if len(read) != 1 or read[0].free_symbols or read[0].is_real is not True:
        return None
    positive = m["sign"].lower() == "positive"
    if (read[0].is_negative if positive else read[0].is_positive) is not True:
        return None
    sign, shown = m["sign"].lower(), f"{float(sympy.N(read[0])):.6g}"
    return ClaimResult(
        "false", f"{members[0]} = {value}", sign, shown,
        f"named the {sign} {m['noun'].lower()}, but its value is {shown}",
    )  # fmt: skip


def discarded_sign(
    members: tuple, ops: tuple, said: str, source: tuple, defs: dict
) -> ClaimResult | None:
    """False when `said` discards "the negative solution" (or the positive one) of `source`,
    `x = a \\pm b` for the unknown `members` names, and neither value has that sign."""
    import sympy

    m = _DISCARDS.search(said)
    (given, given_ops), name = source, members[0]
    if m is None or set(ops) != {"="} or not lone(name) or given_ops != ("=",):
        return None
    if word_set(said[: m.start()]) & _SUPPOSES:
        return None
    pair = signed(given[-1:])  # its value at the upper sign and at the lower
    if len(given) != 2 or compact(given[0]) != compact(name) or pair is None:
        return None
    values = []
    for (value,) in pair:
        read = readings(value, defs)
        if len(read) != 1 or read[0].free_symbols or read[0].is_real is not True:
            return None
        values.append(read[0])
    negative = m["sign"].lower() == "negative"
    if any((v.is_negative if negative else v.is_positive) is not False for v in values):
        return None  # one of them has that sign, or sympy cannot tell
    shown = ", ".join(f"{float(sympy.N(v)):.6g}" for v in values)
    sign = m["sign"].lower()
    return ClaimResult(
        "false", f"{given[0]} = {given[1]}", sign, shown,
        f"discards the {sign} {m['noun'].lower()}, but neither value is {sign}",
    )  # fmt: skip
