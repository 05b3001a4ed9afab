"""The bound behind "rounding carried from an earlier value" (`carried_rounding`).

Its promise is an outer bound: whatever value each shown number stood for (less than a unit
of its last digit away; the problem's numbers exact), the computed side lies inside. A bound
too tight would turn a carried rounding into a false False, so the property is checked on
random trees with random values behind their numbers, exactly.
"""

from fractions import Fraction

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.tiers import examples
from verifiers.calculator.carried_rounding import _bounds, exact_given, may_carry
from verifiers.calculator.evaluate import EvalError, exact

# A shown number: its value and decimals; and where in (-unit, unit) the value it stood for is.
_leaf = st.tuples(
    st.one_of(st.integers(-3, 3), st.integers(-5000, 5000)),  # near zero too: signs may cross
    st.integers(0, 3),
    st.fractions(Fraction(-99, 100), Fraction(99, 100)),
)


def _tree(draw, depth):
    if depth == 0 or draw(st.booleans()):
        digits, shown, offset = draw(_leaf)
        value = Fraction(digits, 10**shown)
        behind = value + offset / 10**shown
        return ("num", value, shown), ("num", behind, shown)
    kind = draw(st.sampled_from(["+", "-", "*", "/", "^", "neg", "sqrt"]))
    if kind == "neg":
        a, b = _tree(draw, depth - 1)
        return ("neg", a), ("neg", b)
    if kind == "sqrt":
        digits, shown, offset = draw(_leaf)
        value = Fraction(abs(digits) + 1, 10**shown)  # a square root of a positive number
        behind = value + abs(offset) / 10**shown
        return ("sqrt", ("num", value, shown)), ("sqrt", ("num", behind, shown))
    if kind == "^":
        a, b = _tree(draw, depth - 1)
        e = ("num", Fraction(draw(st.integers(-3, 4))), 0)
        return ("^", a, e), ("^", b, e)
    (a, b), (c, d) = _tree(draw, depth - 1), _tree(draw, depth - 1)
    return (kind, a, c), (kind, b, d)


@st.composite
def shown_and_behind(draw):
    return _tree(draw, 3)


def _pair(kind, value, behind, *rest):
    return (kind, ("num", value, 1), *rest), (kind, ("num", behind, 1), *rest)


_TWO = ("num", Fraction(2), 0)


@settings(max_examples=examples(2000), deadline=None)
@given(shown_and_behind())
@example(_pair("^", Fraction(0), Fraction(1, 20), _TWO))  # 0.0 stood for 0.05: squared 0.0025
@example(_pair("neg", Fraction(3, 2), Fraction(31, 20)))
@example(_pair("^", Fraction(3, 2), Fraction(29, 20), ("num", Fraction(-2), 0)))
@example(_pair("sqrt", Fraction(2), Fraction(41, 20)))
def test_the_value_behind_the_numbers_shown_lies_within_the_bound(pair):
    shown, behind = pair
    bounds = _bounds(shown, frozenset())
    try:
        value = exact(behind)
    except (EvalError, ZeroDivisionError):
        return  # no value behind (a division by zero there): nothing to bound
    if bounds is None:
        return
    lo, hi = bounds
    assert lo <= value <= hi


def test_the_problems_numbers_are_exact_and_so_are_a_percents_factors():
    given_ = exact_given(frozenset({Fraction(15), Fraction(120)}))
    assert {Fraction(15, 100), Fraction(85, 100), Fraction(115, 100), Fraction(120)} <= given_
    node = ("*", ("num", Fraction(85, 100), 2), ("num", Fraction(120), 0))
    assert not may_carry(node, Fraction(101), 0, given_)  # exactly 102
    assert may_carry(node, Fraction(101), 0, frozenset())  # 0.85 and 120 may be rounded


def test_what_cannot_be_bounded_keeps_the_excuse():
    unknown = ("*", ("var", "x"), ("num", Fraction(2), 0))
    assert may_carry(unknown, Fraction(7), 0, frozenset())
    across_zero = ("/", ("num", Fraction(1), 0), ("num", Fraction(5, 100), 2))  # 0.05 +- 0.01
    assert _bounds(across_zero, frozenset()) is not None
    divisor_may_be_zero = ("/", ("num", Fraction(1), 0), ("num", Fraction(0), 1))
    assert may_carry(divisor_may_be_zero, Fraction(10**9), 0, frozenset())
