"""TeX's shorthand arguments written out in braces (`tex_shorthand`); decimals without a
leading zero given one, slanted orders and `\\operatorname{gcd}` their commands (`one_spelling`)."""

import pytest

from verifiers.calculator.context import one_spelling
from verifiers.calculator.tex_shorthand import tex_shorthand

BRACED = [
    (r"\frac12", r"\frac{1}{2}"),
    (r"\frac12x", r"\frac{1}{2}x"),  # a letter cannot join a digit's argument
    (r"\frac1{10}", r"\frac{1}{10}"),
    (r"\frac{1}2 + 1", r"\frac{1}{2} + 1"),
    (r"\frac ab", r"\frac{a}{b}"),
    (r"\tfrac 1 2", r"\tfrac{1}{2}"),
    (r"\dfrac59 < \frac{26}{41}", r"\dfrac{5}{9} < \frac{26}{41}"),
    (r"\frac\pi4", r"\frac{\pi}{4}"),
    (r"\sqrt\pi", r"\sqrt{\pi}"),
    (r"\sqrt2", r"\sqrt{2}"),
    (r"\sqrt[3]2", r"\sqrt[3]{2}"),
    (r"\binom52", r"\binom{5}{2}"),
    (r"\frac{\sqrt2}3", r"\frac{\sqrt{2}}{3}"),  # one nested in another
    (r"\frac{1}{\sqrt3}", r"\frac{1}{\sqrt{3}}"),
    (r"\cfrac{1}{1 + \cfrac{1}{2}}", r"\frac{1}{1 + \frac{1}{2}}"),
    (r"\cfrac[l]{1}{2}", r"\frac{1}{2}"),
]

KEPT = [
    r"\frac{1}{2}",  # nothing to write out
    r"\frac123",  # 1/2 then 3, or 1/23? The next digit would have joined the argument
    r"\sqrt23",
    r"\frac abc",
    r"\frac-12",  # an operator is no argument
    r"\frac\sqrt{2}2",  # nor is a command that takes arguments of its own
    r"\frac {1}{2",  # a brace never closed
    r"\fraction12",  # another command
]


@pytest.mark.parametrize(("text", "braced"), BRACED)
def test_shorthand_arguments_are_braced(text, braced):
    assert tex_shorthand(text) == braced


@pytest.mark.parametrize("text", KEPT)
def test_what_cannot_be_read_whole_is_left_as_written(text):
    assert tex_shorthand(text) == text


@pytest.mark.parametrize(
    ("text", "spelled"),
    [
        ("He pays .5 * 4", "He pays 0.5 * 4"),
        (r"\(- .7(1 - 2y)\)", r"\(- 0.7(1 - 2y)\)"),
        ("costs $.50 each", "costs $0.50 each"),
        ("(.25)", "(0.25)"),
    ],
)
def test_a_decimal_without_its_leading_zero_is_given_one(text, spelled):
    assert one_spelling(text) == spelled


@pytest.mark.parametrize("text", ["x.5", "1.5.3", "version 2.5", "it ends. 5 more", "...5"])
def test_a_point_after_a_word_or_a_digit_is_no_decimal(text):
    assert one_spelling(text) == text


@pytest.mark.parametrize(
    ("text", "spelled"),
    [
        (r"\(x \leqslant 5 \geqslant y \leqq z\)", r"\(x \le 5 \ge y \le z\)"),
        (r"\(\operatorname{gcd}(12, 18)\)", r"\(\gcd(12, 18)\)"),
        (r"\(\operatorname{sin}x\)", r"\(\sin x\)"),  # a space where the name would join
        (r"\(\operatorname*{max}(1, 2)\)", r"\(\max(1, 2)\)"),
        (r"\(\operatorname{lcm}(4, 6)\)", r"\(\operatorname{lcm}(4, 6)\)"),  # LaTeX has no \lcm
    ],
)
def test_slanted_orders_and_named_operators_are_their_commands(text, spelled):
    assert one_spelling(text) == spelled
