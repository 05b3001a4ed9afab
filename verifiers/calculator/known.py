"""What the problem and the chain already state about a claim's symbols, as polynomials.

A link false as an identity may be true given the conditions written before it (`x + y = 10`
makes `x = 10 - y` no slip): `known_polynomials` reads them for `ideals.follows`, and says
when one it cannot read speaks of the same unknowns (then nothing is judged). A chain whose
ends are one expression written twice sets no condition (`rewrites_only`).
"""

from __future__ import annotations

import re

from verifiers.calculator.applications import opaque_sides
from verifiers.calculator.claim_words import BARE_LETTERS
from verifiers.calculator.definitions import define
from verifiers.calculator.readers import readings
from verifiers.calculator.relations import admissible

__all__ = ["defined_anew", "known_polynomials", "rewrites_only"]

# A function we cannot read applied to its letters (`f(x)`, `f_1(x)`, `g_{2}(t)`, `f(x,y)`): a
# condition holding it is about the function (a definition, an identity it satisfies).
_APPLIED = re.compile(r"(?<![A-Za-z\\])[A-Za-z](?:_\{?\w+\}?)?\([a-z](?:,[a-z])*\)")


def known_polynomials(known: list, defs: dict, *exprs) -> list | None:
    """The known conditions about the claim's symbols, as expressions equal to zero; None when
    one of them cannot be read (then nothing can be said about what they imply)."""
    symbols = set().union(*(e.free_symbols for e in exprs))
    out = []
    letters = {str(s)[0] for s in symbols}
    opaque = any("(" in str(s) for s in symbols)  # values of a function as unknowns: they count
    for left, right in known:
        a, b = readings(left, defs), readings(right, defs)
        if opaque and not (a and b) and (read := opaque_sides(left, right, defs)):
            a, b = read[:2]
        if not (admissible(left) and admissible(right)) or len(a) != 1 or len(b) != 1:
            if _APPLIED.search((left + "=" + right).replace(" ", "")):
                continue  # `f_1(x)^2 = ...` speaks of a function of x; it does not pin x
            if set(BARE_LETTERS.findall(left + right)) & letters:
                return None  # a condition about these unknowns we cannot read
            continue
        expr = a[0] - b[0]
        if expr.free_symbols & symbols:
            out.append(expr)
    return out


def rewrites_only(members: tuple, defs: dict) -> bool:
    """Whether a chain `A = B = C` only rewrites one expression: its ends read, hold letters,
    and agree as an identity. Its links are then no condition on the letters, even one too
    large to read (`\\binom{10^9 + 1}{k - 1} = \\frac{(10^9 + 1)!}{...} = ...`), which as a
    condition would spare every later claim about k."""
    from verifiers.calculator.symbolic import compare_identity

    if len(members) < 3:
        return False
    first, last = readings(members[0], defs), readings(members[-1], defs)
    if len(first) != 1 or len(last) != 1 or not (first[0] - last[0]).free_symbols:
        return False
    return compare_identity(first[0], last[0])[0] == "holds"


def defined_anew(def_texts: dict, known: list, name: str, arg: str, body: str) -> None:
    """`define`, and a function given a new meaning drops the conditions that apply it
    (`known`, in place): "let's assume f(x) = x + c" after the problem's `f(x + f(x + y)) +
    f(xy) = ...` makes that equation a condition on c the step is testing, not one known to
    hold, and read as known it would spare every slip the test makes."""
    before = def_texts.get(name, ())
    define(def_texts, name, arg, body)
    if not arg or def_texts.get(name) == before:
        return
    applied = re.compile(rf"(?<![A-Za-z\\]){re.escape(name)}'*\s*\(")
    known[:] = [k for k in known if not applied.search(f"{k[0]} = {k[1]}")]
