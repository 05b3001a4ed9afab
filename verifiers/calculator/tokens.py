"""Normalised step text to clauses of tokens (the calculator's lexer).

Pure and cached. Separators (newline, ; : , . ? and anything unknown) end a clause; a
mathematical symbol we do not know, glued to a number or bracket after it (`∠45`), also opens
the next clause with a fragment mark, so what it acts on is never read as whole. Letters
become unknowns (`var`), units and prose (`word`), or `letter`: a name we do not track
("c", "2ab", "AC", the P of "P(3)"), which no expression may absorb or skip, so whatever
touches it is a fragment. Whether an expression is whole is decided later (`calc_extract`).
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction
from functools import lru_cache

from verifiers.calculator.parse import MAX_DIGITS, NUM, OP, VAR, Tok

# Letters we accept as unknowns; the rest of the alphabet is too often a unit (m, g, s, h, l).
VAR_LETTERS = frozenset("abnrtuvwxyz")
# Capitals are unknowns too ("5J + 20 = 100"), except the pronoun and common unit symbols.
NOT_VAR_CAPITALS = frozenset("ICFKLVW")
# Letters glued to a number are units only when known ("5kg", "3pm", "5th"); "2ab", "5i", "6c"
# are products with unknowns we do not track, so the expression is a fragment.
ATTACHED_UNITS = frozenset(
    "kg km cm mm m g mg lb lbs oz ft h hr hrs min mins s sec mph pm am k ml l".split()
)
# Glued to a number these make it an ordinal ("5th", "21st"): a position, never an operand.
_ORDINAL_SUFFIXES = frozenset("st nd rd th".split())
# Two or three capitals name points, segments and areas ("2 QD", "66/BC", "[ABD]"): products
# with unknowns. These are the capitalised units and abbreviations seen after numbers instead.
CAPITAL_UNITS = frozenset(
    "am pm mb gb kb tb mph usd eur gbp xl xs vip us km cm mm kg ml oz lb ft hr".split()
)

# Words joined by hyphens ("non-club", "push-ups") are one word: read as "non - club", the
# unit after a value made its side an expression. A lone letter before a hyphen stays a
# letter ("x-intercept", "a-b").
_TOKEN = re.compile(
    r"(?P<num>\d+(?:\.\d+)?|\.\d+)"
    r"|(?P<word>[A-Za-z][A-Za-z'’]+(?:-[a-z][a-z'’]+)+|[A-Za-z][A-Za-z'’]*)"
    r"|(?P<op>[-+*/^])"
    r"|(?P<lp>[(\[])|(?P<rp>[)\]])"
    r"|(?P<pct>%)"
    r"|(?P<bang>!)"
    r"|(?P<eq>=)|(?P<approx>≈)"
    r"|(?P<space>[ \t\r]+)"
    r"|(?P<other>.)",
    re.S,
)


def _num(text: str) -> Tok:
    if len(text) > MAX_DIGITS:
        return Tok("word", "bignumber")
    if len(text) > 1 and text[0] == "0" and text[1].isdigit():
        return Tok("word", "code")  # "0900", "0130": clock times and codes, not quantities
    decimals = len(text) - text.index(".") - 1 if "." in text else 0
    return Tok(NUM, text, Fraction(text), decimals)


def _word(text: str, glued: bool, call: bool) -> Tok:
    """A run of letters; `glued` to a number or ")" before it, a `call` when "(" follows."""
    low = text.lower().replace("’", "'")  # "doesn’t" is "doesn't"
    if len(text) == 1 and text.isupper() and call:
        return Tok("letter", low)  # "P(3) = 2/9": a function value, not the product P * 3
    if len(low) == 1 and low in VAR_LETTERS:
        return Tok(VAR, low)
    if len(text) == 1 and text.isupper() and text not in NOT_VAR_CAPITALS:
        return Tok(VAR, text)
    if low in ("pi", "sqrt"):
        return Tok(low, low)
    if len(low) == 1 or (glued and low not in ATTACHED_UNITS):
        return Tok("letter", low)  # "c", "S", "i", "2ab", "6c": unknowns we do not track
    if len(text) <= 3 and text.isupper() and low not in CAPITAL_UNITS:
        return Tok("letter", low)
    return Tok("word", low)


def tokenize(s: str) -> tuple[tuple[Tok, ...], ...]:
    """Clauses of tokens: separators (newline, ; : , . ? etc.) end a clause."""
    return _scan(s)[0]


def clause_ends(s: str) -> tuple[str, ...]:
    """The separator that ended each clause of `tokenize(s)` ("" for the text's end)."""
    return _scan(s)[1]


# Symbols that end a clause as punctuation does: relations and arrows (a chain's own). Currency
# signs, which prefix an amount (`€150 × 2 = €300`), and brackets are no mathematical symbols.
_RELATIONS = frozenset("<>≤≥≠≡≈∼≃≅∝→←↔⇒⇐⇔⟹⟸⟺∈∉⊂⊆⊃⊇∣∤∥⊥")
_OPERAND_START = frozenset("0123456789.([{")


def _unknown_operator(s: str, m: re.Match) -> bool:
    """A mathematical symbol the lexer does not know, with a number or bracket right after."""
    char = m.group()
    if char in _RELATIONS or unicodedata.category(char) not in ("Sm", "So"):
        return False
    return s[m.end() : m.end() + 1] in _OPERAND_START


@lru_cache(maxsize=16384)
def _scan(s: str) -> tuple[tuple[tuple[Tok, ...], ...], tuple[str, ...]]:
    clauses: list[tuple[Tok, ...]] = []
    ends: list[str] = []
    cur: list[Tok] = []
    newline_before = False  # the last clause ended at a line break (a LaTeX display line)
    for m in _TOKEN.finditer(s):
        kind = m.lastgroup
        text = m.group()
        if kind == "space":
            if cur:
                cur[-1] = cur[-1].spaced()
            continue
        if kind == "num":
            cur.append(_num(text))
        elif kind == "word":
            glued = bool(cur) and not cur[-1].space and cur[-1].kind in (NUM, "rp")
            if glued and cur[-1].kind == NUM and text.lower() in _ORDINAL_SUFFIXES:
                # "1st - 5 = 6th": a position, not a quantity; the number becomes a word
                # that no expression may touch.
                cur[-1] = Tok("word", "ordinal")
                continue
            cur.append(_word(text, glued, s.startswith("(", m.end())))
        elif kind in ("op", "lp", "rp", "pct", "eq", "approx"):
            cur.append(Tok(OP if kind == "op" else kind, text))
        elif kind == "bang" and cur and cur[-1].kind in (NUM, "rp") and not cur[-1].space:
            # Glued to a number it is a factorial ("= 6!$ ways", "12 \cdot 11!$,"); when it
            # was an exclamation mark the judge refuses a claim whose value hangs on it.
            cur.append(Tok("fact", "!"))
        elif text in "|…":
            cur.append(Tok("frag", text))  # |x|, "1 + 2 + … + 9": nothing next to it is whole
        else:  # punctuation and anything unknown: the clause ends here
            if cur:
                clauses.append(tuple(cur))
                ends.append(text)
                newline_before = text == "\n"
            elif text != "\n":
                newline_before = False
            # An operator we do not know glued to what follows (`∠45`, `∑2`): whatever it acts
            # on is no whole expression.
            cur = [Tok("frag", text)] if _unknown_operator(s, m) else []
            continue
        if len(cur) == 1 and cur[0].kind in ("eq", "approx") and clauses and newline_before:
            cur = [*clauses.pop(), *cur]  # "\] \[ = 7 * 27": the chain goes on
            ends.pop()
    if cur:
        clauses.append(tuple(cur))
        ends.append("")
    return tuple(clauses), tuple(ends)
