"""Code extraction, prompts, segmentation and the prefix-syntax check (pure functions)."""

from __future__ import annotations

import pytest

from labeling.datasets.builtin_code_tasks import builtin_code_solutions, builtin_code_tasks
from labeling.schema import Problem
from labeling.steps.code import (
    MODES,
    build_code_prompt,
    code_prefixes,
    extract_code,
    prefix_parses,
    split_code_steps,
)

ANSWER = """I will add the numbers.

Then return the sum.

```python
import math

def add(a, b):
    # sum them
    s = a + b

    return s
@cache
def g(x):
    if x:
        return (1,
                2)
    else:
        return 3
```

This works because addition is easy."""


@pytest.mark.parametrize(
    ("text", "code", "how"),
    [
        (
            "Sure:\n```python\ndef f(x):\n    return x\n```\nDone.",
            "def f(x):\n    return x",
            "fenced",
        ),
        ("```py\ndef f():\n    pass\n```", "def f():\n    pass", "fenced"),
        ("```\ndef f():\n    pass\n```", "def f():\n    pass", "fenced"),
        ("```python\ndef f(x):\n    return (x +", "def f(x):\n    return (x +", "partial_fence"),
        (
            "Here:\n```python\n    def f(x):\n        return x\n```",
            "def f(x):\n    return x",
            "fenced",
        ),
        ("def f(x):\n    return x\nThis is the answer.", "def f(x):\n    return x", "unfenced"),
        ("No code here at all.", "", "none"),
        ("```bash\nls\n```\n```python\nx = 1\n```", "x = 1", "fenced"),
    ],
)
def test_extract_code(text, code, how):
    got = extract_code(text)
    assert (got.code, got.how) == (code, how)


def test_extract_prefers_block_defining_entry_point():
    text = "```python\ndef f(x):\n    return 1\n```\nUsage:\n```python\nprint(f(2))\n```"
    assert extract_code(text, "f").code == "def f(x):\n    return 1"
    assert extract_code(text).code.startswith("def f")  # the last block with a def


def test_bare_body_is_joined_to_prompt_signature():
    prompt = 'def f(x):\n    """Double x."""\n'
    got = extract_code("```python\n    return 2 * x\n```", "f", prompt)
    assert got.code == 'def f(x):\n    """Double x."""\n    return 2 * x' and got.prelude == 2
    assert extract_code("    return 2 * x\n", "f", prompt).how == "unfenced"


def test_prompts():
    mbpp = Problem("m", "code", "mbpp", "Write add.", tests=("assert add(1, 2) == 3",))
    text = build_code_prompt(mbpp)
    assert "Write add." in text and "assert add(1, 2) == 3" in text and "```python" in text
    he = Problem(
        "h",
        "code",
        "humaneval",
        "def f(x):\n    pass",
        tests=("def check(c):\n    assert c(1)",),
        entry_point="f",
    )
    text = build_code_prompt(he)
    assert "def f(x)" in text and "check" not in text
    named = Problem("g", "code", "generic", "Do it.", entry_point="solve")
    assert "`solve`" in build_code_prompt(named)


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("line", 13),
        ("statement", 6),
        ("block", 6),
    ],
)
def test_split_modes(mode, expected):
    steps = split_code_steps(ANSWER, mode, "add")
    assert len(steps) == expected
    assert steps[:2] == ["I will add the numbers.", "Then return the sum."]
    assert steps[2].startswith("```python") and steps[-2].endswith("```")
    assert steps[-1] == "This works because addition is easy."
    pos = 0
    for step in steps:  # every step is a substring of the text, in order
        pos = ANSWER.index(step, pos) + len(step)


def test_statement_mode_keeps_decorators_and_else_together():
    steps = split_code_steps(ANSWER, "statement", "add")
    assert steps[3].startswith("def add") and steps[3].endswith("return s")
    assert steps[4].startswith("@cache\ndef g(x):") and "else:" in steps[4]


def test_unknown_mode_raises():
    with pytest.raises(ValueError, match="line, statement, block"):
        split_code_steps(ANSWER, "words")


def test_prose_only_answer_is_paragraphs():
    assert split_code_steps("One.\n\nTwo.", "line") == ["One.", "Two."]


@pytest.mark.parametrize(
    "prefix",
    [
        "def f(x):\n",
        "def f(x):\n    return (x +\n",
        "try:\n    y = 1\n",
        's = """abc\n',
        "@dec\n",
        "if x:\n    y = 1\nelse:\n",
        "x = [1,\n 2,\n",
        "x = 1 +",  # no newline: may be cut off mid-line
        "return 5\n",  # a compiler error, not a parse error
        "def outer():\n    def inner():\n        nonlocal x\n",  # fixable by a later binding
        "match x:\n",
        "",
    ],
)
def test_fixable_prefixes(prefix):
    assert prefix_parses(prefix)[0], prefix


@pytest.mark.parametrize(
    "prefix",
    [
        "x = 1 +\n",
        "try:\n    y = 1\ny = 2\n",
        "if x:\npass\n",
        "print(1) print(2)\n",
        "def f(:\n",
        "x = 'abc\n",
        "else:\n",
        "def f():\n  return 1\n y = 2\n",
        "x = f(1, 2))\n",
        "    x = 1\n",
        "x = 1 if y\n",
    ],
)
def test_unfixable_prefixes(prefix):
    ok, why = prefix_parses(prefix)
    assert not ok and why, prefix


def test_code_prefixes_follow_steps():
    steps = split_code_steps(ANSWER, "statement", "add")
    prefixes = code_prefixes(ANSWER, steps, "add")
    assert prefixes[:2] == [None, None]
    assert prefixes[2] == "import math\n"
    assert prefixes[3].endswith("return s\n") and prefixes[4] == prefixes[5]
    assert all(prefix_parses(p)[0] for p in prefixes if p is not None)


def test_code_prefixes_when_steps_are_not_in_text():
    steps = ("Think.", "```python\ndef f():\n    return 1\n```")
    assert code_prefixes("unrelated", steps) == [None, "def f():\n    return 1\n"]


@pytest.mark.parametrize("mode", MODES)
def test_builtin_solutions_split_and_parse(mode):
    for task in builtin_code_tasks():
        code = builtin_code_solutions()[task["entry_point"]]
        text = f"Plan.\n\n```python\n{code}```"
        steps = split_code_steps(text, mode, task["entry_point"])
        assert steps[0] == "Plan." and len(steps) >= 2
        assert all(prefix_parses(p)[0] for p in code_prefixes(text, steps) if p is not None)


def test_builtin_tasks_shape():
    tasks = builtin_code_tasks()
    assert len(tasks) >= 20
    assert all(set(t) == {"question", "tests", "entry_point"} for t in tasks)
    assert all(t["entry_point"] in t["question"] for t in tasks)


def test_lone_closing_fence_after_code_keeps_the_code_before_it():
    text = (
        "def f(a, b):\n    x = a = b and c = 2\n    return x\n```\n\n"
        "This function takes two integers.\n\nThe loop ends when both are 0."
    )
    ext = extract_code(text, "f")
    assert ext.code.startswith("def f(a, b):") and "This function" not in ext.code
    steps = split_code_steps(text, "block", "f")
    assert steps[0].startswith("def f(a, b):")
    prefixes = code_prefixes(text, steps, "f")
    assert prefixes[0] is not None and prefixes[0].startswith("def f")
