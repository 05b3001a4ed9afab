"""Odd roots of negative numbers are the real roots a competition text means, in both
readers (pure logic), and claims about them are judged, not skipped as not real (the
calculator in its worker)."""

import pytest
import sympy

from verifiers.calculator.readers import readings

x = sympy.Symbol("x")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (r"\sqrt[3]{-8}", sympy.Integer(-2)),
        (r"\sqrt[3]{-1} \cdot \sqrt[3]{-1}", sympy.Integer(1)),
        (r"\sqrt[5]{-32} + 1", sympy.Integer(-1)),
        (r"(-8)^{2/3}", sympy.Integer(4)),
        (r"\sqrt[3]{2 - \sqrt{5}}", -sympy.root(sympy.sqrt(5) - 2, 3)),
        # an even root of a negative number stays imaginary; a root of a letter is sympy's
        (r"\sqrt{-4}", 2 * sympy.I),
        (r"\sqrt[3]{x}", sympy.root(x, 3)),
    ],
)
def test_an_odd_root_of_a_negative_number_is_real(text, value):
    for library in (False, True):
        (read,) = readings(text, {}, library=library)
        assert sympy.simplify(read - value) == 0, (library, read)



@pytest.mark.parametrize(
    ("step", "status"),
    [
        (r"So $\sqrt[3]{-8} = -2$.", "correct"),
        (r"Then $\sqrt[3]{-27} + 5 = 2$.", "correct"),
        (r"Hence $\sqrt[3]{-27} = 3$.", "incorrect"),
        (r"Since $\sqrt[3]{-1} \cdot \sqrt[3]{-1} = -1$, the middle terms cancel.", "incorrect"),
        (r"Thus $\sqrt[3]{2 + \sqrt{5}} + \sqrt[3]{2 - \sqrt{5}} = 1$.", "correct"),
    ],
)
def test_claims_about_real_odd_roots_are_judged(calc, step, status):
    (verdict,) = calc.check_steps([step], "Compute.")
    assert verdict.status.value == status, verdict.evidence


@pytest.mark.parametrize(
    "step",
    [
        r"One cube root of $-1$ is $\sqrt[3]{-1} = \frac{1}{2} + \frac{\sqrt{3}}{2}i$.",
        r"So $\sqrt[3]{-8} = 1 + \sqrt{3}i$ is the principal root.",
    ],
)
def test_among_complex_numbers_an_odd_root_of_a_negative_number_is_any_branch(calc, step):
    # the principal root is as right there as the real one: nothing is judged
    (verdict,) = calc.check_steps([step], "Let z be a complex number with z^3 = -8. Find z.")
    assert verdict.status.value != "incorrect", verdict.evidence
