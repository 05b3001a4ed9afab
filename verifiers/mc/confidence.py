"""The completer's self-confidence on a problem: how often it reaches the right answer from the
bare question. Counted from the outcomes of the problem's chains that the completer itself
sampled with the rollouts' settings and from `n` completions of the bare question (one
request per problem, seeded by the problem alone: `verifiers.mc.question`).

`Confidence.report` is what every verdict of the problem's chains reports; `others(i)` the
counts chain i is judged against (everything but its own outcome: how that counts is the
method's business, `labeling.mc.ChainFacts`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from labeling.engine_request import EngineRequest
from labeling.schema import Problem, SelfConfidence
from verifiers.mc.outcome import OutcomeCheck, no_attempt
from verifiers.mc.protocol import AsyncCompleter, Completer, Completion, RolloutStats, futures

log = logging.getLogger(__name__)

Asked = dict[str, tuple[Problem, Future[list[Completion]]]]


@dataclass(frozen=True, slots=True)
class Confidence:
    """A problem's self-confidence: `report`, what every verdict of its chains reports;
    `rollouts`, the question rollouts' (successes, decided); `chains`, the outcomes of its
    chains the completer sampled with the rollouts' settings, by chain index."""

    report: SelfConfidence
    rollouts: tuple[int, int]
    chains: dict[int, bool]

    def others(self, idx: int) -> tuple[int, int]:
        """The counts chain `idx` is judged against: everything but its own outcome."""
        others = [o for j, o in self.chains.items() if j != idx]
        return self.rollouts[0] + sum(others), self.rollouts[1] + len(others)


def ask(completer: Completer | AsyncCompleter, problems: Mapping[str, Problem], n: int,
        given: Mapping[str, Sequence[Completion]],
        request: Callable[[Problem], EngineRequest], stats: RolloutStats) -> Asked:  # fmt: skip
    """One request of `n` completions of the bare question per problem, unless the job
    already sent it (`given`: the same request, so the same completions)."""
    if not n or not problems:
        return {}
    asked: Asked = {}
    for pid, got in given.items():
        if pid in problems and len(got) == n:
            asked[pid] = (problems[pid], done := Future())
            done.set_result(list(got))
    todo = [p for pid, p in problems.items() if pid not in asked]
    sent = futures(completer, [request(p) for p in todo]) if todo else []
    stats.rounds += 1
    stats.requests += len(problems)
    asked |= {p.problem_id: (p, f) for p, f in zip(todo, sent, strict=True)}
    return asked


def measure(pid: str, chains: dict[int, bool], asked: Asked, n: int,
            judge: Callable[[Problem, str], bool | None], stats: RolloutStats,
            pool: ThreadPoolExecutor) -> Confidence:  # fmt: skip
    """Problem `pid`'s self-confidence: its sampled chains' known outcomes (`chains`) and its
    question rollouts (`asked`, each judged by `judge` in `pool`)."""
    runs: list[bool | None] = []
    tokens = 0
    if pid in asked:
        problem, future = asked[pid]
        got = future.result()
        if len(got) != n:
            raise RuntimeError(f"Completer returned {len(got)} completions, asked for {n}")
        tokens = sum(c.tokens for c in got)
        stats.completions += len(got)
        stats.self_completions += len(got)
        stats.tokens += tokens
        runs = list(pool.map(lambda c: judge(problem, c.text), got))
    decided = [r for r in runs if r is not None]
    source = "+".join(name for name, xs in (("chains", chains), ("rollouts", runs)) if xs)
    report = SelfConfidence(sum(chains.values()) + sum(decided), len(chains) + len(decided),
                            len(runs), source or "none", tokens)
    return Confidence(report, (sum(decided), len(decided)), chains)


def judge_question_rollout(check: OutcomeCheck, prompt: str, problem: Problem, text: str,
                           stats: RolloutStats) -> bool | None:  # fmt: skip
    """Whether a completion of the bare question reached the answer; None when the check
    decides nothing, raises on it, or the reference is unusable (the chains' own outcome
    checks report that)."""
    if no_attempt(problem, "", text, prompt):
        stats.no_attempts += 1
        ok = None
    else:
        try:
            ok = check(problem, "", text)
        except ValueError:
            return None  # bad reference data: the chains' own outcome checks report it
        except Exception as exc:
            stats.check_errors += 1
            log.warning("outcome check raised on a question rollout of %s: %r",
                        problem.problem_id, exc)
            return None
    stats.checks += 1
    stats.undecided_checks += ok is None
    return ok


__all__ = ["Asked", "Confidence", "ask", "judge_question_rollout", "measure"]
