"""Steps MC never blames (labeling/mc/spared.py): real text from the hand-checked first-run
chains and ProcessBench's dev split, and the `posterior` model and search that use it."""

from __future__ import annotations

import pytest

from labeling.mc import FirstErrorModel
from labeling.mc.spared import may_err, names_nothing, restates
from tests.fakes import drive, posterior_case, posterior_search


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


# A loop SmolLM2 wrote on the first-run problem "Grace has 5 boxes with 2 pencils in each
# box. How many pencils does Grace have?" (dataset.seed=7): right at step 0, then
# the same sentence until it is cut off.
GRACE = "Grace has 5 boxes with 2 pencils in each box. How many pencils does Grace have?"
LOOP = ["Grace has 5 boxes with 2 pencils in each box, which means she has 5 * 2 = 10 pencils.",
        *["She has 5 boxes with 2 pencils in each box, which means she has 5 * 2 = 10 "
          "pencils."] * 5,
        "She has 5 boxes with 2 pencils in each box, which means she has"]


def test_a_loop_restates_and_is_spared():
    # step 1 puts "she" for "Grace"; the cut-off last step may always err
    assert restates(LOOP, GRACE) == (False, True, True, True, True, True, False)
    assert may_err(LOOP, GRACE) == (True, False, False, False, False, False, True)


def test_steps_said_again_from_another_first_run_chain():
    # cce4be8e4a9986b9e: steps 3-5 say steps 0-2 again ("Now" for "To solve this problem");
    # step 6 adds a wrong total, its own claim
    steps = ["To solve this problem, we need to find the total number of cards Grace has by "
             "multiplying the number of packs by the number of cards in each pack.",
             "We have 6 packs with 5 cards in each pack, so we multiply 6 by 5 to find the "
             "total number of cards Grace has.",
             "So, 6 x 5 = 30 cards Grace has.",
             "Now, we need to find the total number of cards Grace has by multiplying the "
             "number of packs by the number of cards in each pack.",
             "We have 6 packs with 5 cards in each pack, so we multiply 6 by 5 to find the "
             "total number of cards Grace has.",
             "So, 6 x 5 = 30 cards Grace has.",
             "The final answer is 30 + 30 = 60 cards Grace has."]
    assert restates(steps) == (False, False, False, True, True, True, False)


def test_a_step_that_copies_the_question_is_given():
    steps = ["Grace has 5 boxes with 2 pencils in each box.", "So she has 5 * 2 = 10 pencils."]
    assert restates(steps, GRACE) == (True, False)
    assert restates(steps) == (False, False)  # without the question: a claim of its own


def test_a_list_of_the_givens_restates():
    # c27746a519da32c47 (the first run): step 0 lists the givens, ends of the
    # question's sentence among them; 0 of 18 rollouts reached the answer after it against
    # 5 of 20 from the question, and MC located the first error there
    steps = ["1. 5 boxes with 2 pencils in each box.\n2. 2 pencils in each box.\n3. 5 boxes "
             "with 2 pencils in each box.", "Step 1: 1. 1.", "Step 2: 2.",
             "Step 3: 3.\n\nThe answer is 3."]
    assert restates(steps, GRACE) == (True, False, False, False)


TOM = "Tom has 5 more apples than Ann. Ann has 3 apples."


@pytest.mark.parametrize("question,step", [
    # a misreading that drops a relation word is no restatement
    (TOM, "Tom has 5 apples than Ann has 3 apples."),
    (TOM, "So Tom has 5 apples, and Ann has 3 apples."),
    # the start of a given is no end of it; the end of a condition drops its "if"
    (TOM, "Tom has 5 more apples. Ann has 3 apples."),
    ("If she sells 3 more cookies, she will have 10 cookies. How many does she have?",
     "She will have 10 cookies. How many does she have?"),
])
def test_a_misread_given_does_not_restate(question, step):
    assert restates([step], question) == (False,)


def test_a_given_said_again_with_a_connective_restates():
    q = "Tom has 5 more apples than Ann. Ann has 3 apples. How many apples does Tom have?"
    assert restates(["So Tom has 5 more apples than Ann.", "Ann has 3 apples, we know that."],
                    q) == (True, False)


# ce53ca7ed0ee8ad4f (`make run`, float32): step 0 puts the given in other words,
# then the chain says it again until it is cut off; 0 of 6 rollouts reached the answer after
# step 0 against 4 of 20 from the question, and MC blamed step 0 (11 wrong Falses)
DEV = "Dev has 2 bags with 8 marbles in each bag. How many marbles does Dev have?"


