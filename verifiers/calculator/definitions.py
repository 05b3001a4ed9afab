"""Functions a chain defines: `f(x) = 3x^2 - x`, `g(x, y) = 1 - x - y + xy`.

A definition is a relation whose left side applies a one-letter name to distinct one-letter
arguments and whose right side uses every one of them (`f(x) = 2` says where f is 2, not what
f is). A later use reads the body with the arguments put in (`readers.readings`). A name
defined twice, differently, is read as neither: which one a later use means would be ours to
guess, and so is one piece of a piecewise function ("$f(x) = x^2$ if $x \\ge 0$ and $-x$
otherwise": the other pieces may be written in words). Two functions already defined
set equal (`f(x, y) = g(x, y)`) say where they meet: an equation, not a definition.

A problem that names a number (`Let $T = 8$.`) fixes that letter for every chain of it: a
constant, read as its number wherever the letter stands (`constant_of`). A chain's own
"let a = 3" fixes it for its step only, since "let x = 0" is as often a value put into a
functional equation, a trial or a case, after which x is free again ("now solve x^2 - 5x +
6 = 0"); "denote" and "define" name it for the rest of the chain (`fixing`). Never when the
same step gives the letter another value later, and a step that gives it another value
(`unfixed`) makes it a letter again from there on.
"""

from __future__ import annotations

import re

from verifiers.calculator.claim_words import (
    FUNC_DEF,
    LETTER,
    NOT_CLAIMED,
    compact,
    first_sentence,
    free_letters,
    last_sentence,
    word_set,
)
from verifiers.calculator.readers import DECIMAL, readings

# Words that give a letter its value; the last ones name it for the rest of the text.
_NAMES = re.compile(r"\b(?:let|given|denote|define)\b")
_LASTING = re.compile(r"\b(?:denote|define)\b")
# Nothing but a list's joint between two values given at once ("Let $a = 2$, and $b = 3$").
_LIST_JOIN = re.compile(r"\s*,?\s*(?:and\s*)?", re.IGNORECASE)

__all__ = ["constant_of", "define", "definitions", "defining", "fixing", "unfixed"]


def defining(members: tuple[str, ...], ops: tuple[str, ...], defs: dict):
    """The (name, arguments) a relation defines, arguments comma-joined without spaces, or
    None."""
    m = FUNC_DEF.match(members[0].replace(" ", ""))
    if m is None or ops[0] != "=":
        return None
    # `f(y) = 1 + y - f(-1)` applies f at a number only: f up to a constant, which defines no
    # f to read (taken as one, it would give the chain's `f(y) = 1 + y` after it a second
    # meaning). A recursion (`f(n) = f(n - 5)`) is a rule of its own: another meaning.
    calls = re.findall(rf"(?<![\\A-Za-z]){m.group(1)}\s*\(([^()]*\)?)", members[1])
    if calls and all(c.endswith(")") and not LETTER.search(c) for c in calls):
        return None
    # Only another defined function at its letters, `g(x, y)`: `f(x) = g(x) + 1` when f is
    # defined may give f a new meaning, and then neither is read.
    other = FUNC_DEF.match(members[1].replace(" ", ""))
    if m.group(1) in defs and other is not None and other.group(1) in defs:
        return None
    return m.group(1), m.group(2)


def define(def_texts: dict, name: str, arg: str, body: str) -> None:
    """Record a definition's text; a second, different one makes the name ambiguous (None).
    The problem's definition restated in other writing (`\\frac{1}{a b}` as `\\frac{1}{ab}`)
    is the same one."""
    if name in def_texts and def_texts[name] != (arg, body):
        if not _same(def_texts[name], (arg, body)):
            def_texts[name] = None
    else:
        def_texts[name] = (arg, body)


# Words right after a definition that give it only on part of the domain, a condition on its
# letter ("if $x \\ge 0$", "for $0 \\le x < 1$", "otherwise"), and the words of the sentence
# after them that name another piece.
_PIECE = re.compile(
    r"^[\s,;]*(?:(?:if|when|whenever|on|provided|for)\s*(?:\$|\\\()?\s*(?:-?\d+\s*(?:<|\\leq?)\s*)?"
    r"[a-z]\s*(?:[<>]|\\[lg]eq?\b|\\neq\b|\\in\b|\\not)|otherwise\b|else\b)",
    re.IGNORECASE,
)
_OTHER_PIECE = re.compile(
    r"\b(?:otherwise|else|elsewhere|if|when|for(?!\s+(?:all|every|any|each|some)\b))\b",
    re.IGNORECASE,
)


