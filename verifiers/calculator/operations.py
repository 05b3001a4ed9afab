"""Operations the text says it applies to every member of the relation before it.

"Multiply both sides by 20 to eliminate fractions: 3(v + c) = 10c", after
`(v + c) \\times \\frac{3}{10} = c \\times \\frac{1}{2}`: the words name what turns the last
relation into this one, so each member is the one before it with that done to it (here the
right one is, 10c, and the left one is not: 6(v + c)). Read only where the words leave no
doubt: one operation (multiply or divide by, add to, subtract from, square), applied to
"both sides", "each side", "all parts" or "through", with an operand that is a number or a
piece of math written alone; the two relations with as many members and the same signs (an
inequality turned round by a negative factor too). A False needs one member right and one
wrong, or every member off from the right one by a number (its unknowns carried right, its
constant slipped), the wrong one not made right by what the problem and the chain wrote about
its unknowns, and (between two members) the new relation not the right one rearranged; so the
words "and rearrange" or a factor cancelled as well never make a slip of a right step.
"""

from __future__ import annotations

import re

from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.ideals import follows
from verifiers.calculator.known import known_polynomials
from verifiers.calculator.readers import DECIMAL, readings
from verifiers.calculator.relations import TURNED, admissible, math_regions, written
from verifiers.calculator.symbolic import compare_identity, same_value

__all__ = ["operated"]

# What the operation is applied to: every member at once, never one equation of several.
_EVERY = (
    r"(?:(?:both|each|all)\s+(?:the\s+)?(?:three\s+)?(?:sides?|parts|members)|through"
    r"|every\s+(?:part|side|member))"
    r"(?:\s+of\s+(?:the|this)\s+(?:equation|inequality|inequalities))?"
)
_OPERAND = r"(?P<operand>-?\s*\d+(?:/\d+)?|@\d+@)"
_OPERATIONS = (
    ("multiply", re.compile(rf"\bmultipl(?:y|ying|ied)\s+{_EVERY}\s+by\s+{_OPERAND}")),
    ("divide", re.compile(rf"\bdivid(?:e|ing|ed)\s+{_EVERY}\s+by\s+{_OPERAND}")),
    ("add", re.compile(rf"\badd(?:ing)?\s+{_OPERAND}\s+to\s+{_EVERY}")),
    ("subtract", re.compile(rf"\bsubtract(?:ing)?\s+{_OPERAND}\s+from\s+{_EVERY}")),
    ("square", re.compile(rf"\bsquar(?:e|ing)\s+{_EVERY}")),
)
_VERBS = re.compile(r"(?i)multipl|divid|\badd|subtract|squar")
# Any other operation named beside it ("add K to both sides and add 19 ...", "... and
# simplify"): then the new relation is more than this one operation's work.
_OTHER = re.compile(
    r"\b(?:multipl|divid|add|subtract|squar|simplif|rearrang|cancel|expand|factor|collect"
    r"|combin|substitut|mov|isolat|take|taking|plug)"
)


# The words before a relation that name an operation on it: "Squaring both sides of", "of
# the equation", with the relation right after them.
_OF_IT = re.compile(r"\bof(?:\s+(?:the|this)\s+(?:equation|inequality))?\s*$", re.IGNORECASE)


def operated(
    lead: str, old: tuple, new: tuple, defs: dict, known: list, old_lead: str = ""
) -> ClaimResult | None:
    """The verdict on `new` (members, ops) drawn from `old` by the operation `lead` names, or
    None when the words name none or nothing can be said (see the module docstring). The
    operation may be named before `old` instead, in the same sentence ("Squaring both sides
    of $A = B$ gives $C = D$", "Multiplying both sides of $A = B$ by $3$, we get"): `old_lead`
    holds the words before `old`."""
    found = _operation(lead, defs)
    if found is None and (of_it := _OF_IT.search(old_lead)):
        found = _operation(f"{old_lead[: of_it.start()]} of the equation {lead}", defs)
    if found is None:
        return None
    name, operand = found
    (old_members, old_ops), (members, ops) = old, new
    if len(old_members) != len(members) or any(not admissible(m) for m in (*old_members, *members)):
        return None
    if DECIMAL.search("".join((*old_members, *members))):
        return None  # a rounded member may be rounded again
    if name == "square" and set(ops) != {"="}:
        return None  # squaring an inequality needs signs the text does not give
    flips = name in ("multiply", "divide") and operand.is_number and operand.is_negative
    if tuple(TURNED[o] if flips else o for o in old_ops) != tuple(ops):
        return None
    pairs = []
    for before, after in zip(old_members, members, strict=True):
        a, b = readings(before, defs), readings(after, defs)
        if len(a) != 1 or len(b) != 1:
            return None
        pairs.append((before, after, a[0], b[0]))
    olds = [p[2] for p in pairs]
    news = set().union(*(p[3].free_symbols for p in pairs))
    if not news <= set().union(*(e.free_symbols for e in olds), _symbols(operand)):
        return None  # a letter of its own: another relation, or a typo (`n` for `N`)
    if all(_agrees(x, y) for x, y in zip(olds, olds[1:], strict=False)):
        return None  # an identity, or numbers: no condition to operate on (a relation the
        # reader missed may stand between)
    judged = []  # (member before, member after, what the operation gives, what is written)
    for before, after, old_value, value in pairs:
        expected = _apply(name, old_value, operand)
        verdict = None if expected is None else _agrees(expected, value)
        if verdict is None:
            return None
        judged.append((before, after, expected, value, verdict))
    text = written(members, ops)
    wrong = [j[:4] for j in judged if not j[4]]
    if not wrong:
        return ClaimResult("holds", text)
    if len(wrong) == len(judged) and not (
        all(_constant_off(j[2], j[3]) for j in wrong) and any(j[2].free_symbols for j in wrong)
    ):
        # Nothing of it is that operation's work (it may be another step), unless every
        # member carries its unknowns right and only its constant slipped.
        return None
    if len(members) == 2 and _rearranged(judged, ops):
        return None
    before, after, expected, value = wrong[0]
    if expected.free_symbols and follows(
        expected - value, known_polynomials(known, defs, expected, value)
    ):
        return None
    return ClaimResult(
        "false", text, reason=f"{_said(name, operand)} turns `{before}` into "
        f"{_shown(expected)}, not `{after}`",
    )  # fmt: skip


