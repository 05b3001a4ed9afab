"""The calculator label source: exact checks of the arithmetic each step claims.

For every step, every `a = b` link the extractor finds (`extract.py`) is judged
(`claims.py`): arithmetic exactly with Fractions in-process, irrational values with
sympy in a `KillableWorker` child bounded by wall clock, and linear equations in one unknown
against the equation just before them ("150 + x = 500" then "x = 350 - 150" is inconsistent).
A named result restated in the next clause or at the start of the next step is compared with
the value it was computed as (`verifiers.calculator.named`); "a / b = q remainder r" is checked as
division with remainder.
Before any of this, `verifiers.calculator.context` marks where a splitter cut an expression between
two steps, and makes `*` or `C(` unreadable when the problem defines it as its own.
A false link is then put to the step's own text (`verifiers.calculator.excuses.excused`): an
equation the text tests rather than claims ("which is false", "Is ... ?", "29 ≠ 70"), a stage
of a longer computation, an approximation the step states, a congruence written with "=", or a
slip the chain corrects is skipped with that reason, never `incorrect`.

Verdicts: `incorrect` when some claim is false (evidence names it, with claimed and true
values); `correct` when at least one claim was checked and all checked claims hold; `timeout`
when only a sympy check ran out of time; `unverifiable` otherwise. A step with no arithmetic is
`unverifiable`, never `correct` by default. `correct` says the arithmetic holds, not that the
reasoning is right.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from labeling.schema import Chain, Problem, Status, StepVerdict
from verifiers.base import ChainVerifier
from verifiers.calculator.carried_rounding import exact_given
from verifiers.calculator.chain_algebra import ChainAlgebra, warm_checks
from verifiers.calculator.claims import (
    APPROX_WORDS,
    ClaimResult,
    check_arithmetic,
    compact,
    judge,
    link_text,
)
from verifiers.calculator.context import (
    StepContext,
    applies_function,
    defined_operations,
    function_letters,
    mark_cuts,
    one_spelling,
    read_as_defined,
    step_context,
)
from verifiers.calculator.evaluate import (
    sympy_compare,
    to_fraction,
)
from verifiers.calculator.excuses import excused, numbers, tested
from verifiers.calculator.extract import (
    Link,
    extract_links,
    extract_named,
)
from verifiers.calculator.linear_equations import (
    Equation,
    alternative_unknowns,
    check_equation,
    unknown,
)
from verifiers.calculator.named import (
    REDEFINE,
    carried,
    clause_words,
    restated_across,
    restated_in_step,
)
from verifiers.calculator.number_facts import primality, stated_facts
from verifiers.calculator.parse import variables
from verifiers.calculator.rounding_words import stated_rounding
from verifiers.killable import (
    CheckCrashedError,
    CheckFailedError,
    CheckMemoryError,
    CheckTimeoutError,
    KillableWorker,
    wait_any,
)

# Spawning a worker and importing sympy takes seconds on a loaded machine; every new child
# gets this long to warm up (see KillableWorker's `warmup`) before its checks are timed.
_WARM_TIMEOUT_S = 60.0
# Chains whose numeric checks `verify` makes ahead of the worker: enough to ride out a chain
# the worker takes long over, few enough that the verdicts held back stay small.
_AHEAD = 8


@dataclass(frozen=True, slots=True)
class CalcConfig:
    """Knobs of the calculator source (also its cache key)."""

    timeout_s: float = 2.0  # CPU time of one sympy check, in the worker
    memory_mb: int = 1024  # address-space cap of the worker
    use_sympy: bool = True  # False: irrational claims are skipped, no worker is started
    check_equations: bool = True  # linear equations in one unknown, step to step
    symbolic: bool = True  # relations between expressions (`chain_algebra`), in the worker
    symbolic_timeout_s: float = 5.0  # CPU time of one step's symbolic checks
    workers: int = 1  # sympy workers `verify` judges chains in at once (one child each)


class CalculatorVerifier(ChainVerifier):
    """`calc` source. One lazily started sympy worker per verifier (none if never needed)."""

    name = "calc"

    def __init__(
        self,
        timeout_s: float = 2.0,
        memory_mb: int = 1024,
        use_sympy: bool = True,
        check_equations: bool = True,
        config: CalcConfig | None = None,
    ) -> None:
        self.config = config or CalcConfig(timeout_s, memory_mb, use_sympy, check_equations)
        self._workers: list[KillableWorker] = []  # started as they are needed
        self._busy: set[int] = set()  # ids of workers holding a chain not yet collected
        self._spare: KillableWorker | None = None  # single calls made while every one is busy

    @property
    def _worker(self) -> KillableWorker | None:
        """The first worker (the only one `check_steps` uses), None before any check needed it."""
        return self._workers[0] if self._workers else None

    # --- public -------------------------------------------------------------------------

    def verify_chain(self, problem: Problem, chain: Chain) -> list[StepVerdict]:
        return self.check_steps(chain.steps, problem.question)

    def check_steps(
        self, steps: tuple[str, ...] | list[str], question: str = ""
    ) -> list[StepVerdict]:
        """One verdict per step. Never raises on model output."""
        return self._finish(self._begin(self._numeric(steps, question)))

    def verify(self, items: Sequence[tuple[Problem, Chain]]) -> list[list[StepVerdict]]:
        """`verify_chain` of each item. Up to `config.workers` workers each judge one chain's
        symbolic claims while this process makes the numeric checks of the chains after them,
        up to `_AHEAD` ahead, and a worker gets the next chain as soon as it is free (chains
        share no state, and no verdict depends on which worker gave it). The verdicts are
        those `check_steps` gives, chain by chain, in order."""
        out: list[list[StepVerdict]] = []
        waiting: deque = deque()  # numeric checks made, symbolic ones not yet begun
        flying: deque = deque()  # [begun, its worker, verdicts once collected], oldest first
        try:
            for problem, chain in items:
                waiting.append(self._numeric(chain.steps, problem.question))
                self._dispatch(waiting, flying, out, _AHEAD)
            self._dispatch(waiting, flying, out, 0)
            while flying:
                out.append(self._land(flying.popleft()))
        finally:
            for job in flying:  # an item failed: the jobs in flight are still collected
                self._land(job)
        return out

    def _dispatch(self, waiting: deque, flying: deque, out: list, ahead: int) -> None:
        """Begin waiting chains on free workers, collecting every chain a worker has answered
        (verdicts go out oldest first); while more than `ahead` wait and every worker is busy,
        wait for whichever answers first."""
        while waiting:
            for job in flying:  # a worker that has answered is free once its job is collected
                if job[2] is None and (job[1] is None or job[1].done()):
                    job[2] = self._land(job)
            while flying and flying[0][2] is not None:
                out.append(flying.popleft()[2])
            if (worker := self._free_worker()) is not None:
                begun = self._begin(waiting.popleft(), worker)
                flying.append([begun, worker if id(worker) in self._busy else None, None])
            elif len(waiting) > ahead:  # every worker busy: wait for whichever ends first
                wait_any([job[1] for job in flying if job[2] is None and job[1] is not None])
            else:
                return

    def _land(self, job: list) -> list[StepVerdict]:
        if job[2] is None:
            job[2] = self._finish(job[0])
            self._busy.discard(id(job[1]))
        return job[2]

    def _free_worker(self) -> KillableWorker | None:
        """A worker holding no chain (a new one while fewer than `config.workers` run)."""
        if (idle := self._idle()) is not None:
            return idle
        if len(self._workers) < max(1, self.config.workers):
            return self._new_worker()
        return None

    def _idle(self) -> KillableWorker | None:
        return next((w for w in self._workers if id(w) not in self._busy), None)

    def _numeric(self, steps: tuple[str, ...] | list[str], question: str) -> tuple:
        """The numeric checks of every step, and the chain's symbolic checker (or None)."""
        question, steps = one_spelling(question), [one_spelling(step) for step in steps]
        problem_claims = frozenset(
            compact(link_text(link).replace("≈", "=")) for link in extract_links(question)
        )
        own = defined_operations(question)
        if own:
            steps = [read_as_defined(step, own) for step in steps]
        algebra = (
            ChainAlgebra(question, self._sympy_worker, self.config.symbolic_timeout_s)
            if self.config.symbolic and self.config.use_sympy
            else None
        )
        steps = mark_cuts(steps)
        last_eq: Equation | None = None
        carry = None  # the named result the previous step ended on
        known = numbers(question)  # numbers written before a step: targets a trial may test
        given = exact_given(known)
        functions = function_letters(question)  # `t(1)` is t's value, no unknown times 1
        per_step = []
        for index, step in enumerate(steps):
            functions |= function_letters(step)
            results, last_eq = self._check_step(
                step, index, problem_claims, last_eq, known, given, functions
            )
            known |= numbers(step)
            results.extend(restated_across(carry, step, problem_claims))
            results.extend(stated_facts(step, self._primality if self.config.use_sympy else None))
            results.extend(stated_rounding(step))
            carry = carried(step)
            per_step.append(results)
        return list(steps), per_step, algebra

    def _begin(self, part: tuple, worker: KillableWorker | None = None) -> tuple:
        """The chain's symbolic checks sent to `worker` (the first one by default). A step
        whose numeric claims hold a False has its verdict: its symbolic Falses need no
        confirmation."""
        steps, per_step, algebra = part
        if algebra is None:
            return per_step, None, None
        decided = [any(r.outcome == "false" for r in results) for results in per_step]
        sent = algebra.begin_chain(steps, decided, worker)
        if worker is not None and sent[-1] == "sent":
            self._busy.add(id(worker))
        return per_step, algebra, sent

    def _finish(self, begun: tuple) -> list[StepVerdict]:
        per_step, algebra, sent = begun
        if algebra is not None:
            for results, found in zip(per_step, algebra.end_chain(sent), strict=True):
                results.extend(found)
        return [_verdict(results) for results in per_step]

    def close(self) -> None:
        for worker in [*self._workers, self._spare]:
            if worker is not None:
                worker.close()
        self._workers, self._busy, self._spare = [], set(), None

    # --- one step -------------------------------------------------------------------------

    def _check_step(
        self,
        step: str,
        index: int,
        problem_claims: frozenset[str],
        last_eq: Equation | None,
        known: frozenset[Fraction] = frozenset(),
        given: frozenset[Fraction] = frozenset(),
        functions: frozenset[str] = frozenset(),
    ) -> tuple[list[ClaimResult], Equation | None]:
        links = extract_links(step)
        if not links and not extract_named(step):
            return [], last_eq
        words = clause_words(step)
        if any(w & REDEFINE for w in words):
            last_eq = None
        ctx = step_context(step, frozenset().union(*words), given)
        alternatives = alternative_unknowns(links, set().union(*words))
        results = []
        for link in links:
            here = words[link.clause] if link.clause < len(words) else set()
            approx = link.approx or bool(here & APPROX_WORDS)
            if variables(link.left.node) or variables(link.right.node):
                applied = applies_function(link_text(link), functions)
                if not self.config.check_equations or applied:
                    continue  # a defined function's values are the symbolic checks' to read
                # An alternative is read on its own: never against another alternative's
                # equation, nor against one from before that may be another alternative's.
                known_eq = None if unknown(link) in alternatives else last_eq
                result, last_eq = check_equation(link, links, index, words, known_eq,
                                                       approx)  # fmt: skip
                if result is not None and result.outcome == "false":
                    if reason := tested(step, link, links, None, None):
                        result = ClaimResult("skipped", result.text, reason=reason)
                if result is not None:
                    results.append(result)
                continue
            result = check_arithmetic(link, approx, problem_claims, ctx)
            if result.outcome == "sympy":
                result = self._check_sympy(link, approx, problem_claims, ctx)
            if result.outcome == "false" and (reason := excused(step, link, links, known)):
                result = ClaimResult("skipped", result.text, result.claimed, result.true, reason)
            results.append(result)
        results.extend(restated_in_step(step, words, problem_claims))
        if last_eq is not None and last_eq.var in alternatives:
            last_eq = None  # which alternative the next step goes on with is not ours to guess
        return results, last_eq

    def _check_sympy(
        self,
        link: Link,
        approx: bool,
        problem_claims: frozenset[str],
        ctx: StepContext,
    ) -> ClaimResult:
        text = link_text(link)
        if not self.config.use_sympy:
            return ClaimResult("skipped", text, reason="needs sympy (disabled)")
        try:
            left, right, equal = self._sympy_worker().call(
                sympy_compare,
                link.left.node,
                link.right.node,
                timeout=self.config.timeout_s,
                cpu=True,
            )
        except (CheckTimeoutError, CheckMemoryError, CheckCrashedError) as exc:
            return ClaimResult("timeout", text, reason=str(exc))
        except CheckFailedError as exc:
            # sympy could not evaluate this expression: no claim either way.
            return ClaimResult("skipped", text, reason=f"sympy failed: {exc}"[:200])
        if equal:
            return ClaimResult("holds", text, right, left)
        lv, rv = to_fraction(left), to_fraction(right)
        if lv is None or rv is None:
            return ClaimResult("skipped", text, reason="not a real number")
        computed, claimed = (rv, lv) if link.left.plain and not link.right.plain else (lv, rv)
        return judge(link, computed, claimed, approx, problem_claims, ctx, exact_value=False)

    def _primality(self, n: int) -> tuple[bool, int | None] | None:
        """`number_facts.primality(n)` in the worker; None when it fails or runs out of time."""
        try:
            return self._sympy_worker().call(primality, n, timeout=self.config.timeout_s, cpu=True)
        except (CheckTimeoutError, CheckMemoryError, CheckCrashedError, CheckFailedError):
            return None

    def _sympy_worker(self) -> KillableWorker:
        """A child for one sympy call made here: a worker holding no chain (the first one
        started on first use), or while each holds one, a spare kept for such calls. Waiting
        for a busy worker's chain, the numeric checks of the chains after it stalled, and
        the worker then idled until they were made."""
        if not self._workers:
            return self._new_worker()
        if (idle := self._idle()) is not None:
            return idle
        if self._spare is None:
            self._spare = self._child()
        return self._spare

    def _new_worker(self) -> KillableWorker:
        self._workers.append(self._child())
        return self._workers[-1]

    def _child(self) -> KillableWorker:
        return KillableWorker(
            memory_mb=self.config.memory_mb, warmup=warm_checks, warmup_timeout=_WARM_TIMEOUT_S,
            preload=("verifiers.calculator.warmed",),
        )

