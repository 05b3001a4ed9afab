"""Back-substitution: the values of a new letter taken back to the letter it stands for.

"Let $a = 2^x$. Then $a^2 - 5a + 4 = 0$, so $a = 1$ or $a = 4$, i.e. $x = 0$ or $x = 2$." names
a new letter for an expression in one old letter, finds the new letter's values, and gives the
old letter's. Each value of the old letter must give the new one one of its values: at `x = 3`
the expression is 8, neither 1 nor 4. Read within one step, only where the words before the
new letter name it ("let", "with", "set", "substituting", "where", "denote"), the new letter's
values are plain numbers, and the old letter's values follow right after them with nothing but
joining words between ("so", "i.e.", "hence", "giving", "or", "and"). Every value the new
letter is given counts (one found and then rejected, `t = -1` for `t = x^2`, simply has no
old value). An old value set aside, supposed or tried (words before it, or after it in its
sentence: "x = 3 is not a solution"), any other relation between them, decimals (which may be
rounded), a trig function (whose argument may be degrees), or an expression in several letters
ends the reading.
"""

from __future__ import annotations

import re

from verifiers.calculator.claim_words import last_sentence, lone, set_aside, word_set
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import DECIMAL, plain_number, readings, trig_atoms
from verifiers.calculator.signs import signed_texts
from verifiers.calculator.symbolic import fmt, same_value

__all__ = ["back_substituted"]

# Words in the sentence before a letter given an expression that name it a new letter.
_NAMES = re.compile(r"\b(?:let|with|set|setting|substitut\w*|where|denote|denoting)\b")
# The only words that may stand before the old letter's values (and between them).
_JOINS = frozenset(
    "so i e ie that is hence thus therefore giving gives which means and or then we get have"
    " implies".split()
)


def back_substituted(clauses: list, defs: dict) -> list[tuple[ClaimResult, tuple]]:
    """(outcome, members to confirm) for each old letter's value after the new letter's values
    that gives the new letter none of them (see the module docstring)."""
    out = []
    new = None  # (new letter, its expression's text, the expression, the old letter)
    found: list = []  # the new letter's values, (text, value), in order
    for members, ops, before, after, *_ in clauses:
        pair = len(members) == 2 and list(ops) == ["="] and lone(members[0])
        letter = members[0].strip() if pair else None
        if pair and (named := _named(members, before, defs)) is not None:
            new, found = named, []
            continue
        if new is None:
            continue
        if letter == new[0] and not set_aside(before):
            if (value := plain_number(members[1], defs)) is not None:
                found.append((members[1], value))  # every value found counts: lenient
                continue
        if letter == new[3] and not found:
            # "We substitute $a = 1 - c$ ... $c = -2$ (so $a = 3$)": the old letter's value
            # comes first and the new one's is computed from it, the other way round.
            new = None
            continue
        if letter == new[3] and word_set(before) <= _JOINS and not set_aside(before, after):
            if (outcome := _judged(new, found, members[1], defs)) is not None:
                out.append((outcome, (new[1], members[1], *(t for t, _ in found))))
            continue
        found = []  # anything else between them ends the reading
    return out


def _named(members: tuple, before: str, defs: dict):
    """(new letter, text, expression, old letter) when the clause names a new letter for an
    expression in one other letter, else None."""
    if not _NAMES.search(last_sentence(before.lower())) or DECIMAL.search(members[1]):
        return None
    read = readings(members[1], defs)
    if len(read) != 1 or len(read[0].free_symbols) != 1 or trig_atoms(read[0]):
        return None
    old = next(iter(read[0].free_symbols))
    if str(old) == members[0].strip():
        return None  # `x = 2x - 3`: an equation, not a name
    return members[0].strip(), members[1], read[0], str(old)


def _judged(new: tuple, found: list, value_text: str, defs: dict) -> ClaimResult | None:
    import sympy

    name, text, expr, old = new
    symbol = next(iter(expr.free_symbols))
    for each in signed_texts(value_text):
        value = plain_number(each, defs)
        if value is None:
            return None
        try:
            at = sympy.simplify(expr.xreplace({symbol: value}))
        except Exception:  # a value where the expression is undefined says nothing
            return None
        if not at.is_number or at.has(sympy.zoo, sympy.nan) or not at.is_real:
            return None
        if any(same_value(at, v) for _, v in found):
            continue
        values = ", ".join(t for t, _ in found)
        why = f"`{name} = {text}` is {fmt(at)} at {old} = {each}, not one of {name} = {values}"
        return ClaimResult("false", f"{old} = {value_text}", reason=why)
    return None
