"""Functions of numbers the readers leave unread, worked out before a link is judged.

`\\gcd(12, 18) = 6`, `\\operatorname{lcm}(4, 6) = 12`, `\\left\\lfloor \\frac{1000}{7}
\\right\\rfloor = 142`, `\\lceil \\sqrt{20} \\rceil = 5`, `|-7| + |3| = 10`: each call whose
arguments are numbers (whole numbers for gcd and lcm) is replaced by its value, the innermost
first, and an `=` link whose two sides then read as real numbers is checked (exactly between
rational numbers, to 40 digits where a root stands, and not beside a decimal, which may be
rounded). A call with an unknown in it (`\\gcd(m, n)`, `\\lfloor x \\rfloor`) leaves its link
unread, and so does a floor of a decimal within a unit of its last place of a whole number
(the decimal may be rounded) or bars that do not pair off into numbers (`||x| - 1|`).
"""

from __future__ import annotations

import math
import re

from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import readings
from verifiers.calculator.symbolic import fmt

__all__ = ["FLOOR_CLOSE", "FLOOR_OPEN", "same_real", "worked_links"]

# `\\gcd(`, `\\operatorname{lcm}(`, `\\text{gcd}\\left(`, `\\mathop{\\text{lcm}}(`, a bare `lcm(`.
_COMMON = re.compile(
    r"(?:\\(?P<command>gcd|lcm)\b|\\(?:operatorname|text|mathrm|mathop)\s*\{\s*(?:\\text\s*\{)?"
    r"(?P<named>gcd|lcm)\s*\}?\s*\}|(?<![\\A-Za-z])(?P<bare>gcd|lcm))\s*(?:\\left\s*)?\(",
    re.IGNORECASE,
)
FLOOR_OPEN = re.compile(r"(?:\\left\s*)?\\(?P<kind>lfloor|lceil)")
FLOOR_CLOSE = re.compile(r"(?:\\right\s*)?\\(?P<kind>rfloor|rceil)")
_BAR = re.compile(r"\\left\s*\||\\right\s*\||\\[lr]vert|\|")
_HUGE_POWER = re.compile(r"\^\s*\{?\s*\d{4,}")  # a power we would not expand
_DECIMAL = re.compile(r"\d\.\d")
_LONGEST_BITS = 3_000  # about 900 digits


def worked_links(members: tuple[str, ...], ops: tuple[str, ...], defs: dict) -> list[ClaimResult]:
    """The verdicts on a chain's `=` links with a gcd, lcm, floor, ceiling or absolute value
    of numbers on either side (see the module docstring)."""
    out = []
    for i, op in enumerate(ops):
        pair = members[i : i + 2]
        if op != "=" or not any(_called(m) for m in pair):
            continue
        if any(_HUGE_POWER.search(m) for m in pair):
            continue
        values = [_value(member, defs) for member in pair]
        if values[0] is None or values[1] is None:
            continue
        exact = all(v.is_Rational for v in values)
        if not exact and any(_DECIMAL.search(m) for m in pair):
            continue  # `|\\sqrt{2}| = 1.414`: a decimal beside a root may be rounded
        text = f"{pair[0]} = {pair[1]}"
        same = same_real(*values)
        if same:
            out.append(ClaimResult("holds", text))
        elif same is False:
            left, right = fmt(values[0]), fmt(values[1])
            reason = f"the sides are {left} and {right}"
            out.append(ClaimResult("false", text, right, left, reason))
    return out


def same_real(a, b) -> bool | None:
    """Whether two real numbers are equal: exactly between rationals, else to 40 digits (None
    where they are too close to tell)."""
    import sympy

    if a.is_Rational and b.is_Rational:
        return a == b
    gap = abs(sympy.N(a - b, 40))
    size = max(1, abs(sympy.N(a, 40)), abs(sympy.N(b, 40)))
    if a == b or gap < 1e-30 * size:
        return True
    return False if gap > 1e-12 * size else None


def _called(member: str) -> bool:
    return bool(_COMMON.search(member) or FLOOR_OPEN.search(member) or _BAR.search(member))


def _value(member: str, defs: dict):
    """The member as an exact real number, its calls worked out; None where it is not."""
    for work in (_common, _floors, _bars):
        while member is not None and (found := work(member, defs)) != member:
            member = found
        if member is None:
            return None
    return _number(member, defs)


def _number(text: str, defs: dict):
    """The text as one real number (no letters left); None where it is not."""
    found = readings(text, defs) if text.strip() else []
    if len(found) != 1 or found[0].free_symbols or not found[0].is_real:
        return None
    return found[0]


def _common(member: str, defs: dict) -> str | None:
    """The last gcd or lcm call (it holds no other) replaced by its value; the member as it is
    when it has none; None when the call has other arguments or does not close."""
    calls = list(_COMMON.finditer(member))
    if not calls:
        return member
    found = calls[-1]
    depth, args, start = 1, [], found.end()
    for end in range(found.end(), len(member)):
        depth += {"(": 1, ")": -1}.get(member[end], 0)
        if depth == 1 and member[end] == ",":
            args.append(member[start:end])
            start = end + 1
        if depth == 0:
            break
    else:
        return None
    args.append(re.sub(r"\\right\s*$", "", member[start:end]))
    numbers = [_number(a, defs) for a in args]
    if len(numbers) < 2 or not all(n is not None and n.is_Integer for n in numbers):
        return None
    whole = [int(n) for n in numbers]
    name = (found["command"] or found["named"] or found["bare"]).lower()
    value = math.gcd(*whole) if name == "gcd" else math.lcm(*whole)
    if _too_long(value):
        return None
    return f"{member[: found.start()]}({value}){member[end + 1 :]}"


def _floors(member: str, defs: dict) -> str | None:
    """The last floor or ceiling (it holds no other) replaced by its value, as `_common`."""
    import sympy

    opened = list(FLOOR_OPEN.finditer(member))
    if not opened:
        return member
    found = opened[-1]
    closed = FLOOR_CLOSE.search(member, found.end())
    if closed is None or closed["kind"][1:] != found["kind"][1:]:
        return None
    written = member[found.end() : closed.start()]
    inside = _number(written, defs)
    places = max((len(d) for d in re.findall(r"\d\.(\d+)", written)), default=0)
    if inside is None or places and abs(inside - round(inside)) <= sympy.Rational(1, 10**places):
        return None  # `\\lfloor 2.9999999999 \\rfloor`: a rounded 3, perhaps
    value = sympy.floor(inside) if found["kind"] == "lfloor" else sympy.ceiling(inside)
    if not value.is_Integer or _too_long(int(value)):
        return None
    return f"{member[: found.start()]}({value}){member[closed.end() :]}"


def _bars(member: str, defs: dict) -> str | None:
    """The first pair of bars replaced by the absolute value of the number between them, as
    `_common`: bars pair off left to right, so `||x| - 1|` (nothing between its first two)
    is no member read."""
    import sympy

    bars = list(_BAR.finditer(member))
    if not bars:
        return member
    if len(bars) % 2:
        return None
    first, second = bars[0], bars[1]
    inside = _number(member[first.end() : second.start()], defs)
    if inside is None or inside.is_Rational and _too_long(max(abs(inside.p), inside.q)):
        return None
    return f"{member[: first.start()]}({sympy.latex(abs(inside))}){member[second.end() :]}"


def _too_long(whole: int) -> bool:
    """A whole number too long to write back into the member: Python refuses to print one
    past 4,300 digits (`\\lfloor \\log_{10} 100^{1000^{10000}} \\rfloor`), and the readers
    would not read one that long anyway."""
    return abs(whole).bit_length() > _LONGEST_BITS
