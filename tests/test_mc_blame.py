"""Steps MC never blames (labeling/mc/blame.py): real text from the hand-checked first-run
chains and ProcessBench's dev split, and the `posterior` model and search that use it."""

from __future__ import annotations

import pytest

from labeling.mc import FirstErrorModel, Posterior, PosteriorSearch
from labeling.mc.blame import may_err, names_nothing
from tests.fakes import drive


@pytest.mark.parametrize("step", [
    # opening lines and goals restated (SmolLM2's first-run chains, ProcessBench gsm8k/math)
    "To solve this problem, we need to follow the order of operations: parentheses, "
    "exponents, multiplication and division, and division.",
    "1. The first step is to find the total number of marbles in each bag.\n2. The second "
    "step is to find the total number of marbles in each bag.\n3. The third step is to find "
    "the total number of marbles in the 4th bag.\n4. The final step is to find the answer.",
    "To determine the total number of animals Rick killed, we need to calculate the number "
    "of wolves and cougars.",
    "We will start by considering the properties of factorials and the constraints provided.",
    "- First, find the total number of marbles in each bag:",
    "Step 2: Now we need to find the total.",  # a step header is a position too
    "首先，我们需要求出铅笔的总数。",  # "first, we need the total number of pencils"
    "",
])
def test_a_step_that_names_nothing_is_spared(step):
    assert names_nothing(step)


@pytest.mark.parametrize("step", [
    # a quantity, a variable, a formula, a number word, an operation applied
    "Ava has 6 * 5 = 30 cards in her pack.",
    "Let x be the number of apples.",
    "Therefore $f$ is increasing on $[0, \\infty)$.",
    "So the answer is twelve.",
    "So Grace has twice as many pencils.",
    "Then the angle is α.",
    "To find out how many pencils Grace has, you can divide the total number of boxes by "
    "the number of pencils in each box.",
    "We can do this by adding the number of bags and the number of marbles in each bag.",
    "We take the square root of both sides.",
    "The final answer is 10.",
    "每盒有五支铅笔，一共三盒。",  # numbers in Chinese numerals
    "总数是３０。",  # a full-width digit
    "我们把盒子数乘以每盒的铅笔数。",  # an operation applied (multiply)
])
def test_a_step_that_names_a_value_a_variable_or_an_operation_may_err(step):
    assert not names_nothing(step)


def test_the_last_step_may_always_err():
    steps = ["To solve this, we need to find the total.", "Let's find it.", "That is all."]
    assert may_err(steps) == (False, False, True)
    assert may_err(["We need the total."]) == (True,)


@pytest.mark.parametrize("sampled", [True, False])
@pytest.mark.parametrize("outcome", [True, False, None])
def test_the_model_gives_a_spared_step_no_mass(sampled, outcome):
    flags = (False, True, False, True, True)
    m = FirstErrorModel(5, (5, 20), outcome, sampled, may_err=flags)
    for counts in ([(0, 0)] * 4, [(0, 6), (0, 4), (0, 0), (1, 2)],
                   [(4, 4), (0, 6), (0, 6), (0, 2)]):
        post = m.posterior(counts)
        p_e = [post.p_le[0], *(post.p_le[i] - post.p_le[i - 1] for i in range(1, 5))]
        assert p_e[0] == pytest.approx(0, abs=1e-9) and p_e[2] == pytest.approx(0, abs=1e-9)
        assert all(0 <= p <= 1 for p in post.p_le)
    with pytest.raises(ValueError, match="one flag per step"):
        FirstErrorModel(5, (5, 20), None, True, may_err=(True,) * 4)


def test_the_hazard_acts_only_where_a_step_may_err():
    # Nothing rolled out, outcome unknown: every step spared but the last, the hazard model
    # puts all of 1 - s on the last step (P(none) is still s).
    m = FirstErrorModel(4, (5, 20), None, True, may_err=(False, False, False, True))
    post = m.posterior([(0, 0)] * 3)
    assert post.p_le[2] == pytest.approx(0, abs=1e-9)
    assert post.p_le[3] == pytest.approx(1 - 5.5 / 21, abs=0.02)  # 1 - E[s]


