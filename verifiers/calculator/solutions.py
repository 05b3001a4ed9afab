"""Claimed solutions: the values a step gives its unknowns, put back into its equations.

See `claims_kind` for the rules in words. A step's conditions and values are kept in a `Step`;
`solutions` puts the values back (a bare number in a sine may be degrees: `in_degrees`);
does an equation follow from the step's conditions (`derived_from_any`), the chain's (`..._known`)?
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from verifiers.calculator.case_values import in_own_case
from verifiers.calculator.claim_words import (
    ALTERNATIVES,
    CASES,
    CONNECTS,
    DERIVES,
    GIVES_VALUES,
    SOLVES,
    SOLVES_SYSTEM,
    compact,
    confirmed,
    word_set,
)
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.ideals import follows
from verifiers.calculator.known import known_polynomials
from verifiers.calculator.readers import DECIMAL, readings
from verifiers.calculator.relations import admissible
from verifiers.calculator.signs import signed_texts
from verifiers.calculator.symbolic import fmt, in_degrees, near, roots_of, same_value, value_at
from verifiers.calculator.system_runs import derived_run


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
    after: str = ""
    tried: bool = False  # given after a trial or case opened in the step (another unknown)


@dataclass
class Step:
    out: list[ClaimResult] = field(default_factory=list)
    conditions: list[Condition] = field(default_factory=list)
    assignments: list[Assignment] = field(default_factory=list)
    barriers: list[int] = field(default_factory=list)  # clauses skipped as trials or cases
    # Falses not yet read by the library's reader: {index in `out`: (members, defs)}.
    unconfirmed: dict[int, tuple[tuple[str, ...], dict]] = field(default_factory=dict)

    def add(self, outcome: ClaimResult, members: tuple[str, ...], defs: dict) -> None:
        """An outcome; a False stands once `claim_words.confirm_first` confirms it."""
        if outcome.outcome == "false":
            self.unconfirmed[len(self.out)] = (members, defs)
        self.out.append(outcome)


def difference(left: str, right: str, defs: dict, decimals: bool = False):
    if not (admissible(left) and admissible(right)):
        return None
    a, b = readings(left, defs, decimals=decimals), readings(right, defs, decimals=decimals)
    if len(a) != 1 or len(b) != 1:
        return None
    return a[0] - b[0]


def roots_text(var, roots) -> str:
    return f"{var} in {{{', '.join(sorted(str(r) for r in roots))}}}"


def solutions(
    step: Step, defs: dict, step_words: set[str], carried: Condition | None = None, system=()
) -> list[ClaimResult]:
    """Claimed solutions put back into the condition written just before them (`carried`:
    the equation the step before ended on, which a step opening with values may solve;
    `system`: the system of equations it ended on, from `system_ended`)."""
    out: list[ClaimResult] = []
    cased = bool(step_words & {"either", "case", "cases"})
    if not cased and carried is not None and (opening := _opening_values(step, carried, defs)):
        e = difference(carried.left, carried.right, defs)
        out.extend(_one_unknown(carried, e, opening, defs, [], said=True))
    if system and not cased:
        out.extend(_opened_system(step, system, defs))
    by_condition: dict[int, list[Assignment]] = {}
    for a in _led(step.assignments):
        before = [c for c in step.conditions if c.clause < a.clause]
        if not before or word_set(a.before) & (CASES - {"and", "or"}):
            continue
        # "2a = 6, 3b = 12, so a = 3 and b = 4": the last equation in its unknown, else the last.
        own = [c for c in before if unknowns(c, defs) == {a.name}]
        in_case = not cased or in_own_case(a, step.assignments, own)  # a step of cases
        if (a.tried and not (own and own[-1].clause == a.clause - 1)) or not in_case:
            continue  # in a case ("For p = 2, ... gives k = 5"): only its own equation's root
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
            # "x - 8 = 12 or x - 8 = -12", then "x = 20 or x = -4": each may solve any before it.
            others = [c for c in step.conditions[:index] if unknowns(c, defs) == names]
            out.extend(_one_unknown(condition, e, mine, defs, others))
        elif len(names) > 1 and not step_words & ALTERNATIVES:
            out.extend(_system(step, names, assigned, defs))
    # "x + y = 10 and x - y = 4 give 2x = 14, so x = 7 and y = 4": the values of a system's
    # unknowns, given together, answer every equation of the system the step wrote.
    given = [a for a in step.assignments if not a.tried]
    given_names = {a.name for a in given}
    if not step_words & ALTERNATIVES:
        for condition in step.conditions:
            names = unknowns(condition, defs)
            if len(names) > 1 and names <= given_names:
                found = _system(step, names, given, defs)
                out.extend(o for o in found if o.text not in {x.text for x in out})
    return out


# "The solutions are", "the positive root is": words that give values as an equation's roots.
_NAMES_ROOTS = re.compile(r"\b(?:solutions?|roots?|zeros?)\b", re.IGNORECASE)
# Words right after a value that say what it is ("is a root of the derivative", "is the
# minimum"): the value is described there, not given as the last equation's root.
_SAYS_WHAT = re.compile(r"\s*(?:is|are|was|were)\b", re.IGNORECASE)


def _opening_values(step: Step, carried: Condition, defs: dict) -> list[Assignment]:
    """"Hence $x = 3$ or $x = 4$." opening a step, after a step that ended on an equation in
    x alone: the values it gives, else none (`_opening_run`, "or" / "and" between them)."""
    run = _opening_run(step, {"or", "and"})
    names = {a.name for a in run}
    if len(names) != 1 or unknowns(carried, defs) != names:
        return []
    return run


def _opening_run(step: Step, joins: set[str], solves=SOLVES) -> list[Assignment]:
    """The values written first in the step, one after another with nothing but `joins`
    words between them, after words that say solving gave them (`solves`), before any of
    the step's own equations."""
    run: list[Assignment] = []
    for k, a in enumerate(step.assignments):
        if a.clause != k or any(c.clause < a.clause for c in step.conditions):
            break
        if k == 0 and not (solves.search(a.before.lower()) or _NAMES_ROOTS.search(a.before)):
            return []
        if k and not word_set(a.before) <= joins:
            break
        if _SAYS_WHAT.match(a.after):
            return []  # "x = -1 is a root of the derivative": what it solves is said, not ours
        run.append(a)
    return run


