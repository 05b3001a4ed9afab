"""Substitutions: an equation written as another one with values or expressions put in.

"Substituting \\(d = 20 - a\\), we get: \\[ \\frac{20}{a - 2} = \\frac{23 - a}{20 - a} \\]" after
`\\frac{a + d}{a - 2} = \\frac{a + 2d + 3}{a + d}` claims the new equation is the old one with
d replaced by 20 - a (here the right side is (43 - a)/20). Read only where the words before the
assignments substitute ("substituting", "plugging", "setting", "putting", "replacing"),
several assignments are joined by a bare "and", what they replace is an unknown, a function of
one or a power of either, and the words between the last one and the equation only connect
("we get", "into this equation gives us:"), never another operation ("and subtracting"). The
equation must no longer hold what was replaced. The values go into the last relation written
before them that holds what they replace, when that is an equation and not a name given a
value (`y = a(x - 3)^2 + 5`, then a point put in: the point's equation), or the one the words
name right after them ("Substituting $y = 2x$ into $x + y = 9$ gives ..."); with none, only a
functional equation of the problem (`applications`); the equation named after the values
must then hold every unknown they do not replace (one gone may have been put in from another
equation). A slip only when that
equation, and every other known condition that holds what is replaced (none when the
sentence goes on from that equation to the values: "Using the identity ..., substitute ..."),
give something else with the values put in: other roots in one unknown (fewer is a root
discarded on the way, not judged), a point that satisfies the substituted equation and fails
the new one in several (`derivations.polynomial_derivation`); sines and cosines of unknowns
count as unknowns of their own within [-1, 1], never a sine and a cosine of one unknown (they
are bound). A value given right after that equation (`valued`: "Plugging $a = 3$ into $a^2 +
b = 12$ gives $b = 4$") is read as the equation it is (`b = 4`), the same way. A decimal put
in may be rounded (`x = 1.41`, then `2 + y = 5`): nothing is judged then.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from verifiers.calculator.applications import applied_difference, misapplied
from verifiers.calculator.claim_words import last_sentence, lone, word_set
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.derivations import polynomial_derivation, unfollowed
from verifiers.calculator.readers import DECIMAL, readings
from verifiers.calculator.solutions import Condition, difference, roots_text
from verifiers.calculator.symbolic import roots_of

# What may be replaced: an unknown, or a function of one, or a power of either (`\\sin^2 y`).
_REPLACEABLE = re.compile(
    r"^(?:\\[a-z]+(?:\^\{?\d\}?)?\s*\(?\s*)?[A-Za-z](?:_\{?\w+\}?)?\s*\)?(?:\^\{?\d\}?)?$"
)
# Words that put values in; "let" alone names a new unknown instead.
_SUBSTITUTES = re.compile(r"substitut|plug|\bsett?ing\b|\bputt?ing\b|\breplac")
# The words between the values and the equation they are put into, named after them.
_INTO = re.compile(
    r"^\s*(?:in|into)\b(?:\s+(?:the|our|this))?(?:\s+(?:first|second|original|given|last))?"
    r"(?:\s+equation)?\s*,?\s*$",
    re.IGNORECASE,
)
# The only words that may stand between the last assignment and the equation it gives.
_CONNECTS = frozenset(
    "into in this the that equation expression above last it we get gives give us obtain have"
    " yields find then to simplify our calculations calculation result results given original"
    " initial functional".split()
)


@dataclass(frozen=True)
class Substitution:
    values: tuple[tuple[str, str], ...]  # (what is replaced, what is put in), in order
    clause: int  # the clause of the last assignment
    source: tuple[str, str] | None  # the equation they are put into (None: the problem's)
    # The sentence goes on from the equation to the values with a comma ("Using the identity
    # \\(\\sin^2 x + \\cos^2 x = 1\\), substitute ..."): no other equation is the one meant.
    named: bool = False
    # The equation is named right after the values ("into $x + y = 9$"): its new form may
    # hold no unknown the values do not replace (one gone may come from another equation).
    into: bool = False


def substituting(
    pending: Substitution | None, clause: tuple, before: str, k: int, earlier: tuple
) -> Substitution | None:
    """The substitution an assignment clause opens or goes on with (None: it is none).
    `earlier`: the step before's last relation ((members, ops) or ()) and this step's clauses
    (the `k` before it are the relations written before it, the last one last): the last
    that holds what is replaced is the equation it is put into, when that is an equation
    (not a name given a value: `y = a(x - 3)^2 + 5` with a point put in makes an equation
    of the point, not of this one); where none holds it, the problem's (`substituted`)."""
    members, ops = clause
    if pending is not None and pending.clause == k - 1 and _INTO.match(before) and ops == ("=",):
        # "Substituting $y = 2x$ into $x + y = 9$ gives ...": the equation named after the
        # values is the one they go into, whatever was written before them.
        if len(members) == 2 and any(_holds(m, pending.values[-1][0]) for m in members):
            return Substitution(pending.values, k, (members[0], members[1]), True, True)
        return None
    if ops != ("=",) or not _REPLACEABLE.match(members[0].strip()):
        return None
    value = (members[0].strip(), members[1])
    if pending is not None and pending.clause == k - 1 and word_set(before) <= {"and"}:
        if pending.into:
            return None  # after "into $x + 2y = 11$:", a value is what the equation gave
        if pending.source is None or any(_holds(m, value[0]) for m in pending.source):
            return Substitution((*pending.values, value), k, pending.source)
        return None
    said = last_sentence(before.strip()).lower()
    if not _SUBSTITUTES.search(said):
        return None
    last_relation, clauses = earlier
    written = ([last_relation] if last_relation else []) + [c[:2] for c in clauses[:k]]
    for back, (relation, ops) in enumerate(reversed(written)):
        if any(_holds(member, value[0]) for member in relation):
            if len(relation) != 2 or ops != ("=",) or lone(relation[0]):
                return None
            # The sentence goes on from the equation to the values: "X, substitute Y".
            named = back == 0 and k > 0 and before.strip().startswith(",")
            named = named and not re.search(r"[.!?:]\s", before)
            return Substitution((value,), k, (relation[0], relation[1]), named)
    return Substitution((value,), k, None)


