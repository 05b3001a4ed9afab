"""Final-answer extraction and equivalence (math-verify in a killable worker)."""

import time

import pytest

from labeling.schema import Chain, Problem, Status
from verifiers.answer import AnswerChecker, AnswerVerifier, extract_answer


@pytest.fixture(scope="module")
def checker():
    c = AnswerChecker(timeout_s=20.0)
    yield c
    c.close()


@pytest.mark.parametrize(
    ("text", "expected", "how"),
    [
        ("so the total is \\boxed{42}.", "42", "boxed"),
        ("first \\boxed{1} then \\boxed{\\frac{3}{4}}", "\\frac{3}{4}", "boxed"),
        ("Natalia sold 48+24 = <<48+24=72>>72 clips.\n#### 72", "72", "hashes"),
        ("#### 1,234", "1,234", "hashes"),
        ("The answer is 7.", "7", "answer_is"),
        ("Therefore, the final answer is: $\\frac{1}{2}$. I hope", "\\frac{1}{2}", "answer_is"),
        ("# Answer\n\n12", "12", "prm800k"),
        ("we get 3 and then 5 apples", "5", "last_number"),
        ("no numbers here", None, "none"),
    ],
)
def test_extract(text, expected, how):
    assert extract_answer(text) == (expected, how)


EQUAL = [
    ("72", "72"),
    ("0.5", "1/2"),
    ("\\frac{1}{2}", "0.5"),
    ("\\dfrac{3}{4}", "0.75"),
    ("1,000", "1000"),  # thousands separator, not a tuple (a math-verify gap we cover)
    ("\\$1,234.50", "1234.5"),
    ("$5.00", "5"),
    ("12 apples", "12"),
    ("12\\text{ cm}", "12"),
    ("10%", "0.1"),
    ("0.4", "40%"),
    ("40", "40%"),  # models drop the percent sign
    ("10^{3}", "1000"),
    ("(1,2]", "(1, 2]"),
    ("\\{1,2\\}", "\\{2,1\\}"),
    ("(1, 2)", "(1,2)"),
    ("x^2+2x+1", "(x+1)^2"),
    ("\\frac{\\sqrt{2}}{2}", "\\sqrt{2}/2"),
    ("2\\sqrt{3}", "\\sqrt{12}"),
    ("x = 3", "3"),
    ("\\text{B}", "B"),
]
DIFFERENT = [
    ("3", "4"),
    ("-5", "5"),
    ("1,000", "1"),
    ("(1,2)", "(2,1)"),  # tuples are ordered
    ("[1,2]", "(1,2)"),  # closed vs open interval
    ("\\pi", "3.14159"),  # no tolerance for a rounded constant
    ("a", "b"),
]


@pytest.mark.parametrize(("pred", "gold"), EQUAL)
def test_equivalent(checker, pred, gold):
    assert checker.equivalent(pred, gold) is True


@pytest.mark.parametrize(("pred", "gold"), DIFFERENT)
def test_not_equivalent(checker, pred, gold):
    assert checker.equivalent(pred, gold) is False


def test_plain_numbers_never_start_the_worker():
    c = AnswerChecker()
    assert c.equivalent("1,234", "1234") is True
    assert c._worker._proc is None
    c.close()


def _sleepy(gold, pred):  # module level: pickled by reference into the worker
    time.sleep(30)


def _broken_checker(gold, pred):  # a checker that cannot even import its library
    raise ImportError("No module named 'math_verify'")


def _memory_hog(gold, pred):
    raise MemoryError


def test_timeout_is_undecided_not_false():
    c = AnswerChecker(timeout_s=0.5)
    c._compare = _sleepy
    start = time.perf_counter()
    assert c.equivalent("x^2", "x*x") is None
    assert time.perf_counter() - start < 10
    out = c.outcome("so \\boxed{x^2}", "x*x")
    assert out.correct is None and out.status == Status.TIMEOUT
    c.close()


@pytest.mark.parametrize(("fn", "status"), [(_broken_checker, Status.ERROR),
                                            (_memory_hog, Status.TIMEOUT)])
def test_a_failing_checker_is_never_a_verdict(fn, status):
    v = AnswerVerifier(timeout_s=20.0)
    v.checker._compare = fn
    problem = Problem("p", "math", "gsm8k", "q", reference="x*x")
    steps = ("We expand.", "So the answer is \\boxed{x^2}.")
    chain = Chain("p", "c", 0, "\n\n".join(steps), steps, "m")
    [verdicts] = v.verify([(problem, chain)])
    assert verdicts[-1].status == status and verdicts[-1].label is None
    if status == Status.ERROR:
        assert "ImportError" in verdicts[-1].evidence
    v.checker.close()


def test_verifier_marks_only_the_last_step():
    v = AnswerVerifier(timeout_s=20.0)
    problem = Problem("p", "math", "gsm8k", "q", reference="72")
    steps = ("48/2 = 24", "48 + 24 = 72\n#### 72")
    chain = Chain("p", "c", 0, "\n\n".join(steps), steps, "m")
    [verdicts] = v.verify([(problem, chain)])
    assert verdicts[0].status == Status.UNVERIFIABLE
    assert verdicts[1].status == Status.CORRECT and verdicts[1].label is True
    v.checker.close()


def test_missing_reference_raises():
    c = AnswerChecker()
    with pytest.raises(ValueError, match="no reference"):
        c.outcome("\\boxed{1}", "  ")
    c.close()
