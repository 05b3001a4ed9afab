"""Monte Carlo rollout labels: the driver between the estimators and the engine.

`MonteCarloVerifier.verify(items)` labels every step of every chain in `items` from
completion rates. Every chain's pending probes (`labeling.estimators`) are in flight at once,
one `EngineRequest` per probe (`n` completions each); as soon as one comes back, its
completions are checked with the outcome check, the result goes to that chain's estimator, and
the chain's next probe goes out at once. No chain waits for another's slowest rollout, so the
engine stays fed while any chain has a pending probe (continuous batching does the rest). Nor
does it wait for the other chains' own outcome checks: a chain's first probe leaves as soon as
its outcome is known (the checks of 113 math chains took 1.3 s of engine idling before).

With an `AsyncCompleter` (one future per request: the vLLM engine pool) that is what happens.
A plain `Completer` (a batch answered at once: the fakes) gets one call per wave of newly
pending probes, which is the old round-by-round schedule. Either way a chain's probes, seeds
and labels depend only on its own results, so the labels are the same in any timing.

Give `verify` many chains at once (hundreds): requests of the same chain share the prompt and
most of the prefix, which vLLM's prefix caching reuses.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from labeling.engine_request import EngineRequest
from labeling.estimators import Estimator, Probe, make_estimator
from labeling.ids import derive_seed
from labeling.schema import Chain, Problem, Status, StepVerdict
from verifiers.rollout.outcome import OutcomeCheck, outcome_check
from verifiers.rollout.protocol import AsyncCompleter, Completer, Completion, RolloutStats
from verifiers.rollout.schedule import Schedule

log = logging.getLogger(__name__)

__all__ = [
    "AsyncCompleter", "Completer", "Completion", "MonteCarloVerifier", "RolloutStats",
    "prefix_texts",
]  # fmt: skip


def prefix_texts(chain: Chain, step_separator: str = "\n\n") -> list[str]:
    """Text of each prefix as the model wrote it, ending where the next step starts.

    Cut from `chain.text` when every step can be found there in order (keeps the model's own
    spacing, which keeps its tokens and the prefix cache); otherwise the steps joined with
    `step_separator`. Each prefix but the last ends with the separator the model used, so the
    continuation starts a new step rather than extending the last one.
    """
    steps, text = chain.steps, chain.text
    starts, pos = [], 0
    for step in steps:
        at = text.find(step, pos) if text else -1
        if at < 0:
            starts = []
            break
        starts.append(at)
        pos = at + len(step)
    if starts:
        return [text[: starts[i + 1]] for i in range(len(steps) - 1)] + [text[:pos]]
    joined = [step_separator.join(steps[: i + 1]) + step_separator for i in range(len(steps))]
    return joined[:-1] + [step_separator.join(steps)] if steps else []


class MonteCarloVerifier:
    """Label source `mc`: Monte Carlo completion rates per step (Verifier protocol).

    Arguments:
      completer: the engine behind the `Completer` protocol.
      check: outcome check per completion; default by `domain`: `math` answer equivalence,
        `code` tests in the sandbox (`tests_cfg`: options for `run_tests`, its `workers` sets
        `check_workers`), None: chosen per `problem.domain`.
      estimator: `binary_search` (first error in ~k*log2(M) rollouts) or `per_step`
        (Math-Shepherd, k*(M-1)); k: rollouts per probe; chunk: rollouts per request (early
        stop below k); confirm: successes a prefix needs to count as on track, each success
        earning k more rollouts (1: Math-Shepherd's hard label); threshold: on track iff
        success fraction > threshold; after_error: `negative` | `mask` | `keep` for steps
        after the first error. See `labeling/estimators.py` for the semantics.
      max_rounds: cap on batches per `verify` call; chains not done by then keep the labels
        their rollouts decide, the rest unlabeled.
      max_tokens, temperature: per completion. seed: base of the per-(problem, chain, step,
        rollout) seeds.
      prompt_fn: the prompt text of a problem (default: the question).
      check_workers: threads running outcome checks (sandbox runs are slow and independent).

    `verify` returns one verdict list per item; `last_stats` holds the cost of the last call,
    `stats` the total. A problem whose reference is unusable gets `error` verdicts (with the
    reason) instead of failing the whole batch.
    """

    name = "mc"

    def __init__(
        self,
        completer: Completer,
        check: OutcomeCheck | None = None,
        *,
        domain: str | None = None,
        estimator: str = "binary_search",
        k: int = 8,
        chunk: int | None = None,
        confirm: int = 1,
        threshold: float = 0.0,
        after_error: str = "negative",
        max_rounds: int = 64,
        max_tokens: int = 1024,
        temperature: float = 0.8,
        seed: int = 0,
        step_separator: str = "\n\n",
        prompt_fn: Callable[[Problem], str] | None = None,
        check_workers: int | None = None,
        tests_cfg: Mapping[str, Any] | None = None,
        estimator_options: dict[str, object] | None = None,
    ) -> None:
        self.completer = completer
        self.check: OutcomeCheck = check or outcome_check(domain, tests_options=tests_cfg)
        if check_workers is None:  # sandbox runs are slow: as many as the sandbox allows
            check_workers = int((tests_cfg or {}).get("workers", 1)) if domain != "math" else 1
        self.options = dict(
            k=k, chunk=chunk, confirm=confirm, threshold=threshold, after_error=after_error,
            **(estimator_options or {}),
        )  # fmt: skip
        make_estimator(estimator, 2, **self.options)  # a config error raises here, not mid-run
        self.estimator, self.max_rounds, self.max_tokens = estimator, max_rounds, max_tokens
        self.temperature = temperature
        self.seed, self.sep, self.check_workers = seed, step_separator, check_workers
        self.prompt_fn = prompt_fn or (lambda p: p.question)
        self.stats, self.last_stats = RolloutStats(), RolloutStats()

    def verify(self, items: Sequence[tuple[Problem, Chain]]) -> list[list[StepVerdict]]:
        stats = RolloutStats(chains=len(items))
        failed: dict[int, str] = {}
        prefixes = [prefix_texts(chain, self.sep) for _, chain in items]

        def arrivals() -> Iterator[tuple[int, Estimator | None]]:
            # The chains' own outcomes (no generation): the last step's label, and for
            # binary_search the end of the search interval; in chain order as they are known.
            for idx, outcome in enumerate(pool.map(self._outcome, items, prefixes)):
                if isinstance(outcome, str):
                    failed[idx] = outcome
                    yield idx, None
                else:
                    n_steps = len(items[idx][1].steps)
                    yield idx, make_estimator(
                        self.estimator, n_steps, outcome=outcome, **self.options
                    )

        with ThreadPoolExecutor(max(1, self.check_workers)) as pool:
            capacity = int(getattr(self.completer, "capacity", 0) or 0)
            schedule = Schedule(self, items, prefixes, stats, pool, capacity)
            schedule.run(arrivals(), eager=isinstance(self.completer, AsyncCompleter))

        out = []
        for idx, est in enumerate(schedule.estimators):
            n = len(items[idx][1].steps)
            if est is None:
                out.append([StepVerdict(Status.ERROR, evidence=failed[idx])] * n)
                continue
            stats.unfinished_chains += not est.done
            out.append(est.verdicts())
        self.last_stats = stats
        self.stats.merge(stats)
        return out

    def _outcome(self, item: tuple[Problem, Chain], prefixes: list[str]) -> bool | None | str:
        """The chain's own outcome, or the reason it cannot be judged (bad reference data:
        that chain alone gets `error` verdicts instead of failing the batch)."""
        problem, chain = item
        if not chain.steps:
            return None
        try:
            return self.check(problem, prefixes[-1], "")
        except ValueError as exc:
            return f"outcome check failed: {exc}"[:300]

    def _run(
        self,
        items: Sequence[tuple[Problem, Chain]],
        prefixes: list[list[str]],
        stats: RolloutStats,
        key: tuple[int, int, str],
    ) -> bool | None:
        idx, step, text = key
        problem, prefix = items[idx][0], prefixes[idx][step]
        # One pathological completion must not sink the labels of every chain in the batch:
        # a check that raises on model output counts as undecided, and is logged.
        try:
            return self.check(problem, prefix, text)
        except Exception as exc:
            stats.check_errors += 1
            log.warning("outcome check raised on a rollout of %s: %r", problem.problem_id, exc)
            return None

    def _request(
        self,
        item: tuple[Problem, Chain],
        prefixes: list[str],
        est: Estimator | None,
        probe: Probe,
        index: int | None = None,
    ) -> EngineRequest:
        """The request for `probe`, whose first rollout is number `index` at its step
        (default: the next one the estimator expects)."""
        problem, chain = item
        step, n = probe.step, probe.n
        assert est is not None
        # The rollout index makes a second chunk from the same prefix draw new samples, and
        # a speculative chunk the very samples the sequential one would have drawn.
        seed = derive_seed(
            self.seed, problem.problem_id, chain.chain_id, step,
            est.rollouts_at(step) if index is None else index,
        )  # fmt: skip
        prompt = self.prompt_fn(problem)
        return EngineRequest.user(prompt, prefix=prefixes[step], n=n, seed=seed,
                                  max_tokens=self.max_tokens, temperature=self.temperature)
