"""The rollout driver with a fake engine: batching, continuous scheduling, seeds, checks,
accounting.

The code outcome path is tested with a fake `run_tests`: `verifiers/code_tests.py` is being
written by another helper; one test uses the real one when it is importable.
"""

from __future__ import annotations

import math

import pytest

from labeling.engine_request import EngineRequest
from labeling.schema import Chain, Problem, Status
from tests.conftest import needs_sandbox
from tests.fakes import FakeCompleter, mc_verifier
from verifiers.base import Verifier
from verifiers.mc.driver import (
    Completer,
    Completion,
    prefix_texts,
)
from verifiers.mc.outcome import CodeOutcome, MathOutcome, no_attempt

ERR = "[err]"


def math_item(i: int, length: int, error: int, reference: str = "42") -> tuple[Problem, Chain]:
    # each step names a value (x1, x2, ...): a step that names nothing is never blamed
    steps = [f"Step {s + 1}: x{s + 1} {ERR if s == error else 'ok'}" for s in range(length)]
    steps[-1] += f" \\boxed{{{41 if error >= 0 else 42}}}"
    problem = Problem(f"p{i}", "math", "test", f"Question {i}?", reference=reference)
    return problem, Chain(f"p{i}", f"c{i}", 0, "\n\n".join(steps), tuple(steps), "m")


def error_aware(p_ok: float = 1.0, p_bad: float = 0.0) -> FakeCompleter:
    return FakeCompleter(lambda r: p_bad if ERR in r.prefix else p_ok)


def labels(verdicts):
    return [v.label for v in verdicts]


def test_fakes_satisfy_the_protocols():
    assert isinstance(FakeCompleter(lambda r: 1.0), Completer)
    assert isinstance(mc_verifier(FakeCompleter(lambda r: 1.0)), Verifier)


def test_prefix_texts_keep_the_models_spacing():
    chain = Chain(
        "p", "c", 0, "A  one.\n\n\nB two.\nC three.", ("A  one.", "B two.", "C three."), "m"
    )
    # the spacing inside a prefix is the model's; the separator after it is not part of it
    assert prefix_texts(chain) == ["A  one.", "A  one.\n\n\nB two.", chain.text]


def test_prefix_texts_fall_back_to_joining_steps():
    chain = Chain("p", "c", 0, "", ("a", "b", "c"), "m")
    assert prefix_texts(chain, "\n") == ["a", "a\nb", "a\nb\nc"]
    assert prefix_texts(Chain("p", "c", 0, "", (), "m")) == []


@pytest.mark.parametrize("estimator", ["binary_search", "per_step"])
def test_noiseless_engine_finds_every_first_error(estimator):
    length = 8
    items = [math_item(e, length, e) for e in range(length)] + [math_item(99, length, -1)]
    mc = mc_verifier(error_aware(), estimator=estimator, k=4)
    out = mc.verify(items)
    for e, verdicts in enumerate(out[:length]):
        assert labels(verdicts) == [True] * e + [False] * (length - e)
    assert labels(out[-1]) == [True] * length


def test_binary_search_batches_all_chains_of_a_round_into_one_call():
    length, n_chains = 16, 20
    completer = error_aware()
    items = [math_item(i, length, i % length) for i in range(n_chains)]
    mc = mc_verifier(completer, estimator="binary_search", k=8)
    mc.verify(items)
    rounds = math.ceil(math.log2(length))
    assert len(completer.batches) == mc.last_stats.rounds <= rounds
    assert completer.batches[0] == (n_chains, 8 * n_chains)  # one probe per chain, n=k
    stats = mc.last_stats
    assert stats.completions == sum(c for _, c in completer.batches)
    assert stats.max_batch_requests == n_chains and stats.unfinished_chains == 0


def test_per_step_makes_one_round():
    completer = error_aware()
    mc = mc_verifier(completer, estimator="per_step", k=8)
    mc.verify([math_item(i, 5, 2) for i in range(3)])
    assert completer.batches == [(12, 96)]


def test_accounting_matches_the_verdicts():
    completer = FakeCompleter(lambda r: 0.5, tokens=7)
    mc = mc_verifier(completer, estimator="binary_search", k=4, chunk=1)
    out = mc.verify([math_item(i, 12, 6) for i in range(5)])
    stats = mc.last_stats
    assert stats.completions == sum(v.rollouts for vs in out for v in vs)
    assert stats.tokens == sum(v.tokens for vs in out for v in vs) == 7 * stats.completions
    assert mc.stats.completions == stats.completions  # the running total


