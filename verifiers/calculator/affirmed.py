"""Equations the text says hold for every value: an identity claimed in words.

"Substitute f(x) = x back to verify: ... x + xy + y = xy + 1, which is true for all x, y > 0"
claims an identity, whatever the words before it set up (a check, a substitution): the words
after it say it holds whatever the letters are. `affirmed` judges such an equation (or the
last link of a chain) as an identity of rational functions. Two rational functions that
differ as functions differ on every open set and at all but finitely many integers, so a
domain the text names ("for all x > 0", "for every integer n") cannot make them agree.

Not judged: a side that is a number or a lone name (`A + B + C = 180^\\circ` "always" holds of
a triangle's angles, `a_n = 2n + 1` is a formula for a name), sides in different letters,
anything but rational functions (a root, a log, a letter in an exponent: their domains
matter), a domain given as a set or a condition ("for all x in {0, 1}", "for all x
satisfying ...", "mod 3"), and a domain written in math that is not an inequality (it could be
a set we do not see).
"""

from __future__ import annotations

import re

from verifiers.calculator.affirmed_orders import affirmed_order, names_only
from verifiers.calculator.claim_words import first_sentence, lone
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.inequalities import INEQUALITIES
from verifiers.calculator.readers import readings
from verifiers.calculator.relations import admissible
from verifiers.calculator.symbolic import compare_identity, fmt, point

# Right after the equation: "which is true for all", "this holds for any", "is always true",
# "holds identically".
_FOR_ALL = re.compile(
    r"^[\s,.;:]*(?:this\s+is\s+an?\s+(?:well[- ]known|standard|classical|known|basic)\s+"
    r"(?:inequality|identity)\s*,?\s*)?"  # "This is a well-known inequality, which holds ..."
    r"(?:which|this|that|it|and this)?\s*(?:is\s+|holds\s+|remains\s+)?"
    r"(?:(?:always|identically)\s+(?:true|valid|satisfied|holds?)\b"
    r"|(?:true|valid|satisfied|holds?)\s+(?:identically\b|for\s+(?:all|any|every)\b))",
    re.IGNORECASE,
)
# A domain the words restrict beyond an open set, or tie to a condition.
_RESTRICTED = re.compile(
    r"\\in\b|\\\{|\bsatisf|such that|\bwith\b|\bwhere\b|\bgiven\b|\bcondition|\bmod",
    re.IGNORECASE,
)


def affirmed(
    members: tuple[str, ...], ops: tuple[str, ...], after: str, domain_ops: tuple[str, ...] | None,
    defs: dict, tail: str = "", known: list | None = None,
) -> ClaimResult | None:  # fmt: skip
    """The equation's last link judged as the identity the words after it claim (None: the
    words claim none, or we cannot say). `domain_ops`: the relation signs of the math written
    right after the words (`x, y > 0`), None when there is none or it holds no relation.
    An inequality is judged as an order claimed on the kind of value the words name
    (`affirmed_orders`); `tail`, the text after the relation as written, math included (the
    letters the domain names, and anything that narrows it), and `known`, the equations the
    problem and the chain wrote, are for it."""
    found = _FOR_ALL.match(after)
    if found is None:
        return None
    sentence = first_sentence(after)
    cut = not re.search(r"[.!?]$", sentence)  # the words stop at math: read it as written
    whole = first_sentence(tail) if cut else sentence
    if ops[-1] in INEQUALITIES:
        if _RESTRICTED.search(whole):
            return None
        return affirmed_order(members[-2], ops[-1], members[-1], whole, known or [], defs)
    if ops[-1] != "=" or _RESTRICTED.search(sentence):
        return None
    if cut and not (domain_ops and set(domain_ops) <= {"<", ">", "<=", ">="}):
        # Read whole, the sentence may only name the letters ("for any real numbers $a$ and
        # $b$."); anything else may be a domain we cannot see.
        if _RESTRICTED.search(whole) or not names_only(whole):
            return None
    left, right = members[-2], members[-1]
    if lone(left) or lone(right) or not (admissible(left) and admissible(right)):
        return None
    a, b = readings(left, defs), readings(right, defs)
    if len(a) != 1 or len(b) != 1:
        return None
    a, b = a[0], b[0]
    if not a.free_symbols or a.free_symbols != b.free_symbols:
        return None
    if not (a.is_rational_function() and b.is_rational_function()):
        return None
    verdict, _, witness = compare_identity(a, b)
    if verdict != "false" or witness is None:
        return None
    subs, x, y = witness
    why = f"said to hold for all values, but at {point(subs)} the sides are {fmt(x)} and {fmt(y)}"
    return ClaimResult("false", f"{left} = {right}", reason=why)
