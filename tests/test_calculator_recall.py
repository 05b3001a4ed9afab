"""Calculator patterns that used to be missed: division with remainder, a named result restated
in the next step, "simplifies to" equations. Each has its false form (must be `incorrect`), its
true form (`correct`) and the nearby trap that must stay un-flagged.

Strings are short forms of ProcessBench dev steps or synthetic variants of them.
"""

import pytest

from tests.conftest import calc_statuses as statuses

C, W, U = "correct", "incorrect", "unverifiable"


REMAINDER = [
    # the quotient or the remainder is wrong: no rounding can excuse a remainder claim
    ("Divide 706 by 7: 706 ÷ 7 = 101 with a remainder of 1.", W),
    ("194 ÷ 11 = 17 with a remainder of 9.", W),
    (r"\[327 \div 17 = 19 \text{ remainder } 8,\]", W),
    ("First, we have $$355/6=58 R 5.$$", W),
    ("17 / 5 = 2 remainder 7", W),  # 2*5 + 7 = 17, but a remainder is below the divisor
    # right answers, including the Euclidean algorithm's quotients
    ("194 ÷ 11 = 17 with a remainder of 7.", C),
    ("2863 / 1344 = 2 remainder 175", C),
    (r"\[327 \div 17 = 19 \text{ remainder } 4,\]", C),
    ("100 / 7 = 14 r 2", C),
    ("17 / 5 = 3 remainder 2 apples", C),
    # no remainder named: a whole number within 1 may be rounding, as before
    ("706 ÷ 7 = 101 days", U),
    # the remainder is part of something larger: not read
    ("706 ÷ 7 = 100 with a remainder of 6 + 1", U),
]


@pytest.mark.parametrize("case", REMAINDER, ids=[c[0][:40] for c in REMAINDER])
def test_division_with_remainder(calc, case):
    text, expected = case
    assert statuses(calc, [text]) == [expected]


TOTAL = r"\[ \text{Total Score} = 50 + 80 + 80 + 60 + 40 + 90 + 100 + 70 + 60 \]"


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        # gsm8k dev: the sum ends one step, its (wrong) value opens the next
        ([TOTAL, r"Adding these together: \[ \text{Total Score} = 570 \]"], [U, W]),
        ([TOTAL, r"Adding these together: \[ \text{Total Score} = 630 \]"], [U, C]),
        (["Total cost = 20 + 30", "Total cost = 60 dollars."], [U, W]),
        # a revision or a new case: the name is meant to take a new value
        (["Total cost = 20 + 30", "But we also need tax. Total cost = 55."], [U, U]),
        (["Monday: Total = 5 + 5", "Next, for Tuesday: Total = 15"], [U, U]),
        (["Total cost = 20 + 30", "With the 5 dollar tip, Total cost = 55."], [U, U]),
        # the chain was not the step's result (more figures follow it)
        (["Total cost = 20 + 30, and 10 of it is tax.", "Total cost = 60."], [U, U]),
        # a lone unknown is the equation checks' business; a plain value is not computed
        (["x = 20 + 30", "x = 60"], [U, U]),
        (["Total = 50", "Total = 60"], [U, U]),
        # only the very next step
        (["Total cost = 20 + 30", "Then we pay.", "Total cost = 60."], [U, U, U]),
    ],
)
def test_named_result_restated_in_next_step(calc, steps, expected):
    assert statuses(calc, steps) == expected


SUBSTITUTED = "Since L = J + 10, we substitute L in the equation: ((J + 10) + J) + 2J + 10 = 100. "


def test_simplifies_to_is_compared_with_the_equation_before(calc):
    # gsm8k dev: 4J + 20 = 100 written as 5J + 20 = 100 after a substitution
    assert statuses(calc, [SUBSTITUTED + "This simplifies to 5J + 20 = 100."]) == [W]
    assert statuses(calc, [SUBSTITUTED + "This simplifies to 4J + 20 = 100."]) == [C]


def test_substitution_announced_before_a_new_equation_still_excuses_it(calc):
    # without a "simplifies" word, a substitution clause still marks a new trial
    text = "We substitute J = 5 to check: 2J + 10 = 20. Next 5J + 20 = 100."
    assert statuses(calc, [text]) == [C]  # the trial holds; the new equation is not compared


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It comes to 3 + 4 = 8 apples", W),
        ("The bill adds up to 12 + 8 = 20 dollars", C),
        ("from 5 to 3 + 4 = 7", U),  # "to" ends a range: 3 + 4 may be a fragment
        ("the ratio of 2 to 3 + 4 = 7", U),
        # math train: after "equal to 6 yuan" the scan must stop, as after any other "to"
        (
            r"1 USD is equal to 6 yuan, 15 USD is equal to "
            r"$15\;\text{USD}\left(\dfrac{6\;\text{CNY}}{1\;\text{USD}}\right) = \boxed{90}$.",
            U,
        ),
    ],
)
def test_to_after_a_result_verb_opens_an_expression(calc, text, expected):
    assert statuses(calc, [text]) == [expected]


def test_false_claim_with_a_huge_value_reports_instead_of_raising(calc):
    # 10^400 / 3 overflows a float; the evidence must still be written (it used to raise)
    [verdict] = calc.check_steps(["10^400 / 3 = 5"])
    assert str(verdict.status) == W and "e+399" in verdict.evidence


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2^(10^400) = 7", U),
        ("(1/2)^(10^400) = 0", U),
        ("10^400 / 3 = 5", W),
        ("10^400 / 4 = 25 * 10^398", C),
    ],
)
def test_huge_values_never_raise(calc, text, expected):
    # these used to raise OverflowError (a float product or a float conversion of a huge value);
    # a power out of reach is refused, a quotient in reach is judged
    assert statuses(calc, [text]) == [expected]