def test_seeds_are_per_chain_step_and_rollout_and_results_reproduce():
    seen: list[EngineRequest] = []

    def p(req: EngineRequest) -> float:
        seen.append(req)
        return 0.5

    items = [math_item(i, 10, 5) for i in range(6)]
    first = mc_verifier(FakeCompleter(p), k=4, chunk=2, seed=1).verify(items)
    keys = [(r.prefix, r.seed) for r in seen]
    assert len({r.seed for r in seen}) == len(seen)  # chunks of one prefix draw new samples
    seen.clear()
    again = mc_verifier(FakeCompleter(p), k=4, chunk=2, seed=1).verify(items)
    assert again == first and [(r.prefix, r.seed) for r in seen] == keys
    seen.clear()
    mc_verifier(FakeCompleter(p), k=4, chunk=2, seed=2).verify(items)
    assert {r.seed for r in seen}.isdisjoint(k for _, k in keys)


def test_requests_carry_prompt_prefix_and_sampling_options():
    seen: list[EngineRequest] = []
    completer = FakeCompleter(lambda r: seen.append(r) or 1.0)
    mc = mc_verifier(
        completer, domain="math", k=3, max_tokens=77, temperature=0.6, prompt_fn=lambda p: "Q!"
    )
    problem, chain = math_item(0, 4, 3)
    mc.verify([(problem, chain)])
    assert seen and all(r.user_text == "Q!" and r.n == 3 for r in seen)
    assert all(r.max_tokens == 77 and r.temperature == 0.6 for r in seen)
    assert all(chain.text.startswith(r.prefix) for r in seen)
    assert all(r.prefix.endswith(("ok", "err]")) for r in seen)  # no separator at the end


def test_max_rounds_leaves_chains_unfinished_with_partial_labels():
    mc = mc_verifier(error_aware(), k=2, max_rounds=1, after_error="mask")
    (verdicts,) = mc.verify([math_item(0, 16, 3)])
    assert mc.last_stats.unfinished_chains == 1 and mc.last_stats.rounds == 1
    assert labels(verdicts)[7] is False  # the one probe (step 7) failed ...
    assert labels(verdicts)[:7] == [None] * 7  # ... and nothing before it is known


def test_bad_reference_fails_only_its_chain():
    good, bad = math_item(0, 4, 1), math_item(1, 4, 1, reference="")
    out = mc_verifier(error_aware(), k=2).verify([bad, good])
    assert all(v.status == Status.ERROR and "reference" in v.evidence for v in out[0])
    assert labels(out[1]) == [True, False, False, False]


class ShortCompleter:
    def complete(self, requests):
        return [[Completion("x", 1)] * (r.n - 1) for r in requests]


def test_a_completer_that_drops_completions_is_an_error():
    with pytest.raises(RuntimeError, match="asked for"):
        mc_verifier(ShortCompleter(), k=2).verify([math_item(0, 4, 1)])


@pytest.mark.parametrize("estimator", ["binary_search", "per_step"])
def test_undecided_checks_are_neither_success_nor_failure(estimator):
    def check(problem, steps, completion):
        return None if completion else False  # chain outcome: wrong; every rollout: undecided

    mc = mc_verifier(FakeCompleter(lambda r: 1.0), check, k=2, estimator=estimator)
    (verdicts,) = mc.verify([math_item(0, 4, 1)])
    # Only the last step is known (the chain's own wrong answer); no step is called wrong
    # on the strength of rollouts nobody could check.
    assert labels(verdicts) == [None, None, None, False]
    assert all(v.status == Status.UNVERIFIABLE for v in verdicts[:3])
    assert all(v.score is None and "undecided" in v.evidence for v in verdicts if v.rollouts)
    assert mc.last_stats.undecided_checks == mc.last_stats.checks > 0


