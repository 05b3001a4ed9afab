"""The symbolic checks along one chain: what each step's algebra carries to the next.

`ChainAlgebra` walks a chain step by step beside the numeric checks. It keeps, in the parent
process, only text: the conditions still live (the last equations written, for derivations and
claimed solutions), the functions the problem or the chain defined (`f(x) = 3x^2 - x`), and
the problem's own relations (given conditions are never "derived"). Algebra a step writes in
plain text is read too (`plain_algebra.delimited`). A chain's steps go to the killable worker
in one call (`judge_chain`, `claims_kind.judge_step` for each step in turn; one call a step
cost about as much again in pickling and waking the worker), each step bounded by `timeout_s` of
CPU time in the worker (`killable.deadline`); a step that runs out of time or memory, or fails,
abstains (`timeout`), and what it would have carried is dropped, so a later step is never
judged against a condition nobody read. A call that fails as a whole (a step stuck in C code,
a crash) is made again one step at a time (`check`), each killed at its limit. The call is
split (`begin_chain`, `end_chain`) so the verifier checks the next chain's numbers while the
worker judges this one's algebra.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from verifiers.calculator.claim_words import (
    LETTER,
    compact,
    first_sentence,
    lone,
    numeric_reads,
    prose,
    retracts,
    sentence_words,
    word_set,
)
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.claims_kind import judge_step
from verifiers.calculator.complex_numbers import UNIT_GIVEN, complex_problem
from verifiers.calculator.context import applies_function
from verifiers.calculator.definitions import (
    constant_of,
    define,
    defining,
    on_domain,
    piece_of,
)
from verifiers.calculator.euler_number import EULER_TEXT, euler_chain
from verifiers.calculator.evaluate import warm_sympy
from verifiers.calculator.forced_values import CURVES_GIVEN, curves_problem
from verifiers.calculator.inequalities import INEQUALITIES
from verifiers.calculator.plain_algebra import delimited
from verifiers.calculator.readers import warm
from verifiers.calculator.relations import REST_CHARS, clauses, math_regions
from verifiers.calculator.tuple_values import unpacked
from verifiers.calculator.value_lists import listed_values
from verifiers.killable import (
    WALL_FACTOR,
    CheckCrashedError,
    CheckFailedError,
    CheckMemoryError,
    CheckTimeoutError,
    DeadlineError,
    KillableWorker,
    deadline,
)

__all__ = ["ChainAlgebra"]


# A member that is one name: a letter or a function's value (`x`, `N`, `f(5)`, `a_1`).
_LONE = re.compile(r"[A-Za-z](?:_\{?\w+\}?)?(?:\s*\([^()]*\))?")


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
        self._question = question
        given = []
        known = []
        fixed: dict[str, str] = {}
        given_values: dict[str, set] = {}  # every value the problem writes for a letter
        listed = False  # the clause before fixed a letter: "Let $a = 2$ and $b = 3$"
        premise: tuple = ()  # the problem's last relation, when it is one inequality to solve
        bounds = 0  # inequalities the problem writes: two or more may bound one letter
        pieces: dict = {}  # functions defined on a domain only: {name: the defining link}
        links: list = []
        for clause in _read(question):
            bounds += bool(set(clause.ops) & INEQUALITIES)
            single = len(clause.members) == 2 and clause.ops[0] in INEQUALITIES
            solve = single and "solve" in sentence_words(clause.lead)
            premise = (clause.members[0], clause.ops[0], clause.members[1]) if solve else ()
            if len(clause.members) == 2 and clause.ops[0] == "=":
                given_values.setdefault(compact(clause.members[0]), set()).add(
                    compact(clause.members[1])
                )
            name = constant_of(clause.members, clause.ops, clause.before, listed)
            if name is not None:
                fixed.setdefault(name, clause.members[1])  # `Let $T = 8$`: T is 8 throughout
            listed = name is not None
            for link in clause.links:
                if link.op != "=":
                    continue
                given.append(compact(f"{link.left}={link.right}"))
                if (found := defining((link.left, link.right), ("=",), {})) and link.index == 0:
                    if piece_of(clause.rest):  # one piece of a piecewise function: unread
                        self._defs[found[0]] = None
                    else:  # a second definition, different, leaves the name unread
                        define(self._defs, found[0], found[1], link.right)
                        if on_domain(clause.rest):
                            pieces[found[0]] = link
                else:
                    known.append((link.left, link.right))
                links.append(link)
        for name, piece in pieces.items():
            # "$f(3x) = 3f(x)$ ..., and $f(x) = 1 - |x - 2|$ for $1 \le x \le 3$": a
            # definition on a domain beside more said of the function is one piece of it.
            # (The question comes in one spelling: `\left(` is already `(`.)
            if any(applies_function(x.left + x.right, frozenset({name}))
                   for x in links if x is not piece):
                self._defs[name] = None
        for name, value in fixed.items():
            # given two values ("let x = 2 or x = 4"), the letter is neither: which one a
            # step means is not ours to guess
            if len(given_values.get(name, ())) == 1:
                self._defs.setdefault(name, ("", value))
        if complex_problem(question, [body for _, _, body in math_regions(question)]):
            given.append(UNIT_GIVEN)  # i is the imaginary unit in its chains' steps
        if curves_problem(question):
            given.append(CURVES_GIVEN)  # its equations are curves, not one system
        self._given = frozenset(given)
        self._known = tuple(known[-40:])
        # "Solve 3x + 5 = 20.", then "Subtracting 5, 3x = 16.": the first step may go on from
        # the problem's last equation, or solve the system it ends on ("Solve x + y = 10, x -
        # y = 4.", then "Solving, x = 7 and y = 3."), as from a step that ended on them; not
        # from a value it gives ("a zero at x = 2"), nor a name it gives one ("... = N").
        tail: list = []
        for equation in reversed(known[-4:]):
            if any(_LONE.fullmatch(member.strip()) for member in equation):
                break
            tail.insert(0, equation)
        # A domain in words ("for positive integers x") bounds the letter too: "So $x \ge 1$."
        if premise and (bounds > 1 or word_set(prose(question)) & _DOMAINS):
            premise = ()
        if tail or premise:
            # "Solve $-2x > 6$.", then "Dividing by $-2$, $x > -3$.": the problem's inequality
            # is the premise the first step may draw its own from (`inequalities.Premise`).
            system = tuple(tail) if len(tail) > 1 else ()
            self._last = (tail[-1] if tail else (), (), (), (), premise, system, ())

    def check(self, step: str, decided: bool = False) -> list[ClaimResult]:
        """The step's symbolic claims judged (holds / false / timeout); conditions carried.
        `decided`: the step's numeric claims already hold a False (its verdict is made)."""
        found = _read(step)
        if not found:
            self._last = () if retracts(step) else self._last
            return []
        payload = (
            _sent(found),
            self._last,
            self._known,
            self._defs,
            self._given,
            decided,
        )
        text = _shown(found)
        try:
            outcomes, self._last, self._known, self._defs = self._worker().call(
                judge_step, payload, timeout=self._timeout_s, cpu=True
            )
        except (CheckTimeoutError, CheckMemoryError, CheckCrashedError) as exc:
            self._last = ()
            return [ClaimResult("timeout", text, reason=str(exc))]
        except CheckFailedError as exc:
            self._last = ()
            return [ClaimResult("skipped", text, reason=f"symbolic check failed: {exc}"[:200])]
        # A relation between numbers that the numeric reader reads too is its to judge.
        return [_result(o) for o in outcomes if not numeric_reads(o)]

    def check_chain(self, steps: list[str], decided: list[bool]) -> list[list[ClaimResult]]:
        """`check` of every step in turn, in one call to the worker (a call costs about as
        much as a step's checks): each step bounded by the same `timeout_s`, measured in the
        worker (`judge_chain`). Should the call itself fail (a step that never returns, a
        crash), every step is checked again one call at a time, each killed at its limit."""
        return self.end_chain(self.begin_chain(steps, decided))

    def begin_chain(
        self, steps: list[str], decided: list[bool], worker: KillableWorker | None = None
    ) -> tuple:
        """`check_chain` started in `worker` (by default the one the constructor's callable
        gives); `end_chain` with what this returns waits for it (the caller may work in
        between: the numeric checks of the next chain)."""
        following = [*steps[1:], ""]
        found = [_going_on(_read(step), step, after) for step, after in zip(
            steps, following, strict=True)]
        checked = sum(1 for f in found if f)
        if not checked:
            return steps, decided, found, None, "none"
        if euler_chain([self._question, *steps]):  # the whole chain read first: `euler_number`
            self._defs.setdefault("e", ("", EULER_TEXT))
        # A step without math that takes back the one before it is sent as None: `judge_chain`
        # then carries nothing past it.
        payloads = [
            (_sent(f) if f or not retracts(step) else None, d)
            for step, f, d in zip(steps, found, decided, strict=True)
        ]
        state = (self._last, self._known, self._defs, self._given)
        worker = worker or self._worker()
        try:
            worker.submit(
                judge_chain, payloads, state, self._timeout_s,
                timeout=self._timeout_s * WALL_FACTOR * checked + 1.0,
            )  # fmt: skip
        except (CheckTimeoutError, CheckMemoryError, CheckCrashedError, CheckFailedError):
            return steps, decided, found, worker, "failed"
        return steps, decided, found, worker, "sent"

    def end_chain(self, begun: tuple) -> list[list[ClaimResult]]:
        steps, decided, found, worker, how = begun
        if how == "none":
            return [[] for _ in steps]
        try:
            if how == "failed":
                raise CheckCrashedError("the chain's call could not be sent")
            results, (self._last, self._known, self._defs) = worker.collect()
        except (CheckTimeoutError, CheckMemoryError, CheckCrashedError, CheckFailedError):
            return [self.check(step, d) for step, d in zip(steps, decided, strict=True)]
        out = []
        for f, (kind, value) in zip(found, results, strict=True):
            text = _shown(f)
            if kind == "timeout":
                out.append([ClaimResult("timeout", text, reason=value)])
            elif kind == "failed":
                reason = f"symbolic check failed: {value}"[:200]
                out.append([ClaimResult("skipped", text, reason=reason)])
            else:
                out.append([_result(o) for o in value if not numeric_reads(o)])
        return out