@pytest.mark.parametrize("step", [
    "1. 2 bags of 8 marbles each.\n2. 2 bags of 8 marbles each.",
    "There are 2 bags with 8 marbles each.",
    "So Dev has 2 bags of 8 marbles in each bag.",
])
def test_a_given_in_other_words_restates(step):
    assert restates([step, "Step 1: 2 bags of 8 marbles each."], DEV) == (True, True)


@pytest.mark.parametrize("question,step", [
    (DEV, "Dev has 2 bags of 8 marbles in total."),  # a relation word added
    (DEV, "Dev has 2 bags of 8 marbles, that is all."),  # "each" dropped
    (DEV, "Dev has 8 bags of 2 marbles each."),  # the values in another order
    (DEV, "Dev has 2 marbles of 8 bags each."),  # words moved
    (DEV, "Dev has 2 boxes of 8 marbles each."),  # a word changed
    (DEV, "Dev gives away 2 bags of 8 marbles each."),  # a word added
    (DEV, "Dev does not have 2 bags of 8 marbles each."),  # a negation added
    ("Ann buys 3 shirts for $12. How much is one shirt?", "Ann buys 3 shirts at $12 each."),
    ("If Dev has 2 bags with 8 marbles in each bag, he has 16. Is that so?",
     "Dev has 2 bags of 8 marbles each, so he has 16."),  # a condition's parts
    # roles swapped where a name occurs twice (GSM8K train): the words' multisets differ, so
    # this is no mere reordering, but the names moved
    ("Carly spends only a quarter as much as Lisa on t-shirts but spends 3 times as much on "
     "jeans and a quarter of the amount Lisa spent on coats. How much did they spend?",
     "Lisa spends only a quarter as much as Carly on t-shirts but spends 3 times as much on "
     "jeans and a quarter of the amount Carly spent on coats."),
    ("On Tuesday, 25 cars pass. On Monday, 20% less than on Tuesday, and on Wednesday, 2 more "
     "cars than on Monday. How many cars pass?",
     "On Tuesday, 20% less than on Monday, and on Wednesday, 2 more cars than on Tuesday."),
])
def test_a_given_changed_in_other_words_does_not_restate(question, step):
    assert restates([step], question) == (False,)


def test_a_paraphrased_given_then_a_loop_is_spared_to_the_last_step():
    steps = ["1. 2 bags of 8 marbles each.\n2. 2 bags of 8 marbles each.",
             *[f"Step {i}: 2 bags of 8 marbles each." for i in range(1, 11)],
             "Step 11: 2 bags of 8 marbles each."]
    assert may_err(steps, DEV) == (False,) * 11 + (True,)


@pytest.mark.parametrize("earlier,later", [
    # a value changed: a number, a number word, a symbol, a function in a math span
    ("Grace has 5 boxes with 2 pencils in each box.",
     "Grace has 6 boxes with 2 pencils in each box."),
    ("Grace has five boxes with two pencils in each box.",
     "Grace has six boxes with two pencils in each box."),
    ("So the total is 5 * 2 = 10 pencils in all.", "So the total is 5 + 2 = 10 pencils in all."),
    # ProcessBench olympiadbench-178, steps 2 and 3 (step 3 is the human's first error)
    ("Second, consider \\(\\operatorname{Arccos}(\\cos(t))\\): For \\( t \\in (0, \\pi) "
     "\\), \\(\\operatorname{Arccos}(\\cos(t)) = t\\).",
     "Third, consider \\(\\operatorname{Arctan}(\\tan(t))\\): For \\( t \\in (0, \\pi) "
     "\\), \\(\\operatorname{Arctan}(\\tan(t)) = t\\)."),
    # a negation added, roles swapped, a new sentence beside a repeated one
    ("This combination of the three numbers works for the sum.",
     "This combination of the three numbers does not work for the sum."),
    ("Tom gives Ann the five red apples from his basket.",
     "Ann gives Tom the five red apples from his basket."),
    ("Grace has 5 boxes with 2 pencils in each box.",
     "Grace has 5 boxes with 2 pencils in each box. She gives away 3 pencils."),
    # too short to be read as a restatement (a case analysis says "so y = 2" again)
    ("So y = 2.", "So y = 2."),
])
def test_a_step_with_a_claim_of_its_own_does_not_restate(earlier, later):
    assert restates([earlier, later]) == (False, False)


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
    return posterior_case(base, True, chunk=2)


