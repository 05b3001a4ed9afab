"""Repeating decimals written with a bar (`0.\\overline{3}`, `1.2\\overline{45}`) as the
fractions they are exactly (`context.one_spelling`).

A bar over the digits after a decimal point says that they repeat forever: `x.y\\overline{z}` is
(xyz - xy) / (10^len(y) (10^len(z) - 1)), so `0.\\overline{3}` is 1/3 and
`0.0\\overline{57}` is 19/330. Read so, "0.\\overline{6} = \\frac{2}{3}" holds and "0.\\overline{3}
= \\frac{1}{4}" is a slip like any other; left as it was, neither is read (`normalize` cuts the
expression at the bar).

Only a bar right after a decimal point or the digits after it, over digits alone, is read: a
bar over letters or over a whole number is a digit string (`\\overline{ab}` is 10a + b) or a
segment, and `0.\\dot{1}4\\dot{2}` (dots over the first and the last digit of the period) is
a convention of its own; all of those stay as written and unread. A digit right after the bar
(`0.\\overline{3}3`) says the writer meant something else: unread too.
"""

from __future__ import annotations

import re
from fractions import Fraction

__all__ = ["repeating_decimals"]

_BARRED = re.compile(r"(?<![\w.])(\d*)\.(\d*)\s*\\(?:overline|bar)\s*\{\s*(\d+)\s*\}(?!\s*\d)")


def repeating_decimals(text: str) -> str:
    """`text` with every barred repeating decimal above written as `\\frac{p}{q}` in lowest
    terms (a whole number, `0.\\overline{9}`, as itself)."""
    if "\\overline" not in text and "\\bar" not in text:
        return text
    return _BARRED.sub(_fraction, text)


def _fraction(m: re.Match[str]) -> str:
    whole, fixed, period = m[1], m[2], m[3]
    value = Fraction(
        int(whole + fixed + period) - int(whole + fixed or "0"),
        10 ** len(fixed) * (10 ** len(period) - 1),
    )
    if value.denominator == 1:
        return str(value.numerator)
    return f"\\frac{{{value.numerator}}}{{{value.denominator}}}"