def _operation(lead: str, defs: dict):
    """(operation, sympy operand) named in the last sentence of `lead`, or None."""
    if not _VERBS.search(lead[lead.rfind(". ") + 1 :]):
        return None  # asked of every clause: most name no operation in their last sentence
    # Math written alone stands in as a token (`@0@`); its text is read as the operand.
    pieces = math_regions(lead)
    plain, last = [], 0
    for i, (start, end, _body) in enumerate(pieces):
        plain.append(lead[last:start] + f" @{i}@ ")
        last = end
    plain.append(lead[last:])
    text = "".join(plain)
    sentence = re.split(r"[.!?](?:\s|$)", text.strip().rstrip(".!? "))[-1].lower()
    matches = [(name, m) for name, pattern in _OPERATIONS for m in pattern.finditer(sentence)]
    if len(matches) != 1 or len(_OTHER.findall(sentence)) != 1:
        return None
    name, match = matches[0]
    if name == "square":
        return name, None
    token = match.group("operand").replace(" ", "")
    if token.startswith("@"):
        body = pieces[int(token.strip("@"))][2]
        if not admissible(body):
            return None
    else:
        body = token
    value = readings(body, defs)
    if len(value) != 1 or value[0] == 0:
        return None
    return name, value[0]


def _symbols(operand) -> set:
    return set() if operand is None else operand.free_symbols


def _apply(name: str, value, operand):
    import sympy

    try:
        if name == "multiply":
            return value * operand
        if name == "divide":
            return value / operand
        if name == "add":
            return value + operand
        if name == "subtract":
            return value - operand
        return sympy.expand(value**2)
    except (TypeError, ValueError, ZeroDivisionError):
        return None


def _agrees(expected, written) -> bool | None:
    """Whether the written member is the expected one (None: cannot say)."""
    if not expected.free_symbols and not written.free_symbols:
        return same_value(expected, written)
    verdict = compare_identity(expected, written)[0]
    if verdict == "holds":
        return True
    return False if verdict == "false" else None


def _constant_off(expected, written) -> bool:
    """Whether a member differs from what was expected by a nonzero number."""
    import sympy

    gap = sympy.simplify(written - expected)
    return gap.is_number and gap != 0


def _rearranged(pairs: list, ops: tuple) -> bool:
    """Whether the new relation between two members is the expected one with its terms moved
    or both sides scaled alike (a positive factor, or any for an equation)."""
    import sympy

    (_, _, e_left, w_left, _), (_, _, e_right, w_right, _) = pairs
    try:
        ratio = sympy.cancel((w_left - w_right) / (e_left - e_right))
    except (TypeError, ZeroDivisionError):
        return False
    if not ratio.is_number or ratio == 0:
        return False
    return ops == ("=",) or bool(ratio > 0)


def _said(name: str, operand) -> str:
    if name == "square":
        return "squaring"
    verb = {"multiply": "multiplying by", "divide": "dividing by", "add": "adding",
            "subtract": "subtracting"}[name]  # fmt: skip
    return f"{verb} {_shown(operand)}"


def _shown(value) -> str:
    """A value as evidence writes it, in the text's notation (`x^2 - 6x + 9`, not sympy's
    `x**2 - 6*x + 9`)."""
    import sympy

    text = sympy.sstr(sympy.nsimplify(value) if value.is_number else value)
    text = re.sub(r"(?<=[\w)])\*(?=[A-Za-z(])", "", text.replace("**", "^"))
    return text.replace("*", " \\cdot ")  # between two numbers