def substituted(
    pending: Substitution, here: Condition, before: str, known: list, defs: dict
) -> tuple[ClaimResult, tuple[str, ...]] | None:
    """A False, with the members it reads, when the equation the values are put into, and
    every other known condition that holds what they replace, give something else than
    `here` (see the module docstring); None when there is nothing to say."""
    import sympy

    if pending.clause != here.clause - 1 or not word_set(before) <= _CONNECTS:
        return None
    values = {}
    for name, value in pending.values:
        if DECIMAL.search(value):
            return None  # `x = 1.41` put in, then `2 + y = 5`: a rounded value rounds on
        replaced, read = readings(name, defs), readings(value, defs)
        if len(replaced) != 1 or len(read) != 1 or not _replaceable(replaced[0]):
            return None
        values[replaced[0]] = read[0]
    # A functional equation: its applications are kept, and only one put in wrongly is read.
    read = difference
    if (e2 := difference(here.left, here.right, defs)) is None:
        read, e2 = applied_difference, applied_difference(here.left, here.right, defs)
    if e2 is None or not e2.free_symbols or any(e2.has(r) for r in values):
        return None
    if pending.source is None and read is difference:
        return None  # put into what? Only a functional equation names the problem's
    sources = [pending.source] if pending.source else []
    text, found = f"{here.left} = {here.right}", None
    others = [] if pending.named else [k for k in known if k != pending.source]
    for left, right in sources + others:
        e1 = read(left, right, defs)
        if e1 is None or not all(e1.has(r) for r in values):
            continue
        put = e1.subs(values, simultaneous=True)
        put = put if read is applied_difference else sympy.together(put)
        if put == 0 or not e2.free_symbols <= put.free_symbols:
            continue
        if read is applied_difference and e2.free_symbols != put.free_symbols:
            continue  # other values put in too, or another equation used: not this one alone
        if pending.into and put.free_symbols - e2.free_symbols:
            continue  # an unknown gone besides those named: put in from elsewhere as well
        source = f"`{left} = {right}` with {_said(pending)}"
        if read is applied_difference:
            verdict = _misapplied(put, e2, text, source)
        else:
            verdict = _against(put, e2, text, source)
        if verdict is None:
            return None  # one reading of the substitution gives it
        if found is None and (read is applied_difference or (left, right) == pending.source):
            members = (left, right, *(v for _, v in pending.values), here.left, here.right)
            found = (verdict, members)
    return found


