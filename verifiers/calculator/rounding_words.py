"""Roundings a step states in words: "161.7. Rounding to the nearest whole number, the time is
161 minutes" claims 161.7 rounds to 161 (it rounds to 162).

`stated_rounding` reads the last number written before the words and the first one after
them; it judges only when the second shows the unit's decimals and lies within one unit of
the first (else it is another number, not the rounding's result), and never a rounding up or
down (a ceiling or a floor, often meant) or one the sentence supposes. The calculator's
`verifier` adds its verdicts to the step's, as it does the number facts'.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

from verifiers.calculator.claims import ClaimResult

_ROUNDING = re.compile(
    r"\bround(?:ing|ed|s)?\b(?P<how>(?:[^.:;]|(?<=\d)\.(?=\d)){0,40}?)\bto\s+the\s+nearest\s+"
    r"(?P<unit>whole(?:\s+number)?|integer|tenth|hundredth|thousandth)",
    re.IGNORECASE,
)
_PLACES = {"whole": 0, "integer": 0, "tenth": 1, "hundredth": 2, "thousandth": 3}
_WRITTEN = re.compile(r"(?<![\w.^_{])-?\d+(?:\.\d+)?(?![\w^]|\.\d)")
_SUPPOSED = frozenset("if suppose assume check try whether would could might wait actually".split())


def stated_rounding(step: str) -> list[ClaimResult]:
    """Each rounding to the nearest unit the words state, judged exactly (either way on an
    exact tie); see the module docstring for what is read."""
    text = re.sub(r"\\[()\[\]]|\$|\{,\}|\\approx|\\boxed|[{}]", " ", step)
    out = []
    for m in _ROUNDING.finditer(text):
        if re.search(r"\b(?:up|down)\b", m["how"], re.I):
            continue
        sentence = re.split(r"(?<=[.!?])\s", text[: m.start()])[-1]
        if "?" in text[m.start() : m.end() + 80] or set(sentence.lower().split()) & _SUPPOSED:
            continue
        # "we round 10.6394 to the nearest integer" names it; else the last number before
        before = _WRITTEN.findall(m["how"]) or _WRITTEN.findall(
            text[max(0, m.start() - 200) : m.start()]
        )  # fmt: skip
        after = _WRITTEN.search(text, m.end(), min(len(text), m.end() + 80))
        if not before or after is None:
            continue
        places = _PLACES[m["unit"].split()[0].lower()]
        value, shown = Fraction(before[-1]), after.group()
        written = len(shown.split(".")[1]) if "." in shown else 0
        if written != places or "." not in before[-1] or len(before[-1].split(".")[1]) <= places:
            continue
        unit = Fraction(1, 10**places)
        claimed = Fraction(shown)
        if abs(claimed - value) > unit:
            continue  # another number: not the rounding's result
        low = math.floor(value / unit) * unit
        half = value - low
        ties = {low, low + unit} if half == unit / 2 else {low if half < unit / 2 else low + unit}
        true = claimed if claimed in ties else min(ties)
        out.append(ClaimResult(
            "holds" if claimed in ties else "false",
            f"{before[-1]} rounded to the nearest {m['unit']} is {shown}", shown,
            f"{float(true):.{places}f}",
        ))  # fmt: skip
    return out
