"""Derivations and claimed solutions: equations judged against the conditions before them.

See `verifiers.calculator.claims_kind` for the rules in words. A step's conditions and the
values it gives its unknowns are collected in a `Step`; `derivation` compares an equation with
the one it follows from, `solutions` puts the values back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from verifiers.calculator.claim_words import (
    ALTERNATIVES,
    ARROWS,
    CASES,
    CONNECTS,
    DERIVES,
    LETTER,
    SOLVES,
    compact,
    word_set,
)
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.identities import GROUPED, attempt, fmt, known_polynomials
from verifiers.calculator.relations import admissible
from verifiers.calculator.symbolic import (
    compare_identity,
    confirmed,
    follows,
    readings,
    roots_of,
    same_value,
    value_at,
)


@dataclass
class Condition:
    left: str
    right: str
    clause: int  # -1: from an earlier step
    region: int


@dataclass
class Assignment:
    name: str
    value: str
    clause: int
    region: int
    before: str


@dataclass
class Step:
    out: list[ClaimResult] = field(default_factory=list)
    conditions: list[Condition] = field(default_factory=list)
    assignments: list[Assignment] = field(default_factory=list)
    barriers: list[int] = field(default_factory=list)  # clauses skipped as trials or cases



def follows_directly(first: Condition, second: Condition, before: str) -> bool:
    """Whether `second` is written as derived from `first` (see the module docstring)."""
    if word_set(before) & CASES:
        return False
    sides = ((first.left, second.left, first.right, second.right),
             (first.right, second.right, first.left, second.left))  # fmt: skip
    for kept, kept_again, old, new in sides:
        # "x - 4 = 1", "x - 4 = 11": cases side by side; "K - 19 = (4(55) + 11) - K", then
        # "simplify: K - 19 = 221 - K": the other side rewritten, its unknowns kept.
        if compact(kept) == compact(kept_again) and not (
            LETTER.search(old) and LETTER.search(new) and DERIVES.search(before.lower())
        ):
            return False
    if first.clause >= 0 and first.region == second.region and second.clause == first.clause + 1:
        return True  # one display, the next line or across `\\implies`
    if first.clause >= 0 and second.region == first.region + 1 and _bare(before):
        return True  # the next display, with nothing written between
    return bool(DERIVES.search(before.lower()))


def _bare(before: str) -> bool:
    """Nothing but arrows and punctuation between two relations."""
    return not re.search(r"[a-z]", _JOINS.sub(" ", before.lower()))


def derivation(first: Condition, second: Condition, before: str, defs: dict):
    """An equation judged against the condition before it (None: nothing to say)."""
    # "x(100 + 30) = (x + 1.5)100", then "x^2 + 30x = 100x + 150": decimals are read as
    # written in equations of one unknown, and only a root far from every root the other
    # gives is a slip (a decimal may be rounded).
    rounded = bool(_DECIMAL.search(first.left + first.right + second.left + second.right))
    e1 = difference(first.left, first.right, defs, decimals=rounded)
    e2 = difference(second.left, second.right, defs, decimals=rounded)
    if e1 is None or e2 is None:
        return None
    if rounded and len(e1.free_symbols | e2.free_symbols) != 1:
        return None
    names = sorted(e1.free_symbols | e2.free_symbols, key=str)
    if not names or e1.free_symbols != e2.free_symbols:
        return None
    text = f"{second.left} = {second.right}"
    source = f"`{first.left} = {first.right}`"
    if len(names) == 1:
        r1, r2 = roots_of(e1, names[0]), roots_of(e2, names[0])
        if r1 is None or r2 is None or not r1 or not r2 or r1 <= r2 or r2 <= r1:
            return None
        if not all(r.is_real for r in r1 | r2):
            return None
        if rounded and any(_near(a, b) for a in r1 for b in r2):
            return None  # decimals written: a root moved by their rounding is no slip
        return ClaimResult(
            "false", text, _roots(names[0], r2), _roots(names[0], r1),
            f"does not follow from {source}",
        )  # fmt: skip
    # Several unknowns: a system's equations sit side by side as often as one derives from
    # another, words before one often bring a new equation of the system ("so x + y = 90"),
    # and a new one may combine several (the caller spares what the conditions known
    # together give). Judged only between linear equations an arrow alone joins in one
    # display ("12m = 5q + 3 \\Rightarrow 4m = 5q + 1"): a linear equation drawn from one
    # other is a nonzero multiple of it.
    adjacent = first.region == second.region and second.clause == first.clause + 1
    if not (adjacent and _bare(before) and ARROWS.search(before)):
        return None
    return _linear_derivation(e1, e2, names, text, source)


def _linear_derivation(e1, e2, names: list, text: str, source: str) -> ClaimResult | None:
    import sympy

    try:
        p1, p2 = sympy.Poly(sympy.expand(e1), *names), sympy.Poly(sympy.expand(e2), *names)
    except (sympy.PolynomialError, sympy.GeneratorsNeeded):
        return None
    if p1.total_degree() != 1 or p2.total_degree() != 1:
        return None
    if not all(c.is_Rational for c in p1.coeffs() + p2.coeffs()):
        return None
    ratio = sympy.cancel(sympy.expand(e1) / sympy.expand(e2))
    if ratio.is_number:
        return None  # a nonzero multiple: the same equation
    # A witness: the other unknowns at small integers, the last one solved from each.
    last, others = names[-1], names[:-1]
    for values in _small_points(len(others)):
        point = dict(zip(others, values, strict=True))
        a = sympy.solve(e1.subs(point), last)
        b = sympy.solve(e2.subs(point), last)
        if len(a) == 1 and len(b) == 1 and a[0] != b[0]:
            at = ", ".join(f"{k} = {v}" for k, v in point.items())
            return ClaimResult(
                "false", text, f"{last} = {b[0]}", f"{last} = {a[0]}",
                f"does not follow from {source} (at {at})",
            )  # fmt: skip
    return None


_DECIMAL = re.compile(r"\d\.\d")


def _near(a, b) -> bool:
    """Two roots within a hundredth of each other's size (or of 1)."""
    return abs(complex(a) - complex(b)) <= 0.01 * max(1.0, abs(complex(a)), abs(complex(b)))


