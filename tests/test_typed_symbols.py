"""Characters typed for math spelled the way the readers read them (`typed_symbols`), and
what the lexer does with a symbol nobody spelled."""

import pytest

from verifiers.calculator.context import one_spelling
from verifiers.calculator.tokens import tokenize
from verifiers.calculator.typed_symbols import typed_symbols

SPELLED = [
    ("√2 * 5 = 7.07", "\\sqrt{2} * 5 = 7.07"),
    ("3√3", "3\\sqrt{3}"),
    ("√ x = 3", "\\sqrt{x} = 3"),
    ("√((2 + 3)² + 1)", "\\sqrt{(2 + 3)^2 + 1}"),
    ("∛27 × 2", "\\sqrt[3]{27} × 2"),
    ("∜16", "\\sqrt[4]{16}"),
    ("√\\frac{1}{4}", "\\sqrt \\frac{1}{4}"),  # no operand it can be sure of: a bare command
    ("√(1 + (2)", "\\sqrt (1 + (2)"),  # a bracket never closed
    ("1⁄2 × 10", "1/2 × 10"),
    ("10 ∕ 2", "10 / 2"),
    ("3 ∗ 4", "3 * 4"),
    ("½ × 10", "(1/2) × 10"),
    ("⅓ of 9", "(1/3) of 9"),
    ("2½ × 2", "(2+1/2) × 2"),
    ("x = 2 ½", "x = (2+1/2)"),
    ("3.5½", "3.5…"),
    ("2¹⁰", "2^{10}"),
    ("10⁻¹", "10^{-1}"),
    ("5 cm² and 2³", "5 cm^2 and 2^3"),
    ("2¹²", "2^{12}"),
    ("x₁ + x₂₃", "x_{1} + x_{23}"),
    ("no symbols here: 3 + 4 = 7", "no symbols here: 3 + 4 = 7"),
    # inside LaTeX only: the dot operators and Greek letters (a space only where the name
    # would join what follows)
    ("\\(2 ⋅ 3 ∙ x\\)", "\\(2 \\cdot  3 \\cdot  x\\)"),
    ("\\(2πr + θ_1 + αβ\\)", "\\(2\\pi r + \\theta_1 + \\alpha \\beta\\)"),
    ("π is about 3.14", "π is about 3.14"),
]


@pytest.mark.parametrize("typed, spelled", SPELLED)
def test_each_character_is_spelled_out(typed, spelled):
    assert typed_symbols(typed) == spelled


@pytest.mark.parametrize("typed", ["‐3 + 5", "‑3 + 5", "‒3 + 5", "﹣3 + 5", "－3 + 5", "−3 + 5"])
def test_every_minus_form_is_a_minus(typed):
    assert one_spelling(typed) == "-3 + 5"


@pytest.mark.parametrize(
    "text, opens_fragment",
    [
        ("∠45 + 45 = 90", True),  # an operator the lexer does not know, glued to a number
        ("∑2 + 3 = 5", True),
        ("€150 × 2 = 300", False),  # a currency sign prefixes an amount
        ("≤15 + 2", False),  # a relation ends a clause as punctuation does
        ("∠ A + 45 = 90", False),  # not glued to what follows
    ],
)
def test_an_unknown_operator_taints_what_it_acts_on(text, opens_fragment):
    first = tokenize(text)[0]
    assert (first[0].kind == "frag") == opens_fragment, first
