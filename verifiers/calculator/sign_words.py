"""A value the words name by its sign: "keep only the positive solution: \\[u = \\frac{1 +
\\sqrt{5}}{-2}\\]" claims that u is positive (it is about -1.618).

Read only where the words right before the value name it ("the positive root is", "the negative
solution:"), the value is a number written out (no unknown, no `\\pm`), and nothing in its
clause rejects or supposes: "we discard the negative solution: \\[y = ...\\]" shows the value
kept, not the one discarded, and "if the positive root is ..." claims nothing. A value of 0 is
neither sign and never judged.
"""

from __future__ import annotations

import re

from verifiers.calculator.claim_words import NOT_CLAIMED, last_sentence, lone, word_set
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import readings
from verifiers.calculator.relations import admissible

_NAMED = re.compile(
    r"\b(?P<sign>positive|negative)\s+(?:real\s+)?(?P<noun>solution|root|value|answer)s?\b"
    r"\s*(?:(?:is|will\s+be|we\s+get|gives|as)\b)?\s*[:,]?\s*$",
    re.IGNORECASE,
)
# Words of a clause that leave the value it names unclaimed, beyond the calculator's own.
_SETS_ASIDE = NOT_CLAIMED | {
    "discarding", "rejecting", "ignore", "ignoring", "exclude", "excluding", "drop", "eliminate"
}


def signed_value(members: tuple, ops: tuple, before: str, defs: dict) -> ClaimResult | None:
    """False when the words before `x = value` name its sign and the value has the other one
    (None: nothing to say; see the module docstring)."""
    import sympy

    said = last_sentence(before.strip())
    if not (m := _NAMED.search(said)) or set(ops) != {"="} or not lone(members[0]):
        return None
    clause = re.split(r"[,;]|\b(?:and|but|then)\b", said[: m.start()])[-1]
    if word_set(said[: m.start()]) & {"if", "suppose", "assume", "whether"} or (
        word_set(clause) & _SETS_ASIDE
    ):
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