# Words that give a letter a domain beside an inequality the problem asks to solve.
_DOMAINS = frozenset(
    "positive negative nonnegative nonpositive integer integers natural whole digit digits"
    " prime primes odd even".split()
)


def _read(text: str) -> list:
    """The clauses of math the symbolic checks read in a text, plain-text algebra included;
    a tuple of values is one clause a letter (`tuple_values`), a list of values for one
    letter one clause a value (`value_lists`)."""
    return unpacked(clauses(delimited(listed_values(text))), text)


def _going_on(found: list, step: str, following: str) -> list:
    """The clauses, where the words after the step's last ones go on into the next step's
    first sentence when the step ends one: "However if we plug ... we get $|-7-3|=2(-7)+4$ or
    $10=-10$." and then "Since this is clearly not a valid statement, ..." (a supposition
    refuted a step on, `refuted_supposition`; steps cut at every sentence)."""
    if not following.strip() or not re.search(r"[.!?]\s*$", step):
        return found
    opening = first_sentence(following)
    return [replace(c, rest=f"{c.rest} {opening}") if len(c.rest) < REST_CHARS else c
            for c in found]


def _sent(found: list) -> list[tuple]:
    """A step's clauses as `judge_step` takes them (plain tuples travel to the worker)."""
    return [
        (
            _multiplied(_value_last(c, found[i + 1 :])),
            c.ops, c.before, c.after, c.region, c.lead, c.rest,
        )
        for i, c in enumerate(found)
    ]  # fmt: skip


