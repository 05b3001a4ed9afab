"""Rewrites stated in words between two expressions, spelled as the equation they claim.

"$\\sqrt{18}$ simplifies to $3\\sqrt{2}$", "Expanding $(x+2)^2$ gives $x^2 + 4x + 4$", "We
can factor $x^2 - 6x + 9$ as $(x - 3)^2$": each says the two expressions are equal, as `=`
would, yet no relation is written, so neither the numbers' checks nor the symbolic ones read
it. `linked` writes the pair as one relation, the words first ("Expanding gives $(x+2)^2 =
x^2 + 4x + 4$"), so that both read it as they read a relation after words that name a rewrite
(the identity checks, with their rules for what is claimed and what is an equation set up).

Only words that say the first expression is rewritten as the second, alone between them (or
a verb of rewriting before the first and "gives", "to get", "as" between): "simplifies to",
"reduces to", "expands to", "factors as", "can be written as", "is equivalent to". Not
"becomes", "is" or "equals" (a value put in, a quantity named), nor words of approximation
("simplifies to about"). Both must be expressions, no relation or list in either (the
equation a step simplifies is another matter), each in `$...$` or `\\(...\\)`.
"""

from __future__ import annotations

import re

from verifiers.calculator.relations import math_regions

__all__ = ["linked"]

_BARE_VERB = re.compile(
    r"\s*,?\s*(?:(?:simplif(?:y|ies)|reduces?|expands?|factors?|factori[sz]es?|rewrites?)"
    r"\s+(?:to|as|into)"
    r"|can\s+be\s+(?:re)?(?:written|simplified|factored|factori[sz]ed|expanded|reduced)"
    r"\s+(?:to|as|into)"
    r"|is\s+equivalent\s+to|is\s+the\s+same\s+as)\s*:?\s*",
    re.IGNORECASE,
)
# A verb of rewriting right before the first expression, then a word that gives the second.
_LEAD_VERB = re.compile(
    r"\b(?:expand(?:ing)?|simplify(?:ing)?|factor(?:ing)?|factori[sz](?:e|ing)|rewrit(?:e|ing)"
    r"|multiply(?:ing)?\s+out|reduc(?:e|ing))\s+(?:the\s+expression\s+)?$",
    re.IGNORECASE,
)
_GIVES = re.compile(
    r"\s*,?\s*(?:gives|yields|we\s+get|to\s+get|to\s+obtain|results\s+in|as|into|to)\s*:?\s*",
    re.IGNORECASE,
)
# "The derivative of $A$ is $B$", "Differentiating $A$, we get $B$": `B` is `A` differentiated
# with respect to its one letter, written as the Leibniz form the identity checks read.
_DERIVATIVE_OF = re.compile(r"\b(?:the\s+)?derivative\s+of\s+$", re.IGNORECASE)
_IS = re.compile(r"\s*(?:is|equals)\s*:?\s*", re.IGNORECASE)
_DIFFERENTIATING = re.compile(r"\bdifferentiating\s+$", re.IGNORECASE)
_LETTER = re.compile(r"(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])")
# A relation, a list, or words inside either expression: not one expression rewritten.
_NOT_ONE = re.compile(r"=|<|>|\\(?:le|ge|leq|geq|neq|ne|approx|in|to)\b|,|\\text|\\quad|;")


def linked(text: str) -> str:
    """`text` with each rewrite stated in words written as one relation (see the module)."""
    if "$" not in text and "\\(" not in text:
        return text
    regions = math_regions(text)
    out, at = [], 0
    for (s1, e1, a), (s2, e2, b) in zip(regions, regions[1:], strict=False):
        if s1 < at or _NOT_ONE.search(a) or _NOT_ONE.search(b) or not (a.strip() and b.strip()):
            continue
        between, lead = text[e1:s2], text[at:s1]
        if _DERIVATIVE_OF.search(lead) and _IS.fullmatch(between) or (
            _DIFFERENTIATING.search(lead) and _GIVES.fullmatch(between)
        ):
            letters = set(_LETTER.findall(a))
            if len(letters) != 1 or not letters <= set(_LETTER.findall(b)):
                continue  # a constant's derivative, or a value at a point: not an identity
            a = f"\\frac{{d}}{{d{letters.pop()}}}\\left({a.strip()}\\right)"
        elif not (
            _BARE_VERB.fullmatch(between) or _LEAD_VERB.search(lead) and _GIVES.fullmatch(between)
        ):
            continue
        out.append(f"{lead}{between.strip(' ,:')} ${a.strip()} = {b.strip()}$")
        at = e2
    return "".join(out) + text[at:]
