"""Values a step gives one after another, each judged against what gave it.

The checks that read a run of clauses as values judged against an equation written just before
them (or, for roots named, right after), apart from the links of any chain: back-substitution
(`back_substitution`), values a supposed equation gives (`supposed_values`), values read off
an equation at a given value (`evaluated_values`), the two values of a `\\pm` written out
(`signed_values`), values said to be the roots of the equation named after them
(`roots_named`), bare values said to be the roots of the one before or after (`listed_roots`),
and the sum or product of an equation's roots stated as a number (`root_sums`).
"""

from __future__ import annotations

from verifiers.calculator.back_substitution import back_substituted
from verifiers.calculator.evaluated_values import evaluated_values
from verifiers.calculator.listed_roots import listed_roots
from verifiers.calculator.root_sums import root_sums
from verifiers.calculator.roots_named import roots_named
from verifiers.calculator.signed_values import signed_values
from verifiers.calculator.supposed_values import supposed_values

__all__ = ["value_claims"]


def value_claims(clauses: list, defs: dict, known: list, ended: list) -> list:
    """(outcome, members to confirm) for every value these checks find false. `known`: the
    equations written before the step (letters given expressions too); `ended`: the step
    before's last relation, last condition and last unknown given an expression, each as
    (members, ops), members () where there is none."""
    return (
        back_substituted(clauses, defs)
        + supposed_values(clauses, defs)
        + evaluated_values(clauses, defs, known, ended)
        + signed_values(clauses, defs, ended[0] if ended[0][0] else ())
        + roots_named(clauses, defs)
        + listed_roots(clauses, defs, known)
        + root_sums(clauses, defs, known)
    )