def valued(pending: Substitution | None, members: tuple, k: int, before: str, known, defs):
    """The value of an unknown not replaced, given right after the equation the values went
    into ("Plugging $a = 3$ into $a^2 + b = 12$ gives $b = 4$"), must be a root of that
    equation with them put in (and of every other known condition that holds them: one that
    gives it spares it, as for an equation, `substituted`). One root of several is a root
    chosen; a decimal may be a rounding: neither is judged."""
    if pending is None or pending.source is None or len(members) < 2:
        return None
    if DECIMAL.search(members[-1]):
        return None  # a rounded value differs from the root however right it is
    here = Condition(members[0], members[-1], k, -1)
    if (found := substituted(pending, here, before, known, defs)) is None:
        return None
    verdict, read = found
    return replace(verdict, reason=verdict.reason.replace("is not", "does not solve", 1)), read


def _holds(member: str, replaced: str) -> bool:
    """Whether a member holds what is replaced (`d`, `\\sin x` in `\\sin^2 x`), as read, or
    as written apart from longer names when either is not read."""
    read, inside = readings(replaced), readings(member)
    if len(read) == 1 and len(inside) == 1:
        return inside[0].has(read[0])
    return bool(re.search(rf"(?<![\\A-Za-z]){re.escape(replaced)}(?![A-Za-z_])", member))


def _replaceable(expr) -> bool:
    """An unknown, or a function of one (`\\sin x`), or a power of either."""
    import sympy

    base = expr.base if isinstance(expr, sympy.Pow) and expr.exp.is_Integer else expr
    if isinstance(base, sympy.Symbol):
        return True
    return isinstance(base, sympy.Function) and len(base.free_symbols) == 1


def _against(put, e2, text: str, source: str) -> ClaimResult | None:
    bounded: set = set()
    if (read := _sines(put, e2)) is None:
        return None
    put, e2, bounded = read
    names = sorted(put.free_symbols | e2.free_symbols, key=str)
    if len(names) > 1 and not bounded:
        return polynomial_derivation(put, e2, names, text, source)
    if len(names) > 1:
        return _bounded_witness(put, e2, names, bounded, text, source)
    r1, r2 = roots_of(put, names[0]), roots_of(e2, names[0])
    if r1 is None or r2 is None:
        return None
    r1, r2 = ({r for r in r if _inside(r, names[0], bounded)} for r in (r1, r2))
    if not r1 or not r2 or r2 <= r1 or r1 <= r2:
        return None
    return ClaimResult(
        "false", text, roots_text(names[0], r2), roots_text(names[0], r1),
        f"is not {source}",
    )  # fmt: skip


def _sines(put, e2):
    """(put, e2, the names that stand for a sine or cosine) with each sine or cosine of an
    unknown read as an unknown of its own between -1 and 1 (`\\cos^2 y`); None when another
    function is written, or a sine and a cosine of one unknown (they are bound together)."""
    import sympy

    found = set().union(*(e.atoms(sympy.Function) for e in (put, e2)))
    found = {f for f in found if f.free_symbols}
    if any(not isinstance(f, (sympy.sin, sympy.cos)) for f in found):
        return None
    if len({frozenset(f.free_symbols) for f in found}) != len(found):
        return None
    rename = {f: sympy.Symbol(str(f), real=True) for f in found}
    return put.xreplace(rename), e2.xreplace(rename), set(rename.values())


def _inside(value, name, bounded: set) -> bool:
    return value.is_real and (name not in bounded or -1 <= value <= 1)


def _bounded_witness(put, e2, names: list, bounded: set, text: str, source: str):
    """A point where `put` holds and `e2` does not, each sine and cosine in [-1, 1]."""
    from itertools import product

    import sympy

    grid = [sympy.Rational(v) for v in ("0", "1/2", "1", "-1/2", "-1", "2", "3")]
    choices = [[v for v in grid if _inside(v, n, bounded)] for n in names[:-1]]
    return unfollowed(
        put, e2, names, product(*choices), text, source,
        keep=lambda name, value: _inside(value, name, bounded),
    )  # fmt: skip


def _misapplied(put, e2, text: str, source: str) -> ClaimResult | None:
    if (pair := misapplied(put, e2)) is None:
        return None
    meant, wrote = pair
    return ClaimResult("false", text, reason=f"{wrote} stands where {source} has {meant}")


def _said(pending: Substitution) -> str:
    return ", ".join(f"{name} = {value}" for name, value in pending.values) + " put in"

