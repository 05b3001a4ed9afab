"""Brackets in a step's prose that are not a product's or a function's: a note of words after
an operand ("5 apples (per person)"), which the reader drops, and a relation written as an
aside ("6 apples (2 + 3 = 6)"), whose brackets open after a word or a space and close after
its right side, which the reader reads; and a unit's power in brackets ("80 cm^(3)", from
`\\text{cm}^{3}`), which belongs to the unit as a bare one does.
"""

from __future__ import annotations

from verifiers.calculator.parse import NUM, OP, Tok


def annotation_end(seg: list[Tok], i: int) -> int:
    """If seg[i] opens '(words only)', the index after its ')', else -1.

    Square brackets never annotate: "[ABD]" is an area, "\\frac 34 [ABD]" a product.
    """
    if seg[i].text != "(":
        return -1
    k = i + 1
    while k < len(seg) and seg[k].kind == "word":
        k += 1
    if k > i + 1 and k < len(seg) and seg[k].kind == "rp":
        after = seg[k + 1] if k + 1 < len(seg) else None
        if after is None or after.kind != OP or after.text != "^":
            return k + 1
    return -1


def unit_power_end(seg: list[Tok], k: int) -> int:
    """The index after a unit's power written at seg[k] (`^3`, `^(3)`, `^(-1)`), else k."""
    if k + 1 >= len(seg) or seg[k].text != "^":
        return k
    if seg[k + 1].kind == NUM:
        return k + 2
    j = k + 2 if seg[k + 1].text == "(" else len(seg)
    j += 1 if j < len(seg) and seg[j].text == "-" else 0
    if j + 1 < len(seg) and seg[j].kind == NUM and seg[j + 1].kind == "rp":
        return j + 2
    return k


def opens_aside(toks: list[Tok], start: int) -> bool:
    """Whether toks[start] opens a relation written as an aside, in brackets that open after a
    word or space ("6 apples (2 + 3 = 6)"), not a function's or a product's (`f(2`, `2(3`)."""
    if start == 0 or toks[start - 1].text != "(":
        return False
    if start > 1 and not (toks[start - 2].space or toks[start - 2].kind == "word"):
        return False
    return _balance(toks[:start]) > 0


def aside_after(toks: list[Tok], end: int) -> bool:
    """Whether an aside opens at or after toks[end] and the tokens end inside it: the side read
    there ends in the brackets ("4 (since 3 + 4"), not past them ("180 deg (6 - 2)/6")."""
    return any(
        opens_aside(toks, k) and _balance(toks[k - 1 :]) > 0
        for k in range(max(end, 1), len(toks))
    )


def closes_aside(toks: list[Tok], end: int) -> bool:
    """Whether toks[end] is a ")" no bracket of the side opened: the side ends an aside."""
    if toks[end].text != ")":
        return False
    return _balance(toks[: end + 1]) < 0


def _balance(toks: list[Tok]) -> int:
    """Round brackets opened less those closed."""
    return sum((t.text == "(") - (t.text == ")") for t in toks)
