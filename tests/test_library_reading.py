"""The second reader (`latex2sympy2_extended`, which confirms a False) is entered at its
expression rule with SLL prediction for speed: what it reads must be what the library reads
from its top rule, the usual way, member for member."""

import pytest
import sympy
from latex2sympy2_extended import latex2sympy

from verifiers.calculator import readers

MEMBERS = [
    "x^2 - 2x - 7",  # SLL reports a syntax error here: read again from the top
    "(x - 7)(x + 5)",
    "\\frac{72x - 72}{x^2 + 4x}",
    "2\\sqrt{(3x^2 - 8x + 1)\\cdot (9x^2 - 24x - 8)}",
    "\\sin^2 \\theta + \\cos^2 \\theta",
    "\\log_2 8 + \\log_2 4",
    "\\binom{7}{3}",
    "\\sum_{k=1}^{10} k",
    "-\\frac{b}{2a}",
    "\\left(\\frac{1}{2}\\right)^{3}",
    "a_{14} + 3",
    "\\infty",
    "\\int_0^1 x dx",
    # What may be other than one expression goes through the top rule as before.
    "1,000",
    "\\{2, 6\\}",
    "(1, 2]",
    "3 \\pm \\sqrt{5}",
    "{{462+40\\pi}\\over3}",
    "\\mathbb{R}",
    "x \\in \\{1\\}",
    "2 \\le x",
    "\\log_2\\cdot (\\log_8 x)",  # read by neither
    # Read in part by the expression rule, which then stops: not one expression.
    "x \\to 3",
    "3 ) + 2",
    "a | b",
]


@pytest.mark.parametrize("member", MEMBERS)
def test_expression_entry_reads_as_the_top_rule(member):
    norm, conv = readers._config()
    try:
        usual = latex2sympy(member, normalization_config=norm, conversion_config=conv)
    except Exception:
        usual = None
    try:
        ours = readers._library_parse(member, norm, conv)
    except Exception:
        ours = None
    assert (None if ours is None else sympy.srepr(ours)) == (
        None if usual is None else sympy.srepr(usual)
    )


def test_set_like_members_are_left_to_the_top_rule():
    found = readers._NOT_ONE_EXPRESSION.search
    for member in ("1,000", "\\{2\\}", "3 \\pm 1", "x \\in S", "a \\leq b", "{a}+1"):
        assert found(member), member
    for member in ("\\left(x\\right)", "\\infty", "\\int x", "\\neg x", "\\frac{1}{2}"):
        assert not found(member), member