def test_a_plan_in_words_is_not_blamed_for_the_wrong_answer_after_it():
    # The first-run chain caaf92278f615aaf1: a plan that names nothing, then "The answer is
    # 4." (wrong). The completer solves the problem from the question 6 times in 16, never
    # after the plan. Unspared, the plan is the located first error; spared, the wrong
    # answer is (the last step: the chain's own outcome).
    never = lambda i, j: False  # noqa: E731
    blamed = drive(posterior_search(2, _rule((7, 17)), outcome=False), never)
    assert blamed.labels() == [False, False]
    spared = drive(posterior_search(2, _rule((7, 17)), outcome=False, may_err=(False, True)),
                   never)
    assert spared.labels() == [None, False]
    assert spared.rollouts == 0  # nothing left to learn: the error can only be the last step
    late = drive(posterior_search(3, _rule((7, 17)), outcome=False, may_err=(False, True, True)),
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
    blamed = drive(posterior_search(6, _rule((15, 19)), outcome=outcome), late)
    assert blamed.labels()[0] is False
    spared = drive(posterior_search(6, _rule((15, 19)), outcome=outcome, may_err=flags), late)
    assert False not in spared.labels()[:-1]
    never = lambda i, j: False  # noqa: E731
    silent = drive(posterior_search(6, _rule((15, 19)), outcome=outcome, may_err=flags), never)
    assert False not in silent.labels()[:-1]  # derailed for good: MC cannot tell


def test_a_fall_after_a_derailing_line_is_still_an_error():
    # The line halves the rate (15/19 from the question, 1 in 2 after it), which is no
    # error; the rate then falls to nothing across step 3: located there.
    est = drive(posterior_search(6, _rule((15, 19)), outcome=False,
                                 may_err=(False, True, True, True, True, True)),
                lambda i, j: i < 3 and j % 2 == 0)
    assert est.labels()[3] is False and False not in est.labels()[:3]


def test_an_error_after_a_spared_line_is_still_located():
    # The opening line is spared and right; the rate falls across step 2: located there.
    est = drive(posterior_search(6, _rule((5, 20)), outcome=False,
                                 may_err=(False, True, True, True, True, True)),
                lambda i, j: i < 2 and j % 2 == 0)
    assert est.labels()[:3] == [True, True, False]


@pytest.mark.parametrize("success", [
    lambda i, j: i == 0 and j % 2 == 0,  # half from step 0, never in the loop
    lambda i, j: j % 2 == 0 if i == 0 else (j % 4 == 0 if i < 3 else False),  # fading
], ids=["cold", "fading"])
def test_a_loop_the_completer_fails_after_is_not_blamed(success):
    # LOOP through the search, the completer solving the question 8 times in 17. Unspared, a
    # step of the loop is the located first error or the chain is claimed wrong by it;
    # spared, only the cut-off last step can be wrong.
    blamed = drive(posterior_search(7, _rule((8, 17)), outcome=False), success)
    assert False in blamed.labels()[1:6]
    spared = drive(posterior_search(7, _rule((8, 17)), outcome=False,
                                    may_err=may_err(LOOP, GRACE)), success)
    assert False not in spared.labels()[:-1] and spared.labels()[-1] is False
    assert "restates" in spared.verdicts()[3].evidence


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


@pytest.mark.parametrize("question,labels", [
    (GRACE, [None, False]), ("How many pencils does Grace have?", [False, False])])
def test_the_driver_gives_the_question_to_the_restatement_check(question, labels):
    # Through the real driver: step 0 says a sentence of the question again (a given, spared
    # when the question the driver passes holds it), then a wrong final answer; the completer
    # solves the question 6 times in 16 and never after step 0.
    from labeling.schema import Chain, Problem
    from tests.fakes import FakeCompleter, mc_verifier

    problem = Problem("p", "math", "test", question, reference="10")
    steps = ("Grace has 5 boxes with 2 pencils in each box.", "The answer is \\boxed{12}.")
    chain = Chain("p", "c", 0, "\n\n".join(steps), steps, "other")
    completer = FakeCompleter(lambda req: 0.4 if not req.prefix else 0.0, right="10")
    mc = mc_verifier(completer, rule="posterior", self_rollouts=16)
    (verdicts,) = mc.verify([(problem, chain)])
    assert [v.label for v in verdicts] == labels
