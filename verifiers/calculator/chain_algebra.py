"""The symbolic checks along one chain: what each step's algebra carries to the next.

`ChainAlgebra` walks a chain step by step beside the numeric checks. It keeps, in the parent
process, only text: the conditions still live (the last equations written, for derivations and
claimed solutions), the functions the problem or the chain defined (`f(x) = 3x^2 - x`), and
the problem's own relations (given conditions are never "derived"). Each step's relations go
to the killable worker in one call (`claims_kind.judge_step`) bounded by `timeout_s`; a step
that runs out of time or crashes the worker abstains (`timeout`), and what it would have
carried is dropped, so a later step is never judged against a condition nobody read.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from verifiers.calculator.claim_words import numeric_reads
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.claims_kind import judge_step
from verifiers.calculator.evaluate import warm_sympy
from verifiers.calculator.readers import warm
from verifiers.calculator.relations import clauses
from verifiers.killable import (
    CheckCrashedError,
    CheckFailedError,
    CheckMemoryError,
    CheckTimeoutError,
    KillableWorker,
)

__all__ = ["ChainAlgebra"]

_FUNCTION = re.compile(r"^([a-zA-Z])\s*\(\s*([a-z])\s*\)$")

def _compact(text: str) -> str:
    return re.sub(r"\s+", "", text)


class ChainAlgebra:
    """Symbolic verdicts for one chain, step by step (`check(step)` in order)."""

    def __init__(
        self, question: str, worker: Callable[[], KillableWorker], timeout_s: float
    ) -> None:
        self._worker = worker
        self._timeout_s = timeout_s
        self._last: tuple = ()
        self._known: tuple = ()
        self._defs: dict = {}
        given = []
        known = []
        for clause in clauses(question):
            for link in clause.links:
                if link.op != "=":
                    continue
                given.append(_compact(f"{link.left}={link.right}"))
                if (m := _FUNCTION.match(link.left.replace(" ", ""))) and link.index == 0:
                    self._defs[m.group(1)] = (m.group(2), link.right)
                else:
                    known.append((link.left, link.right))
        self._given = frozenset(given)
        self._known = tuple(known[-40:])

    def check(self, step: str, decided: bool = False) -> list[ClaimResult]:
        """The step's symbolic claims judged (holds / false / timeout); conditions carried.
        `decided`: the step's numeric claims already hold a False (its verdict is made)."""
        found = clauses(step)
        if not found:
            return []
        payload = (
            [(c.members, c.ops, c.before, c.after, c.region, c.lead) for c in found],
            self._last,
            self._known,
            self._defs,
            self._given,
            decided,
        )
        text = "; ".join(" ".join(c.members) for c in found)[:120]
        try:
            outcomes, self._last, self._known, self._defs = self._worker().call(
                judge_step, payload, timeout=self._timeout_s
            )
        except (CheckTimeoutError, CheckMemoryError, CheckCrashedError) as exc:
            self._last = ()
            return [ClaimResult("timeout", text, reason=str(exc))]
        except CheckFailedError as exc:
            self._last = ()
            return [ClaimResult("skipped", text, reason=f"symbolic check failed: {exc}"[:200])]
        # A relation between numbers that the numeric reader reads too is its to judge.
        return [_result(o) for o in outcomes if not numeric_reads(o)]


def warm_checks() -> None:
    """Everything the worker's checks import, paid before the first timed check."""
    warm_sympy()
    warm()


def _result(o: ClaimResult) -> ClaimResult:
    # The evidence names a relation between numbers as such; nothing reads this text back.
    reason = f"numbers: {o.reason}" if o.numbers else o.reason
    if o.outcome == "false":
        return ClaimResult("false", o.text, o.claimed or "-", o.true or "-", reason)
    return ClaimResult(o.outcome, o.text, reason=reason)
