"""Euler's number: `\\ln e^3 = 3`, `e^{\\ln 5} = 5`, `e^0 = 1`.

Elsewhere `e` is a letter whose meaning is not ours to guess (the fifth of five digits, an
edge, an eccentricity), and every member that holds it is unread. A chain reads it as Euler's
number only when the problem and every step of the chain together say so and nothing says
otherwise: some text writes a natural logarithm or an exponential (`\\ln`, `\\exp`, e with a
letter or a logarithm in its exponent: `e^{2x}`, `e^{\\ln 5}`), and no text writes e where an
unknown stands (alone, `e = 3`, `a + e`, "(e)", "e.g."; an exponent of numbers, `e^2`, says
neither) or names an eccentricity. The whole chain is read before any step is judged, so a
step is never judged with a meaning a later step takes back.

There a link between two members with no letter but e and no decimal (`e^2 = 7.39` is a
rounding) is judged as any relation between numbers (`symbolic.check_number`): exactly, and
an unbased `\\log` false only in base 10 and base e alike.
"""

from __future__ import annotations

import re

from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import DECIMAL, readings
from verifiers.calculator.relations import admissible
from verifiers.calculator.symbolic import check_number

# What `ChainAlgebra` defines e as when the chain reads it as Euler's number: a constant, as
# `Let $T = 8$` makes T one (`definitions`), so both readers put it in alike.
EULER_TEXT = "\\exp(1)"

# The letter e alone: not in a command (`\\sec`), a word or a name (`x_e`).
_LETTER_E = re.compile(r"(?<![\\A-Za-z_])e(?![A-Za-z])")
# e as a logarithm's argument: `\\ln e`, `\\ln(e^2)`, `\\ln \\left( e`.
_LOG_BEFORE = re.compile(r"\\ln\s*(?:\\left\s*)?[({]?\s*$")
# e's exponent: a braced group without nested braces, or one character.
_EXPONENT = re.compile(r"\s*\^\s*(?:\{(?P<group>[^{}]*)\}|(?P<one>[A-Za-z0-9]))")
_LOGARITHMS = re.compile(r"\\(?:ln|exp)(?![A-Za-z])")
# An exponent that makes e's power an exponential: a letter (not a command's) or a logarithm.
_EXPONENTIAL = re.compile(r"(?<![\\A-Za-z])[A-Za-z]|\\ln|\\log")
_ECCENTRIC = re.compile(r"eccentricit", re.IGNORECASE)
# A stand-in for e while a member is vetted: `admissible` refuses the letter e.
_STAND_IN = "j"


def _uses(text: str) -> tuple[bool, bool]:
    """(whether the text writes e as Euler's number, whether it writes e as an unknown)."""
    euler = bool(_LOGARITHMS.search(text))
    unknown = bool(_ECCENTRIC.search(text))
    for m in _LETTER_E.finditer(text):
        if _LOG_BEFORE.search(text[: m.start()]):
            euler = True
            continue
        power = _EXPONENT.match(text, m.end())
        if power is None:
            unknown = True
            continue
        exponent = power["group"] if power["group"] is not None else power["one"]
        # `e^{2x}`, `e^{\\ln 5}`: an exponential; `e^2` may square an unknown as well.
        if _EXPONENTIAL.search(exponent):
            euler = True
    return euler, unknown


def euler_chain(texts: list[str]) -> bool:
    """Whether a chain reads e as Euler's number. `texts`: the problem and every step."""
    uses = [_uses(text) for text in texts]
    return any(euler for euler, _ in uses) and not any(unknown for _, unknown in uses)


def euler_link(left: str, op: str, right: str, defs: dict) -> ClaimResult | None:
    """The link judged with e Euler's number, as any relation between numbers is
    (`symbolic.check_number`). None: the chain does not read e so (`defs` without e as
    `EULER_TEXT`), or not a link between numbers, without decimals, that writes e."""
    import sympy

    if op != "=" or defs.get("e") != ((), sympy.E):
        return None
    if not (_LETTER_E.search(left) or _LETTER_E.search(right)):
        return None
    for member in (left, right):
        if _STAND_IN in member or DECIMAL.search(member):
            return None  # `e^2 = 7.39`: a rounding of e's power, not a claim we read
        if not admissible(_LETTER_E.sub(_STAND_IN, member)):
            return None
        found = readings(member, defs)
        if not found or any(x.free_symbols for x in found):
            return None  # another letter beside e: not ours (nor a number)
    return check_number(left, op, right, defs)
