"""Factorials and binomials of letters: read, compared at whole-number points only, judged
by the calculator's rules for identities (pure logic; the calculator runs in its worker)."""

import pytest
import sympy

from verifiers.calculator.counting import INTEGER_POINTS, counted, counts_at
from verifiers.calculator.latex_math import ParseError, read_member
from verifiers.calculator.relations import admissible
from verifiers.calculator.symbolic import compare_identity
from verifiers.calculator.verifier import CalculatorVerifier

n, k = sympy.symbols("n k")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (r"\binom{n}{k}", sympy.binomial(n, k)),
        (r"\binom{2n + 1}{n - 1}", sympy.binomial(2 * n + 1, n - 1)),
        (r"\binom{10^9}{k - 1}", sympy.binomial(10**9, k - 1)),
        (r"(n+1)!", sympy.factorial(n + 1)),
        (r"n \cdot n!", n * sympy.factorial(n)),
        (
            r"\frac{n!}{k!(n-k)!}",
            sympy.factorial(n) / (sympy.factorial(k) * sympy.factorial(n - k)),
        ),
    ],
)
def test_a_count_of_letters_is_read(text, value):
    assert read_member(text) == value


@pytest.mark.parametrize(
    "text",
    [
        r"\binom{n}{k^2}",  # an argument of the second degree
        r"(n/2)!",  # a fraction of a letter
        r"\binom{n}{1.5}",  # a bottom that is no whole number
        r"(x^2)!",
    ],
)
def test_a_count_of_anything_else_is_not_read(text):
    with pytest.raises(ParseError):
        read_member(text)


@pytest.mark.parametrize(
    ("member", "readable"),
    [("n!", True), (r"k! \cdot k!", True), ("(n-k)!", True), ("x !", False), ("ab!", False)],
)
def test_a_bang_is_a_factorial_only_against_a_number_a_bracket_or_a_lone_letter(member, readable):
    assert admissible(member) is readable


def test_whole_number_points_where_every_count_counts():
    atoms = counted(read_member(r"\binom{n}{k} + (n - 2k)!"))
    points = [(sympy.Integer(int(row[0])), sympy.Integer(int(row[1]))) for row in INTEGER_POINTS]
    valid = [row for row in points if counts_at(atoms, {k: row[0], n: row[1]})]
    # the point must put the bottom under the top and leave n - 2k at 0 or more
    assert valid and all(row[0] <= row[1] and row[1] - 2 * row[0] >= 0 for row in valid)
    assert len(valid) < len(points)


@pytest.mark.parametrize(
    ("left", "right", "verdict"),
    [
        (r"\binom{n}{k}", r"\frac{n!}{k!(n-k)!}", "holds"),
        (r"\binom{n}{k}", r"\binom{n}{n-k}", "holds"),
        (r"\binom{n-1}{k-1} + \binom{n-1}{k}", r"\binom{n}{k}", "holds"),
        (r"\binom{10^9}{k}", r"\frac{10^9 - k + 1}{k}\binom{10^9}{k-1}", "holds"),
        (r"\binom{n}{2}", r"\frac{n(n+1)}{2}", "false"),
        (r"(n+1)!", r"n \cdot n!", "false"),
        # equal where k = (n - 1) / 2 and nowhere else: the points say nothing
        (r"\binom{n}{k}", r"\binom{n-1}{k} + \binom{n-1}{k+1}", "mixed"),
    ],
)
def test_counts_are_compared_at_whole_number_points(left, right, verdict):
    assert compare_identity(read_member(left), read_member(right))[0] == verdict


@pytest.fixture(scope="module")
def calc():
    verifier = CalculatorVerifier(timeout_s=10.0)
    yield verifier
    verifier.close()


def test_a_large_binomial_slip_says_how_far_apart_its_sides_are(calc):
    step = (r"Using the property \( \binom{10^9}{k} = \frac{10^9}{k} \binom{10^9}{k - 1} \), "
            "the terms grow while $k$ is small.")  # fmt: skip
    (verdict,) = calc.check_steps([step], "Find the least k.")
    assert verdict.status.value == "incorrect"
    # the two sides agree in their first six digits at every point: the evidence says by how much
    assert "apart" in verdict.evidence


@pytest.mark.parametrize(
    "step",
    [
        # a combinatorial equation to solve, not an identity: never judged as one
        r"We need $\binom{n}{3} = 4\binom{n}{2}$, so $n = 14$.",
        r"Since $(n+1)! = n \cdot n!$, we have a contradiction, so no such $n$ exists.",
        r"Then $\binom{n}{2} = n(n-1) = 90$, so $n = 10$.",
    ],
)
def test_an_equation_between_counts_is_no_claimed_identity(calc, step):
    (verdict,) = calc.check_steps([step], "Find n.")
    assert verdict.status.value != "incorrect", verdict.evidence