def piece_of(rest: str) -> bool:
    """Whether the text after a definition (`rest`, math included) makes it one piece of a
    piecewise function: a condition on its argument, then another piece in the same sentence
    ("$f(x) = x^2$ if $x \\ge 0$ and $-x$ otherwise"). A definition on a domain alone ("$f(x) =
    \\frac{1}{x}$ for $x > 0$") is the function there and is read."""
    sentence = first_sentence(rest)
    found = _PIECE.match(sentence)
    return found is not None and _OTHER_PIECE.search(sentence[found.end() :]) is not None


def on_domain(rest: str) -> bool:
    """Whether the words right after a definition give it on part of the domain only ("$f(x)
    = 1 - |x - 2|$ for $1 \\le x \\le 3$"): where the problem says more of the function, the
    definition is one piece of it (`chain_algebra`)."""
    return _PIECE.match(first_sentence(rest)) is not None


def _same(first: tuple | None, second: tuple) -> bool:
    if first is None or first[0] != second[0]:
        return False
    import sympy

    a, b = readings(first[1]), readings(second[1])
    return len(a) == len(b) == 1 and sympy.cancel(a[0] - b[0]) == 0


def definitions(def_texts: dict) -> dict:
    """{name: (its argument symbols, in order, body)} for the definitions read whole."""
    import sympy

    defs = {}
    for name, found in def_texts.items():
        if found is None:
            continue
        parsed = readings(found[1], defs)
        args = [sympy.Symbol(a) for a in found[0].split(",")] if found[0] else []
        if len(parsed) != 1 or args == [] and (parsed[0].free_symbols or not parsed[0].is_real):
            continue  # a constant is a real number (`i = \\sqrt{-1}` names the unit: apart)
        if len(set(args) & parsed[0].free_symbols) == len(args):
            defs[name] = (tuple(args), parsed[0])
    return defs


def fixing(members: tuple, ops: tuple, before: str, later: list, def_texts: dict):
    """(letter, whether for the rest of the chain) when a chain's clause fixes a letter
    (`constant_of`), else None: never one the problem or chain named already, nor one a
    later clause of the step gives another value ("let x = 1 ... solving, x = 2 or x = 3").
    A "let" fixes it for its step; "denote" and "define" for the rest of the chain."""
    name = constant_of(members, ops, before)
    if name is None or name in def_texts:
        return None
    if any(compact(c[0][0]) == name and len(c[0]) > 1 and compact(c[0][1]) != compact(members[1])
           for c in later):  # fmt: skip
        return None
    return name, bool(_LASTING.search(last_sentence(before).lower()))


def constant_of(
    members: tuple[str, ...], ops: tuple[str, ...], before: str, listed: bool = False
) -> str | None:
    """The letter a problem's `Let $T = 8$` fixes (None when the clause fixes none): one
    Latin letter given, after "let", "denote", "define" or "given" in its sentence, a real
    number written exactly (no decimal: `x = 0.4545...` names a repeating one). `listed`: the
    clause before fixed a letter, so `$b = 3$` after "Let $a = 2$ and" is named as it was."""
    name = compact(members[0])
    if len(members) != 2 or ops[0] != "=" or not re.fullmatch(r"[A-Za-z]", name):
        return None
    sentence = last_sentence(before).lower()
    named = _NAMES.search(sentence) or listed and _LIST_JOIN.fullmatch(before)
    if not named or word_set(sentence) & NOT_CLAIMED:
        return None
    # Read here by its words alone (this runs in the caller, where sympy has no time limit):
    # `definitions`, in the worker, keeps it only when it reads as one real number.
    if DECIMAL.search(members[1]) or free_letters(members[1], {}):
        return None
    return name


def unfixed(def_texts: dict, members: tuple[str, ...], ops: tuple[str, ...], defs: dict) -> bool:
    """Drop a constant that the chain gives another value (`T = 5` where the problem fixed 8,
    `T = t + 1`): from there the letter is one of the chain's. Whether one was dropped."""
    name = compact(members[0])
    if ops[0] != "=" or name not in defs or defs[name][0]:
        return False
    value = readings(members[1], defs)
    if len(value) == 1 and not value[0].free_symbols and value[0] == defs[name][1]:
        return False
    def_texts[name] = None
    return True
