"""Displays of equations simplified in place: "Simplifying these equations, we get:" after a
display of a system (or of alternatives) claims each new equation is the one in its place in
the display before, simplified. `paired` judges each pair as `derivations.derivation` judges
an equation the text calls the last one simplified.
"""

from __future__ import annotations

import re

from verifiers.calculator.claim_words import LETTER, compact, last_sentence, word_set
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.derivations import derivation
from verifiers.calculator.ideals import follows
from verifiers.calculator.relations import admissible
from verifiers.calculator.signs import SIGN
from verifiers.calculator.solutions import Condition, difference

# Words that open a display whose equations are those of the display before, each simplified
# in its place ("Simplifying these equations, we get:", "This further simplifies to:").
_PAIRS_CUE = re.compile(
    r"^\W*(?:(?:this|these|which|they|then|further|and|we|each|both)\s+)*"
    r"(?:simplif\w*|rearrang\w*|(?:combin|collect)\w*\s+like\s+terms)"
    r"(?:\s+(?:these|the|both|each|all)\s+(?:equations?|of\s+them))?"
    r"(?:\W+(?:to|further|as|gives?|we\s+get|we\s+have|yields?|becomes?))*\W*$"
)


def _one_equation(members: tuple[str, ...], ops: tuple[str, ...]) -> bool:
    return (
        ops == ("=",)
        and all(admissible(m) for m in members)
        and bool(LETTER.search(members[0] + members[1]))
        and not SIGN.search(members[0] + members[1])
    )


def _joined(before: str) -> bool:
    """Only punctuation, spacing, "and" or "or" between two equations of one display (a
    colon opens a new one: "We substitute T = 20: ...")."""
    return ":" not in before and not word_set(re.sub(r"\\[A-Za-z]+", " ", before)) - {"and", "or"}


def equation_groups(clauses: list) -> list[list[int]]:
    """Runs of two or more clauses (by index) that each write one equation with an unknown,
    joined by nothing but punctuation, spacing, "and" or "or": a system or a list of
    alternatives written side by side, display after display."""
    groups: list[list[int]] = []
    run: list[int] = []
    for k, (members, ops, before, *_) in enumerate(clauses):
        one = _one_equation(members, ops)
        if one and run and run[-1] == k - 1 and _joined(before):
            run.append(k)
            continue
        if len(run) >= 2:
            groups.append(run)
        run = [k] if one else []
    if len(run) >= 2:
        groups.append(run)
    return groups


def _trailing(clauses: list, groups: list[list[int]]) -> tuple:
    """The members of the equations a step ends on when they form a group, or ()."""
    if not groups or groups[-1][-1] != len(clauses) - 1:
        return ()
    return tuple(tuple(clauses[k][0]) for k in groups[-1])


def paired(
    clauses: list, defs: dict, carried: tuple = ()
) -> tuple[list[tuple[ClaimResult, tuple[str, ...]]], tuple]:
    """`10b - 40 - 2a = 20 + 8a - 2, 2(20) + 2 = -10b`, then "Simplifying these equations, we
    get: 10b - 38 = 8a + 19 + 2a, 40 + 2 = -10b": a group of equations right after a group of
    as many, opened by words that say it is that one simplified, claims each equation is the
    one in its place simplified (the first is not: it is 10b - 40 - 2a = 18 + 8a rewritten
    with 19 for 18). The first group may end the step before (`carried`, its members) when
    this step opens on the second ("which simplifies to:"). Judged as `derivation` judges an
    equation the text calls the last one simplified; spared when another equation of the
    first group gives it (the order changed), or the first group's equations together do and
    are consistent (a system solved on the way; alternatives side by side are not
    consistent). Each False with the members read, for the caller to confirm; and the members
    of the group of equations the step ends on (or ()), for the next step's `carried`."""
    groups = equation_groups(clauses)
    pairs = [
        ([Condition(*clauses[k][0], k, clauses[k][4]) for k in first], second)
        for first, second in zip(groups, groups[1:], strict=False)
        if second[0] == first[-1] + 1
    ]
    if carried and groups and groups[0][0] == 0:
        # The step before's equations stand in a region of their own, before this one's.
        pairs.insert(0, ([Condition(*m, k - len(carried), -1) for k, m in enumerate(carried)],
                         groups[0]))
    out = []
    for olds, second in pairs:
        said = last_sentence(clauses[second[0]][2].strip()).lower()
        if len(olds) != len(second) or not _PAIRS_CUE.match(said):
            continue
        news = [Condition(*clauses[k][0], k, clauses[k][4]) for k in second]
        out.extend(_judged(olds, news, defs))
    return out, _trailing(clauses, groups)


def _judged(olds: list, news: list, defs: dict) -> list[tuple[ClaimResult, tuple[str, ...]]]:
    """Each new equation against the old one in its place (see `paired`)."""
    import sympy

    exprs = [difference(c.left, c.right, defs) for c in olds]
    if any(e is None for e in exprs):
        return []
    out = []
    consistent = not follows(sympy.Integer(1), exprs)
    for old, new in zip(olds, news, strict=True):
        if compact(old.left + "=" + old.right) == compact(new.left + "=" + new.right):
            continue
        found = derivation(old, new, "this simplifies to", defs)
        if found is None or found.outcome != "false":
            continue
        e_new = difference(new.left, new.right, defs)
        if e_new is None or any(
            follows(e_new, [e]) for e, c in zip(exprs, olds, strict=True) if c is not old
        ):
            continue
        if consistent and follows(e_new, exprs):
            continue
        out.append((found, (old.left, old.right, new.left, new.right)))
    return out


def system_ended(clauses: list, group: tuple) -> tuple:
    """The group of equations a step ends on (`paired_displays`) when only punctuation and
    "and" join it: a system the next step may solve (joined by "or", they are alternatives)."""
    joins = [c[2] for c in clauses[len(clauses) - len(group) + 1 :]] if group else []
    return group if group and not any(word_set(j) & {"or", "either"} for j in joins) else ()
