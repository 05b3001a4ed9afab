"""Other readings of a written expression that a text may mean, for a claim false as parsed.

A claim is false only when it is false under every reading (`claims.excuse`). Beside the
parse, a text may mean:

- `a / b / c` as `a / (b/c)`: "25 / 1/3 = 75" divides by a fraction;
- a minus before a power of a number as the number's sign: "x = -3, so x^2 = -3^2 = 9"
  squares -3 (read strictly, `-3^2` is -9); for a letter, `-x^2` keeps its usual reading;
- a tower of powers grouped from the left: `2^3^2` as `(2^3)^2`.

The numeric reader regroups its trees (`regrouped_divisions`, `regrouped_powers`); the
symbolic readers read a member that opens with a minus before a power of a number both ways
(`signed_base`).
"""

from __future__ import annotations

import re
from fractions import Fraction

from verifiers.calculator.evaluate import EvalError, exact
from verifiers.calculator.parse import Node

__all__ = ["reads_as", "regrouped_divisions", "regrouped_powers", "signed_base"]

# A member opening with a minus before a power of a number: `-3^2`, `- 2.5^{3}`.
_SIGNED_POWER = re.compile(r"^\s*-\s*(\d+(?:\.\d+)?)\s*(?=\^)")


def regrouped_divisions(node: Node) -> list[Node]:
    """Readings of `a / b / c` as `a / (b/c)`."""
    out = []
    if node[0] == "/" and node[1][0] == "/":
        out.append(("/", node[1][1], ("/", node[1][2], node[2])))
    if node[0] in ("+", "-", "*", "/"):
        out += [(node[0], alt, node[2]) for alt in regrouped_divisions(node[1])]
        out += [(node[0], node[1], alt) for alt in regrouped_divisions(node[2])]
    return out[:8]


def regrouped_powers(node: Node) -> list[Node]:
    """Readings of `-3^2` as `(-3)^2` and of `2^3^2` as `(2^3)^2`, anywhere in the tree."""
    out = []
    if node[0] == "neg" and node[1][0] == "^" and node[1][1][0] == "num":
        out.append(("^", ("neg", node[1][1]), node[1][2]))
    if node[0] == "^" and node[2][0] == "^":
        out.append(("^", ("^", node[1], node[2][1]), node[2][2]))
    for k, child in enumerate(node[1:], 1):
        if isinstance(child, tuple):
            out += [(*node[:k], alt, *node[k + 1 :]) for alt in regrouped_powers(child)]
    return out[:8]


def reads_as(readings: list[Node], claimed: Fraction) -> bool:
    """Whether one of the readings has the claimed value exactly."""
    for alt in readings:
        try:
            if exact(alt) == claimed:
                return True
        except EvalError:
            continue
    return False


def signed_base(member: str) -> str | None:
    """The member with its opening minus taken as the sign of the power's base (`-3^2` as
    `(-3)^2`), or None when it does not open so."""
    if not _SIGNED_POWER.match(member):
        return None
    return _SIGNED_POWER.sub(r"(-\1)", member, count=1)
