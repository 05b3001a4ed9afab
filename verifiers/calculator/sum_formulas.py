"""Closed forms claimed for a sum or product up to a letter:
`\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}`.

The readers total a sum only when its bounds are numbers, so a formula for every n is checked
at whole n: the sum written out with n five to nine past its lower bound (the first few are
left out: a formula may be meant only from some n on) against the other side at the same n.
False only where the two differ at every n tried (an off-by-one formula differs at all of
them), holds where they agree at every one. Not judged: a bound letter that also stands in
the body, an other side without the letter (`\\sum_{k=1}^{n} k = 55` is an equation in n, and
a letter the chain gave a value is read as that value), and terms with unknowns of their own
(`\\sum_{k=1}^{n} a_k = n^2` is a condition on the a_k).
"""

from __future__ import annotations

import re

from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import readings
from verifiers.calculator.relations import admissible

__all__ = ["sum_formulas"]

_BOUNDS = re.compile(
    r"^\s*\\(?:sum|prod)\s*_\s*\{\s*(?P<index>[a-z])\s*=\s*(?P<low>-?\d+)\s*\}\s*\^\s*"
    r"(?:\{\s*(?P<braced>[a-z])\s*\}|(?P<bare>[a-z])(?![A-Za-z]))"
)
_PAST = range(5, 10)  # how far past the lower bound the n tried lie


def sum_formulas(members: tuple[str, ...], ops: tuple[str, ...], defs: dict) -> list[ClaimResult]:
    """The verdicts on a chain's `=` links between a sum (or product) up to a letter and a
    closed form in that letter (see the module docstring)."""
    import sympy

    out = []
    for i, op in enumerate(ops):
        if op != "=":
            continue
        for written, other in ((members[i], members[i + 1]), (members[i + 1], members[i])):
            found = _BOUNDS.match(written)
            if found is None or not admissible(other):
                continue
            bound = found["braced"] or found["bare"]
            body = written[found.end() :]
            if bound == found["index"] or _holds_letter(body, bound):
                continue
            closed = readings(other, defs)
            letter = sympy.Symbol(bound)
            if len(closed) != 1 or closed[0].free_symbols != {letter}:
                continue
            head = written[: found.end()]
            head = head[: head.rindex("^")]
            pairs = []
            for n in (int(found["low"]) + step for step in _PAST):
                text = f"{head}^{{{n}}}{body}"
                total = readings(text, defs) if admissible(text) else []
                if len(total) != 1 or total[0].free_symbols or not total[0].is_Rational:
                    break
                pairs.append((n, total[0], sympy.nsimplify(closed[0].subs(letter, n))))
            if len(pairs) != len(_PAST) or not all(p[2].is_Rational for p in pairs):
                continue
            text = f"{members[i]} = {members[i + 1]}"
            differ = [p for p in pairs if p[1] != p[2]]
            if not differ:
                out.append(ClaimResult("holds", text))
            elif len(differ) == len(pairs):
                n, total, value = differ[0]
                why = f"at {bound} = {n} the {_name(written)} is {total}, the other side {value}"
                out.append(ClaimResult("false", text, f"{value}", f"{total}", why))
            break
    return out


def _holds_letter(text: str, letter: str) -> bool:
    return re.search(rf"(?<![\\A-Za-z]){letter}(?![A-Za-z])", text) is not None


def _name(written: str) -> str:
    return "product" if written.lstrip().startswith("\\prod") else "sum"
