"""From a step's text to checkable links `left = right`: sides, expressions, chains.

Pure functions on strings, no evaluation. A *link* is two neighbouring sides of an `=` (or `≈`)
chain whose sides both parsed as complete expressions. Words that follow a number and are
followed by an operator or by the end of a side are units and are dropped ("3 plates × $6/plate");
any other word ends an expression. A side that is only the tail of a larger expression (the
token before it is an operator, a variable, a number, or a word such as "of" / "half" / "mod")
is a *fragment* and gives no link: "half of 20 + 4 = 14" is not the claim 20 + 4 = 14.

What this does NOT do: understand prose, track quantities across sentences (the calculator does
the little of that it dares), or parse general LaTeX; unknown commands become words that stop
expressions, so the worst case is a missed claim, never an invented one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache

from verifiers.calculator.brackets import (
    annotation_end,
    aside_after,
    closes_aside,
    opens_aside,
    unit_power_end,
)
from verifiers.calculator.normalize import normalize
from verifiers.calculator.parse import (
    NUM,
    OP,
    VAR,
    Node,
    ParseError,
    Tok,
    parse_expression,
    variables,
)
from verifiers.calculator.side_words import (
    END_STOP,
    POISON,
    RESULT_VERBS,
    SCALE_WORDS,
    STOP_WORDS,
    after_copula,
    article,
    modifies,
    noun_phrase,
)
from verifiers.calculator.tokens import clause_ends, tokenize

__all__ = ["Link", "Named", "Side", "extract_links", "extract_named", "normalize", "tokenize"]

@dataclass(frozen=True, slots=True)
class Side:
    node: Node
    text: str
    units: tuple[str, ...]
    plain: bool  # a single number (possibly negative / percent), no operation
    described: bool = False  # closes a run of words ("Total water in 9 liters = ..."): a label?


@dataclass(frozen=True, slots=True)
class Link:
    """`left = right` (or `≈` when approx), both sides complete expressions."""

    left: Side
    right: Side
    approx: bool
    clause: int  # index of the clause in the step: links in one clause form one chain
    next_words: tuple[str, ...] = ()  # words right after the right side (remainder, units)
    remainder: Fraction | None = None  # "706 / 7 = 100 with a remainder of 6": the 6


# --- sides and links -------------------------------------------------------------------

_OPERAND_END = frozenset((NUM, "rp", "pct", "fact", "pi"))


def _drop_units(seg: list[Tok]) -> tuple[list[Tok], tuple[str, ...]]:
    """Remove unit words after operands ("5 apples +", "$6/plate", "(per person)")."""
    out: list[Tok] = []
    units: list[str] = []
    i, n = 0, len(seg)
    while i < n:
        tok = seg[i]
        after_operand = bool(out) and out[-1].kind in _OPERAND_END
        if after_operand and tok.kind == "word":
            k = i
            while k < n and seg[k].kind == "word":
                k += 1
            nxt = seg[k] if k < n else None
            stop = any(t.text in STOP_WORDS for t in seg[i:k]) or (
                k == n and any(t.text in END_STOP for t in seg[i:k])
            )  # "1/3 of Solomon" ends a side: not a unit
            if not stop and (
                nxt is None
                or nxt.kind in (OP, "rp", "eq", "approx")
                or (nxt.kind == "lp" and annotation_end(seg, k) > k)
            ):
                units.extend(t.text for t in seg[i:k])
                i = unit_power_end(seg, k)  # "80 cm^3": the power belongs to the unit
                continue
        if after_operand and tok.kind == OP and tok.text == "/" and i + 1 < n:
            k = i + 1
            while k < n and seg[k].kind == "word" and seg[k].text not in STOP_WORDS:
                k += 1
            nxt = seg[k] if k < n else None
            if k > i + 1 and (nxt is None or nxt.kind in (OP, "rp")):
                units.extend(t.text for t in seg[i + 1 : k])
                i = unit_power_end(seg, k)  # "7.5 gallons/ft^3": the power belongs to the unit
                continue
        # "5 (apples)" names a number's unit; "\frac{1}{2} (base)(height)", "2\pi (radius)"
        # name factors in words.
        if after_operand and tok.kind == "lp" and out[-1].space and out[-1].kind in (NUM, "pct"):
            end = annotation_end(seg, i)
            if end > i:
                i = end
                continue
        out.append(tok)
        i += 1
    return out, tuple(units)


def _side(toks: list[Tok], node: Node, units: tuple[str, ...]) -> Side:
    text = "".join(t.text + (" " if t.space else "") for t in toks).strip()
    plain = all(t.kind in (NUM, "pct") or (t.kind == OP and t.text == "-") for t in toks)
    return Side(node, text, units, plain and sum(t.kind == NUM for t in toks) == 1)


def _leftmost(seg: list[Tok]) -> tuple[Side | None, tuple[str, ...]]:
    """The expression that opens a side, or None when it is a fragment of something longer."""
    toks, units = _drop_units(seg)
    if not toks:
        return None, ()
    try:
        node, end = parse_expression(toks, 0)
    except ParseError:
        return None, ()
    if end < len(toks) and closes_aside(toks, end):
        return _side(toks[:end], node, units), ()
    if end < len(toks) and (toks[end].kind != "word" or toks[end].text in POISON):
        return None, ()  # "12x", "2 (mod 5)", "3 4": the expression goes on in a way we can't read
    words = tuple(t.text for t in toks[end : end + 4] if t.kind == "word")
    if words and words[0] in SCALE_WORDS:
        return None, ()
    k = end
    while k < len(toks) and toks[k].kind == "word" and toks[k].text not in STOP_WORDS:
        k += 1
    after = toks[k + 1] if k + 1 < len(toks) else None
    if (
        k == end + 1
        and k < len(toks)
        and (
            toks[k].kind == "letter"
            or (toks[k].kind == VAR and after is not None and after.kind == OP)
        )
    ):  # one unit word only: "10 by subtracting the x-coordinates" is prose; "a" an article
        return None, ()  # "x = 36^\\circ k - 18^\\circ": a unit, then a product goes on
    return _side(toks[:end], node, units), words


_REMAINDER_FILLER = frozenset("with a and remainder of is leaves leaving".split())


def _remainder(seg: list[Tok]) -> Fraction | None:
    """The r of "q with a remainder of r" / "q remainder r" closing a side, else None.

    Only a bare whole number that ends the side counts: "remainder of 5 + 3" is not read.
    """
    toks, _ = _drop_units(seg)
    try:
        _, end = parse_expression(toks, 0)
    except ParseError:
        return None
    k, seen = end, False
    while k < len(toks) and k - end < 5 and toks[k].text in _REMAINDER_FILLER:
        seen = seen or toks[k].text == "remainder"
        k += 1
    if not seen or k + 1 != len(toks) or toks[k].kind != NUM:
        return None
    value = toks[k].value
    return value if value is not None and value.denominator == 1 else None


def _rightmost(seg: list[Tok]) -> Side | None:
    """The expression that closes a side, or None when it is a fragment."""
    toks, units = _drop_units(seg)
    for start in range(len(toks)):
        prev = toks[start - 1] if start else None
        if prev is not None and prev.kind != "word" and not opens_aside(toks, start):
            continue
        first = toks[start]
        if first.kind in ("word", "letter") or article(toks, start) or (
            first.kind == OP and (first.text != "-" or first.space)
        ):
            continue  # "a_1 + 6": a binary operator never opens a side; "-5" may
        result = start > 1 and prev.text == "to" and toks[start - 2].text in RESULT_VERBS
        before = toks[start - 2].text if start > 1 else ""
        modified = prev is not None and modifies(prev.text, before)
        if prev is not None and not prev.space and toks[start].kind == "lp":
            return None  # f(2), g(x): a function value, not a parenthesised number
        try:
            node, end = parse_expression(toks, start)
        except ParseError:
            if result or modified:
                return None
            continue
        if result and end != len(toks) and not opens_aside(toks, end + 1):
            # "equal to 6 yuan, 15 USD (...)": not the result; scan no further (but into an
            # aside after it: "up to 441 (since 256 + ... = 441)")
            return None
        if modified and not result:
            # "half of 12 + 4", "3 times 4 + 2": a fragment, and so may be anything after it
            # (the article read as a letter opens one: "the angles of a 14-gon"). The scan
            # goes on past a number a copula ends ("the digits of 1521 is 1 + 5 + 2 + 1");
            # else only the one side a copula after the fragment opens is read (`after_copula`),
            # or one in an aside the tokens end in ("digit U must be 4 (since 3 + 4 = 7)").
            if end < len(toks) and noun_phrase(toks[start].kind, toks[end].text):
                continue
            if (found := after_copula(toks, end)) is None:
                if aside_after(toks, end):
                    continue
                return None
            start, node, end = found
        if end == len(toks):
            side = _side(toks[start:], node, units)
            # "Time spent: 4 hours = 4 * 60": a plain number with words or units is a label.
            return replace(side, described=start > 0 or bool(units)) if side.plain else side
    return None


def _joined(seg: list[Tok], opens: bool = False) -> Side | None:
    """`12 + 30 = 42 and 8 * 3 = 25`: right after the value one link closes with, "and" opens
    the next link's side (elsewhere "and" before a number joins a fragment's operands: "the
    product of 6 and 7 = 42", `_rightmost`). The words before "and" may only be units, and the
    side is numbers: "a = 26 and b = 41" gives values, the equation checks' to read. `opens`:
    the clause opens with "and" after a comma closing a relation (`3 * 4 = 12 apples, and
    12 + 5 = 17`; "the sum of 5, 6, and 7 = 18" has none before its "and")."""
    ands = [j for j, tok in enumerate(seg) if tok.kind == "word" and tok.text == "and"]
    if not ands or (ands[0] != 0 if opens else _leftmost(seg[: ands[0]])[0] is None):
        return None
    side = _whole(seg[ands[0] + 1 :])
    return None if side is None or variables(side.node) else side


def _whole(seg: list[Tok]) -> Side | None:
    """A middle side of a chain must be one complete expression."""
    toks, units = _drop_units(seg)
    if not toks or toks[0].kind == "word":
        return None
    try:
        node, end = parse_expression(toks, 0)
    except ParseError:
        return None
    return _side(toks, node, units) if end == len(toks) else None


@dataclass(frozen=True, slots=True)
class Named:
    """A chain that starts with a name: `Total fruits = 52 + 24 + 44 + 48` (clause `clause`)."""

    name: str
    clause: int
    first: Side  # the side right after the name
    last: Side  # the chain's last complete side


def _segments(clause: tuple[Tok, ...]) -> tuple[list[list[Tok]], list[bool]]:
    segs: list[list[Tok]] = [[]]
    rels: list[bool] = []
    for tok in clause:
        if tok.kind in ("eq", "approx"):
            segs.append([])
            rels.append(tok.kind == "approx")
        else:
            segs[-1].append(tok)
    return segs, rels


@lru_cache(maxsize=16384)
def extract_named(text: str) -> tuple[Named, ...]:
    """Chains opened by a bare name (words or one letter, no number), in reading order.

    Only chains whose sides after the name are all complete expressions count: the calculator
    compares the value a name ends with against the value the next chain of that name starts
    with (a result restated on the next line of a LaTeX display).
    """
    out: list[Named] = []
    for ci, clause in enumerate(tokenize(normalize(text))):
        segs, rels = _segments(clause)
        if not rels or not segs[0] or any(t.kind not in ("word", "letter", VAR) for t in segs[0]):
            continue
        name = " ".join(t.text for t in segs[0])
        if "subscripted" in name or "mathop" in name:
            continue  # "a_4" and "1776a_4" would share the name: we cannot tell them apart
        sides = [_whole(seg) for seg in segs[1:-1]]
        tail, _ = _leftmost(segs[-1])
        sides.append(tail)
        if all(side is not None for side in sides):
            out.append(Named(name, ci, sides[0], sides[-1]))  # type: ignore[arg-type]
    return tuple(out)


# A clause that is only an item of a list ("7 respectively", "5 and 6"): these words may
# stand beside its numbers.
_LIST_WORDS = frozenset("and or respectively etc".split())
# Only a comma: normalize() writes ";" for \\Rightarrow, \\le, \\quad..., which join no list.
_LIST_SEPARATORS = frozenset(",")
_ITEM_START = frozenset((NUM, "lp", VAR, "letter", "pi", "sqrt"))
_ITEM_END = frozenset((NUM, "rp", "pct", "fact", "pi", VAR, "letter"))


def _no_relation(clause: tuple[Tok, ...]) -> bool:
    return not any(t.kind in ("eq", "approx") for t in clause)


def _computes(clause: tuple[Tok, ...]) -> bool:
    """The expression that ends the clause has an operator ("... are 5 + 3")."""
    for tok in reversed(clause):
        if tok.kind in ("word", "letter", "frag"):
            return False
        if tok.kind == OP:
            return True
    return False


def _bare(segment: list[Tok]) -> bool:
    """Only an expression: no words but list words ("49 total pairs" is no list item)."""
    return all(t.kind != "word" or t.text in _LIST_WORDS for t in segment)


def _list_edges(
    clauses: tuple[tuple[Tok, ...], ...], ends: tuple[str, ...], ci: int
) -> tuple[bool, bool]:
    """(first side, last side) of clause `ci`'s chain is an item of a comma list.

    "The values 1 + 2, 3 + 4 = 3, 7 respectively" pairs two lists; read as one chain it would
    claim 3 + 4 = 3. The first side is a list item when the clause opens with an expression
    and the clause before it, cut off by a comma, ends with one (with an operator, unless the
    last side is an item too) and has no `=`; the last side is one when the clause after the
    comma is only numbers (and list words), with no `=`. A side with words is never an item.
    """
    clause = clauses[ci]
    after = clauses[ci + 1] if ci + 1 < len(clauses) else ()
    last = (
        bool(after)
        and ends[ci] in _LIST_SEPARATORS
        and _bare(_segments(clause)[0][-1])
        and _no_relation(after)
        and clause[-1].kind in _ITEM_END
        and after[0].kind in _ITEM_START
        and all(t.kind != "word" or t.text in _LIST_WORDS for t in after)
    )
    before = clauses[ci - 1] if ci > 0 else ()
    first = (
        bool(before)
        and ends[ci - 1] in _LIST_SEPARATORS
        and _bare(_segments(clause)[0][0])
        and _no_relation(before)
        and before[-1].kind in _ITEM_END
        and clause[0].kind in _ITEM_START
        # "In base 8, 17 + 1 = 21": a bare number before the comma is no list item by itself
        and (last or _computes(before))
    )
    return first, last


@lru_cache(maxsize=16384)
def extract_links(text: str) -> tuple[Link, ...]:
    """Every `a = b` link of every `=`/`≈` chain in a step, in reading order; a side that is
    an item of a comma list (`_list_edges`) gives no link."""
    links: list[Link] = []
    plain = normalize(text)
    clauses, ends = tokenize(plain), clause_ends(plain)
    for ci, clause in enumerate(clauses):
        if _no_relation(clause):
            continue
        segs, rels = _segments(clause)
        first_item, last_item = _list_edges(clauses, ends, ci)
        for k, approx in enumerate(rels):
            last = k + 1 == len(segs) - 1
            if (k == 0 and first_item) or (last and last_item):
                continue
            left_seg, right_seg = segs[k], segs[k + 1]
            left = _whole(left_seg) if k > 0 else None
            if left is None:
                left = _rightmost(left_seg)
            opens = k == 0 and ci > 0 and ends[ci - 1] == "," and not _no_relation(clauses[ci - 1])
            if left is None and (k > 0 or opens):
                left = _joined(left_seg, opens)
            right = None if last else _whole(right_seg)
            words: tuple[str, ...] = ()
            remainder = None
            if right is None:
                right, words = _leftmost(right_seg)
                remainder = _remainder(right_seg) if "remainder" in words else None
            if left is not None and right is not None:
                links.append(Link(left, right, approx, ci, words, remainder))
    return tuple(links)
