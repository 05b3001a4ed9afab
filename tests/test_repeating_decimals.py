"""Repeating decimals with a bar read as the fractions they are (`repeating_decimals`)."""

import pytest

from verifiers.calculator.repeating_decimals import repeating_decimals


@pytest.mark.parametrize(
    ("text", "spelled"),
    [
        ("$0.\\overline{3}$", "$\\frac{1}{3}$"),
        ("$0.0\\overline{57}$", "$\\frac{19}{330}$"),
        ("$1.2\\overline{3} = x$", "$\\frac{37}{30} = x$"),
        ("$27.\\overline{857142}$", "$\\frac{195}{7}$"),
        ("$0.\\overline{9} = 1$", "$1 = 1$"),
        ("$-0.\\bar{6}$", "$-\\frac{2}{3}$"),
        ("$2 \\cdot 0.\\overline{ 45 }$", "$2 \\cdot \\frac{5}{11}$"),
    ],
)
def test_barred_periods_become_fractions(text, spelled):
    assert repeating_decimals(text) == spelled


@pytest.mark.parametrize(
    "text",
    [
        "$\\overline{37} = 37$",  # a bar over a whole number: a digit string
        "$\\overline{ab} = 10a + b$",  # over letters: digits or a segment
        "$\\overline{AB} \\parallel \\overline{CD}$",
        "$0.\\overline{3}3$",  # a digit after the bar: not a period as written
        "$0.\\dot{1}4\\dot{2}$",  # dots over a period's ends: another convention
        "$0.\\overline{x}$",
        "$v.\\overline{3}$",  # no number before the point
    ],
)
def test_other_bars_stay_as_written(text):
    assert repeating_decimals(text) == text
