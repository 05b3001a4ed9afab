"""Final-answer extraction and equivalence: the outcome source for math chains.

Extraction is ours (model output is untrusted: every pattern is bounded and nothing is
evaluated). Equivalence goes through a fast exact path for plain numbers, then Math-Verify
for everything else (LaTeX, sets, intervals, expressions). Math-Verify's own timeouts use
SIGALRM, which fails off the main thread (Ray actors), so we call it with its timeouts off
inside a `KillableWorker` and bound it by wall clock from the outside.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from labeling.schema import Chain, Problem, Status, StepVerdict
from labeling.steps.thinking import answer_region
from labeling.text.latex import MAX_ANSWER_CHARS, last_boxed
from verifiers.base import ChainVerifier
from verifiers.killable import (
    CheckCrashedError,
    CheckFailedError,
    CheckMemoryError,
    CheckTimeoutError,
    KillableWorker,
)

# The bound of one equivalence check unless a caller says otherwise; the apps' default
# (`answer_check.timeout_s`) is this constant, and every checker below defaults to it.
ANSWER_TIMEOUT_S = 5.0

UNFINISHED = "unfinished"  # `extract_answer`'s "how" for a thinking that never closed
_HASHES = re.compile(r"####\s*(.+?)\s*$", re.M)
_ANSWER_IS = re.compile(
    r"(?:final answer|the answer)\s*(?:is|:)\s*[:\s]*(.{1,200}?)(?:\.\s|\.?$|\n)", re.I | re.M
)
_PRM800K = re.compile(r"^#\s*Answer\s*\n+\s*(.+?)\s*$", re.M)
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+")
_PLAIN_NUMBER = re.compile(r"^-?(?:\d+(?:,\d{3})*|\d*)(?:\.\d+)?(?:/\d+)?$")
_UNIT_TAIL = re.compile(r"\s*(?:[a-zA-Z][a-zA-Z ]*|\\text\{[^}]*\}|\\mbox\{[^}]*\})\s*$")


def extract_answer(text: str) -> tuple[str | None, str]:
    """(answer, how) from a chain's text; how is boxed|hashes|answer_is|prm800k|last_number.

    Returns (None, "none") when nothing answer-like is found, and (None, "unfinished") for a
    reasoning trace whose thinking never closed: its answer is unknown, and never read out of
    the thinking (`labeling.steps.thinking.answer_region`; after `</think>` only, when there is
    one). Does not judge the answer.
    """
    region = answer_region(text)
    if region is None:
        return None, UNFINISHED
    text = region
    boxed = last_boxed(text)
    if boxed:
        return boxed[:MAX_ANSWER_CHARS], "boxed"
    for pattern, how in ((_HASHES, "hashes"), (_PRM800K, "prm800k"), (_ANSWER_IS, "answer_is")):
        found = pattern.findall(text)
        if found:
            ans = found[-1].strip().strip("$").strip()
            if ans:
                return ans[:MAX_ANSWER_CHARS], how
    numbers = _NUMBER.findall(text[-2000:])
    if numbers:
        return numbers[-1], "last_number"
    return None, "none"


def _as_number(s: str) -> Fraction | None:
    """Exact value of a plain numeric answer ('1,234', '$5.50', '40%', '3/4', '12 apples')."""
    s = s.strip().strip("$").replace("\\$", "").replace("\\!", "").replace("{,}", ",")
    s = s.replace("\\%", "%").strip()
    s = _UNIT_TAIL.sub("", s) if not _PLAIN_NUMBER.match(s.rstrip("%")) else s
    pct = s.endswith("%")
    s = s.rstrip("%").strip().rstrip(".")
    if not s or len(s) > 60 or not _PLAIN_NUMBER.match(s):
        return None
    try:
        value = Fraction(s.replace(",", ""))
    except (ValueError, ZeroDivisionError):
        return None
    return value / 100 if pct else value


def _math_verify_equal(gold: str, pred: str) -> bool:
    """Runs in the child process. Timeouts off: the parent bounds us by wall clock."""
    from math_verify import parse, verify

    def wrap(s: str) -> str:
        return s if "$" in s or "\\boxed" in s else f"${s}$"

    gold_parsed = parse(wrap(gold), parsing_timeout=None)
    pred_parsed = parse(wrap(pred), parsing_timeout=None)
    if not gold_parsed or not pred_parsed:
        return False
    return bool(verify(gold_parsed, pred_parsed, timeout_seconds=None))


def _warm_math_verify() -> None:
    """Import math-verify and parse once, so that no real check pays for it. Its notice that
    its own timeouts are off is silenced: this child process is bounded by wall clock."""
    import logging

    logging.getLogger("math_verify").setLevel(logging.ERROR)
    _math_verify_equal("1/2", "0.5")


@dataclass(frozen=True, slots=True)
class Outcome:
    answer: str | None
    correct: bool | None  # None: could not be decided (see `status`)
    evidence: str
    status: Status = Status.UNVERIFIABLE  # CORRECT/INCORRECT when decided; TIMEOUT when the
    # check ran out of time or memory; ERROR when the checker itself failed (never a verdict)


class AnswerChecker:
    """Compares answers with references; one killable Math-Verify worker per checker."""

    def __init__(self, timeout_s: float = ANSWER_TIMEOUT_S, memory_mb: int = 2048) -> None:
        self.timeout_s = timeout_s
        self._worker = KillableWorker(memory_mb=memory_mb, warmup=_warm_math_verify)
        self._compare = _math_verify_equal  # runs in the worker; tests swap in a broken one

    def equivalent(self, pred: str, gold: str) -> bool | None:
        """True/False when decided; None when the check timed out or failed."""
        try:
            return self.decide(pred, gold)
        except (CheckTimeoutError, CheckMemoryError, CheckCrashedError, CheckFailedError):
            return None

    def decide(self, pred: str, gold: str) -> bool:
        """True/False. Raises the worker's typed errors when it cannot decide: unparseable
        model output is *not equal* (math-verify parses it to nothing), but a checker that
        raises (ImportError, a bug) or dies is never taken for a verdict."""
        a, b = _as_number(pred), _as_number(gold)
        if a is not None and b is not None:
            # Percent vs fraction: "40%" and "0.4" are the same quantity, and models often
            # drop the sign, so a bare 40 also matches a gold 40%.
            return a == b or ("%" in gold and a == b * 100) or ("%" in pred and a * 100 == b)
        if pred.strip() == gold.strip():
            return True
        return bool(self._worker.call(self._compare, gold, pred, timeout=self.timeout_s, cpu=True))

    def outcome(self, text: str, reference: str) -> Outcome:
        if not reference.strip():
            raise ValueError("problem has no reference answer; cannot judge the outcome")
        answer, how = extract_answer(text)
        if how == UNFINISHED:
            return Outcome(None, None, "final answer unknown: the thinking never closed (no "
                           "</think>; cut at max_tokens?)", Status.UNVERIFIABLE)
        if answer is None:
            return Outcome(None, False, "no final answer found", Status.INCORRECT)
        try:
            eq = self.decide(answer, reference)
        except (CheckTimeoutError, CheckMemoryError) as exc:
            return Outcome(answer, None, f"equivalence check ran out ({exc})", Status.TIMEOUT)
        except (CheckCrashedError, CheckFailedError) as exc:
            return Outcome(answer, None, f"equivalence checker failed: {exc}"[:300], Status.ERROR)
        verb = "matches" if eq else "differs from"
        status = Status.CORRECT if eq else Status.INCORRECT
        evidence = f"{how} answer {answer[:80]!r} {verb} {reference[:80]!r}"
        return Outcome(answer, eq, evidence, status)

    def close(self) -> None:
        self._worker.close()


class AnswerVerifier(ChainVerifier):
    """Outcome source: the last step carries the final-answer verdict; earlier steps are
    `unverifiable` (a right answer does not prove every step right)."""

    name = "answer"

    def __init__(self, timeout_s: float = ANSWER_TIMEOUT_S) -> None:
        self.checker = AnswerChecker(timeout_s=timeout_s)

    def verify_chain(self, problem: Problem, chain: Chain) -> list[StepVerdict]:
        n = len(chain.steps)
        if n == 0:
            return []
        result = self.checker.outcome(chain.text or "\n\n".join(chain.steps), problem.reference)
        if result.correct is None:
            last = StepVerdict(result.status, None, None, result.evidence)
        elif result.correct:
            last = StepVerdict(Status.CORRECT, True, 1.0, result.evidence)
        else:
            last = StepVerdict(Status.INCORRECT, False, 0.0, result.evidence)
        return [StepVerdict.unverifiable()] * (n - 1) + [last]