def _small_points(n: int):
    from itertools import product

    return product((1, 2, 0, -1, 3), repeat=n)


# What may stand between two displays that continue one another: arrows, `\\iff`, punctuation.
_JOINS = re.compile(ARROWS.pattern + r"|\\iff|[,;.:]", re.IGNORECASE)
# Words that say one side of the equation before is being rewritten in place.
_SIDE_REWRITE = re.compile(
    r"expand|multipl|distribut|simplif|factor|rearrang|group|collect|combin"
)


def rewritten_side(
    first: Condition, second: Condition, before: str, defs: dict, known: list
) -> ClaimResult | None:
    """`(a + b + c + d)(bcd + acd + abd + abc) = 16abcd`, then "expanding the left side,
    ... = 16abcd": the side kept says the other is the first one's rewritten, so the two
    must be equal for every value, whatever the unknowns (a False needs the text to say it
    rewrites, the new side to be an attempt at that rewrite, and the difference not to
    follow from the conditions known)."""
    # With no words between the two (the next display, or across an arrow), the new side
    # must show the rewrite by its form: a product or power against an expanded side.
    bare = _bare(before)
    if not (_SIDE_REWRITE.search(before.lower()[-80:]) or bare):
        return None
    sides = ((first.left, first.right, second.left, second.right),
             (first.right, first.left, second.right, second.left))  # fmt: skip
    for old, kept, new, kept_again in sides:
        if compact(old) == compact(new):
            continue
        if bare and bool(GROUPED.search(old)) == bool(GROUPED.search(new)):
            continue  # "x + y = 10", "x - y = 10": a system's equations one per line
        if not _same_side(kept, kept_again, defs):
            continue
        a, b = readings(old, defs), readings(new, defs)
        if len(a) != 1 or len(b) != 1 or not a[0].free_symbols:
            return None
        if a[0].free_symbols != b[0].free_symbols or not attempt(a[0], b[0]):
            return None
        verdict, _, witness = compare_identity(a[0], b[0])
        if verdict != "false" or witness is None:
            return None
        if follows(a[0] - b[0], known_polynomials(known, defs, a[0], b[0])):
            return None
        subs, x, y = witness
        at = ", ".join(f"{s} = {v}" for s, v in subs.items())
        return ClaimResult(
            "false", f"{second.left} = {second.right}",
            reason=f"`{new}` is not `{old}` rewritten: at {at} they are {fmt(y)} and {fmt(x)}",
        )  # fmt: skip
    return None


