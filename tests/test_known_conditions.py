"""Which written chains set conditions on their letters (`known`): a chain that only rewrites
one expression sets none, even through a link too large to read (pure logic, then the
calculator in its worker)."""

import pytest

from verifiers.calculator.known import rewrites_only

_HUGE_MIDDLE = r"\frac{(10^8 + 1)!}{(j - 1)!(10^8 + 2 - j)!}"


@pytest.mark.parametrize(
    ("members", "expected"),
    [
        # ends one expression: the links rewrite it, whatever the middle reads as
        ((r"\binom{10^8 + 1}{j - 1}", _HUGE_MIDDLE,
          r"\frac{10^8 + 1}{10^8 + 2 - j} \binom{10^8}{j - 1}"), True),
        (("(x + 1)^2", "x^2 + x + x + 1", "x^2 + 2x + 1"), True),
        # ends that differ set a condition: `N = abc = 6(a + b + c)`, an equation to solve
        (("N", "abc", "6(a + b + c)"), False),
        (("x^2 - 1", "(x - 1)(x + 1)", "0"), False),
        # one link is an equation or a claim, never a chain of rewrites; numbers hold no letter
        (("(x + 1)^2", "x^2 + 2x + 1"), False),
        (("2 + 3", "4 + 1", "5"), False),
    ],
)  # fmt: skip
def test_a_chain_that_rewrites_one_expression_sets_no_condition(members, expected):
    assert rewrites_only(members, {}) is expected



_FALSE_PROPERTY = (r"Using the property \( \binom{10^8}{j} = \frac{10^8}{j} \binom{10^8}{j - 1} "
                   r"\), we compare the two.")  # fmt: skip


def test_a_rewrite_too_large_to_read_spares_no_later_claim(calc):
    first = (r"Writing it out, \[ \binom{10^8 + 1}{j - 1} = " + _HUGE_MIDDLE
             + r" = \frac{10^8 + 1}{10^8 + 2 - j} \binom{10^8}{j - 1}. \]")  # fmt: skip
    verdicts = calc.check_steps([first, _FALSE_PROPERTY], "Find the least j.")
    assert verdicts[1].status.value == "incorrect", verdicts[1].evidence


def test_an_unread_condition_on_the_letter_still_spares_its_claims(calc):
    # the same unreadable link in an equation about j: what it implies about j is unknown
    first = r"We need \[ \binom{10^8 + 1}{j - 1} = " + _HUGE_MIDDLE + r" = 7. \]"
    verdicts = calc.check_steps([first, _FALSE_PROPERTY], "Find j.")
    assert verdicts[1].status.value != "incorrect", verdicts[1].evidence
