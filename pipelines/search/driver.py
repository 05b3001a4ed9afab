"""Runs many strategy coroutines in lockstep so the engine gets one big batch per round.

Each round: every coroutine waiting for generations has its requests sent to the engine
(asynchronously, spread over the actors), then every coroutine waiting for scores is scored
by the PRM in one `score_many` call while the engine works, then the generations are
collected and handed back. Two small protocols keep this free of Ray and vLLM:
`Generator` (submit/collect, implemented by `PoolGenerator` over `EnginePool`) and
`StepScorer` (`score_many`, see `pipelines.search.prm`). Tests drive it with fakes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from labeling.engine_request import EngineRequest
from labeling.engine_result import Completion, Finish
from labeling.prm.search import PRMScoreError, check_scores
from pipelines.engine.pool import EnginePool
from pipelines.search.strategies import Ask, Decision, Strategy

log = logging.getLogger("prm-search")


class Generator(Protocol):
    def submit(self, requests: list[EngineRequest]) -> Any: ...

    def collect(self, ticket: Any) -> list[list[Completion]]: ...


class StepScorer(Protocol):
    def score_many(self, items: list[tuple[str, list[str]]]) -> Sequence[Sequence[Any]]: ...


@dataclass
class Task:
    """One strategy run on one problem: the coroutine, and how the PRM and errors name it."""

    coroutine: Strategy
    prompt: str  # what the PRM sees as the prompt (the question, as in training rows)
    where: str  # names the task in errors: "problem p123 (beam, N=4)"


class PoolGenerator:
    """`Generator` over `pipelines.engine.pool.EnginePool`: the strategies' requests go to
    the pool as they are."""

    def __init__(self, pool: EnginePool) -> None:
        self.pool = pool

    def submit(self, requests: list[EngineRequest]) -> Any:
        return self.pool.submit(list(requests))

    def collect(self, ticket: Any) -> list[list[Completion]]:
        results = self.pool.collect(ticket)
        return [list(r.completions) for r in results]


def run_tasks(
    tasks: list[Task], generator: Generator, prm: StepScorer | None
) -> list[list[Decision]]:
    """Drive every task to its end; returns each task's decisions, in task order.

    Raises `PRMScoreError` (one sentence naming the task) when the PRM answers anything but
    one probability per step, and ValueError when the engine returns fewer samples than
    asked (nothing is padded: a silent gap would bias the votes)."""
    out: list[list[Decision] | None] = [None] * len(tasks)
    waiting: dict[int, Any] = {}
    for i, t in enumerate(tasks):
        _step(i, t, None, waiting, out)
    rounds, t0 = 0, time.monotonic()
    while waiting:
        rounds += 1
        t_round = time.monotonic()
        gens = [(i, r) for i, r in waiting.items() if isinstance(r, list)]
        asks = [(i, r) for i, r in waiting.items() if isinstance(r, Ask)]
        flat = [g for _, reqs in gens for g in reqs]
        log.info("round %d: %d searches waiting, %d generation requests (%d samples), %d "
                 "scoring requests; %.0fs so far", rounds, len(waiting), len(flat),
                 sum(g.n for g in flat), len(asks), time.monotonic() - t0)  # fmt: skip
        ticket = generator.submit(flat) if flat else None  # the engine works while the PRM scores
        replies: dict[int, Any] = {}
        if asks:
            if prm is None:
                raise RuntimeError("a strategy asked for PRM scores but no PRM is configured")
            items = [(tasks[i].prompt, chain) for i, a in asks for chain in a.chains]
            got = list(prm.score_many(items))
            if len(got) != len(items):
                raise PRMScoreError(f"the PRM returned {len(got)} score lists for {len(items)} "
                                  "chains")  # fmt: skip
            pos = 0
            for i, a in asks:
                replies[i] = [
                    check_scores(got[pos + j], len(chain), tasks[i].where)
                    for j, chain in enumerate(a.chains)
                ]
                pos += len(a.chains)
        samples = generator.collect(ticket) if flat else []
        pos = 0
        for i, reqs in gens:
            mine = samples[pos : pos + len(reqs)]
            pos += len(reqs)
            replies[i] = [_checked(g, s, tasks[i].where) for g, s in zip(reqs, mine, strict=True)]
        for i, reply in replies.items():
            del waiting[i]
            _step(i, tasks[i], reply, waiting, out)
        log.info("round %d done in %.0fs: %d of %d searches finished", rounds,
                 time.monotonic() - t_round, len(tasks) - len(waiting), len(tasks))  # fmt: skip
    return [o or [] for o in out]


def _checked(g: EngineRequest, samples: list[Completion], where: str) -> list[Completion]:
    """The samples of one request. A prompt the engine refused as too long for the context
    comes back as one empty sample: that is n empty (finished) continuations, a real
    outcome. Any other count is an engine fault."""
    too_long = samples and all(s.finish is Finish.PROMPT_TOO_LONG for s in samples)
    if len(samples) != g.n and too_long:
        return [samples[0]] * g.n
    if len(samples) != g.n:
        raise ValueError(f"the engine returned {len(samples)} samples instead of {g.n} for "
                         f"{where}")  # fmt: skip
    return samples


def _step(i: int, task: Task, reply: Any, waiting: dict[int, Any], out: list) -> None:
    """Advance one coroutine until it asks for something; record its result when it ends."""
    try:
        request = task.coroutine.send(reply)
    except StopIteration as stop:
        out[i] = stop.value
        return
    waiting[i] = request
