"""TeX's shorthand arguments written out in braces (`context.one_spelling`).

TeX takes a command's argument as one token when no brace opens it: `\\frac12` is
`\\frac{1}{2}`, `\\frac1{10}` is `\\frac{1}{10}`, `\\frac ab` is `\\frac{a}{b}`, `\\frac\\pi4` is
`\\frac{\\pi}{4}`, `\\sqrt2` is `\\sqrt{2}`, `\\sqrt[3]2` is `\\sqrt[3]{2}`, `\\binom52` is
`\\binom{5}{2}`. Human solutions write so (MATH's do), and readers that know only the braced
form read none of it: `\\frac59 < \\frac{26}{41}` was no relation. `\\cfrac` (a continued
fraction's display form) is `\\frac`.

An unbraced argument is one digit, one letter or one Greek letter's command. Where the
character right after the last such argument would have joined it (`\\frac123`, `\\sqrt23`:
did the writer mean 1/23, or the square root of 23?), or an argument is anything else (an
operator, a command of its own), the command is left as written and the readers leave the
expression unread: what is not read whole is not read.
"""

from __future__ import annotations

import re

__all__ = ["tex_shorthand"]

_COMMAND = re.compile(r"\\(?:([dt]?frac|[dt]?binom)|(sqrt)(\s*\[[^\[\]{}]*\])?)(?![A-Za-z])")
_CONTINUED = re.compile(r"\\cfrac(?:\s*\[[lrc]\])?(?![A-Za-z])")
_GREEK = (
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu"
    " xi pi varpi rho sigma tau upsilon phi varphi chi psi omega"
).split()
_TOKEN = re.compile(r"\s*(?:(\d)|([A-Za-z])|\\(" + "|".join(_GREEK) + r")(?![A-Za-z]))")


def tex_shorthand(text: str) -> str:
    """`text` with every shorthand argument above braced (unchanged when it has none)."""
    if "\\cfrac" in text:
        text = _CONTINUED.sub(r"\\frac", text)
    for _ in range(4):  # a pass writes out the outer command; the next, one nested in it
        spelled = _one_pass(text)
        if spelled == text:
            break
        text = spelled
    return text


def _one_pass(text: str) -> str:
    if not _COMMAND.search(text):
        return text
    out, i = [], 0
    for m in _COMMAND.finditer(text):
        if m.start() < i:
            continue  # inside a span already written out
        braced = _arguments(text, m.end(), 2 if m[1] else 1)
        if braced is None:
            continue
        written, end = braced
        out.append(text[i : m.end()] + written)
        i = end
    return "".join(out) + text[i:]


def _arguments(text: str, pos: int, count: int) -> tuple[str, int] | None:
    """The command's `count` arguments from `pos`, each in braces, and where they end; None
    when none is shorthand (nothing to write) or one cannot be read whole."""
    parts, shorthand, last = [], False, ""
    for _ in range(count):
        skipped = len(text) - len(text[pos:].lstrip())
        if text[skipped : skipped + 1] == "{":
            close = _closing(text, skipped)
            if close is None:
                return None
            parts.append(text[skipped : close + 1])
            pos, last = close + 1, ""
            continue
        m = _TOKEN.match(text, pos)
        if not m:
            return None
        parts.append("{" + (m[1] or m[2] or "\\" + str(m[3])) + "}")
        pos, shorthand, last = m.end(), True, "digit" if m[1] else "letter" if m[2] else ""
    after = text[pos : pos + 1]
    if (
        not shorthand
        or (last == "digit" and after.isdigit())
        or (last == "letter" and after.isalpha())
    ):
        return None
    return "".join(parts), pos


def _closing(text: str, start: int) -> int | None:
    """The index of the brace that closes the one at `start`, or None."""
    depth = 0
    for k in range(start, len(text)):
        if text[k] == "{" and text[k - 1 : k] != "\\":
            depth += 1
        elif text[k] == "}" and text[k - 1 : k] != "\\":
            depth -= 1
            if depth == 0:
                return k
    return None