def test_math_outcome_judges_the_completion_not_the_prefix():
    check = MathOutcome()
    problem = Problem("p", "math", "t", "q", reference="42")
    prefix = "We guess \\boxed{41}.\n\n"
    assert check(problem, prefix, "Actually it is \\boxed{42}.") is True
    assert check(problem, "so \\boxed{42}\n\n", "Then \\boxed{7}.") is False
    assert check(problem, "so \\boxed{42}", "") is True  # the prefix as a finished chain
    assert check(problem, prefix, "no answer here") is False
    with pytest.raises(ValueError, match="reference"):
        check(Problem("p", "math", "t", "q"), prefix, "no answer")


def test_a_math_rollout_that_writes_nothing_or_copies_the_placeholder_is_no_attempt():
    math_p = Problem("p", "math", "t", "What is 7 * 6?", reference="42")
    ending = "7 * 6 equals 42, which is the result of the multiplication of 7 and 6."
    assert no_attempt(math_p, ending, "")  # would read as "6", the last number
    assert no_attempt(math_p, ending, " \n")
    assert no_attempt(math_p, "", "")  # a question rollout that wrote nothing
    assert no_attempt(math_p, "<think>\nLet me see, 7 * 6", "")  # still thinking: no answer
    assert not no_attempt(math_p, ending, "The final answer is 42.")
    assert not no_attempt(math_p, "So the answer is 41.", "")  # the completer accepted 41
    assert not no_attempt(math_p, "So \\boxed{42}", "")
    code_p = Problem("c", "code", "t", "Write f.", tests=("assert f() == 1",))
    assert not no_attempt(code_p, "def f():\n    return 1", "")  # the program as it stands
    # the instruction's placeholder copied instead of an answer; the question's own boxed
    # text, or any other answer, is an attempt
    prompt = "What is \\boxed{7} * 6?\n\nEnd with: The final answer is \\boxed{your answer}."
    asked = Problem("p", "math", "t", "What is \\boxed{7} * 6?", reference="42")
    assert no_attempt(asked, ending, "\n\nThe final answer is \\boxed{your answer}.", prompt)
    assert no_attempt(asked, "", "The answer is: Your  Answer.", prompt)
    assert not no_attempt(asked, ending, "\n\nThe final answer is \\boxed{your answer}.")
    assert not no_attempt(asked, ending, "So \\boxed{7}.", prompt)
    assert not no_attempt(asked, ending, "So \\boxed{41}.", prompt)


def test_rollouts_that_make_no_attempt_decide_nothing_through_the_driver():
    problem = Problem("p0", "math", "t", "What is 7 * 6?", reference="42")
    steps = ("7 * 6 equals 42, which is the result of the multiplication of 7 and 6.",
             "The final answer is \\boxed{your answer}.")
    chain = Chain("p0", "c0", 0, "\n\n".join(steps), steps, "m")
    silent = FakeCompleter(lambda r: 0.0, template="")
    mc = mc_verifier(silent)
    (verdicts,) = mc.verify([(problem, chain)])
    # The completer ends its answer at the step every time: the step is not called wrong
    # (read as a finished solution it would answer 6); the wrong last step stays False.
    assert labels(verdicts) == [None, False]
    assert verdicts[0].status == Status.UNVERIFIABLE
    assert verdicts[0].rollouts == 8 and verdicts[0].decided == 0
    assert mc.last_stats.no_attempts == mc.last_stats.undecided_checks == 1  # checked once
    # The same with a completer that copies the instruction's placeholder as its answer
    def prompt_fn(p):
        return f"{p.question}\n\nEnd with: The final answer is \\boxed{{your answer}}."

    echo = FakeCompleter(lambda r: 0.0, wrong="your answer")
    mc = mc_verifier(echo, prompt_fn=prompt_fn)
    (verdicts,) = mc.verify([(problem, chain)])
    assert labels(verdicts) == [None, False] and mc.last_stats.no_attempts == 1
    # Writing an answer is an attempt: the same step with a completer that answers 41
    (verdicts,) = mc_verifier(FakeCompleter(lambda r: 0.0),
                              prompt_fn=prompt_fn).verify([(problem, chain)])
    assert labels(verdicts) == [False, False]


class FakeResult:
    def __init__(self, passed, error="", started=True, timed_out=False):
        self.passed, self.error, self.started = passed, error, started
        self.timed_out, self.memory_exceeded = timed_out, False


