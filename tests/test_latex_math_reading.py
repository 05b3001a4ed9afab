"""The LaTeX member reader on sums, products, derivatives and fractions named with `d` (pure
logic)."""

import pytest
import sympy

from verifiers.calculator.latex_math import ParseError, read_member


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (r"\sum_{k=1}^{4} \frac{1}{k(k+1)}", sympy.Rational(4, 5)),
        (r"\prod_{k=1}^{4} \frac{k+1}{k}", sympy.Integer(5)),
        (r"\sum_{k=1}^{2000} \frac{1}{k(k+1)}", sympy.Rational(2000, 2001)),
        (r"\sum_{k=1}^{4} \frac{k+1}{2}", sympy.Integer(7)),
        (r"\sum_{i=0}^{4} 2^i", sympy.Integer(31)),
        (r"\sum_{k=1}^{3} \sqrt{k}", 1 + sympy.sqrt(2) + sympy.sqrt(3)),
        # a polynomial's sum past the range summed term by term, in closed form
        (r"\sum_{k=1}^{100000} k^2", sympy.Integer(100000 * 100001 * 200001 // 6)),
        (
            r"\sum_{k=-3}^{4000} (k^3 - 2k + \frac{1}{2})",
            sum(sympy.Integer(k) ** 3 - 2 * k + sympy.Rational(1, 2) for k in range(-3, 4001)),
        ),
        # inside a larger expression where its extent is written (what `elided_terms` writes)
        (r"2(\sum_{k=0}^{9} (1 + k)) + 1", sympy.Integer(111)),
        (r"\frac{\prod_{k=0}^{3} (1 + k)}{4}", sympy.Integer(6)),
    ],
)
def test_a_written_sum_is_its_exact_value(text, value):
    assert sympy.simplify(read_member(text) - value) == 0


def test_a_fraction_body_matches_term_by_term_substitution():
    k = sympy.Symbol("k")
    body = (k**2 + 1) / (k * (k + 3))
    slow = sum(body.subs(k, n) for n in range(2, 60))
    assert read_member(r"\sum_{k=2}^{59} \frac{k^2 + 1}{k(k+3)}") == slow


@pytest.mark.parametrize(
    "text",
    [
        r"\sum_{k=1}^{10} k + 1",  # where the body ends is not written
        r"\sum_{k=1001}^{2000} k\sqrt{k^2+1}",  # a thousand surds: no closed value
        r"\sum_{k=0}^{3} \frac{1}{k}",  # a term divides by zero
        r"\sum_{k=1}^{100000} \frac{1}{k}",  # a long sum with no closed value we compute
        r"\sum_{k=1}^{100000} k^{100}",  # nor a long one of a high power (minutes in sympy)
        r"2 \sum_{k=0}^{9} (1 + k)",  # not in a bracket of its own: where it ends is a guess
        r"(\sum_{k=0}^{9} (1 + k) + 1)",  # more after its body inside its bracket
        r"(\sum_{k=0}^{9} k + 1)",  # a body that is no bracketed group
        r"\frac{d}{dx} x^2",  # a derivative whose operand is not one bracketed group
        r"\frac{d}{dx}(x^2) + (x)",  # the brackets do not hold the rest of the member
        r"\frac{dy}{dx}",  # the derivative of a function nobody wrote out
        r"\frac{d}{dt}(x^2 + t)",  # x may move with t (related rates): not ours to guess
        r"x'(2)",  # a prime on a letter that is no function the chain defined
        r"\log 2 (8)",  # log base 2 of 8, or log 2 times 8: a guess
        r"\ln 3 (x + 1)",  # the same shape with a letter in the bracket
    ],
)
def test_what_is_not_read_whole_is_not_read(text):
    with pytest.raises(ParseError):
        read_member(text)


def test_a_quotient_by_d_is_no_derivative():
    c, d = sympy.symbols("c d")
    assert read_member(r"\frac{c}{d} + \frac{d}{c}") == c / d + d / c


def test_a_bracketed_operand_is_differentiated():
    x = sympy.Symbol("x")
    assert read_member(r"\frac{d}{dx}\left(x^3 - \frac{1}{x}\right)") == 3 * x**2 + x**-2
    assert read_member(r"\frac{d}{dx}[x^2 + 3]") == 2 * x


def test_a_prime_on_a_defined_function_names_its_derivative():
    # `readers` puts the definition in and differentiates; the reader only names it.
    f2 = read_member(r"f^{\prime\prime}(2)", functions=frozenset("f"))
    assert f2 == sympy.Function("f''")(2)
    assert read_member("f'(x) + 1", functions=frozenset("f")).has(sympy.Function("f'"))


x = sympy.Symbol("x")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (r"|2x - 3|", sympy.Abs(2 * x - 3)),
        (r"\left| x + 2 \right|", sympy.Abs(x + 2)),
        (r"2|x - 1| + |x|", 2 * sympy.Abs(x - 1) + sympy.Abs(x)),
        (r"|x||x - 1|", sympy.Abs(x) * sympy.Abs(x - 1)),  # bars side by side: a product
        (r"||x| - 3|", sympy.Abs(sympy.Abs(x) - 3)),  # where an operand starts, a bar opens
        (r"\frac{|x - 4|}{2}", sympy.Abs(x - 4) / 2),
        (r"|-7| + |2|", sympy.Integer(9)),
    ],
)
def test_bars_are_absolute_values(text, value):
    assert sympy.simplify(read_member(text) - value) == 0


@pytest.mark.parametrize("text", [r"3 | 12", r"|x|y|", r"|x - 1", r"x | y"])
def test_bars_that_do_not_pair_are_not_read(text):
    with pytest.raises(ParseError):
        read_member(text)
