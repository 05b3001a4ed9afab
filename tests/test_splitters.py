import pytest

from labeling.steps.splitters import split_steps


@pytest.mark.parametrize(
    ("text", "mode", "expected"),
    [
        ("a\n\nb\n\n\nc", "blank_line", ["a", "b", "c"]),
        ("a\n  \nb", "blank_line", ["a", "b"]),
        ("one\ntwo\n\nthree", "line", ["one", "two", "three"]),
        (
            "Intro\nStep 1: x = 2\nStep 2: y = 3",
            "step_marker",
            ["Intro", "Step 1: x = 2", "Step 2: y = 3"],
        ),
        ("## Step 1. a\nmore\n## Step 2. b", "step_marker", ["## Step 1. a\nmore", "## Step 2. b"]),
        ("**Step 1**: a\n**Step 2**: b", "step_marker", ["**Step 1**: a", "**Step 2**: b"]),
        # auto: markers win over paragraphs; a single paragraph falls back to lines
        ("Step 1: a\n\nstill 1\n\nStep 2: b", "auto", ["Step 1: a\n\nstill 1", "Step 2: b"]),
        ("p1\n\np2", "auto", ["p1", "p2"]),
        ("l1\nl2", "auto", ["l1", "l2"]),
        ("", "auto", []),
        ("   \n\n  ", "blank_line", []),
    ],
)
def test_split_modes(text, mode, expected):
    assert split_steps(text, mode) == expected


def test_step_word_inside_text_is_not_a_marker():
    text = "We take a step 3 times.\n\nThen Step 2 is not at line start: fine"
    assert split_steps(text, "auto") == [
        "We take a step 3 times.",
        "Then Step 2 is not at line start: fine",
    ]


def test_unknown_mode_names_the_choices():
    with pytest.raises(ValueError, match="blank_line"):
        split_steps("x", "paragraphs")
