"""Linear equations in one unknown, step to step: the numeric checker's derivation check.

"150 + x = 500", then "x = 350 - 150" is inconsistent: `check_equation` solves each linear
equation a step writes and compares it with the one just before it, and reads an identity
("x + 69 - 25 = x + 44") as a simplification whose constants must agree. It stays silent on a
case, an alternative ("x + 8 = 2 or x + 8 = -2"), a trial, an approximation, and on moves
that do not solve (`NOT_DERIVED` words around them). Relations between expressions beyond
these are the symbolic checks' (`verifiers.calculator.claims_kind`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verifiers.calculator.claim_words import NO_SOLUTION_WORDS
from verifiers.calculator.claims import ClaimResult, compact, fmt, link_text
from verifiers.calculator.evaluate import EvalError, NotLinearError, linear
from verifiers.calculator.extract import Link
from verifiers.calculator.named import NOT_DERIVED, REDEFINE, REVISE
from verifiers.calculator.parse import has_ops, operands, variables

__all__ = ["Equation", "alternative_unknowns", "check_equation", "unknown"]

# Words that say an equation is the previous one rewritten: the clause before that one (where
# a case or a substitution may be announced) then does not decide whether they are compared.
_SIMPLIFIES = frozenset(
    "simplifies simplify simplifying simplified combine combining becomes expands".split()
)
# "then either $x-7 = x+1$ or ...": a case that may have no solution, not a simplification.
_CASES = frozenset("either or if case cases suppose whether".split())
# Words that say a computed value is written out ("simplifying gives the value of y: y = 10").
_RESTATES = ("simplif", "evaluat", "comput", "calculat", "value")
# Words that set values of one unknown side by side as alternatives (`alternative_unknowns`).
_ALTERNATIVE = frozenset("or either".split())


@dataclass(slots=True)
class Equation:
    var: str
    solution: Fraction
    text: str
    step: int
    clause: int
    worked: bool  # more than `x = 5`: it has something to solve
    left: str  # the left side's text
    computed: bool = False  # `x = \\frac{30}{3}`: solved, its value computed from numbers
    shifted: int | None = None  # `_shifted_letter`


def check_equation(
    link: Link,
    links: tuple[Link, ...],
    index: int,
    words: list[set[str]],
    last_eq: Equation | None,
    approx: bool,
) -> tuple[ClaimResult | None, Equation | None]:
    """Solve a linear equation in one unknown; compare with the equation just before it."""
    names = variables(link.left.node) | variables(link.right.node)
    if len(names) != 1:
        return None, None
    var = next(iter(names))
    try:
        a1, b1 = linear(link.left.node)
        a2, b2 = linear(link.right.node)
    except (NotLinearError, EvalError):
        return None, None  # a quadratic, a product of unknowns: forget what we knew
    if a1 == a2:
        return _identity(link, var, a1, b1, b2, set().union(*words), approx), None
    if _continues(link, links) and linear(link.left.node)[0] and linear(link.right.node)[0]:
        # "P + 3 + P + 6 = 5P + 30 = 95": a chain that goes on simplifies, it solves nothing.
        return ClaimResult("skipped", link_text(link), reason="simplification"), None
    solution = (b2 - b1) / (a1 - a2)
    text = link_text(link)
    solved_form = ("var", var) in (link.left.node, link.right.node)
    value = link.right.node if link.left.node == ("var", var) else link.left.node
    if solved_form and value[0] == "fact":
        # "so x = 5! That is the answer": an exclamation, maybe, as for a number (`claims`)
        return ClaimResult("skipped", text, reason="an exclamation mark, maybe"), None
    here = Equation(
        var, solution, text, index, link.clause, not solved_form, compact(link.left.text),
        solved_form and has_ops(value) and not variables(value),
        _shifted_letter(link.left.node, link.right.node),
    )  # fmt: skip
    if last_eq is None or last_eq.var != var or index - last_eq.step > 1:
        return None, here
    if solution == last_eq.solution:
        return ClaimResult("holds", text, fmt(solution), fmt(solution)), here
    first, same = 0, last_eq.step == index
    if same:
        here_words = words[link.clause] if link.clause < len(words) else set()
        first = last_eq.clause - (0 if here_words & _SIMPLIFIES else 1)
    first = max(0, first)
    between = set().union(*words[first : link.clause + 1])
    # The words of the clauses after the last equation's, when it is in this step.
    after = set().union(*words[last_eq.clause + 1 : link.clause + 1]) if same else set()
    if same and link.clause > last_eq.clause and "and" not in after:
        # "..., and the equation becomes $-x = x + 4$, so $x = 2$": an "and" in the clause of
        # the last equation joins it to what came before; only one after it lists a second
        # value. (In one clause, "$x = -3$ gives $3x + 9 = 0$ and $x = 2$ gives $x - 2 = 0$",
        # where the words stand is not known: the "and" is kept.)
        between.discard("and")
    # Compare only "solving" moves: a worked equation followed by `x = ...`, with no word
    # around that makes the new one a case, a trial or another root.
    shown = max((leaf[2] for leaf in operands(link.right.node)), default=0)
    close = shown > 0 and abs(solution - last_eq.solution) <= Fraction(1, 10**shown)
    adjacent = same and link.clause - last_eq.clause <= 1
    # "n - 1 = 3, n + 1 = 4" (or "and"): a factor pair listed, not one line drawn from the other.
    paired = adjacent and not (words[link.clause] if link.clause < len(words) else set()) - {"and"}
    # `y = \\frac{30}{3}`, then "simplifying, y = 11": the value restated as a lone number, where
    # words say so (not "Day 1: x = 100 - 20", then "after the second day, x = 64"; not "x =
    # 3 - 4", then "since x > 0, x = 7"; not "n = 3^{27}", then "n = 87" modulo 100).
    restated = (
        last_eq.computed
        and solved_form
        and not has_ops(value)
        and any(w.startswith(_RESTATES) for w in between)
        and not between & REVISE
    )
    if (
        not (last_eq.worked or restated)
        or not (solved_form or adjacent)
        or between & NOT_DERIVED
        # "Since $x = 5$, $x + 2 = 7$. Now let $x$ be the area: $x = 12$": words after the last
        # equation that give its letter a new meaning (as at a step's start, `verifier`).
        or after & REDEFINE
        or approx
        or close
        or (here.left == last_eq.left and not restated)  # "2n-1=-1, 2n-1=1": cases listed
        or (here.shifted is not None and here.shifted == last_eq.shifted and paired)
    ):
        return ClaimResult("skipped", text, reason="not derived from the last equation"), here
    return (
        ClaimResult(
            "false",
            text,
            f"{var} = {fmt(solution)}",
            f"{var} = {fmt(last_eq.solution)}",
            f"inconsistent with `{last_eq.text}`",
        ),
        here,
    )


def unknown(link: Link) -> str | None:
    """The one unknown of an equation link (None: none, or several)."""
    names = variables(link.left.node) | variables(link.right.node)
    return next(iter(names)) if len(names) == 1 else None


def alternative_unknowns(links: tuple[Link, ...], step_words: set[str]) -> frozenset[str]:
    """The unknowns a step gives several values side by side with "or" ("x + 8 = 2 or
    x + 8 = -2", "x = 2 - 8 = -6 \\quad \\text{or} \\quad x = -2 - 8 = -10"): alternatives,
    each a case of its own. A step without "or"/"either" has none: two values of one unknown
    in a plain derivation stay a contradiction to check."""
    if not step_words & _ALTERNATIVE:
        return frozenset()
    values: dict[str, set[Fraction]] = {}
    for link in links:
        var = unknown(link)
        if var is None:
            continue
        try:
            a1, b1 = linear(link.left.node)
            a2, b2 = linear(link.right.node)
        except (NotLinearError, EvalError):
            continue
        if a1 != a2:
            values.setdefault(var, set()).add((b2 - b1) / (a1 - a2))
    return frozenset(var for var, found in values.items() if len(found) > 1)


def _identity(
    link: Link,
    var: str,
    a: Fraction,
    b1: Fraction,
    b2: Fraction,
    step_words: set[str],
    approx: bool,
) -> ClaimResult | None:
    """Same coefficient on both sides: an identity ("x + 69 - 25 = x + 44"), meant as a
    simplification, so different constants mean the simplification is wrong."""
    if b1 == b2:
        return ClaimResult("holds", link_text(link))
    if a == 0 or 0 in (b1, b2) or approx or step_words & (NO_SOLUTION_WORDS | _CASES):
        return None
    return ClaimResult(
        "false",
        link_text(link),
        f"{fmt(b2)} besides {fmt(a)}{var}",
        f"{fmt(b1)} besides {fmt(a)}{var}",
        "the simplification changes the constant",
    )


def _continues(link: Link, links: tuple[Link, ...]) -> bool:
    at = links.index(link)
    return (
        at + 1 < len(links)
        and links[at + 1].clause == link.clause
        and links[at + 1].left == link.right
    )


def _shifted_letter(left, right) -> int | None:
    """The sign of the unknown in an equation whose one side is the unknown plus or minus a
    number and whose other side is a number (`n - 1 = 3`: 1; `3 - n = 2`: -1), else None:
    two such lines side by side with different sides (`n - 1 = 3`, `n + 1 = 4`) list a factor
    pair as readily as one is drawn from the other, and are not compared."""
    for side, other in ((left, right), (right, left)):
        if other[0] != "num" or side[0] not in "+-" or len(side) != 3:
            continue
        kinds = (side[1][0], side[2][0])
        if kinds == ("var", "num"):
            return 1
        if kinds == ("num", "var"):
            return 1 if side[0] == "+" else -1
    return None
