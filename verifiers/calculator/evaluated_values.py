"""Values read off an equation at a given value: "Since $x = 4$, $y = 10$" after `y = 2x + 1`.

A step that gives one letter a value and states what another one is then ("The line is $y =
2x + 1$. When $x = 4$, $y = 10$.") claims the pair satisfies the equation the two letters were
last written in: with x = 4 put in, `y = 2x + 1` leaves y = 9, not 10. Read only where:

- the given value follows a word that gives it ("since", "given", "when", "at", "if", "for",
  "with", "substituting", "plugging", ...), or "and" after such a value or equation ("Since
  $y = 2x + 1$ and $x = 4$"); the value claimed follows it with nothing but words that draw it
  ("then", "we get", "so", "gives"); a comma alone draws it only after a word that states a
  fact or a point ("since", "given", "when", "at"): after "if" or "with", "$a = 1$, $b = 2$"
  lists values tried;
- both are plain numbers (no decimals, which may be rounded) of two different lone letters,
  no other value joins the one claimed ("$y = 9$ and $z = 3$": a list), and no word sets it
  aside ("which is impossible");
- the equation is the last relation written before the given value that names the claimed
  letter, in the same step with nothing between them but earlier such pairs and the words
  that give and draw them (not "Now consider $z = 1$"), or, for a step that opens with the
  given value, the relation the step before ended on (or its last equation, or its last
  unknown given an expression); it is one equation in exactly those two letters, with no
  trig (its unknown may be degrees), polynomial in the claimed letter once the value is put in;
- with the value put in it has a real root, and the value claimed is none of its roots, nor
  does any other equation the problem or the chain wrote in those letters alone allow the pair
  (a second curve through the point).
"""

from __future__ import annotations

import re

from verifiers.calculator.claim_words import (
    NOT_CLAIMED,
    last_sentence,
    lone,
    name_of,
    set_aside,
    word_set,
    writes,
)
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import DECIMAL, plain_number, trig_atoms
from verifiers.calculator.solutions import difference, roots_text
from verifiers.calculator.symbolic import roots_of, same_value

__all__ = ["evaluated_values", "letters_given"]

_KEPT = 20  # letters given expressions, the latest, carried from step to step

# The word right before a given value that gives it.
_GIVEN = re.compile(
    r"\b(since|given|from|have|know|when|whenever|at|if|for|with|substituting|plugging(?:\s+in)?|putting"
    r"|setting|taking|using)\W*$"
)
# Given words that state a fact or a point: a comma alone draws the value after it.
_STATED = frozenset("since given from when whenever at".split())
# The only words that may draw the claimed value from the given one.
_DRAWS = frozenset(
    "then so we get have gives giving yields thus find obtain hence therefore it follows that"
    " this".split()
)
# Words that may stand between the equation and the given value, or earlier pairs.
_BETWEEN = (
    _DRAWS | {"and", "know", "is", "the", "line", "equation", "curve", "since", "given", "from"}
    | {"when"}
    | {"whenever", "at", "if", "for", "with", "substituting", "plugging", "in", "putting"}
    | {"setting", "taking", "using"}
)


def evaluated_values(clauses: list, defs: dict, known: list, before: tuple) -> list:
    """(outcome, members to confirm) for each value claimed at a given value that the equation
    the two letters were last written in does not give (see the module docstring). `known`:
    the equations the problem and the chain wrote before this step; `before`: the step
    before's last relation, last condition and last unknown given an expression, each as
    (members, ops), members () where there is none."""
    out = []
    for k in range(len(clauses) - 1):
        pair = _pair(clauses, k, defs)
        if pair is None:
            continue
        (given, a), (claimed, b, b_text) = pair
        source = _source(clauses, k, (given, claimed), before)
        if source is None:
            continue
        left, right = source
        e = difference(left, right, defs)
        if e is None or trig_atoms(e) or DECIMAL.search(left + right):
            continue
        names = {str(s): s for s in e.free_symbols}
        if set(names) != {given, claimed}:
            continue
        x, y = names[given], names[claimed]
        at = e.subs(x, a)
        roots = roots_of(at, y)
        if not roots or not any(r.is_real for r in roots):
            continue  # no value, or none real: the given value is outside the equation's reach
        if any(same_value(b, r) for r in roots):
            continue
        if _allowed(known, clauses[:k], (x, a), (y, b), defs):
            continue
        why = f"with {given} = {clauses[k][0][1]}, `{left} = {right}` gives another value"
        found = ClaimResult("false", f"{claimed} = {b_text}", b_text, roots_text(y, roots), why)
        out.append((found, (left, right, clauses[k][0][1], b_text)))
    return out


