"""Approximations a step states or announces: the values a chain really computed with.

A false link is excused (`approximated` gives the reason) when:
- it gives an irrational value as a decimal ("sqrt(3) = 1.73") within one unit of the last
  digit it shows (rounded or cut there); further off it is a slip, whatever else excuses;
- it was computed with a constant taken as a decimal: pi as 3.14, 3.1416 or 22/7
  ("2 pi * 7 = 43.96"), or an irrational value the step itself approximates ("sqrt(2) ≈
  1.41", then "sqrt(2) * 7 = 9.87"): the computed side evaluated with that value gives the
  claimed one to the digits shown;
- the step announces rounding anywhere ("about", "approximately", a "≈" in another clause)
  and the claimed value is a rounder number within 1% of the true one ("1000 / 3 ≈ 333.
  Then 3 * 333 = 1000"): fewer significant digits than the true value has.

What this does NOT do: carry an approximation from one step to the next (each step names its
own), or excuse a claim as precise as the true value ("4194304 - 2048 - 11 = 4192255" stays
false whatever the step says about rounding).
"""

from __future__ import annotations

import re
from fractions import Fraction

from verifiers.calculator.claims import APPROX_WORDS, sides
from verifiers.calculator.evaluate import EvalError, NeedsSympyError, exact
from verifiers.calculator.extract import Link
from verifiers.calculator.normalize import normalize
from verifiers.calculator.parse import Node, operands, replaced, variables

Value = Fraction | float

# Values of pi that chains compute with ("using pi = 3.14", "taking pi as 22/7").
_PI = (Fraction(314, 100), Fraction(31416, 10000), Fraction(22, 7))
_ANNOUNCED_TOLERANCE = 0.01  # announced rounding: the claim within 1% of the true value


def _irrational(node: Node) -> bool:
    try:
        exact(node)
    except NeedsSympyError:
        return not variables(node)
    except EvalError:
        return False
    return False


def _stated(links: tuple[Link, ...]) -> list[tuple[Node, Fraction]]:
    """(irrational expression, the decimal the step gives it): "sqrt(2) ≈ 1.41", "pi = 3.14"."""
    out = [(("pi",), value) for value in _PI]
    for link in links:
        for expr, number in ((link.left, link.right), (link.right, link.left)):
            if number.plain and (link.approx or _decimals(number.node)) and _irrational(
                expr.node
            ):
                out.append((expr.node, exact(number.node)))
    return out


def _decimals(node: Node) -> int:
    return max((leaf[2] for leaf in operands(node)), default=0)


def _significant(x: Value) -> int:
    """Significant digits of a value written in decimals (99 when it has no finite form)."""
    if isinstance(x, float):
        return 99
    den = x.denominator
    for p in (2, 5):
        while den % p == 0:
            den //= p
    if den != 1:
        return 99
    digits = f"{abs(x.numerator) * 10**40 // x.denominator}".rstrip("0").lstrip("0")
    return max(1, len(digits))


def approximated(
    step: str, link: Link, links: tuple[Link, ...], true: Value, claimed: Value
) -> str:
    """Why a false link of `step` is a rounding the step states or announces ("" if none)."""
    computed_side, claimed_side = sides(link)
    shown = Fraction(1, 10 ** _decimals(claimed_side.node))
    if isinstance(claimed, Fraction):
        for expr, value in _stated(links):
            if expr == computed_side.node:
                continue  # the link that gives this value cannot excuse itself
            node = replaced(computed_side.node, expr, ("num", value, 0))
            if node == computed_side.node:
                continue
            try:
                if abs(exact(node) - claimed) <= shown:
                    return "computed with the approximation the step states"
            except EvalError:
                continue
    if isinstance(claimed, Fraction) and _decimals(claimed_side.node) and _irrational(
        computed_side.node
    ):
        # The link gives the decimal itself ("sqrt(3) = 1.732 to three places"): rounded or
        # cut to the digits it shows, or a slip whatever the step says about rounding.
        if abs(float(true) - float(claimed)) <= float(shown):
            return "the value to the digits it shows"
        return ""
    if link.approx:
        return ""  # its own "≈" was weighed against its digits (`announced.approximate_claim`)
    plain = normalize(step)
    words = re.findall(r"[a-z]+", plain.lower())
    announced = "≈" in plain or bool(APPROX_WORDS.intersection(words))
    if not announced or not true:
        return ""
    try:
        rel = abs(float(true) - float(claimed)) / max(abs(float(true)), abs(float(claimed)))
    except OverflowError:
        return ""
    if rel <= _ANNOUNCED_TOLERANCE and _significant(claimed) < _significant(true):
        return "rounding the step announces"
    return ""
