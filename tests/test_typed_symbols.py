"""Characters typed for math spelled the way the readers read them (`typed_symbols`)."""

import pytest

from verifiers.calculator.typed_symbols import typed_symbols

SPELLED = [
    ("√2 * 5 = 7.07", "\\sqrt{2} * 5 = 7.07"),
    ("3√3", "3\\sqrt{3}"),
    ("√ x = 3", "\\sqrt{x} = 3"),
    ("√((2 + 3)² + 1)", "\\sqrt{(2 + 3)² + 1}"),
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
    ("5 cm² and 2³", "5 cm² and 2³"),  # a lone square or cube: the readers know it
    ("2¹²", "2^{12}"),
    ("x₁ + x₂₃", "x_{1} + x_{23}"),
    ("no symbols here: 3 + 4 = 7", "no symbols here: 3 + 4 = 7"),
]


@pytest.mark.parametrize("typed, spelled", SPELLED)
def test_each_character_is_spelled_out(typed, spelled):
    assert typed_symbols(typed) == spelled
