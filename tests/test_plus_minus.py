"""`plus_minus`: a clause that gives one side `\\pm` a number is read as the two values."""

import pytest

from verifiers.calculator.plus_minus import plus_minus


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (r"So $x = \pm 2$.", r"So $ x = 2 \text{ or } x = -2 $."),
        (r"\( y = \pm\frac{1}{2} \),", r"\( y = \frac{1}{2} \text{ or } y = -\frac{1}{2} \),"),
        (r"\[ x = \pm 2\sqrt{3} \]", r"\[ x = 2\sqrt{3} \text{ or } x = -2\sqrt{3} \]"),
        (r"$x = \pm(1 + \sqrt{2})$", r"$ x = (1 + \sqrt{2}) \text{ or } x = -(1 + \sqrt{2}) $"),
        (r"$$ t = \pm 3, $$", r"$$ t = 3 \text{ or } t = -3, $$"),
        # A clause inside a longer region, after an arrow, a row's end or spacing.
        (r"$x^2 = 4 \Rightarrow x = \pm 2$", r"$x^2 = 4 \Rightarrow x = 2 \text{ or } x = -2 $"),
        (
            r"(x+3)^2 &= 121 \\ \Rightarrow\qquad x+3 &= \pm 11 \end{align*}",
            r"(x+3)^2 &= 121 \\ \Rightarrow\qquad x+3 = 11 \text{ or } x+3 = -11 \end{align*}",
        ),
        (
            r"\[ x = \pm \sqrt{2} \quad \text{or} \quad x = \pm 3. \]",
            r"\[ x = \sqrt{2} \text{ or } x = -\sqrt{2} \quad \text{or} \quad "
            r"x = 3 \text{ or } x = -3. \]",
        ),
        (r"\[ x - 8 = \pm 12 \]", r"\[ x - 8 = 12 \text{ or } x - 8 = -12 \]"),
    ],
)
def test_a_side_given_plus_minus_a_number_takes_both(text, expected):
    assert plus_minus(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        r"$x = \pm 2, y = \pm 3$",  # which signs go together is not written
        r"$so a = \pm 7$",  # a word is no side of a clause
        r"$\sin x = \pm \frac{1}{2}$",  # a command is not plain algebra
        r"$x = \pm \frac{3}{\sqrt{2}} = \pm \frac{3\sqrt{2}}{2}$",  # the clause goes on
        r"$x = \pm a$",  # not a number
        r"$x = \pm\sqrt{2} \approx \pm 1.41$",
        r"$x = 1 \pm 2$",  # the sign between two terms
        r"$x = \pm 1 + \sqrt{2}$",  # (±1) + √2: the sign covers the first term only
        r"\( x = \pm 2 $",  # delimiters that do not pair
    ],
)
def test_anything_else_is_left_as_written(text):
    assert plus_minus(text) == text
