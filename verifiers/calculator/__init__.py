"""The `calc` label source: exact checks of the arithmetic each step claims.

One module per stage: `normalize` (LaTeX and markdown to plain arithmetic), `tokens`
(clauses of tokens), `parse` (expression trees), `extract` (the `a = b` links of a step),
`evaluate` (exact values; sympy in a killable child), `claims` (one link judged, with the
readings that excuse a mismatch), `context` (cut expressions, defined operations, the scale,
modulus or base a step names), `named` (a named result restated), `excuses` (what the step's
own text says about a false link: a tested equation, a stage, a congruence, a slip it
recovers from), `approximations` (roundings a step states or announces), `verifier` (the
source).
"""

from verifiers.calculator.verifier import CalcConfig, CalculatorVerifier

__all__ = ["CalcConfig", "CalculatorVerifier"]
