"""Functions a chain defines: `f(x) = 3x^2 - x`, `g(x, y) = 1 - x - y + xy`.

A definition is a relation whose left side applies a one-letter name to distinct one-letter
arguments and whose right side uses every one of them (`f(x) = 2` says where f is 2, not what
f is). A later use reads the body with the arguments put in (`readers.readings`). A name
defined twice, differently, is read as neither: which one a later use means would be ours to
guess. Two functions already defined set equal (`f(x, y) = g(x, y)`) say where they meet: an
equation, not a definition.
"""

from __future__ import annotations

from verifiers.calculator.claim_words import FUNC_DEF
from verifiers.calculator.readers import readings

__all__ = ["define", "definitions", "defining"]


def defining(members: tuple[str, ...], ops: tuple[str, ...], defs: dict):
    """The (name, arguments) a relation defines, arguments comma-joined without spaces, or
    None."""
    m = FUNC_DEF.match(members[0].replace(" ", ""))
    if m is None or ops[0] != "=":
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
        parsed, args = readings(found[1], defs), [sympy.Symbol(a) for a in found[0].split(",")]
        if len(parsed) == 1 and len(set(args) & parsed[0].free_symbols) == len(args):
            defs[name] = (tuple(args), parsed[0])
    return defs
