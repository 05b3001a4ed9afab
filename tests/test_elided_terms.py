"""Sums and products with their middle terms left out (`1 + 2 + \\cdots + 10`): which ones are
written out with bounds, which are left unread, and a rewrite of one into another left
unjudged (pure logic, with the calculator's check for the last)."""

import pytest
import sympy

from verifiers.calculator.elided_terms import spelled_out
from verifiers.calculator.readers import readings


@pytest.mark.parametrize(
    ("member", "value"),
    [
        (r"1 + 2 + \cdots + 10", 55),
        (r"1 + 2 + \ldots + 10", 55),  # the library alone reads `\ldots` as nothing: 13
        ("24 + 23 + ... + 1", 300),
        (r"1 + 3 + 5 + \dots + 99", 2500),
        (r"1 + 2 + \cdots + 99 + 100", 5050),
        (r"3 + 6 + 9 + \cdots + 99", 1683),  # a third term settles a step of three
        (r"1^2 + 2^2 + \cdots + 10^2", 385),
        (r"\frac{1}{1 \cdot 2} + \frac{1}{2 \cdot 3} + \cdots + \frac{1}{9 \cdot 10}", "9/10"),
        (r"1 \cdot 2 + 2 \cdot 3 + \cdots + 9 \cdot 10", 330),  # a sum of products
        (r"2 \cdot 4 \cdot 6 \cdot \cdots \cdot 10", 3840),
        (r"2\left(1 + 2 + \cdots + 199\right) - 1", 39799),
        (r"\frac{1 + 2 + \cdots + 10}{5}", 11),
        (r"2^{0} + 2^{1} + \cdots + 2^{9}", 1023),
        (r"1 + 2 + 3 + \cdots + 2014 + 2015", 2031120),  # a long one, in closed form
        (r"1 + 2 + 4 + \cdots + 512", 1023),  # a ratio, settled by a third term
        (r"2 + 4 + \cdots + 64 + 128", 254),  # or by a second term after the dots
        (r"64 + 32 + 16 + \cdots + 1", 127),
        (r"\frac{1}{2} + \frac{1}{4} + \frac{1}{8} + \cdots + \frac{1}{1024}", "1023/1024"),
    ],
)
def test_an_elided_progression_is_read_by_both_readers(member, value):
    expected = sympy.Rational(value)
    assert readings(member) == [expected]
    assert readings(member, library=True) == [expected]


@pytest.mark.parametrize(
    "member",
    [
        r"1 + 2 + \cdots + 64",  # doubling reaches 64 as well
        r"\frac{1}{2} + \frac{1}{4} + \cdots + \frac{1}{1024}",  # halving, or a step of two
        r"2 + 4 + \cdots + 100",  # two terms and a step of two: the pattern is a guess
        r"1 + 4 + 9 + \cdots + 100",  # squares written as numbers: no constant step
        r"2 + 3 + 5 + 7 + \cdots + 97",  # primes
        r"1 + 1 + 2 + 3 + \cdots + 55",  # Fibonacci numbers
        r"1 - 2 + 3 - 4 + \cdots + 99",  # alternating signs
        r"1 + 2 + \cdots + n",  # a bound in letters
        r"x_1 + x_2 + \cdots + x_{10}",  # steps in subscripts name terms, they are no numbers
        r"1 + 2 + \cdots",  # nothing after the dots
        r"1 + \cdots + 10",  # one term before them
        r"a_1 a_2 \cdots a_k",
        r"\frac12 + \frac13 + \cdots + \frac19",  # where a numeral ends is not written
        r"1 + 2 + 4 + \cdots + 10",  # the written terms keep no one step, nor one ratio
        r"1 + 3 + 9 + \cdots + 100",  # the ratio never reaches the last term
        r"1 + 2 + 3 + \cdots + 2",  # the last term comes before the dots
        r"1 + 2 + \cdots + 10 + 12",  # the terms after the dots keep another step
        r"1 + 2 + \cdots + 10 + (1 + 2 + \cdots)",
    ],
)
def test_an_elision_that_leaves_no_one_progression_is_not_read(member):
    assert readings(member) == []


def test_a_numeral_too_long_to_step_is_not_read():
    big = "9" * 5000  # past the digits Python converts at all
    assert readings(f"{big} + {big}1 + \\cdots + {big}9") == []


def test_a_member_without_dots_is_left_as_written():
    assert spelled_out(r"\frac{1}{2} + x") == r"\frac{1}{2} + x"


def test_the_index_letter_is_one_the_member_does_not_use():
    written = spelled_out(r"k + (1 + 2 + \cdots + 10)")
    assert written is not None and "_{j=0}" in written
    k = sympy.Symbol("k")
    assert readings(r"k + (1 + 2 + \cdots + 10)") == [k + 55]


def test_one_elided_sum_rewritten_as_another_is_not_judged():
    from verifiers.calculator.verifier import CalculatorVerifier

    # The writer takes 1/2 out and copies the last terms over as they stand (the right side
    # should stop at 2^9): humans read the step as right; which ends the dots keep is loose.
    step = (
        r"We rewrite: \(\frac{1}{2^{1}}+\frac{1}{2^{2}}+\cdots+\frac{1}{2^{10}}"
        r"=\frac{1}{2}\left(\frac{1}{2^{0}}+\frac{1}{2^{1}}+\cdots+\frac{1}{2^{10}}\right)\)."
    )
    slip = r"Then \(\frac{1}{2^{1}}+\frac{1}{2^{2}}+\cdots+\frac{1}{2^{10}} = 2\)."
    calc = CalculatorVerifier(timeout_s=5.0)
    try:
        rewrite, against_a_number = calc.check_steps([step, slip], "Sum it.")
    finally:
        calc.close()
    assert rewrite.status != "incorrect"
    assert against_a_number.status == "incorrect"


def test_a_total_too_large_to_print_is_still_judged():
    from verifiers.calculator.verifier import CalculatorVerifier

    calc = CalculatorVerifier(timeout_s=5.0)
    try:
        (verdict,) = calc.check_steps([r"So $2 \cdot 3 \cdot \cdots \cdot 2000 = 5$."], "Multiply.")
    finally:
        calc.close()
    # 2000! has 5,736 digits: its evidence shows it in floating point, not a printing error
    assert verdict.status == "incorrect" and "e+5735" in verdict.evidence