# A capital with a bracket after it, and one written bare (not before a bracket, a letter or
# a subscript).
_CAPITAL_APPLIED = re.compile(r"(?<![\\A-Za-z])([A-Z])\s*\(")
_CAPITAL_BARE = re.compile(r"(?<![\\A-Za-z])([A-Z])(?!\s*[A-Za-z_(])")


def _multiplied(members: tuple) -> tuple:
    """`A = A(C - 1)`, `\\frac{N(N + 1)}{2}`: a capital the clause also writes bare is a
    number, so the bracket after it multiplies it. The reader leaves a capital's bracket
    unread, for `P(x)` names a function as often; one clause does not use a letter both ways."""
    text = " ; ".join(members)
    applied = set(_CAPITAL_APPLIED.findall(text))
    if not applied:
        return members
    bare = set(_CAPITAL_BARE.findall(text)) & applied
    if not bare:
        return members
    return tuple(
        _CAPITAL_APPLIED.sub(lambda m: f"{m[1]} \\cdot (" if m[1] in bare else m[0], member)
        for member in members
    )


def _value_last(clause, rest: list) -> tuple:
    """`9 = x`, `95^\\circ = T`: a value given to a letter the other way round, read as `x = 9`
    is, so it gives the letter a value (it is no equation drawn from the one before), unless
    the next clause opens with the letter: `42 \\cdot 56 = c`, "or c = 2336", is one chain."""
    members = clause.members
    if clause.ops != ("=",) or not lone(members[1]) or LETTER.search(members[0]):
        return members
    if rest and compact(rest[0].members[0]) == compact(members[1]):
        return members
    return (members[1], members[0])


