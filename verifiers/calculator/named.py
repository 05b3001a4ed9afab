"""Restated results: the value a named chain ends with must be the value it restarts with.

`Total = 52 + 24 + 44 + 48` on one line and `Total = 178` on the next (in one step, adjacent
clauses; a new chain that takes the old expression or value up and goes on, "Total = 3 * 4"
then "Total = 3 * 4 * 2", is not a restatement), or the same across a step boundary:
`\\[ Total Score = 50 + 80 + ... + 60 \\]` ends one step and the next opens with "Adding
these together: `Total Score = 570`". Only a computed value (the chain does arithmetic) is
compared, across steps only when restated as a plain number under the same name; words
that make the second chain a new case, a revision or a trial stop the check, and so does a
stage of the computation ("Total = 720 * 24 * 120 * 6", then "Total = 720 * 24 = 17280" or
"Total = 17280": the first factors taken in, not the total restated).

What this does NOT do: follow a quantity under another name, or across more than one step
boundary; a chain that is followed by more numbers in its step is not carried over (the step
may have moved on).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from verifiers.calculator.claim_words import solving_for
from verifiers.calculator.claims import (
    APPROX_WORDS,
    ClaimResult,
    check_arithmetic,
    leading_value,
    staged,
)
from verifiers.calculator.evaluate import EvalError, exact
from verifiers.calculator.extract import (
    Link,
    Named,
    extract_links,
    extract_named,
    normalize,
    tokenize,
)
from verifiers.calculator.parse import NUM, has_ops, operands, variables

# Words around an equation that make it a case, a trial or a second root, not a step of
# solving (or restating) the previous one.
NOT_DERIVED = frozenset(
    "or and if when try trying check checking test testing case cases guess roots solutions"
    " either another other second also similarly plug plugging substitute substituting"
    " verify for set setting discard discarded reject rejected valid invalid extraneous"
    " positive negative".split()
)
# Words that give an unknown a new meaning: what was known about it no longer holds, from the
# next step on (`verifier`) and, inside a step, after the clause that holds them
# (`linear_equations`: "Since $a = 5$, $a + 2 = 7$. Now let $a$ be the area: $a = 12$.").
REDEFINE = frozenset("let suppose assume denote represent represents define call".split())
# Across a step boundary, words that announce a correction or an addition: the new value of the
# name is then meant to differ from the old one.
REVISE = frozenset(
    "but however wait actually additionally plus more extra forgot missed include including"
    " mistake correct corrected correcting recalculate recalculating again instead new now"
    " next then after".split()
)


def clause_words(step: str) -> list[set[str]]:
    """The words of each clause of a step (the calculator's clause indices)."""
    clauses = tokenize(normalize(step))
    return [set(solving_for([t.text for t in c if t.kind == "word"])) for c in clauses]


def _compare(
    before: Named, named: Named, window: set[str], problem_claims: frozenset[str], step: str
) -> ClaimResult | None:
    if window & NOT_DERIVED or variables(before.last.node) or variables(named.first.node):
        return None
    if not has_ops(before.last.node):
        return None  # "x = -2, x = -9/2" lists values; only a computed value is restated
    if staged(before.last.node, named.first.node, extract_links(step)):
        return None  # "Total = 720 * 24 * 120 * 6", then "Total = 17280", "17280 * 120 = ..."
    link = Link(replace(before.last, plain=False), named.first, False, named.clause)
    result = check_arithmetic(link, bool(window & APPROX_WORDS), problem_claims)
    return result if result.outcome in ("holds", "false") else None


def _goes_on(before: Named, named: Named) -> bool:
    """The new chain takes the old expression or its value up and goes on computing.

    "Total = 3 * 4" then "Total = 3 * 4 * 2 = 24" (every number of the old side, and more),
    or "Total = 12 * 2" (it opens with the old value): a new value, not a restatement.
    """
    old, new = before.last.node, named.first.node
    if not has_ops(new):
        return False
    kept = Counter(leaf[1] for leaf in operands(old))
    grown = Counter(leaf[1] for leaf in operands(new))
    if kept and not kept - grown and grown != kept:
        return True
    try:
        return leading_value(new) == exact(old)
    except EvalError:
        return False


def restated_in_step(
    step: str, words: list[set[str]], problem_claims: frozenset[str]
) -> list[ClaimResult]:
    """Adjacent clauses of one step that open with the name the previous one closed."""
    out = []
    previous: dict[str, Named] = {}
    for named in extract_named(step):
        before = previous.get(named.name)
        previous[named.name] = named
        if before is None or named.clause - before.clause != 1 or _goes_on(before, named):
            continue
        window = set().union(*words[max(0, before.clause - 1) : named.clause + 1])
        result = _compare(before, named, window, problem_claims, step)
        if result is not None:
            out.append(result)
    return out


def carried(step: str) -> Named | None:
    """The named chain a step ends on, if the next step may restate it (else None).

    It must compute something, be named by a word (not a lone unknown: the equation checks own
    those), and be the step's last number: a chain followed by other figures was not the
    step's result.
    """
    chains = extract_named(step)
    if not chains:
        return None
    last = chains[-1]
    clauses = tokenize(normalize(step))
    if any(t.kind == NUM for c in clauses[last.clause + 1 :] for t in c):
        return None
    if not any(len(w) > 1 for w in last.name.split()):
        return None
    return last if has_ops(last.last.node) and not variables(last.last.node) else None


def restated_across(
    previous: Named | None, step: str, problem_claims: frozenset[str]
) -> list[ClaimResult]:
    """The first named chain of `step`, if it restates `previous` (see `carried`) as a number.

    Nothing with a number may come before it in the step, and no word that announces a new
    case, a revision or an addition.
    """
    if previous is None:
        return []
    chains = extract_named(step)
    if not chains or chains[0].name != previous.name or not chains[0].first.plain:
        return []
    first = chains[0]
    clauses = tokenize(normalize(step))
    if any(t.kind == NUM for c in clauses[: first.clause] for t in c):
        return []
    window = set().union(*clause_words(step)[: first.clause + 1])
    if window & REVISE:
        return []
    result = _compare(previous, first, window, problem_claims, step)
    return [] if result is None else [result]
