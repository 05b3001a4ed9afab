"""Plain-text algebra put inside LaTeX delimiters for the symbolic checks (plain_algebra):
what is read, and the readings in doubt that are left as prose or marked unread."""

import pytest

from verifiers.calculator.plain_algebra import UNREAD, delimited


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Simplify the equation: 6r^2 = 12r.", r"Simplify the equation: \(6r^{2} = 12r\)."),
        ("we get: k * (k + 1) / 2 = 4501.", r"we get: \(k \cdot (k + 1) / 2 = 4501\)."),
        ("so a * ar^2 = 8", r"so \(a \cdot ar^{2} = 8\)"),
        ("gives 38 – x + x = 32 + x", r"gives \(38 - x + x = 32 + x\)"),
        ("then 2^(n-1) = 8 holds", r"then \(2^{(n-1)} = 8\) holds"),
        ("(since x = 2) and y = 3x.", r"(since \(x = 2\)) and \(y = 3x\)."),
        ("We get 1,000x = 5,000.", r"We get \(1000x = 5000\)."),
        ("so x^2 -4x + 3 = 0 holds", r"so \(x^{2} - 4x + 3 = 0\) holds"),  # a sign spaced loosely
        ("Expanding gives: R = 225000 + 4000n", r"Expanding gives: \(R = 225000 + 4000n\)"),
        ("Let P = 2L + 2W be the perimeter.", r"Let \(P = 2L + 2W\) be the perimeter."),
        ("so A + B = 10 here", r"so \(A + B = 10\) here"),  # "A" before an operator
        ("so x = 5 or -5 here", r"so \(x = 5\) or -5 here"),  # a sign after words: no unit
        # a minus opening the relation is its sign
        ("We have -2x > 6, hence x > -3.", r"We have \(- 2x > 6\), hence \(x > - 3\)."),
        ("Subtracting: −x + 5 = 2.", r"Subtracting: \(- x + 5 = 2\)."),
        ("then -(x + 1) = 4 holds", r"then \(- (x + 1) = 4\) holds"),
        # functions: a power or a base glued to the name, a root's operand braced
        ("We get sin^2(t) + cos^2(t) = 1.", r"We get \(\sin^{2} (t) + \cos^{2} (t) = 1\)."),
        ("log_2 8 = 3 holds", r"\(\log_{2} 8 = 3\) holds"),
        ("So 3sqrt(3) = sqrt(27) here", r"So \(3 \sqrt{3} = \sqrt{27}\) here"),
        # an arrow typed between two relations reads as one
        ("-2x > 6 => x > -3.", r"\(- 2x > 6\) ⟹ \(x > - 3\)."),
        # a factorial inside a span, and a remark in brackets after one
        ("we get 2(n-1)! - 2 = n! here", r"we get \(2 (n - 1)! - 2 = n!\) here"),
        ("So x = 7 (which is odd).", r"So \(x = 7\) (which is odd)."),
        # primes glued to a name and then to a bracket: a derivative applied
        ("Then f'(x) = 6x + 2.", r"Then \(f'(x) = 6x + 2\)."),
    ],
)
def test_plain_algebra_is_delimited(text, expected):
    assert delimited(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "So 60 x 60 = 3600 seconds.",  # a times sign between numbers
        "Each box holds 20 * 16 = 320 ounces.",  # numbers only: the numeric reader's
        "It is a total = 5 apples.",  # the article
        "He came 2nd = last.",  # an ordinal
        "Let x be the number of cats.",  # no relation
        r"We have $x = 5$ already.",  # LaTeX stays as written
        "It ran on TV = 5 nights.",  # two capitals: an abbreviation, not a product
        "So I think = 5 is right.",  # the pronoun
        "It took 60 sec = 1 min.",  # seconds, no secant
    ],
)
def test_prose_and_numbers_are_left_alone(text):
    assert delimited(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "The volume is πr^2(6) = 2πrh.",  # a symbol glued to the span
        "We get 5/3x = 10.",  # which product is the denominator?
        "The rope is 1m = 100cm long.",  # units
        "Then 5y = 10 (in dollars).",  # a bracket after it: the span may go on
        "So x = 5! That is it.",  # an exclamation, maybe: no factorial ends the span
        "We need 3x = 1 (mod 7) here.",  # a bracket of words that makes it a congruence
        "So 2x = 11 (approximately) here.",  # one that makes it a rounding
        "So x = 2 sqrt(3) here.",  # a function after a space: a factor the span stops short of
        "At 3600 s = 1 h exactly.",  # a number before it: a unit
        "Adding, = x + 1 = 5.",  # read from its middle
        "Solve: 0 = y + 4 -4 = y.",  # two lines run together, the second opening with a sign
        "so -14 = x + 2 -16 = x here",
        "a well-2x = 6 here",  # a hyphen glued to a word: not a sign opening a relation
        # the last number goes on in words: a unit and an operation, or an operation's word
        "like this: 6W / 6 = 30 feet / 6, so",
        "so x = 30 divided by 6",
        "and x = 3/4 of 20 = 15",
        "so x = 5 more than y",
    ],
)
def test_relations_in_doubt_are_marked_unread(text):
    out = delimited(text)
    assert UNREAD in out
    assert out.count("\\(") == out.count(UNREAD)  # nothing else is put in delimiters
