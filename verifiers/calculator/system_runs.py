"""A system's values given after equations the step drew from it.

"Adding the equations gives $2x = 14$, so $x = 7$, $y = 4$.": the values come after words
that say solving gave them (or with no words before the first: "$2x = 14$, $x = 7$, so $y =
4$"), joined by "and", "so" or "then", one value per unknown, and every equation the step
wrote before them holds at the system's one solution, so they answer the system, not another
question (`solutions._opened_system` puts them back into it). No run where a trial or a case
opened in the step, or where an equation before the values holds another unknown or misses
the solution (then what the values answer is not sure).
"""

from __future__ import annotations

from verifiers.calculator.claim_words import SOLVES, word_set

__all__ = ["derived_run"]

# Words that may join the values of one run: "x = 3 and y = 2", "x = 3, so y = 2", "x = 3.
# Then y = 2". The run stops at one value per unknown.
_JOINS = frozenset("and so then hence thus therefore".split())


def derived_run(step, point: dict, sides: list) -> list:
    """The values after words that say solving gave them, where every equation the step wrote
    before them holds at the system's one solution `point` (see the module docstring).
    `sides`: the step's equations in order, each as (its clause, one expression equal to zero,
    or None where it was not read)."""
    for k, a in enumerate(step.assignments):
        if a.tried or step.barriers:
            continue
        # "Adding, $2x = 6$, $x = 3$, so $y = 1$": a value with no words before it, after
        # equations that hold at the solution, opens a run as words that say solving do.
        if word_set(a.before) and not SOLVES.search(a.before.lower()):
            continue
        drawn = [e for clause, e in sides if clause < a.clause]
        if not drawn or any(e is None or e.free_symbols - set(point) for e in drawn):
            return []
        if any(e.xreplace(point) != 0 for e in drawn):
            return []
        run = [a]
        for b in step.assignments[k + 1 : k + len(point)]:
            if b.clause != run[-1].clause + 1 or not word_set(b.before) <= _JOINS:
                break
            run.append(b)
        return run
    return []
