"""A value written with `\\pm` as the two values it stands for: `$x = \\pm 2$` is
`$x = 2 \\text{ or } x = -2$`, and `x^2 = 4 \\Rightarrow x = \\pm 2` is `x^2 = 4 \\Rightarrow
x = 2 \\text{ or } x = -2`, so a claimed pair of roots is put back into the equation before
it, and a square root taken of both sides (`x + 3 = \\pm 11`) is checked against the
equation it came from, as "or" joins any two (`solutions`, `derivations`).

Only a whole clause is rewritten: a break (a region's start, an arrow, a row's end, spacing)
before it and one after it, one side of plain algebra (letters, digits, `+ - ^`,
brackets; no word, no command), `=`, and `\\pm` one number written exactly (digits, `\\frac`,
`\\sqrt`, `\\pi`). In a clause that goes on (`x = \\pm\\sqrt{2} \\approx \\pm 1.41`, `x =
\\pm 1 + \\sqrt{2}`) which part the sign covers, and what stands for what, is not read.
"""

from __future__ import annotations

import re

__all__ = ["plus_minus"]

# What ends a clause before or after it: an arrow, a row's end, spacing, a region's delimiter,
# typed words (`\\text{ or }`), the end of an environment. Not a comma: in `x = \\pm 2, y =
# \\pm 3` which signs go together is not written.
_ARROWS = r"\\(?:implies|Rightarrow|Longrightarrow|iff|therefore|q?quad)(?![A-Za-z])|\\\\|;"
_OPENS = r"\\\(|\\\[|\$\$|(?<![\\$])\$"
_CLOSES = r"\\\)|\\\]|\$\$|\$"
# One piece of a side of plain algebra: digits, signs, brackets, a subscript, a lone letter.
_PIECE = r"(?:[\d\s+\-*^(){}]|_\{?\w\}?|(?<![A-Za-z])[A-Za-z](?![A-Za-z]))"
_CLAUSE = re.compile(
    rf"(?P<lead>(?P<open>{_OPENS})|{_ARROWS})\s*"
    # At least one letter, and never a word: `so a = \\pm 7` is no clause.
    rf"(?P<side>{_PIECE}*?(?<![A-Za-z])[A-Za-z](?![A-Za-z]){_PIECE}*?)"
    r"\s*&?\s*=\s*\\pm(?![A-Za-z])\s*(?P<value>[^$=<>&,;]+?)"
    rf"(?P<end>\s*[.,;]?\s*)(?=(?P<close>{_CLOSES})|{_ARROWS}|\\(?:text|end)(?![A-Za-z]))"
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
    """`text` with each clause that gives one side `\\pm` a number as two clauses."""
    return _CLAUSE.sub(_both, text) if "\\pm" in text else text


def _both(m: re.Match[str]) -> str:
    value = m["value"].strip()
    if m["open"] and m["close"] and _PAIRS[m["open"]] != m["close"]:
        return m.group()
    if _NUMERIC_PARTS.sub("", value) or not (_TERM.fullmatch(value) or _BRACKETED.fullmatch(value)):
        return m.group()
    side = m["side"].strip()
    return f"{m['lead']} {side} = {value} \\text{{ or }} {side} = -{value}{m['end'].rstrip()} "