def _rule(base):
    return Posterior(0.05, 3.0, 32, 2, base, True)


def test_a_plan_in_words_is_not_blamed_for_the_wrong_answer_after_it():
    # The first-run chain caaf92278f615aaf1: a plan that names nothing, then "The answer is
    # 4." (wrong). The completer solves the problem from the question 6 times in 16, never
    # after the plan. Unspared, the plan is the located first error; spared, the wrong
    # answer is (the last step: the chain's own outcome).
    never = lambda i, j: False  # noqa: E731
    blamed = drive(PosteriorSearch(2, _rule((7, 17)), outcome=False), never)
    assert blamed.labels() == [False, False]
    spared = drive(PosteriorSearch(2, _rule((7, 17)), outcome=False, may_err=(False, True)),
                   never)
    assert spared.labels() == [None, False]
    assert spared.rollouts == 0  # nothing left to learn: the error can only be the last step
    late = drive(PosteriorSearch(3, _rule((7, 17)), outcome=False, may_err=(False, True, True)),
                 never)
    assert "names nothing" in late.verdicts()[0].evidence
    assert "names nothing" not in late.verdicts()[1].evidence


@pytest.mark.parametrize("outcome", [True, False])
def test_a_derailing_opening_line_is_its_own_baseline(outcome):
    # The first-run chain c28e1bfa5fd8d5d2c: the completer solves the problem from the
    # question 15 times in 19 and never after the opening line and the prefixes that hold
    # it, until late in the chain. Blaming the line, or the step after it (the model's old
    # reading: the rate from a right prefix only rises), measured the completer; with the
    # line spared, the rate after it is the new baseline and no fall is seen after it.
    late = lambda i, j: i >= 4 and j % 2 == 0  # noqa: E731
    flags = (False, True, True, True, True, True)
    blamed = drive(PosteriorSearch(6, _rule((15, 19)), outcome=outcome), late)
    assert blamed.labels()[0] is False
    spared = drive(PosteriorSearch(6, _rule((15, 19)), outcome=outcome, may_err=flags), late)
    assert False not in spared.labels()[:-1]
    never = lambda i, j: False  # noqa: E731
    silent = drive(PosteriorSearch(6, _rule((15, 19)), outcome=outcome, may_err=flags), never)
    assert False not in silent.labels()[:-1]  # derailed for good: MC cannot tell


def test_a_fall_after_a_derailing_line_is_still_an_error():
    # The line halves the rate (15/19 from the question, 1 in 2 after it), which is no
    # error; the rate then falls to nothing across step 3: located there.
    est = drive(PosteriorSearch(6, _rule((15, 19)), outcome=False,
                                may_err=(False, True, True, True, True, True)),
                lambda i, j: i < 3 and j % 2 == 0)
    assert est.labels()[3] is False and False not in est.labels()[:3]


def test_an_error_after_a_spared_line_is_still_located():
    # The opening line is spared and right; the rate falls across step 2: located there.
    est = drive(PosteriorSearch(6, _rule((5, 20)), outcome=False,
                                may_err=(False, True, True, True, True, True)),
                lambda i, j: i < 2 and j % 2 == 0)
    assert est.labels()[:3] == [True, True, False]


@pytest.mark.parametrize("spare", [True, False])
def test_the_driver_reads_the_steps_under_spare_steps(spare):
    # Through the real driver: a plan in words, then a wrong final answer; the completer
    # solves the question 2 times in 5 and never after the plan.
    from labeling.schema import Chain, Problem
    from tests.fakes import FakeCompleter, mc_verifier

    problem = Problem("p", "math", "test", "How many marbles?", reference="42")
    steps = ("First, we need to find the total number of marbles in each bag.",
             "The answer is \\boxed{41}.")
    chain = Chain("p", "c", 0, "\n\n".join(steps), steps, "other")
    completer = FakeCompleter(lambda req: 0.4 if not req.prefix else 0.0)
    mc = mc_verifier(completer, rule="posterior", self_rollouts=16, spare_steps=spare)
    (verdicts,) = mc.verify([(problem, chain)])
    assert [v.label for v in verdicts] == ([None, False] if spare else [False, False])
