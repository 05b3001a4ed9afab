"""`ideals.follows`: whether an equation lies in the ideal its conditions generate, and the
cheap "no" found by putting numbers in for some unknowns before the whole basis is computed.
Pure logic (sympy in-process); the calculator's tests run it inside the worker."""

from __future__ import annotations

import random

import sympy

from verifiers.calculator.ideals import _refuted, follows

a, b, c, x, y, z = sympy.symbols("a b c x y z")


def test_a_combination_of_the_conditions_follows():
    conditions = [x + y - 10, x - y - 4]
    assert follows(2 * x - 14, conditions)
    assert follows(x**2 - y**2 - 40, conditions)  # (x + y)(x - y)
    assert not follows(x - 6, [x * y - 6])


def test_a_substitution_in_more_unknowns_than_conditions_follows():
    # "x^2 + y^2 = 4(x + y)", then "x^3 + y^3 = (x + y)(4(x + y) - xy)": a substitution.
    condition = x**2 + y**2 - 4 * (x + y)
    claim = x**3 + y**3 - (x + y) * (4 * (x + y) - x * y)
    assert follows(claim, [condition])
    assert not _refuted(sympy.expand(claim), [condition], [x, y])


def test_no_combination_of_the_conditions_is_ever_refuted():
    # Substitution keeps a combination h1 p1 + h2 p2 one: whatever numbers are put in, the
    # cheap test must never say no to it (it would flag a right step).
    rng = random.Random(7)
    names = [a, b, c, x]

    def poly(degree: int):
        terms = [
            rng.randint(-5, 5) * sympy.Mul(*[s ** rng.randint(0, degree) for s in names])
            for _ in range(4)
        ]
        return sympy.expand(sum(terms))

    for k in range(25):
        polys = [poly(3), poly(3)]
        target = sympy.expand(poly(2) * polys[0] + poly(2) * polys[1])
        assert not _refuted(target, polys, names)
        if k < 2:  # the whole basis agrees (it takes seconds each)
            assert follows(target, polys)


def test_a_false_simplification_is_refuted_without_the_whole_basis():
    # A chain's wrong expansion of f(f(x)) + f(x) = 6x for a quadratic f, against the
    # equation it came from and the one written before it: two conditions of degree 7 in
    # four unknowns, whose whole basis took 4 to 7 s of CPU (a step at its time limit, a
    # False on some runs and a timeout on others). With two unknowns fixed it is a basis in
    # two, and the answer is a proof, the same every run.
    f = a * x**2 + b * x + c
    first = sympy.expand(a * f**2 + b * f + c + f - 6 * x)
    written = sympy.expand(
        a**3 * x**4 + 2 * a**2 * b * x**3 + (2 * a * c + b**2) * a * x**2
        + (a * b + 2 * c) * b * x + a * c + b * c + c + a * x**2 + b * x + c - 6 * x
    )  # fmt: skip
    claim = sympy.expand(
        a**3 * x**4 + (2 * a**2 * b + 2 * a + 2 * c + 6) * x**3
        + (2 * a * c + a * b + 2 * b + 6 * a + 6 * b + 6) * c
    )  # fmt: skip
    assert _refuted(claim, [first, written], [a, b, c, x])
    assert not follows(claim, [first, written])


def test_as_many_conditions_as_unknowns_leave_the_whole_basis_to_decide():
    # Nothing is fixed then (the smaller ideal would be everything): the basis decides.
    assert not _refuted(x - 3, [x - 2, y - 3], [x, y])
    assert not follows(x - 3, [x - 2, y - 3])
    assert follows(x + y - 5, [x - 2, y - 3])