def _same_side(first: str, second: str, defs: dict) -> bool:
    """The same member, as written or as a value (`16` for `2 \\cdot 8`)."""
    if compact(first) == compact(second):
        return True
    a, b = readings(first, defs), readings(second, defs)
    return len(a) == 1 and len(b) == 1 and compare_identity(a[0], b[0])[0] == "holds"


def derived_from_any(second: Condition, conditions: list[Condition], defs: dict) -> bool:
    """Whether the equation follows from the step's equations together (a system's sum or
    difference, a substitution)."""
    e2 = difference(second.left, second.right, defs)
    if e2 is None:
        return True
    found = [difference(c.left, c.right, defs) for c in conditions]
    found = [e for e in found if e is not None and e.free_symbols & e2.free_symbols]
    return bool(found) and follows(e2, found)


def derived_from_known(second: Condition, known: list, defs: dict) -> bool:
    """Whether the equation follows from every condition the problem and the chain wrote
    about its unknowns (true too when one of them cannot be read)."""
    e2 = difference(second.left, second.right, defs)
    return e2 is None or follows(e2, known_polynomials(known, defs, e2))


def difference(left: str, right: str, defs: dict, decimals: bool = False):
    if not (admissible(left) and admissible(right)):
        return None
    a, b = readings(left, defs, decimals=decimals), readings(right, defs, decimals=decimals)
    if len(a) != 1 or len(b) != 1:
        return None
    return a[0] - b[0]


def _roots(var, roots) -> str:
    return f"{var} in {{{', '.join(sorted(str(r) for r in roots))}}}"


def solutions(step: Step, defs: dict, step_words: set[str]) -> list[ClaimResult]:
    """Claimed solutions put back into the condition written just before them."""
    out: list[ClaimResult] = []
    if step_words & {"either", "case", "cases"}:
        return out  # each value belongs to its own case, written before or after it
    by_condition: dict[int, list[Assignment]] = {}
    for a in _led(step.assignments):
        before = [c for c in step.conditions if c.clause < a.clause]
        if not before or word_set(a.before) & (CASES - {"and", "or"}):
            continue
        # "2a = 6, 3b = 12, so a = 3 and b = 4": a value answers the last equation in its
        # own unknown, else the last equation.
        own = [c for c in before if unknowns(c, defs) == {a.name}]
        target = own[-1] if own else before[-1]
        if any(target.clause < b < a.clause for b in step.barriers):
            continue  # a trial or a case between them: which equation the value solves is unsure
        by_condition.setdefault(step.conditions.index(target), []).append(a)
    for index, assigned in by_condition.items():
        condition = step.conditions[index]
        e = difference(condition.left, condition.right, defs)
        if e is None:
            continue
        names = {str(s) for s in e.free_symbols}
        mine = [a for a in assigned if a.name in names]
        if len(names) == 1 and mine:
            # "x - 8 = 12 or x - 8 = -12", then "x = 20 or x = -4": each value may solve any
            # equation in that unknown the step wrote before it.
            others = [c for c in step.conditions[:index] if unknowns(c, defs) == names]
            out.extend(_one_unknown(condition, e, mine, defs, others))
        elif len(names) > 1 and not step_words & ALTERNATIVES:
            out.extend(_system(step, names, assigned, defs))
    # "x + y = 10 and x - y = 4 give 2x = 14, so x = 7 and y = 4": the values of a system's
    # unknowns, given together, answer every equation of the system the step wrote.
    given_names = {a.name for a in step.assignments}
    if not step_words & ALTERNATIVES:
        for condition in step.conditions:
            names = unknowns(condition, defs)
            if len(names) > 1 and names <= given_names:
                found = _system(step, names, step.assignments, defs)
                out.extend(o for o in found if o.text not in {x.text for x in out})
    return out


def _led(assignments: list[Assignment]) -> list[Assignment]:
    """The assignments, each joined by a bare "and" to the one before it given the words
    that lead that run ("so a = 3 and b = 4": b's value is what solving gave too)."""
    out: list[Assignment] = []
    for a in assignments:
        if out and a.clause == out[-1].clause + 1 and word_set(a.before) <= {"and"}:
            a = Assignment(a.name, a.value, a.clause, a.region, f"{out[-1].before} {a.before}")
        out.append(a)
    return out


def unknowns(condition: Condition, defs: dict) -> set[str]:
    e = difference(condition.left, condition.right, defs)
    return {str(s) for s in e.free_symbols} if e is not None else set()


