"""A letter the problem fixes to a number (`Let $T = 8$.`) is that number in every step, until
the chain gives it another value; a chain's own "let" fixes one for its step, "denote" for
the rest of the chain (pure logic, then the calculator in its worker)."""

import pytest

from tests.conftest import calc_statuses
from verifiers.calculator.chain_algebra import _read
from verifiers.calculator.definitions import constant_of, definitions


def _fixed(problem: str) -> list[str]:
    return [n for c in _read(problem) if (n := constant_of(c.members, c.ops, c.before))]


@pytest.mark.parametrize(
    ("problem", "letters"),
    [
        ("Let $T = 8$. Compute $T^2 - 4$.", ["T"]),
        (r"Let $N = 2^{10} + \frac{1}{2}$. Find the largest prime below $N$.", ["N"]),
        (r"Denote $a = \sqrt{2}$. Compute $a^4$.", ["a"]),
        # a repeating decimal, an expression in letters, a supposition, a letter named
        # without the words that fix it: none is a constant
        ("Let $x = 0.4545$ (repeating). Write $x$ as a fraction.", []),
        ("Let $a = b + 1$. Find $a^2 - b^2$.", []),
        ("If $a = 3$, what is $a^2$?", []),
        ("Compute $x^2$ when $x = 3$.", []),
    ],
)
def test_which_problem_letters_are_fixed(problem, letters):
    assert _fixed(problem) == letters


def test_a_constant_is_kept_only_as_one_real_number():
    # read in the worker: the unit and what does not read whole are no constants
    texts = {"T": ("", "8"), "i": ("", r"\sqrt{-1}"), "S": ("", r"\{1, 2\}"), "N": ("", "2^{10}")}
    assert {name: value for name, (_, value) in definitions(texts).items()} == {"T": 8, "N": 1024}





def test_a_fixed_letter_is_its_number_in_every_step(calc):
    problem = "Let $T = 8$. Compute $T^2 - 4$."
    steps = ["Since $T = 8$, we have $T^2 - 4 = 60$.", "So $2T + 1 = 18$."]
    assert calc_statuses(calc, steps, problem) == ["correct", "incorrect"]


def test_an_equation_in_a_fixed_letter_is_a_claim_about_numbers(calc):
    # without the problem's value `a^2 + 1 = 11` would be an equation to solve
    problem = "Let $a = 3$. Compute $a^2 + 1$."
    assert calc_statuses(calc, ["We have $a^2 + 1 = 11$."], problem) == ["incorrect"]
    assert calc_statuses(calc, ["We have $a^2 + 1 = 11$."], "Compute $a^2 + 1$.") != ["incorrect"]


def test_a_letter_the_chain_gives_another_value_is_free_again(calc):
    problem = "Let $T = 8$. Find $2T$."
    steps = ["Take $T = 5$ instead.", "Then $2T = 10$ and $T^2 = 25$."]
    assert "incorrect" not in calc_statuses(calc, steps, problem)


@pytest.mark.parametrize(
    ("steps", "statuses"),
    [
        # a chain's "let" fixes the letter in its own step
        (["Let $a = 3$. Then $a^2 + 1 = 11$."], ["incorrect"]),
        (["Let $a = 3$. Then $a^2 + 1 = 10$."], ["correct"]),
        # and only there: "let x = 1" is as often a value put in, the letter free again after
        (["Let $a = 3$.", "Then $a^2 + 1 = 11$."], ["unverifiable", "unverifiable"]),
        (["Let $x = 1$. Then $f(1) = 2$.", "Next, $x^2 - 5x + 6 = 0$ gives $x = 2$ or $x = 3$."],
         ["unverifiable", "unverifiable"]),
        # never when the same step goes on to give it another value
        (["Let $x = 1$, so $f(1) = 2$; then $x^2 - 5x + 6 = 0$ gives $x = 2$ or $x = 3$."],
         ["unverifiable"]),
        # "denote" names it for the rest of the chain
        ([r"Let us denote $x = \sqrt{2} + 1$.", r"Squaring, $x^2 = 4 + 2\sqrt{2}$."],
         ["unverifiable", "incorrect"]),
        ([r"Let us denote $x = \sqrt{2} + 1$.", r"Squaring, $x^2 = 3 + 2\sqrt{2}$."],
         ["unverifiable", "correct"]),
    ],
)  # fmt: skip
def test_a_letter_the_chain_fixes(calc, steps, statuses):
    assert calc_statuses(calc, steps, "Find f.") == statuses