def test_code_outcome_runs_the_program_with_the_options_it_accepts():
    calls = []

    def run_tests(problem, code, timeout_s=1.0):
        calls.append((code, timeout_s))
        return FakeResult("return 1" in code)

    problem = Problem("p", "code", "t", "q", tests=("assert f() == 1",), entry_point="f")
    check = CodeOutcome(run_tests, options={"timeout_s": 3.0, "workers": 4})
    prefix = "Plan: return one.\n\n```python\ndef f():\n"
    assert check(problem, prefix, "    return 1\n```") is True
    assert calls[-1] == ("def f():\n    return 1", 3.0)  # the fence opened in the prefix
    assert check(problem, prefix, "    return 2\n```") is False
    assert check(problem, "def f():\n    return 1\n", "") is True  # unfenced, own outcome
    assert check(problem, "I give up.", "") is False  # no code at all: not a pass
    not_started = CodeOutcome(lambda p, c: FakeResult(False, "bwrap: uid map", started=False))
    assert not_started(problem, prefix, "    return 1\n```") is None
    # an endless loop and an overloaded machine look the same: a timeout decides nothing
    timed_out = CodeOutcome(lambda p, c: FakeResult(False, "timed out", timed_out=True))
    assert timed_out(problem, prefix, "    return 1\n```") is None
    with pytest.raises(ValueError, match="tests"):
        check(Problem("p", "code", "t", "q"), prefix, "x")


def test_code_domain_through_the_driver():
    def run_tests(problem, code):
        return FakeResult("good" in code and ERR not in code)

    def p_success(req):
        return 0.0 if ERR in req.prefix else 1.0

    template = "```python\ndef f():\n    return '{answer}'\n```"
    completer = FakeCompleter(p_success, right="good", wrong="bad", template=template)
    mc = mc_verifier(completer, CodeOutcome(run_tests), k=2)
    steps = ("Think.", "Plan.", f"Oops {ERR}.", "```python\nbad\n```")
    problem = Problem("p", "code", "t", "q", tests=("assert True",))
    (verdicts,) = mc.verify([(problem, Chain("p", "c", 0, "\n\n".join(steps), steps, "m"))])
    assert labels(verdicts) == [True, True, False, False]


@pytest.mark.sandbox
@needs_sandbox
def test_real_sandbox_when_available():
    problem = Problem("p", "code", "t", "Write f.", tests=("assert f() == 1",), entry_point="f")
    check = CodeOutcome(options={"timeout_s": 20.0, "workers": 2})
    prefix = "```python\ndef f():\n"
    assert check(problem, prefix, "    return 1\n```") is True
    assert check(problem, prefix, "    return 2\n```") is False


def test_a_check_that_raises_on_a_completion_is_undecided_not_fatal():
    def check(problem, steps, completion):
        if completion:
            raise RuntimeError("parser exploded")
        return False

    mc = mc_verifier(FakeCompleter(lambda r: 1.0), check, k=2)
    (verdicts,) = mc.verify([math_item(0, 4, 1)])
    assert labels(verdicts) == [None, None, None, False]
    assert mc.last_stats.check_errors == mc.last_stats.checks > 0


def test_accepts_the_pipeline_config_arguments():
    mc = mc_verifier(
        completer=FakeCompleter(lambda r: 1.0),
        domain="code",
        estimator="per_step",
        k=4,
        threshold=0.0,
        max_tokens=256,
        temperature=0.8,
        max_rounds=64,
        after_error="negative",
        tests_cfg={"timeout_s": 10.0, "workers": 3, "allow_unsafe": False},
    )
    assert isinstance(mc.check, CodeOutcome) and mc.check_workers == 3
    with pytest.raises(ValueError, match="binary_search"):
        mc_verifier(FakeCompleter(lambda r: 1.0), estimator="nope")


def sampled_items(problems: int, length: int = 6) -> list[tuple[Problem, Chain]]:
    """Four chains per problem, written by the completer ("m"): errors at 0, 3, none, 5."""
    out = []
    for p in range(problems):
        for c, error in enumerate((0, 3, -1, length - 1)):
            problem, chain = math_item(p, length, error)
            out.append(
                (problem, Chain(chain.problem_id, f"c{p}.{c}", c, chain.text, chain.steps, "m"))
            )
    return out


def posterior_rule(r):
    if ERR in r.prefix:
        return 0.02
    return 0.4 if not r.prefix else 0.7  # the question, then a right prefix