def _shown(found: list) -> str:
    """What an abstaining step's evidence quotes: its relations' members."""
    return "; ".join(" ".join(c.members) for c in found)[:120]


def judge_chain(payloads: list, state: tuple, limit: float) -> tuple[list, tuple]:
    """`judge_step` for each step of a chain in turn, in the worker: [(kind, value)] per step
    ("ok", outcomes; "timeout" or "failed", the reason) and what the last step left. A step
    that runs past `limit`, runs out of memory or raises is what `ChainAlgebra.check` makes
    of a step killed or failed in the worker: it abstains and carries no last condition."""
    import time

    last, known, defs, given = state
    out = []
    for step_clauses, decided in payloads:
        if step_clauses is None:  # a step without math that takes back the one before it
            last = ()
        if not step_clauses:
            out.append(("ok", []))
            continue
        start = time.thread_time()
        try:
            # The step's own limit, raised inside it: one step stuck in sympy costs its
            # limit, not the whole call's (the parent kills the call only at the sum). The
            # limit is CPU time, so a step near it gets the same verdict however busy the
            # machine is (the same config, the same shards).
            with deadline(limit, "judge_step", cpu=True, wall_factor=WALL_FACTOR):
                outcomes, new_last, new_known, new_defs = judge_step(
                    (step_clauses, last, known, defs, given, decided)
                )
        except DeadlineError as exc:
            out.append(("timeout", str(exc)))
            last = ()
            continue
        except MemoryError:
            out.append(("timeout", "judge_step hit the memory cap"))
            last = ()
            continue
        except Exception as exc:  # what the worker reports as CheckFailedError, per step
            out.append(("failed", f"{type(exc).__name__}: {exc}"))
            last = ()
            continue
        if time.thread_time() - start > limit:
            out.append(("timeout", f"judge_step ran over {limit:g}s of CPU time"))
            last = ()
            continue
        out.append(("ok", outcomes))
        last, known, defs = new_last, new_known, new_defs
    return out, (last, known, defs)


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