def _verdict(results: list[ClaimResult]) -> StepVerdict:
    false = [r for r in results if r.outcome == "false"]
    if false:
        r = false[0]
        why = f" ({r.reason})" if r.reason else ""
        evidence = f"`{r.text}`: claimed {r.claimed}, true {r.true}{why}"
        if r.true == "-" and r.reason:
            # A relation between expressions has no one value a side claims, nor has an
            # equation solved only by putting the value back: the reason (`the two sides
            # differ by 3`, `does not solve ...: there the sides are ...`) is its true form.
            evidence = f"`{r.text}`: {r.reason}"
        return StepVerdict(Status.INCORRECT, False, 0.0, evidence[:400])
    held = [r for r in results if r.outcome == "holds"]
    if held:
        shown = "; ".join(r.text for r in held[:3])
        return StepVerdict(Status.CORRECT, True, 1.0, f"{len(held)} claim(s) hold: {shown}"[:400])
    timeouts = [r for r in results if r.outcome == "timeout"]
    if timeouts:
        return StepVerdict(
            Status.TIMEOUT, None, None, f"`{timeouts[0].text}`: {timeouts[0].reason}"
        )
    if results:
        return StepVerdict.unverifiable(f"{len(results)} claim(s) skipped: {results[0].reason}")
    return StepVerdict.unverifiable("no checkable arithmetic")
