"""Numbers simplified in place: an equation written again with each bracket of numbers in it
replaced by one number, and nothing else changed ("3^{x}(3^2 - 9) = 2^{x}(2^5 - 5)", then
"Simplifying, 3^{x}(-6) = 2^{x}(27)"), claims each bracket's value. The equation's unknowns do
not enter: the claim is arithmetic, judged as the numeric reader judges `3^2 - 9 = -6` (exactly,
within the written rounding for decimals), whatever the two equations' solutions are (here
neither has a real one, so comparing solutions says nothing).

Read only when the texts match character for character outside the brackets (spacing and
`\\left`/`\\right` aside), every bracket of the first holds an operation on numbers alone
(digits, a decimal point, `+ - * / ^`, `\\cdot`, `\\times`, braces of an exponent) and the
second writes a number in its place (bare or in brackets). A bracket rewritten into anything
else, a term moved or a factor dropped leaves the pair to `derivations`.
"""

from __future__ import annotations

import re

from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.solutions import Condition
from verifiers.calculator.symbolic import check_number

# A bracket of numbers with at least one operation between them.
_NUMBERS = r"[\d.{}]+(?:(?:[-+*/^]|\\cdot|\\times)[\d.{}]+)+"
_BRACKET = re.compile(rf"\((-?{_NUMBERS})\)")
# What the second equation writes in a bracket's place: a number, bare or bracketed.
_VALUE = r"(\(?-?\d+(?:\.\d+)?\)?)"


def _flat(text: str) -> str:
    return re.sub(r"\s+|\\left|\\right", "", text)


def numbers_in_place(first: Condition, second: Condition) -> ClaimResult | None:
    """The first bracket whose value the second equation writes wrongly, as a False, or None
    (the pair is not of this shape, or every value is right)."""
    old = _flat(f"{first.left}={first.right}")
    new = _flat(f"{second.left}={second.right}")
    brackets = [m.group(1) for m in _BRACKET.finditer(old)]
    if not brackets or old == new:
        return None
    pattern = "".join(
        re.escape(piece) if k % 2 == 0 else _VALUE
        for k, piece in enumerate(_BRACKET.split(old))
    )
    match = re.fullmatch(pattern, new)
    if match is None:
        return None
    for bracket, value in zip(brackets, match.groups(), strict=True):
        found = check_number(bracket, "=", value.strip("()"))
        if found.outcome == "false":
            return ClaimResult(
                "false", f"{second.left} = {second.right}", value.strip("()"), found.true,
                f"`{bracket}` written as {value.strip('()')} in "
                f"`{first.left} = {first.right}`: it is {found.true}",
            )  # fmt: skip
    return None