def _opened_system(step: Step, system: tuple, defs: dict) -> list[ClaimResult]:
    """"We have $x + y = 10$ and $x - y = 4$." then "Solving, $x = 6$ and $y = 3$.": the
    values that open a step, one per unknown, put back into the linear system the step
    before ended on, when it has exactly one solution (else they may answer another
    question) and every equation of it holds two unknowns or more (`a = 2, b = 3`: values
    listed, no system); or values after equations the step drew from it (`system_runs`)."""
    import sympy

    if len(step.assignments) < max(2, len(system)):
        return []  # fewer values than the system's equations: no solution given (cheap, first)
    conditions = [Condition(m[0], m[1], -1, -1) for m in system]
    exprs = [difference(c.left, c.right, defs) for c in conditions]
    if any(e is None for e in exprs) or any(len(e.free_symbols) < 2 for e in exprs):
        return []
    symbols = sorted(set().union(*(e.free_symbols for e in exprs)), key=str)
    try:
        if any(sympy.Poly(e, *symbols).total_degree() > 1 for e in exprs):
            return []
        found = sympy.linsolve(exprs, symbols)
    except (sympy.PolynomialError, ValueError, TypeError):
        return []
    if len(found) != 1 or any(v.free_symbols for v in next(iter(found))):
        return []
    run = _opening_run(step, {"and"}, SOLVES_SYSTEM)
    if not run:  # the step's equations are read only when no values open it
        point = dict(zip(symbols, next(iter(found)), strict=True))
        sides = [(c.clause, difference(c.left, c.right, defs)) for c in step.conditions]
        run = derived_run(step, point, sides)
    names = {a.name for a in run}
    if len(run) < 2 or len(names) != len(run) or len(system) != len(run):
        return []
    if {str(x) for x in symbols} != names:
        return []
    return _system(Step(conditions=conditions), names, run, defs, solved=True)


