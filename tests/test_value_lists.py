"""Values listed for one letter (`verifiers/calculator/value_lists.py`): which lists are read
as alternatives, which as values tried in turn, and which are left as written."""

import pytest

from verifiers.calculator.value_lists import listed_values

TRIED = "\\text{trying each of}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("so $x = 2, 6$.", "so $x = 2 \\text{ or } x = 6$."),
        ("roots: so $x = -1, \\frac{1}{2}$", "roots: so $x = -1 \\text{ or } x = \\frac{1}{2}$"),
        ("hence $x \\in \\{2, 5\\}$", "hence $x = 2 \\text{ or } x = 5$"),
        ("so \\(x = 2 \\text{ or } 3\\)", "so \\(x = 2 \\text{ or } x = 3\\)"),
        ("Hence \\[ x = 2, 6 \\]", "Hence \\[x = 2 \\text{ or } x = 6\\]"),
        ("the roots: $t = 1, 2, 3$.", "the roots: $t = 1 \\text{ or } t = 2 \\text{ or } t = 3$."),
    ],
)  # fmt: skip
def test_found_values_are_alternatives(text, expected):
    assert listed_values(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "the divisors $k = 1, 2, 3, 4, 6, 12$ of 12",  # no word of solving
        "so $n = 1, 2$ are the candidates.",  # candidates after it
        "Checking $n = 1, 2, 3$, only two work.",  # a test
        "For $n = 1, 2, 3$ the sum is even.",  # cases
        "so $n = 1, 2, \\ldots, 10$.",  # a range
        "so $n = 1, 2, 3, 4, 5, 6, 7$.",  # more values than a list of roots
    ],
)
def test_other_lists_are_values_tried(text):
    out = listed_values(text)
    assert TRIED in out and " = 1" in out and "2" not in out.split(TRIED)[1].split("$")[0]


@pytest.mark.parametrize(
    "text",
    [
        "so $x = 1,000$.",  # a number in thousands
        "so $x = 2,5$.",  # a decimal comma
        "so $x = 2, y = 3$.",  # two letters
        "so $x = a, b$.",  # letters, not numbers
        "so $x = 2$.",  # one value
        "so $x = 2, 6 + y$.",  # a letter among the values
    ],
)
def test_what_is_no_list_of_numbers_is_left_as_written(text):
    assert listed_values(text) == text