def _pair(clauses: list, k: int, defs: dict):
    """((given letter, value), (claimed letter, value, text)) when clause k gives a value and
    clause k + 1 claims one drawn from it (None otherwise)."""
    (g_members, g_ops, g_before, *_), (c_members, c_ops, c_before, c_after, *_) = clauses[k : k + 2]
    if list(g_ops) != ["="] or list(c_ops) != ["="] or len(g_members) != 2 or len(c_members) != 2:
        return None
    if not (lone(g_members[0]) and lone(c_members[0])):
        return None
    given, claimed = name_of(g_members[0]), name_of(c_members[0])
    if given == claimed:
        return None
    lead = _lead(clauses, k)
    if lead is None or word_set(last_sentence(g_before)) & (NOT_CLAIMED - {"if", "when"}):
        return None
    drawn = word_set(c_before)
    if not drawn <= _DRAWS or not (drawn or lead in _STATED) or re.search(r"[.;:!?]", c_before):
        return None
    if set_aside(c_before, c_after):
        return None
    if k + 2 < len(clauses):
        n_members, _, n_before, *_ = clauses[k + 2]
        joined = word_set(n_before) <= {"and"} and not re.search(r"[.;]", n_before)
        if joined and lone(n_members[0]):
            return None  # "then $y = 9$ and $z = 3$", "$b = 2$, and $c = 1$": a list
    a, b = plain_number(g_members[1], defs), plain_number(c_members[1], defs)
    if a is None or b is None:
        return None
    return (given, a), (claimed, b, c_members[1].strip())


def _lead(clauses: list, k: int) -> str | None:
    """The word that gives clause k's value ("since", "when"), or the one before an earlier
    value or equation it is joined to by "and" (None: no such word)."""
    before = clauses[k][2].lower()
    if m := _GIVEN.search(before):
        return m.group(1).split()[0]
    if k and word_set(before) == {"and"} and not re.search(r"[.;:]", before):
        if m := _GIVEN.search(clauses[k - 1][2].lower()):
            return m.group(1).split()[0]
    return None


def _mentions(members, name: str) -> bool:
    return any(writes(m.replace("_{", "_").replace("}", ""), name) for m in members)


def _source(clauses: list, k: int, names: tuple[str, str], before: list):
    """The equation the claimed letter was last written in before clause k (see the module
    docstring), as (left, right), or None. `names`: the given letter and the claimed one;
    `before`: the step before's relations, last first, as (members, ops)."""
    given, claimed = names
    for j in range(k - 1, -1, -1):
        members, ops = clauses[j][:2]
        if not word_set(clauses[j + 1][2]) <= _BETWEEN:
            return None  # other words between: another setting, perhaps
        if _value(members, ops) and name_of(members[0]) in names:
            continue  # an earlier pair of the two letters
        if not _mentions(members, claimed):
            return None  # another relation between
        return _equation(members, ops)
    if not word_set(clauses[0][2]) <= _BETWEEN:
        return None
    for members, ops in before:
        if members and _mentions(members, claimed):
            return _equation(members, ops)
    return None


def _equation(members, ops) -> tuple[str, str] | None:
    if list(ops) != ["="] or len(members) != 2 or _value(members, ops):
        return None
    return members[0], members[1]


def _value(members, ops) -> bool:
    """A lone letter given a number: an earlier pair's member."""
    return list(ops) == ["="] and len(members) == 2 and lone(members[0]) and not re.search(
        r"[A-Za-z]", members[1]
    )


def _allowed(known: list, earlier: list, given: tuple, claimed: tuple, defs: dict) -> bool:
    """Whether another equation in the two letters alone, written before, holds the pair."""
    import sympy

    (x, a), (y, b) = given, claimed
    equations = list(known) + [
        (c[0][0], c[0][1]) for c in earlier if list(c[1]) == ["="] and len(c[0]) == 2
    ]
    for left, right in equations:
        e = difference(left, right, defs)
        if e is None or not e.has(y) or e.free_symbols - {x, y}:
            continue
        if same_value(e.subs({x: a, y: b}), sympy.S.Zero):
            return True
    return False


def letters_given(clauses: list, written: tuple) -> tuple:
    """The letters the chain gave expressions (`y = 2x + 1`, `y = x^2`), the step's added to
    those `written` before, as (left, right): the chain's known conditions leave them out
    (an assignment is no condition), yet a second curve through a point spares its pair."""
    found = [
        (members[0], members[1])
        for members, ops, *_ in clauses
        if list(ops) == ["="] and len(members) == 2 and lone(members[0])
        and re.search(r"[A-Za-z]", members[1])
    ]  # fmt: skip
    return (*written, *found)[-_KEPT:]
