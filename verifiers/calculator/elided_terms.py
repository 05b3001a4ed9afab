"""Sums and products written with their middle terms left out (`1 + 2 + \\cdots + 100`,
`\\frac{1}{1 \\cdot 2} + \\frac{1}{2 \\cdot 3} + \\cdots + \\frac{1}{9 \\cdot 10}`), written out
with their bounds (`\\sum_{k=0}^{99} ((1 + 1 \\cdot k))`) so that both readers read the same
text (`readers`).

An elision is read only when the written terms leave one progression: every term is the same
text but for its numerals, each numeral steps by the same whole number from term to term (a
constant one stays put), and the terms after the dots sit a whole number of steps further on,
the same number for every numeral; or the numerals keep one ratio each (`1 + 2 + 4 + \\cdots +
512`, settled by three terms before the dots or two after them). Two terms before the dots and
one after leave room for a second pattern: `1 + 2 + \\cdots + 64` may double, `\\frac{1}{2} +
\\frac{1}{4} + \\cdots` may halve. Then each numeral must step by one and no doubling (or other
constant ratio) may reach the last term.
What is not read whole is not read: a numeral that steps inside a subscript (`x_1 + \\cdots +
x_n`: names, not numbers), a bound in letters, a minus among the terms (`1 - 2 + \\cdots`),
dots at the end (`1 + 2 + \\cdots`), or two elisions in one bracket.
"""

from __future__ import annotations

import re
from fractions import Fraction

from verifiers.calculator.relations import depth_split
from verifiers.calculator.written_sums import MAX_RANGE

__all__ = ["ELLIPSIS", "spelled_out"]

ELLIPSIS = re.compile(r"\\(?:cdots|ldots|dots)(?![A-Za-z])|\.\.\.|…")
_NUMERAL = re.compile(r"\d+(?:\.\d+)?")
# Separators of a sum's terms (a minus is none: `1 - 2 + \\cdots` alternates) and a product's.
_SUM = ("+", "-")
_PRODUCT = ("\\cdot", "\\times")
# A numeral whose extent the text does not bound: `\\frac12`, `x^23`, `a_12`.
_UNBOUNDED = re.compile(r"(?:\\[dt]?frac|\\binom|\\sqrt|[\^_])\s*$")
_SUBSCRIPT_OPEN = re.compile(r"_\s*\{[^{}]*$")
_INDEX_LETTERS = "kjmnrtuvw"
# Past `written_sums.MAX_RANGE` terms only a polynomial's sum is read (in closed form).
_MAX_TERMS = 10**9


def spelled_out(member: str) -> str | None:
    """The member with every elided sum or product written with its bounds; the member
    itself when it elides nothing; None when an elision is not one progression we read."""
    if ELLIPSIS.search(member) is None:
        return member
    member = re.sub(r"\\(?:left|right)(?![A-Za-z])", "", member)  # `\\left(` is `(` to both
    for _ in range(4):  # a member with more elisions than this is not one we read
        found = ELLIPSIS.search(member)
        if found is None:
            return member
        member = _one_spelled(member, found.start())
        if member is None:
            return None
    return None


def _one_spelled(member: str, start: int) -> str | None:
    """The member with the elision at `start` written with its bounds (None: not read)."""
    if "\\{" in member or "\\}" in member or "{,}" in member:
        return None
    bounds = _enclosing(member, start)
    if bounds is None:
        return None
    low, high = bounds
    content = member[low:high]
    op = _operation(content)
    # Cut at the operation's own separators only: `1 \\cdot 2 + 2 \\cdot 3 + \\cdots` is a sum
    # of products; a minus at the top level of a sum, or a sum around a product, is no term's.
    pieces = _pieces(content, _SUM if op == "sum" else _PRODUCT) if op else None
    if pieces is None or any(sep == "-" for _, sep in pieces):
        return None
    if op == "prod" and len(_pieces(content, _SUM) or []) > 1:
        return None
    terms = [text.strip() for text, _ in pieces]
    at = next((i for i, t in enumerate(terms) if ELLIPSIS.fullmatch(t)), None)
    if at is None or at < 2 or at == len(terms) - 1:
        return None  # fewer than two terms before the dots, or none after
    if any(ELLIPSIS.search(t) for i, t in enumerate(terms) if i != at):
        return None
    used = set(re.sub(r"\\[A-Za-z]+", " ", member))
    letter = next((c for c in _INDEX_LETTERS if c not in used), None)
    if letter is None:
        return None
    written = _progression(terms[:at], terms[at + 1 :], letter)
    if written is None:
        return None
    count, body = written
    big = f"\\{op}_{{{letter}=0}}^{{{count - 1}}} ({body})"
    if low == 0 and high == len(member):
        return f"({big})"
    return member[:low] + big + member[high:]


def _enclosing(member: str, at: int) -> tuple[int, int] | None:
    """(start, end) of the innermost bracket's content around position `at`, or the whole
    member when no bracket holds it; None when the brackets do not balance."""
    depth, low = 0, 0
    for pos in range(at - 1, -1, -1):
        char = member[pos]
        if char in ")]}":
            depth += 1
        elif char in "([{":
            if depth == 0:
                low = pos + 1
                break
            depth -= 1
    depth = 0
    for pos in range(at, len(member)):
        char = member[pos]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                return (low, pos) if low else None
            depth -= 1
    return (0, len(member)) if low == 0 and depth == 0 else None


