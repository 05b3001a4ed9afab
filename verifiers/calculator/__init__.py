"""The `calc` label source: exact checks of the arithmetic and algebra each step writes.

Numbers: `normalize` (LaTeX and markdown to plain arithmetic), `tokens` (clauses of tokens),
`parse` (expression trees), `extract` (the `a = b` links of a step), `evaluate` (exact values;
sympy in a killable child), `claims` (one link judged, with the readings that excuse a
mismatch), `context` (cut expressions, defined operations, the scale, modulus or base a step
names), `named` (a named result restated), `excuses` (what the step's own text says about a
false link), `approximations` (roundings a step states or announces), `linear_equations` (one
unknown, step to step). Symbols: `relations` (the reader of written LaTeX relations),
`latex_math` (a member to sympy; `written_sums` its sums and products, `elided_terms` the
ones written with dots), `claim_words` and `claims_kind` (what a relation claims, the
abstention rules), `identities` (with `forms`, the shapes of its sides), `derivations` (an
equation against the one it is drawn from), `rewritten_sides` (a side rewritten in place),
`solutions` (claimed solutions), `inequalities` (linear inequalities solved step by step),
`symbolic` (evaluation), `chain_algebra` (a chain's conditions, in the worker). `verifier`:
the source.
"""

from verifiers.calculator.verifier import CalcConfig, CalculatorVerifier

__all__ = ["CalcConfig", "CalculatorVerifier"]
