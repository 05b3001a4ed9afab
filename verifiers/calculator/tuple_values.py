"""Values given as a tuple: `(x, y) = (7, 3)` says `x = 7` and `y = 3`.

A system's solution is often written as one ordered pair or triple. Each letter of the left
tuple takes the entry in its place on the right, as if the text had written `x = 7, y = 3`,
so the checks of claimed solutions put the values back into the system like any others. Read
only where both sides are one bracketed tuple of the same length (two to four entries), the
left one of distinct lone letters: `(a, b) = 1` (a gcd), `(12, 18) = 6`, `P = (x, y) = (3,
4)` and `(x, y) = (1, 2) + t(3, 4)` stay as written, and so do candidates, a tuple another
one follows ("`(j, s) = (13, 1), (8, 5), (3, 9)`", "`(7, 3)` or `(3, 7)`"). Two tuples given
to the same letters in a step are values of two cases, as `x = 7, y = 3` and `x = 3, y = 7`.
"""

from __future__ import annotations

import re
from dataclasses import replace

__all__ = ["unpacked"]

_LETTER = re.compile(r"[A-Za-z](?:_\{?\w+\}?)?")
# What joins a tuple to another: a comma, "or", "and", past closing and opening delimiters.
_ANOTHER = r"[\s$\\)\]]*(?:,|\bor\b|\band\b|\\text\{\s*or)[\s$\\(\[]*\("
_OPEN, _CLOSE = ("(", r"\left("), (")", r"\right)")


def _entries(member: str) -> list[str] | None:
    """The entries of a member that is one bracketed tuple, split at its top-level commas."""
    text = member.strip()
    for opening, closing in zip(_OPEN, _CLOSE, strict=True):
        if text.startswith(opening) and text.endswith(closing):
            inner = text[len(opening) : len(text) - len(closing)]
            break
    else:
        return None
    out, depth, start = [], 0, 0
    for i, ch in enumerate(inner):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return None  # `(1, 2) + t(3, 4)`: the brackets close before the end
        elif ch == "," and depth == 0:
            out.append(inner[start:i].strip())
            start = i + 1
    out.append(inner[start:].strip())
    return out if depth == 0 and all(out) else None


def unpacked(found: list, text: str) -> list:
    """The clauses with each tuple of values split into one clause a letter (see the module
    docstring); the first keeps the words before the tuple, the last the words after it.
    `text`: the step, where a tuple followed by another lists candidates."""
    out = []
    for clause in found:
        pair = _values(clause.members) if clause.ops == ("=",) else None
        if pair is None or _listed(clause.members[1], text):
            out.append(clause)
            continue
        names, values = pair
        last = len(names) - 1
        for k, (name, value) in enumerate(zip(names, values, strict=True)):
            out.append(
                replace(
                    clause,
                    members=(name, value),
                    before=clause.before if k == 0 else ",",
                    lead=clause.lead if k == 0 else ",",
                    after=clause.after if k == last else "",
                    rest=clause.rest if k == last else "",
                )
            )
    return out


def _listed(value: str, text: str) -> bool:
    """Whether another tuple follows the value in the text: `(j, s) = (13, 1), (8, 5)`, or
    `(7, 3)$ or $(3, 7)`: candidates, none of them the values."""
    return re.search(re.escape(value) + _ANOTHER, text) is not None


def _values(members: tuple[str, ...]) -> tuple[list[str], list[str]] | None:
    names, values = _entries(members[0]), _entries(members[1])
    if names is None or values is None or len(names) != len(values):
        return None
    if not 2 <= len(names) <= 4 or len(set(names)) != len(names):
        return None
    if not all(_LETTER.fullmatch(n) for n in names):
        return None
    return names, values