def _operation(content: str) -> str | None:
    """"sum" or "prod" by the separators on both sides of the dots; None when the dots stand
    inside a term or between separators of two kinds."""
    pieces = _pieces(content, _PRODUCT + _SUM) or []
    at = next((i for i, (text, _) in enumerate(pieces) if ELLIPSIS.fullmatch(text.strip())), None)
    if at is None or at == 0:
        return None
    around = {pieces[at - 1][1], pieces[at][1]}
    return "sum" if around == {"+"} else "prod" if around <= {"\\cdot", "\\times"} else None


def _pieces(content: str, separators: tuple[str, ...]) -> list[tuple[str, str]] | None:
    """The content cut at its top-level separators: [(piece, separator after it)]; None when
    it starts with a sign (`-1 - 2 - \\cdots`)."""
    out = depth_split(content, separators)
    return out if out[0][0].strip() else None


def _shape(term: str) -> tuple[str, list[str], list[int]] | None:
    """(the term's text with each numeral as `#`, spaces dropped; its numerals; where each
    starts); None for an empty term."""
    if not term:
        return None
    found = list(_NUMERAL.finditer(term))
    key = re.sub(r"\s+", "", _NUMERAL.sub("#", term))
    return key, [m.group() for m in found], [m.start() for m in found]


def _progression(before: list[str], after: list[str], letter: str) -> tuple[int, str] | None:
    """(how many terms, the general term in `letter` counted from 0) for the written terms,
    or None when they leave no one progression."""
    shapes = [_shape(t) for t in before + after]
    if any(s is None for s in shapes) or len({s[0] for s in shapes}) != 1:
        return None
    first_text, first_numerals, starts = before[0], shapes[0][1], shapes[0][2]
    steps, place = [], None
    for slot in range(len(first_numerals)):
        written = [s[1][slot] for s in shapes]
        if len(set(written)) == 1:
            steps.append(None)  # a constant: `^2` in `1^2 + 2^2 + ...`
            continue
        if any("." in w or len(w) > 100 for w in written):
            return None  # a decimal, or a numeral longer than any progression written
        prefix = first_text[: starts[slot]]
        if _UNBOUNDED.search(prefix) or _SUBSCRIPT_OPEN.search(prefix):
            return None
        values = [int(w) for w in written]
        lead, tail = values[: len(before)], values[len(before) :]
        found = _arithmetic(lead, tail, letter) or _geometric(lead, tail, letter)
        if found is None or place not in (None, found[0]) or found[0] < len(before):
            return None
        place = found[0]
        steps.append(found[1])
    if place is None:
        return None
    count = place + len(after)
    if count > _MAX_TERMS:
        return None
    body, last = [], 0
    for slot, (start, numeral) in enumerate(zip(starts, first_numerals, strict=True)):
        body.append(first_text[last:start])
        body.append(numeral if steps[slot] is None else steps[slot])
        last = start + len(numeral)
    body.append(first_text[last:])
    return count, "".join(body)


def _arithmetic(lead: list[int], tail: list[int], letter: str) -> tuple[int, str] | None:
    """(where the terms after the dots start, the general term) for values that keep one
    whole step; two values before the dots and one after only for a step of one that no
    doubling or other ratio also fits."""
    step = lead[1] - lead[0]
    if step == 0 or not _steps_by(lead, step) or not _steps_by(tail, step):
        return None
    if (tail[0] - lead[0]) % step:
        return None
    if len(lead) == 2 and len(tail) == 1 and (abs(step) != 1 or _also_geometric(lead + tail)):
        return None
    sign = "+" if step > 0 else "-"
    return (tail[0] - lead[0]) // step, f"({lead[0]} {sign} {abs(step)} \\cdot {letter})"


def _geometric(lead: list[int], tail: list[int], letter: str) -> tuple[int, str] | None:
    """The same for values that keep one ratio (`1 + 2 + 4 + \\cdots + 512`), settled by three
    values before the dots or two after them."""
    if 0 in lead or 0 in tail or len(lead) + len(tail) < 4:
        return None
    ratio = Fraction(lead[1], lead[0])
    if abs(ratio) == 1 or not _ratio(lead, ratio) or not _ratio(tail, ratio):
        return None
    at = _times_to(Fraction(lead[0]), ratio, tail[0])
    if at is None:
        return None
    shown = f"\\frac{{{ratio.numerator}}}{{{ratio.denominator}}}"
    return at, f"({lead[0]} \\cdot ({shown})^{{{letter}}})"


def _ratio(values: list[int], ratio: Fraction) -> bool:
    return all(Fraction(b, a) == ratio for a, b in zip(values, values[1:], strict=False))


def _steps_by(values: list[int], step: int) -> bool:
    return all(b - a == step for a, b in zip(values, values[1:], strict=False))


def _also_geometric(values: list[int]) -> bool:
    """Whether the first two values, multiplied on by their ratio, reach the last one two or
    more times over (`1, 2, ..., 64`)."""
    first, second, last = values[0], values[1], values[-1]
    if first == 0 or second == 0 or abs(Fraction(second, first)) == 1:
        return False
    return bool(_times_to(Fraction(second), Fraction(second, first), last))


def _times_to(start: Fraction, ratio: Fraction, target: int) -> int | None:
    """How many times `start` is multiplied by `ratio` to reach `target` (None: never)."""
    value = start
    for times in range(MAX_RANGE + 1):
        if value == target:
            return times
        if abs(value) > abs(target) if abs(ratio) > 1 else abs(value) < abs(target):
            return None  # moving away from it
        value *= ratio
    return None