def test_posterior_through_the_driver_locates_errors_and_counts_requests():
    items = sampled_items(3)
    mc = mc_verifier(
        FakeCompleter(posterior_rule), rule="posterior", probe=2, self_rollouts=8, samples_of="m"
    )
    out = mc.verify(items)
    located = 0
    for (_, chain), verdicts in zip(items, out, strict=True):
        error = next((i for i, s in enumerate(chain.steps) if ERR in s), -1)
        got = labels(verdicts)
        first = next((i for i, x in enumerate(got) if x is False), None)
        if first is not None and first < len(got) - 1 and all(got[:first]):
            assert first == error  # located by rollouts: a step claim
            located += 1
        elif first is not None and first < len(got) - 1:
            assert 0 <= error <= first  # a prefix claim: wrong by here
        if error < 0:
            assert got == [True] * len(got)
        assert all(v.self_confidence == verdicts[0].self_confidence for v in verdicts)
        assert verdicts[0].self_confidence.rollouts == 8
        # the score: the posterior that the chain is still right through the step
        assert all(v.score is None or 0 <= v.score <= 1 for v in verdicts)
    assert located >= 4  # of the 6 errors before the last step, most are located exactly
    s = mc.last_stats
    rollouts = sum(v.rollouts for vs in out for v in vs)
    assert s.completions == rollouts + 3 * 8 and s.requests < s.completions


def test_a_completer_that_never_solves_is_said_and_spends_only_the_question(caplog):
    """Self-confidence 0/16 on every problem: no probe is sent, every step but the last stays
    unverifiable, and one warning says why."""
    items = [(p, c) for p, c in sampled_items(2) if c.chain_id.endswith((".0", ".1", ".3"))]
    completer = FakeCompleter(lambda r: 0.0)  # every sampled chain wrong, every rollout too
    mc = mc_verifier(completer, rule="posterior", self_rollouts=16, samples_of="m")
    with caplog.at_level("WARNING", logger="verifiers.mc.driver"):
        out = mc.verify(items)
    st = mc.last_stats
    assert st.completions == st.self_completions == 2 * 16  # the question's, nothing more
    assert st.hopeless_chains == len(items)
    assert all(v.status == Status.UNVERIFIABLE for vs in out for v in vs[:-1])
    said = [r.getMessage() for r in caplog.records if "place no label" in r.getMessage()]
    assert len(said) == 1 and "0/19 on 2 problems" in said[0]


def test_no_warning_when_some_chain_is_probed(caplog):
    mc = mc_verifier(FakeCompleter(posterior_rule), rule="posterior", self_rollouts=8,
                     samples_of="m")
    with caplog.at_level("WARNING", logger="verifiers.mc.driver"):
        mc.verify(sampled_items(2))
    assert not [r for r in caplog.records if "place no label" in r.getMessage()]
    assert mc.last_stats.hopeless_chains < len(sampled_items(2))


class RecordingCompleter(FakeCompleter):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.requests: list[EngineRequest] = []

    def complete(self, requests):
        self.requests.extend(requests)
        return super().complete(requests)


def test_question_completions_the_job_asked_for_are_used_not_asked_again():
    """Given the bare question's completions (the job sends that request with the sampling:
    `verifiers.mc.question`), the verifier sends no question request of its own and labels as
    if it had; a list of the wrong size is not trusted and the question is asked again."""
    items = sampled_items(3)

    def make():
        return mc_verifier(RecordingCompleter(posterior_rule), rule="posterior", probe=2,
                           self_rollouts=8, samples_of="m")

    asking = make()
    want = asking.verify(items)
    assert sum(not r.prefix for r in asking.completer.requests) == 3

    given = make()
    problems = {p.problem_id: p for p, _ in items}
    requests = [given.question_request(p) for p in problems.values()]
    answers = FakeCompleter(posterior_rule).complete(requests)
    given.given_questions = {r.key: a for r, a in zip(requests, answers, strict=True)}
    assert given.verify(items) == want
    assert all(r.prefix for r in given.completer.requests)  # probes only
    assert given.last_stats.self_completions == asking.last_stats.self_completions == 24
    assert given.last_stats.requests == asking.last_stats.requests

    short = make()
    short.given_questions = {r.key: a[:5] for r, a in zip(requests, answers, strict=True)}
    assert short.verify(items) == want
    assert sum(not r.prefix for r in short.completer.requests) == 3
