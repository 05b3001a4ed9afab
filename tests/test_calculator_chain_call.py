"""The symbolic checks of a whole chain in one call to the worker (`ChainAlgebra.check_chain`,
`chain_algebra.judge_chain`): a step over its limit, or one that raises, abstains as it would
in a call of its own and carries nothing; a call that fails as a whole is made again step by
step. Fakes stand in for the worker here (pure logic); the calculator's other tests run the
real worker through `CalculatorVerifier`."""

from __future__ import annotations

import signal
import time

import verifiers.calculator.chain_algebra as chain_algebra
from verifiers.calculator.chain_algebra import ChainAlgebra, judge_chain
from verifiers.killable import CheckTimeoutError

SLOW, BROKEN = "(x+1)^2 = x^2 + 2x + 7", "(y+1)^2 = y^2 + 2y + 7"
STEPS = [
    r"Expanding, $(a+1)^2 = a^2 + 2a + 2$.",
    f"Expanding, ${SLOW}$.",
    f"Expanding, ${BROKEN}$.",
    r"Expanding, $(b+1)^2 = b^2 + 2b + 2$.",
]


def _spin(seconds: float) -> None:
    """CPU work for `seconds` of this thread's CPU time, as a slow sympy check is."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def _fake_judge(real):
    def judge(payload):
        members = payload[0][0][0]
        if "x" in members[0]:
            _spin(2.5)
        if "y" in members[0]:
            raise ValueError("odd input")
        return real(payload)

    return judge


def _busy_judge(real):
    def judge(payload):
        if "x" in payload[0][0][0][0]:
            _spin(3.0)  # Python that never sleeps: only a signal stops it
            raise RuntimeError("ran to its end")
        return real(payload)

    return judge


def _waiting_judge(real, seconds):
    def judge(payload):
        if "x" in payload[0][0][0][0]:
            time.sleep(seconds)  # no CPU: the wall clock alone can end it
        return real(payload)

    return judge


class _InProcess:
    def __init__(self, refuse_chains: bool = False) -> None:
        self.refuse_chains, self.calls, self.by_cpu = refuse_chains, [], []

    def call(self, fn, *args, timeout=None, cpu=False):
        self.calls.append(fn.__name__)
        self.by_cpu.append(cpu)
        if fn is judge_chain and self.refuse_chains:
            raise CheckTimeoutError("judge_chain ran over")
        return fn(*args)

    def submit(self, fn, *args, timeout=None):
        try:
            self.done = (True, self.call(fn, *args, timeout=timeout))
        except Exception as exc:  # kept for `collect`, as the real worker keeps it
            self.done = (False, exc)

    def itself(self):  # what the verifier's `_sympy_worker` is: the one worker, every time
        return self

    def collect(self):
        ok, value = self.done
        if not ok:
            raise value
        return value


def _outcomes(results):
    return [[(r.outcome, r.reason.split(":")[0]) for r in step] for step in results]


def _stopped_at(limit: float) -> list:
    """A step stopped at its limit by either clock of `killable.deadline`."""
    return [
        [("timeout", f"judge_step ran over {limit:g}s of CPU time")],
        [("timeout", f"judge_step ran over {3 * limit:g}s")],
    ]


def _warm_readers():
    # The first step read in a process builds the parsers' tables, which can take longer
    # than the short limits below: paid here, whichever test runs first in this process.
    warm = _InProcess()
    ChainAlgebra("", lambda: warm, 30.0).check_chain(STEPS[:1], [False])


def test_a_slow_or_failing_step_abstains_and_the_rest_are_judged(monkeypatch):
    _warm_readers()
    monkeypatch.setattr(chain_algebra, "judge_step", _fake_judge(chain_algebra.judge_step))
    worker = _InProcess()
    algebra = ChainAlgebra("", lambda: worker, 2.0)
    found = _outcomes(algebra.check_chain(STEPS, [False] * 4))
    assert found[0][0][0] == found[3][0][0] == "false"
    # its CPU time, or on a machine too busy to give it a third of a core the wall clock at
    # three times its limit (the clocks apart: the test of a waiting step below)
    assert found[1] in _stopped_at(2)
    assert found[2] == [("skipped", "symbolic check failed")]
    assert worker.calls == ["judge_chain"]


def test_a_chain_call_that_fails_is_made_again_step_by_step(monkeypatch):
    worker = _InProcess(refuse_chains=True)
    algebra = ChainAlgebra("", lambda: worker, 5.0)
    found = _outcomes(algebra.check_chain([STEPS[0], "No math here.", STEPS[3]], [False] * 3))
    assert [step[0][0] if step else None for step in found] == ["false", None, "false"]
    assert worker.calls == ["judge_chain", "judge_step", "judge_step"]
    assert worker.by_cpu[1:] == [True, True]  # a step alone is bounded by its CPU time too


def test_a_decided_step_is_not_confirmed_in_a_chain_call():
    algebra = ChainAlgebra("", _InProcess().itself, 5.0)
    found = _outcomes(algebra.check_chain(STEPS[:1], [True]))
    assert found == [[("skipped", "not confirmed")]]


def test_a_step_is_stopped_at_its_limit_inside_the_call(monkeypatch):
    # Measured only after it returned, a step stuck for minutes held the whole chain's call
    # until the parent killed it at the sum of the limits; it is interrupted at its own.
    _warm_readers()
    monkeypatch.setattr(chain_algebra, "judge_step", _busy_judge(chain_algebra.judge_step))
    handler, profile = signal.getsignal(signal.SIGALRM), signal.getsignal(signal.SIGPROF)
    worker = _InProcess()
    found = _outcomes(ChainAlgebra("", lambda: worker, 0.5).check_chain(STEPS, [False] * 4))
    assert found[1] in _stopped_at(0.5)
    assert found[0][0][0] == found[3][0][0] == "false"  # the steps after it still judged
    assert worker.calls == ["judge_chain"]
    for which in (signal.ITIMER_REAL, signal.ITIMER_PROF):
        assert signal.getitimer(which) == (0.0, 0.0)  # no timer left running
    assert signal.getsignal(signal.SIGALRM) == handler
    assert signal.getsignal(signal.SIGPROF) == profile


def test_a_step_is_timed_by_its_cpu_time_with_the_wall_clock_as_backstop(monkeypatch):
    # A step's limit counts CPU time, so one that waits (a machine busy with other work)
    # keeps its verdict past its limit in wall time; past three times its limit the wall
    # clock ends it all the same.
    _warm_readers()
    real = chain_algebra.judge_step
    # (a second and a half of slack each way: the step's own reading after its wait must not
    # reach the backstop on a loaded machine)
    monkeypatch.setattr(chain_algebra, "judge_step", _waiting_judge(real, 1.5))
    found = _outcomes(ChainAlgebra("", _InProcess().itself, 1.0).check_chain(STEPS, [False] * 4))
    assert found[1] == [("false", "the two sides differ by -6")]
    monkeypatch.setattr(chain_algebra, "judge_step", _waiting_judge(real, 4.5))
    found = _outcomes(ChainAlgebra("", _InProcess().itself, 1.0).check_chain(STEPS, [False] * 4))
    assert found[1] == [("timeout", "judge_step ran over 3s")]
    assert found[0][0][0] == found[3][0][0] == "false"


def test_off_the_main_thread_a_step_is_measured_after_it_returns(monkeypatch):
    # No timer signal there (a caller running the checks in-process from a thread): the step
    # runs to its end and abstains for having overrun, as before the worker could stop it.
    import threading

    monkeypatch.setattr(chain_algebra, "judge_step", _fake_judge(chain_algebra.judge_step))
    found = []
    algebra = ChainAlgebra("", _InProcess().itself, 2.0)
    thread = threading.Thread(target=lambda: found.extend(algebra.check_chain(STEPS, [False] * 4)))
    thread.start()
    thread.join(60)
    assert _outcomes(found)[1] == [("timeout", "judge_step ran over 2s of CPU time")]


RETRACTED = [
    r"We get $x^2 - 7x + 12 = 0$.",
    "Wait, that equation is wrong; let me redo it.",
    r"So $x^2 = 7x - 10$.",
]


def test_a_step_without_math_that_takes_back_the_one_before_carries_nothing_past_it():
    # Read as drawn from the first step, the third is a wrong derivation; the words between
    # take that step back, in one call for the chain and in the step-by-step calls alike.
    for worker in (_InProcess(), _InProcess(refuse_chains=True)):
        found = _outcomes(ChainAlgebra("", worker.itself, 5.0).check_chain(RETRACTED, [False] * 3))
        assert all(outcome != "false" for step in found for outcome, _ in step), found
    neutral = [RETRACTED[0], "Now we rearrange it.", RETRACTED[2]]
    found = _outcomes(ChainAlgebra("", _InProcess().itself, 5.0).check_chain(neutral, [False] * 3))
    assert found[2][0][0] == "false"