def _one_unknown(
    condition: Condition, e, assigned: list[Assignment], defs: dict, others: list
) -> list[ClaimResult]:
    var = next(iter(e.free_symbols))
    roots = roots_of(e, var)
    if roots is None and len(assigned) == 1 and not others:
        return _substituted(condition, e, var, assigned[0], defs)
    if roots is None or not roots:
        return []
    for other in others:
        more = roots_of(difference(other.left, other.right, defs), var)
        if more is None:
            return []
        roots = roots | more
    values = [(a, readings(a.value, defs)) for a in assigned]
    values = [(a, v[0]) for a, v in values if len(v) == 1]
    if len(values) > len(roots):
        return []  # more values than the equations have roots: they answer something wider
    # A decimal written for a root is within its rounding as the numbers' check allows.
    hits = [
        a for a, v in values
        if any(same_value(v, r) or _DECIMAL.search(a.value) and _near(v, r) for r in roots)
    ]  # fmt: skip
    direct = len(values) == 1 and (
        (
            values[0][0].clause == condition.clause + 1
            and (
                values[0][0].region == condition.region
                or word_set(values[0][0].before) <= CONNECTS
            )
        )
        or bool(DERIVES.search(values[0][0].before.lower()))
    )
    if not hits and not direct:
        return []  # none of them solves it: they may answer another question
    out = []
    for a, _ in values:
        if a in hits:
            continue
        if confirmed((condition.left, condition.right, a.value), defs):
            out.append(ClaimResult(
                "false", f"{var} = {a.value}", a.value, _roots(var, roots),
                f"does not solve `{condition.left} = {condition.right}`",
            ))  # fmt: skip
    return out


def _substituted(condition: Condition, e, var, a: Assignment, defs: dict) -> list[ClaimResult]:
    """One value put back into an equation we cannot solve exactly (`3^x = 81`, then
    `x = 3`), when it is written as that equation's solution (see `_one_unknown`)."""
    found = readings(a.value, defs)
    if len(found) != 1 or not (
        a.clause == condition.clause + 1 or DERIVES.search(a.before.lower())
    ):
        return []
    left, right = readings(condition.left, defs), readings(condition.right, defs)
    if len(left) != 1 or len(right) != 1:
        return []
    point = {var: found[0]}
    sides = (value_at(left[0], point), value_at(right[0], point))
    if None in sides or same_value(*sides) or _DECIMAL.search(a.value) and _near(*sides):
        return []  # undefined, beyond the digits we trust there, or a rounded root
    if not confirmed((condition.left, condition.right, a.value), defs):
        return []
    return [ClaimResult(
        "false", f"{var} = {a.value}", a.value, "-",
        f"does not solve `{condition.left} = {condition.right}`",
    )]  # fmt: skip


def _system(step: Step, names: set[str], assigned: list[Assignment], defs: dict):
    import sympy

    chosen: dict[str, Assignment] = {}
    for a in assigned:
        if a.name in names:
            if a.name in chosen:
                return []  # two values of one unknown: alternatives
            chosen[a.name] = a
    if set(chosen) != names:
        return []
    clauses = sorted(a.clause for a in chosen.values())
    opening = min(chosen.values(), key=lambda a: a.clause)
    if clauses[-1] - clauses[0] != len(clauses) - 1 or not SOLVES.search(opening.before.lower()):
        return []  # not given together, one after the other, as what solving gave
    point = {}
    for name, a in chosen.items():
        if _DECIMAL.search(a.value):
            return []  # a rounded value leaves a residue however right it is
        found = readings(a.value, defs)
        if len(found) != 1:
            return []
        point[sympy.Symbol(name)] = found[0]
    first = min(a.clause for a in chosen.values())
    for condition in step.conditions:
        if condition.clause >= first:
            break
        e = difference(condition.left, condition.right, defs)
        if e is None or not e.free_symbols or not {str(s) for s in e.free_symbols} <= names:
            continue
        residue = sympy.simplify(e.xreplace(point))
        members = (condition.left, condition.right) + tuple(a.value for a in chosen.values())
        if residue != 0 and confirmed(members, defs):
            shown = ", ".join(f"{n} = {chosen[n].value}" for n in sorted(names))
            return [ClaimResult(
                "false", shown,
                reason=f"does not satisfy `{condition.left} = {condition.right}` "
                f"(off by {residue})",
            )]  # fmt: skip
    return []