def _led(assignments: list[Assignment]) -> list[Assignment]:
    """The assignments, each joined by a bare "and" to the one before it given the words
    that lead that run ("so a = 3 and b = 4": b's value is what solving gave too)."""
    out: list[Assignment] = []
    for a in assignments:
        if out and a.clause == out[-1].clause + 1 and word_set(a.before) <= {"and"}:
            joined = f"{out[-1].before} {a.before}"
            a = Assignment(a.name, a.value, a.clause, a.region, joined, a.after, a.tried)
        out.append(a)
    return out


def unknowns(condition: Condition, defs: dict) -> set[str]:
    e = difference(condition.left, condition.right, defs)
    return {str(s) for s in e.free_symbols} if e is not None else set()


def _one_unknown(
    condition: Condition, e, assigned: list[Assignment], defs: dict, others: list, said=False
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
    # A value written with `\\pm` is the two it stands for, unless plain values restate it (`x =
    # \\frac{7 \\pm 3}{2}`, so `x = 5` or `x = 2`); a decimal for a root is within its rounding.
    read = [(a, [(t, readings(t, defs)) for t in signed_texts(a.value)]) for a in assigned]
    values = [(a, [(t, r[0]) for t, r in v]) for a, v in read if all(len(r) == 1 for _, r in v)]
    values = [(a, v) for a, v in values if len(v) == 1] or values
    if sum(len(v) for _, v in values) > len(roots):
        return []  # more values than the equations have roots: they answer something wider
    missed = [
        (a, [t for t, x in v if not any(
            same_value(x, r) or DECIMAL.search(t) and near(x, r) for r in roots
        )]) for a, v in values
    ]  # fmt: skip
    # Said of this equation: the value right after it, in its region or after connectives, or
    # after words that derive it; several values one clause after another joined by them, in
    # its region (`x^2 = 4 \\Rightarrow x = 3 \\text{ or } x = -3`) or after words that say solving
    # gave them (`(x - 3)(x + 4) = 0`, so `x = 4` or `x = -3`; not "... = 0 and x = 7 or x =
    # 1"); `said`: the caller found such words.
    one = len(values) == 1
    solved = one or bool(SOLVES.search(values[0][0].before.lower())) if values else False
    direct = said or all(
        a.clause == condition.clause + 1 + i
        and (a.region == condition.region or solved and word_set(a.before) <= GIVES_VALUES)
        and (i == 0 or word_set(a.before) <= CONNECTS)
        for i, (a, _) in enumerate(values)
    ) or (one and bool(DERIVES.search(values[0][0].before.lower())))
    if all(wrong for _, wrong in missed) and not direct:
        return []  # none of them solves it: they may answer another question
    out = []
    for a, wrong in missed:
        if wrong and confirmed((condition.left, condition.right, wrong[0]), defs):
            out.append(ClaimResult(
                "false", f"{var} = {a.value}", wrong[0], roots_text(var, roots),
                f"does not solve `{condition.left} = {condition.right}`",
            ))  # fmt: skip
    return out


def _substituted(condition: Condition, e, var, a: Assignment, defs: dict) -> list[ClaimResult]:
    """One value put back into an equation we cannot solve exactly (`3^x = 81`, then
    `x = 3`) written as its solution (`_one_unknown`); with bars, roots unread may fill a span."""
    import sympy

    found = [] if e.has(sympy.Abs) else readings(a.value, defs)
    if len(found) != 1 or not (
        a.clause == condition.clause + 1 or DERIVES.search(a.before.lower())
    ):
        return []
    left, right = readings(condition.left, defs), readings(condition.right, defs)
    if len(left) != 1 or len(right) != 1:
        return []
    point = {var: found[0]}
    sides = (value_at(left[0], point), value_at(right[0], point))
    if None in sides or same_value(*sides) or DECIMAL.search(a.value) and near(*sides):
        return []  # undefined, beyond the digits we trust there, or a rounded root
    if in_degrees(left[0] - right[0], point):
        return []  # `\\sin x = \\frac{1}{2}`, then `x = 30`: degrees, written bare
    if not confirmed((condition.left, condition.right, a.value), defs):
        return []
    return [ClaimResult(
        "false", f"{var} = {a.value}", a.value, "-",
        f"does not solve `{condition.left} = {condition.right}`: there the sides are "
        f"{fmt(sides[0])} and {fmt(sides[1])}",
    )]  # fmt: skip


def _system(step: Step, names: set, assigned: list[Assignment], defs: dict, solved=False):
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
    together = clauses[-1] - clauses[0] == len(clauses) - 1
    if not together or not (solved or SOLVES_SYSTEM.search(opening.before)):
        return []  # not one after the other as what solving gave (`solved`: the caller saw so)
    point = {}
    for name, a in chosen.items():
        if DECIMAL.search(a.value):
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
        if residue != 0 and not in_degrees(e, point) and confirmed(members, defs):
            shown = ", ".join(f"{n} = {chosen[n].value}" for n in sorted(names))
            return [ClaimResult(
                "false", shown,
                reason=f"does not satisfy `{condition.left} = {condition.right}` "
                f"(off by {residue})",
            )]  # fmt: skip
    return []


# Words right after `x = 3` that claim it solves the equation before it ("is a root of the
# equation"); "of the derivative", "of the second factor" name another one.
_IS_ROOT = re.compile(
    r"^\s*(?:is|are)\s+(?:indeed\s+|also\s+|clearly\s+)?(?:a|one|the)\s+(?:root|solution|zero)"
    r"(?:\s+of\s+(?:the|this|our)\s+(?:equation|cubic|quadratic))?\s*[.,;:]"
)


def claimed_root(members: tuple, ops: tuple, after: str, known: list, defs: dict):
    """"By inspection, x = 3 is a root of the equation": the value put back into the last
    equation written in letters, when that one is in this unknown alone (None: nothing to
    say; an equation in other letters after it, or one not read, may be the one meant)."""
    import sympy

    if len(members) != 2 or ops != ("=",) or not _IS_ROOT.match(after.lower()):
        return None
    name, value = compact(members[0]), members[1]
    found = readings(value, defs)
    if DECIMAL.search(value) or len(found) != 1 or found[0].free_symbols:
        return None
    for left, right in reversed(known):
        e = difference(left, right, defs)
        if e is None or e.free_symbols:
            break  # numbers checked on the way are no equation the root is claimed of
    else:
        return None
    if e is None or {str(x) for x in e.free_symbols} != {name}:
        return None
    root = {sympy.Symbol(name): found[0]}
    at = value_at(e, root)
    if at is None or same_value(at, sympy.Integer(0)) or in_degrees(e, root):
        return None
    if not confirmed((left, right, value), defs):
        return None
    return ClaimResult(
        "false", f"{name} = {value}", value, "-",
        f"is not a root of `{left} = {right}`: there the sides differ by {fmt(at)}",
    )  # fmt: skip


def derived_from_any(second: Condition, conditions: list[Condition], defs: dict) -> bool:
    """Whether the equation follows from the step's equations together (a sum, a substitution)."""
    e2 = difference(second.left, second.right, defs)
    if e2 is None:
        return True
    found = [difference(c.left, c.right, defs) for c in conditions]
    found = [e for e in found if e is not None and e.free_symbols & e2.free_symbols]
    return bool(found) and follows(e2, found)


def derived_from_known(second: Condition, known: list, defs: dict) -> bool:
    """Whether the equation follows from every condition known of its unknowns (or one unread)."""
    e2 = difference(second.left, second.right, defs)
    return e2 is None or follows(e2, known_polynomials(known, defs, e2))
