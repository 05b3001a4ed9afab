"""Euler's number: `\\ln e^3 = 3`, `e^{\\ln 5} = 5`, `e^0 = 1`.

Elsewhere `e` is a letter whose meaning is not ours to guess (the fifth of five digits, an
edge, an eccentricity), and every member that holds it is unread. A chain reads it as Euler's
number only when the problem and every step of the chain together say so and nothing says
otherwise: some text writes a natural logarithm or an exponential (`\\ln`, `\\exp`, e with a
letter or a logarithm in its exponent: `e^{2x}`, `e^{\\ln 5}`), and no text writes e where an
unknown stands (alone, `e = 3`, `a + e`, "(e)", "e.g."; an exponent of numbers, `e^2`, says
neither) or names an eccentricity. The whole chain is read before any step is judged, so a
step is never judged with a meaning a later step takes back.

There a link between two members with no letter but e is judged exactly, as the numeric
checks judge numbers: `=` only, no decimal on either side (`e^2 = 7.389` is rounded), one
reading of each side (an unbased `\\log` read in base 10 and base e must agree).
"""

from __future__ import annotations

import re

from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import DECIMAL, readings
from verifiers.calculator.relations import admissible
from verifiers.calculator.symbolic import fmt

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
_ECCENTRIC = re.compile(r"eccentricit", re.IGNORECASE)
# A stand-in for e while a member is vetted and read: the readers refuse the letter e.
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
        if re.search(r"(?<![\\A-Za-z])[A-Za-z]|\\ln|\\log", exponent):
            euler = True
    return euler, unknown


def euler_chain(texts: list[str]) -> bool:
    """Whether a chain reads e as Euler's number. `texts`: the problem and every step."""
    uses = [_uses(text) for text in texts]
    return any(euler for euler, _ in uses) and not any(unknown for _, unknown in uses)


def euler_link(left: str, op: str, right: str, defs: dict) -> ClaimResult | None:
    """The link judged with e Euler's number (None: the chain does not read e so, `defs`
    without e as `EULER_TEXT`, or not a link between numbers that writes e, or a side not
    read exactly once). A False is confirmed as any: the library's reader reads e so too."""
    import sympy

    if op != "=" or defs.get("e") != ((), sympy.E):
        return None
    if not (_LETTER_E.search(left) or _LETTER_E.search(right)):
        return None
    values = []
    for member in (left, right):
        stand_in = _LETTER_E.sub(_STAND_IN, member)
        if _STAND_IN in member or DECIMAL.search(member) or not admissible(stand_in):
            return None
        found = set(readings(member, defs))
        if len(found) != 1:
            return None
        value = found.pop()
        if not (value.is_number and value.is_real):
            return None
        values.append(value)
    text = f"{left} = {right}"
    gap = sympy.simplify(values[0] - values[1])
    if gap == 0:
        return ClaimResult("holds", text)
    # A zero simplify leaves unsimplified is far below the digits used; a slip is not.
    scale = max(1.0, *(abs(float(sympy.N(v, 30))) for v in values))
    if abs(float(sympy.N(gap, 30))) <= scale * 1e-20:
        return ClaimResult("holds", text)
    return ClaimResult(
        "false", text, fmt(values[1]), fmt(values[0]), "with e Euler's number the sides differ"
    )
