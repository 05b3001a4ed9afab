"""When a chain reads the letter e as Euler's number (`verifiers.calculator.euler_number`)."""

from __future__ import annotations

import pytest

from verifiers.calculator.euler_number import euler_chain


@pytest.mark.parametrize(
    "texts",
    [
        ["Solve $e^{2x} = 5$.", "Taking logs, $2x = \\ln 5$."],
        ["Compute.", "$\\ln e^3 = 3$."],
        ["Compute.", "$\\ln \\left( e^2 \\right) = 2$."],
        ["Compute.", "$e^{\\ln 5} = 5$."],
        ["Compute.", "$e^x$ grows, and $e^0 = 1$."],
        ["Compute.", "$\\exp(2) = e^2$."],
    ],
)
def test_exponentials_and_natural_logs_make_e_eulers_number(texts):
    assert euler_chain(texts)


@pytest.mark.parametrize(
    "texts",
    [
        # nothing says exponential: a power of numbers squares an unknown as well
        ["Compute.", "$e^2 = 9$, $e^{-1} = 3$."],
        # e alone, anywhere in the problem or any step, is an unknown
        ["Digits $a, b, c, d, e$ sum to $20$.", "$\\ln e^3 = 3$."],
        ["Compute.", "$e^{\\ln 5} = 5$.", "So $e = 3$."],
        ["Which is largest? (e) none.", "$e^{x} = 2$."],
        ["Compute.", "$\\ln x = 2$, e.g. $x = e^2$."],
        # an eccentricity is a letter e
        ["Find the eccentricity of the ellipse.", "$\\ln 2 > 0$ and $e^2 = 1 - \\frac{9}{25}$."],
    ],
)
def test_e_alone_or_without_an_exponential_stays_a_letter(texts):
    assert not euler_chain(texts)


def test_commands_holding_the_letter_e_are_not_e():
    assert not euler_chain(["Compute.", "$\\sec x = 2$ and $\\det A = 1$."])
    assert euler_chain(["Compute.", "$\\sec x = e^{x}$."])
