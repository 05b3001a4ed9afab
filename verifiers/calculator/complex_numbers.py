"""Arithmetic with the imaginary unit: `(5 - 8i)(30 + 48i) = 150 + 384 + 240i - 240i`.

Elsewhere `i` is a letter whose meaning is not ours to guess (an index, a count), and every
member that holds it is unread. In a step about complex numbers it is the unit with i^2 = -1:
the step or the problem names complex or imaginary numbers, or the problem's math writes i
beside a number (`a = 5 - 8i`, `(1 + i)^4`), and the step never uses i as an index or gives
it a value (`a_i`, `\\sum_{i=1}`, `i = 1`). There a link between two members that hold no
other letter is judged: each side must read as a number a + bi (a, b real, written with
rationals and roots), and the two must be the same number; a root of a negative number is its
principal value (`\\sqrt{-4} = 2i`). Nothing else is read (a modulus, a root or a function of
anything that holds i, an odd root of a negative number, which elsewhere is the real root and
here may be any of its branches, letters beside i, an inequality: complex numbers have no
order).
"""

from __future__ import annotations

import re

from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import readings
from verifiers.calculator.relations import admissible
from verifiers.calculator.symbolic import fmt

# The letter i alone: not in a command (`\sin`), a word or a name (`x_i`).
_UNIT = re.compile(r"(?<![\\A-Za-z_])i(?![A-Za-z])")
# i as an index, a value or a function: `a_i`, `a_{n-i}`, `\sum_{i=1}`, `i = 1`, `i \in`,
# `i(p)` (not `-4zi - i = 0`, `3i(5 - i)`, `i(i)`).
_INDEX = re.compile(
    r"_\s*\{?\s*i\b|_\s*\{[^{}]*(?<![\\A-Za-z])i(?![A-Za-z])[^{}]*\}"
    r"|(?:^|(?<=[\s$(,{]))i\s*(?:=(?!\s*\\sqrt\s*\{\s*-\s*1\s*\})|\\in\b|\\le|<|>"
    r"|(?:\(|\\left\s*\()\s*[a-hj-zA-Z]\s*(?:\)|\\right\s*\)))"
)
_NAMED = re.compile(r"\b(?:complex|imaginary)\b", re.IGNORECASE)
# i beside a number in the problem's math, spaces removed: `a=5-8i`, `(1+i)^4`, `w=i`.
_GAUSSIAN = re.compile(r"(?:\d|[-+=(])i(?![A-Za-z])")


# What `ChainAlgebra` adds to the problem's relations when the problem is about complex
# numbers (it names them, or its math writes i beside a number: `(1 + i)^4`).
UNIT_GIVEN = "i^2=-1"


def complex_problem(question: str, math: list[str]) -> bool:
    """Whether a problem is about complex numbers. `math`: its math regions' texts (one that
    uses i as an index or gives it a value says it is not)."""
    if any(_INDEX.search(body) for body in math):
        return False
    compact = [re.sub(r"\s+", "", body) for body in math]
    return bool(_NAMED.search(question)) or any(_GAUSSIAN.search(body) for body in compact)


def complex_context(clauses: list[tuple], given: frozenset[str]) -> bool:
    """Whether the step reads i as the imaginary unit (see the module docstring). `clauses`:
    the step's (members, ops, words before, words after, ...); `given`: the problem's."""
    words = " ".join(f"{c[2]} {c[3]}" for c in clauses)
    relations = [c[:2] for c in clauses]
    for members, ops in relations:
        lone = [m.strip() == "i" for m in members]
        if lone[0] or (any(lone) and set(ops) != {"="}):
            return False  # `i = 1`, `1 \le i \le n`: a value, an index
    members = [m for found, _ in relations for m in found]
    if any(_INDEX.search(m) for m in members) or _INDEX.search(words):
        return False
    if not any(_UNIT.search(m) for m in members):
        return False
    return bool(_NAMED.search(words)) or UNIT_GIVEN in given


def complex_link(left: str, op: str, right: str) -> ClaimResult | None:
    """The link judged with i^2 = -1 (None: not a link between numbers a + bi, a and b real
    numbers written with rationals and roots)."""
    import sympy

    if op != "=" or not (_UNIT.search(left) or _UNIT.search(right)):
        return None
    values = []
    for member in (left, right):
        # `j` stands in for i while the member is vetted and read: the readers refuse i.
        stand_in = _UNIT.sub("j", member)
        if "j" in member or not admissible(stand_in):
            return None
        found = readings(stand_in, real_roots=False)  # `\\sqrt[3]{-1}`: a branch here
        if len(found) != 1 or found[0].free_symbols - {sympy.Symbol("j")}:
            return None
        if _branches(found[0], sympy.Symbol("j")):
            return None
        value = sympy.expand(found[0].xreplace({sympy.Symbol("j"): sympy.I}))
        if not value.is_number:
            return None
        values.append(value.as_real_imag())
    text = f"{left} = {right}"
    gaps = [sympy.expand(a - b) for a, b in zip(values[0], values[1], strict=True)]
    if all(gap == 0 for gap in gaps):
        return ClaimResult("holds", text)
    # Radicals may leave a zero unsimplified: only a gap far above the digits used is one.
    scale = max([1.0, *(abs(float(sympy.N(x, 30))) for pair in values for x in pair)])
    if all(abs(float(sympy.N(gap, 30))) <= scale * 1e-20 for gap in gaps):
        return ClaimResult("holds", text)
    shown = [_written(real, imaginary) for real, imaginary in values]
    return ClaimResult("false", text, shown[1], shown[0], "with i^2 = -1 the two sides differ")


def _branches(expr, unit) -> bool:
    """Whether reading `unit` as i would pick a branch: a root or a fractional power of
    anything that holds i or is not positive once read (`\\sqrt{1 + i}`; sympy has already
    written `\\sqrt{-4}` as 2i), or a function of i (`\\log(1 + i)`)."""
    import sympy

    for power in expr.atoms(sympy.Pow):
        if not power.exp.is_Integer and (power.base.has(unit) or not power.base.is_positive):
            return True
    return any(f.has(unit) for f in expr.atoms(sympy.Function))


def _written(real, imaginary) -> str:
    """`a + bi` as a text would write it: `534`, `-i`, `3 - 4i`, `-542 + 744.602i`."""
    import sympy

    if imaginary == 0:
        return _number(real)
    negative = float(sympy.N(imaginary)) < 0
    size = _number(-imaginary if negative else imaginary)
    unit = "i" if size == "1" else f"{size}i"
    if real == 0:
        return f"-{unit}" if negative else unit
    return f"{_number(real)} {'-' if negative else '+'} {unit}"


def _number(value) -> str:
    return str(value) if value.is_Rational else fmt(value)
