"""A value written with `\\pm` as the two values it stands for: `$x = \\pm 2$` is
`$x = 2 \\text{ or } x = -2$`, so a claimed pair of roots is put back into the equation before
it as "or" joins any two (`solutions`).

Only a math region that holds nothing but one letter given `\\pm` a number written exactly
(digits, `\\frac`, `\\sqrt`, `\\pi`) is rewritten: in a longer region (`x^2 = 4 \\Rightarrow x =
\\pm 2`, `x = \\pm\\sqrt{2} \\approx \\pm 1.41`) which part the sign covers, and what stands
for what, is not read.
"""

from __future__ import annotations

import re

__all__ = ["plus_minus"]

# A whole math region `\\( x = \\pm 2 \\)`, `$y_1 = \\pm\\frac{1}{2}$`, a point or comma inside.
_REGION = re.compile(
    r"(?P<open>\\\(|\\\[|\$\$|(?<![\\$])\$)\s*"
    r"(?P<name>[A-Za-z](?:_\{?\w\}?)?)\s*=\s*\\pm(?![A-Za-z])\s*(?P<value>[^$=<>]+?)"
    r"\s*(?P<end>[.,;]?)\s*(?P<close>\\\)|\\\]|\$\$|\$)"
)
# A number written exactly: what is left once these are taken away must be nothing.
_NUMERIC_PARTS = re.compile(r"\\(?:d?frac|sqrt|pi|cdot)(?![A-Za-z])|[\d\s{}()\[\]+\-*/^.]")
# One term: `-` may be put before it.
_TERM = re.compile(
    r"\d+(?:\.\d+)?(?:\\sqrt\{[^{}]+\})?|\\d?frac\{[^{}]+\}\{[^{}]+\}|\\sqrt\{[^{}]+\}"
)
# Or one bracket: `\\pm 1 + \\sqrt{2}` is (±1) + √2, the sign covers one term.
_BRACKETED = re.compile(r"\([^()]*\)")

_PAIRS = {"\\(": "\\)", "\\[": "\\]", "$$": "$$", "$": "$"}


def plus_minus(text: str) -> str:
    """`text` with each region that gives one letter `\\pm` a number written as two values."""
    return _REGION.sub(_both, text) if "\\pm" in text else text


def _both(m: re.Match[str]) -> str:
    value = m["value"].strip()
    if _PAIRS[m["open"]] != m["close"] or _NUMERIC_PARTS.sub("", value):
        return m.group()
    if not (_TERM.fullmatch(value) or _BRACKETED.fullmatch(value)):
        return m.group()
    name = m["name"]
    return f"{m['open']} {name} = {value} \\text{{ or }} {name} = -{value}{m['end']} {m['close']}"
