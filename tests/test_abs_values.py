"""Absolute values in the symbolic checks (pure logic): an equation's roots found sign case by
sign case, and identities with bars tried on every piece of the line, never read as a
constant difference from one piece."""

import pytest
import sympy

from verifiers.calculator.symbolic import compare_identity, roots_of

x = sympy.Symbol("x")


@pytest.mark.parametrize(
    ("expr", "roots"),
    [
        (sympy.Abs(2 * x - 3) - 5, {-1, 4}),
        (sympy.Abs(x - 1) - sympy.Abs(2 * x + 4), {-5, -1}),
        (sympy.Abs(x - 4) - 2 * x, {sympy.Rational(4, 3)}),  # x - 4 = 2x gives -4: its sign fails
        (sympy.Abs(x**2 - 4) - 5, {-3, 3}),  # x^2 = -1 has no real root
        (sympy.Abs(x + 2), {-2}),
        (sympy.Abs(x) + 1, set()),
    ],
)
def test_roots_of_an_equation_with_bars(expr, roots):
    assert roots_of(expr, x) == frozenset(roots)


@pytest.mark.parametrize(
    "expr",
    [
        sympy.Abs(x - 1) + sympy.Abs(x - 2) - 1,  # holds on all of [1, 2]
        sympy.Abs(x) - x,  # holds on a half-line
        sympy.Abs(sympy.Abs(x) - 1) - 2,  # bars inside bars
    ],
)
def test_no_roots_where_they_are_not_a_finite_set_read(expr):
    assert roots_of(expr, x) is None


def test_an_identity_with_bars_is_tried_past_every_turning_point():
    # True on x < 20, where every usual point lies: not an identity.
    assert compare_identity(sympy.Abs(x - 20), 20 - x)[0] != "holds"
    assert compare_identity(sympy.Abs(2 * x - 6), 2 * sympy.Abs(x - 3))[0] == "holds"


def test_equal_differences_on_one_piece_are_no_constant():
    # 2 below 18, -2 above 20: no constant difference, so no claim "they differ by 2".
    verdict, constant, _ = compare_identity(sympy.Abs(x - 20), sympy.Abs(x - 18))
    assert constant is None and verdict != "holds"
