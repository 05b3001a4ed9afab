"""A value the link itself calls approximate ("≈", "about"): when it holds, and when it is
still a claim.

Used by `verifiers.calculator.claims.excuse` for a link written with "≈" or words that say it
is approximate; `verifiers.calculator.approximations` excuses links the step's other
approximations explain.
"""

from __future__ import annotations

from fractions import Fraction

from verifiers.calculator.evaluate import EvalError
from verifiers.calculator.evaluate import exact as value_of
from verifiers.calculator.parse import Node, operands, replaced


def approximate_claim(
    computed: Fraction, claimed: Fraction, claimed_node: Node, computed_node: Node, exact: bool
) -> str:
    """Why a value the step says is approximate ("≈", "about") differs from the true one, or
    "" when nothing does: it holds when it is the true value rounded or cut at the last digit
    it shows (a whole number's trailing zeros make it rounder: 2^10 ≈ 1000), an expression
    within 1%; more than a tenth off it is a slip (sqrt(220) ≈ 11). Between, it is no claim
    (sqrt(2) ≈ 1.52 holds nothing; a value computed from rounded ones drifts), unless nothing
    can round: an exact value that the claim writes with decimals, or could write in full,
    off by more than the rounding of the decimals it is computed from and by two units of its
    last digit (59049 / 729 ≈ 80.83, the true value 81; 18.75 + 21.43 ≈ 39.18, true 40.18;
    199 × 3.14159 ≈ 624.82, true 625.18)."""
    diff = abs(computed - claimed)
    rel = diff / max(abs(computed), abs(claimed), Fraction(1, 10**9))
    if claimed and rel > Fraction(1, 10):
        # "≈" is no licence to be a tenth off (sqrt(220) ≈ 11, 5^8 ≈ 10^8), unless the
        # rounding of the decimals it is computed from explains it ("≈ 0" says "small").
        drift = _input_rounding(computed_node, computed)
        return "" if drift is not None and diff > drift else "approximation"
    node = claimed_node[1] if claimed_node[0] == "neg" else claimed_node
    if node[0] != "num":
        return "rounded (announced)" if rel <= Fraction(1, 100) else "approximation"
    unit, whole_zeros = _last_digit(node)
    if diff <= (unit / 2 if whole_zeros else unit):
        return "rounded (announced)"
    # Digits shown after the point, or a true value the claim could write in full, say the
    # value is meant to its last digit; "about 350" for 1000/3 may round to fifties.
    if exact and (node[2] > 0 or (computed / unit).denominator == 1):
        drift = _input_rounding(computed_node, computed)
        # Two units of slack: a value rounded twice on the way (453.8636 written 453.85).
        if drift is not None and diff > 2 * unit + drift:
            return ""  # no rounding explains it: judged as written
    return "approximation"


def _input_rounding(node: Node, value: Fraction) -> Fraction | None:
    """How far the value may move were its written decimals rounded (half a unit of each
    one's last digit, each moved alone, the moves added and doubled); None: too many."""
    shown = [leaf for leaf in set(operands(node)) if leaf[2] > 0]
    if len(shown) > 4:
        return None
    drift = Fraction(0)
    for leaf in shown:
        half = Fraction(1, 2 * 10 ** leaf[2])
        try:
            drift += max(
                abs(value_of(replaced(node, leaf, ("num", leaf[1] + sign * half, leaf[2]))) - value)
                for sign in (1, -1)
            )
        except EvalError:
            return None
    return 2 * drift


def _last_digit(node: Node) -> tuple[Fraction, bool]:
    """One unit of a written number's last digit, and whether trailing zeros of a whole
    number set it (`1000`: a unit of 1000, rounded to half of it either way)."""
    if node[2] > 0:
        return Fraction(1, 10 ** node[2]), False
    value, zeros = abs(node[1]), 0
    while value and value.denominator == 1 and value % 10 == 0:
        value, zeros = value / 10, zeros + 1
    return Fraction(10**zeros), zeros > 0
