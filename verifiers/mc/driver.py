"""Monte Carlo rollout labels: the driver between the estimators and the engine.

`MonteCarloVerifier.verify(items)` labels every step of every chain in `items` from
completion rates. Every chain's pending probes (`labeling.mc`) are in flight at once,
one `EngineRequest` per probe (`n` completions each); as soon as one comes back, its
completions are checked with the outcome check, the result goes to that chain's estimator, and
the chain's next probe goes out at once. No chain waits for another's slowest rollout, so the
engine stays fed while any chain has a pending probe (continuous batching does the rest). Nor
does it wait for the other chains' own outcome checks: a chain's first probe leaves as soon as
its outcome is known (what the wait cost: docs/benchmarks.md).

With an `AsyncCompleter` (one future per request: the vLLM engine pool) that is what happens.
A plain `Completer` (a batch answered at once: the fakes) gets one call per wave of newly
pending probes, which is the old round-by-round schedule. Either way a chain's probes, seeds
and labels depend only on its own results, so the labels are the same in any timing.

Before any chain's probe, the completer's self-confidence on each problem is measured: the
outcomes of the problem's chains that the completer itself sampled with the rollouts'
settings (`samples_of`: their model's name), plus `self_rollouts` completions of the bare
question (one request per problem, seeded by the problem alone, so a problem's figure is the
same in any batch; the job sends it with the sampling: `verifiers.mc.question`). The `fall`
and `posterior` methods judge every step against it; every method reports it.

A chain that arrives with a step an exact check proved wrong (`Chain.proven_error`: the label
job runs `calc` and `tests` first) is searched only before that step (`ChainFacts.proven`):
no rollout at or after it, and none at all when it is step 0 (`RolloutStats.bounded_*`).

Give `verify` many chains at once (hundreds, all chains of a problem together): requests of
the same chain share the prompt and most of the prefix, which vLLM's prefix caching reuses.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from labeling.engine_request import EngineRequest
from labeling.ids import derive_seed
from labeling.mc import ChainFacts, Estimator, Method
from labeling.schema import AfterError, Chain, Problem, Status, StepVerdict
from labeling.text.loops import repeats_ok
from verifiers.mc.confidence import Asked, Confidence, ask, judge_question_rollout, measure
from verifiers.mc.outcome import OutcomeCheck, no_attempt, outcome_check
from verifiers.mc.prefixes import prefix_texts
from verifiers.mc.protocol import AsyncCompleter, Completer, Completion, RolloutStats, futures
from verifiers.mc.question import distinct, question_request
from verifiers.mc.schedule import Rollouts, Schedule

log = logging.getLogger(__name__)


def rollout_seed(seed: int, problem_id: str, chain_id: str, step: int, index: int) -> int:
    """The seed of rollout `index` from prefix `step`: the step's seed plus the index. An
    engine seeds a request's j-th completion with its seed + j (vLLM does), so rollout i has
    this seed in any request that holds it: a second probe from the same prefix draws new
    samples, and a request sent early the very samples the sequential search draws."""
    return derive_seed(seed, problem_id, chain_id, step) + index

__all__ = [
    "AsyncCompleter", "Completer", "Completion", "MonteCarloVerifier", "RolloutStats",
    "prefix_texts",
]  # fmt: skip


class MonteCarloVerifier:
    """Label source `mc`: Monte Carlo completion rates per step (Verifier protocol).

    Arguments:
      completer: the engine behind the `Completer` protocol.
      check: outcome check per completion; default by `domain`: `math` answer equivalence,
        `code` tests in the sandbox (`tests_cfg`: options for `run_tests`, its `workers` sets
        `check_workers`), None: chosen per `problem.domain`.
      method: the Monte Carlo method with its settings (`labeling.mc.method(...)`; what each
        means: its module under `labeling/mc/`, and `docs/labels.md`).
      self_rollouts: completions of the bare question per problem (the self-confidence).
      max_rounds: safety cap on requests per chain.
      end_loops: k >= 2: the engine ends a rollout that wrote the same line k times in a row
        (0: never; `labeling.text.loops`); it is judged like any other, by its text.
      speculate: send the requests a search may need next while the engine has room (the
        labels are the same either way: `verifiers.mc.schedule`).
      look_ahead: probes deep those requests go (0: only a pending probe's later rollouts);
        None: the completer's `look_ahead` (the engines' device), else 1, at most the
        method's `max_look_ahead` (the job refuses a deeper `labels.mc.look_ahead` at start).
      max_tokens, temperature: per completion (required: the job passes the sampler's when
        `labels.mc` leaves them unset); top_p: the sampler's in the job (1.0 by default).
        seed: base of the per-(problem, chain, step, rollout) seeds.
      samples_of: the model whose chains the completer sampled with these same settings (the
        job's own sampled chains): their outcomes count towards the self-confidence, and under
        `fall` each one's outcome is one trial of its prefixes. None: no chain counts.
      after_error: `negative` | `mask` | `keep` for steps after the first error.
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
        method: Method,
        max_tokens: int,
        self_rollouts: int = 16,
        max_rounds: int = 200,
        speculate: bool = True,
        look_ahead: int | None = None,
        end_loops: int = 0,
        temperature: float,
        top_p: float = 1.0,
        domain: str | None = None,
        samples_of: str | None = None,
        after_error: str = AfterError.negative,
        seed: int = 0,
        step_separator: str = "\n\n",
        prompt_fn: Callable[[Problem], str] | None = None,
        check_workers: int | None = None,
        tests_cfg: Mapping[str, Any] | None = None,
    ) -> None:
        self.completer = completer
        self.check: OutcomeCheck = check or outcome_check(domain, tests_options=tests_cfg)
        if check_workers is None:  # sandbox runs are slow: as many as the sandbox allows
            check_workers = int((tests_cfg or {}).get("workers", 1)) if domain != "math" else 1
        AfterError(after_error)
        if not repeats_ok(end_loops):
            raise ValueError(f"labels.mc.end_loops={end_loops}: choose 0 (never end a looping "
                             f"rollout) or a number of repeats >= 2")
        self.end_loops = end_loops
        if look_ahead is not None and look_ahead < 0:
            raise ValueError(f"labels.mc.look_ahead={look_ahead}: choose null (the engines' "
                             f"own), 0 (none) or a number of probes")
        self.look_ahead = look_ahead
        if self_rollouts < 0 or max_rounds < 1:
            raise ValueError(f"self_rollouts must be >= 0 and max_rounds >= 1, got "
                             f"{self_rollouts} and {max_rounds}")
        self.method, self.after_error, self.samples_of = method, after_error, samples_of
        self.self_rollouts, self.speculate = self_rollouts, speculate
        self.max_rounds, self.max_tokens = max_rounds, max_tokens
        self.temperature, self.top_p = temperature, top_p
        self.seed, self.sep, self.check_workers = seed, step_separator, check_workers
        self.prompt_fn = prompt_fn or (lambda p: p.question)
        self.stats, self.last_stats = RolloutStats(), RolloutStats()
        # The bare question's completions per problem id that the job already asked for
        # (verifiers.mc.question); set by the labeler for one unit.
        self.given_questions: Mapping[str, Sequence[Completion]] = {}

    def verify(self, items: Sequence[tuple[Problem, Chain]]) -> list[list[StepVerdict]]:
        stats = RolloutStats(chains=len(items))
        prefixes = [prefix_texts(chain, self.sep) for _, chain in items]
        outcomes: list[bool | None | str] = [None] * len(items)
        confidence: dict[str, Confidence] = {}
        # A method that judges with the self-confidence waits for it; the others report it.
        needs_base = self.method.needs_self_confidence

        with ThreadPoolExecutor(max(1, self.check_workers)) as pool:
            # The bare question's rollouts go out first; the chains' own outcomes are checked
            # while the engine generates them.
            asked = ask(self.completer, distinct(p for p, _ in items), self.self_rollouts,
                        self.given_questions, self.question_request, stats)

            def confidence_of(pid: str) -> Confidence:
                if pid not in confidence:
                    confidence[pid] = self._self_confidence(pid, items, outcomes, asked, stats,
                                                            pool)
                return confidence[pid]

            def arrivals() -> Iterator[tuple[int, Estimator | None]]:
                # Chains in order as their own outcomes are known (the last step's label, and
                # for binary_search the end of the search interval). Under `fall` a problem's
                # chains wait for its self-confidence: its last chain's outcome and its
                # question rollouts.
                left = Counter(p.problem_id for p, _ in items)
                waiting: dict[str, list[int]] = {}
                for idx, outcome in enumerate(pool.map(self._outcome, items, prefixes)):
                    outcomes[idx] = outcome
                    pid = items[idx][0].problem_id
                    left[pid] -= 1
                    if not needs_base:
                        yield idx, self._estimator(idx, items[idx], outcome, None)
                        continue
                    waiting.setdefault(pid, []).append(idx)
                    if not left[pid]:
                        known = confidence_of(pid)
                        for j in waiting.pop(pid):
                            yield j, self._estimator(j, items[j], outcomes[j], known)

            capacity = int(getattr(self.completer, "capacity", 0) or 0) if self.speculate \
                else 0
            depth = self.look_ahead
            if depth is None:  # the engines' device decides, as deep as the method looks
                depth = int(getattr(self.completer, "look_ahead", 1)) if capacity else 0
                if self.method.max_look_ahead is not None:
                    depth = min(depth, self.method.max_look_ahead)
            schedule = Schedule(_Rollouts(self, items, prefixes, stats), len(items), stats, pool,
                                max_rounds=self.max_rounds, capacity=capacity, depth=depth)
            schedule.run(arrivals(), eager=isinstance(self.completer, AsyncCompleter))
            for p, _ in items:
                confidence_of(p.problem_id)

        out = []
        for idx, est in enumerate(schedule.estimators):
            n = len(items[idx][1].steps)
            if est is None:
                out.append([StepVerdict(Status.ERROR, evidence=str(outcomes[idx]))] * n)
                continue
            stats.unfinished_chains += not est.done
            if est.chain.proven is not None:
                stats.bounded_chains += 1
                stats.bounded_prefixes += n - 1 - len(est.chain.probed)
            est.self_confidence = confidence[items[idx][0].problem_id].report
            out.append(est.verdicts())
        self._say_if_nothing_could_be_placed(items, schedule.estimators, confidence, stats)
        self.last_stats = stats
        self.stats.merge(stats)
        if stats.no_attempts:
            log.info("mc: %d distinct rollouts made no attempt at an answer (wrote nothing "
                     "after a step stating none, or copied the instruction's placeholder): "
                     "undecided", stats.no_attempts)
        return out

    def _say_if_nothing_could_be_placed(
        self, items: Sequence[tuple[Problem, Chain]], estimators: Sequence[Estimator | None],
        confidence: dict[str, Confidence], stats: RolloutStats,
    ) -> None:
        """One warning when no chain with a step to probe got a single rollout: the method
        found, from the completer's self-confidence alone, that no label could be placed
        within its budget (a completer that never solves these problems), so the chains'
        steps stay unverifiable and nothing more was spent than the question's rollouts."""
        probed = [(p, e) for (p, _), e in zip(items, estimators, strict=True)
                  if e is not None and e.chain.probed]
        stats.hopeless_chains += sum(not e.rollouts for _, e in probed)
        if not probed or any(e.rollouts for _, e in probed):
            return
        seen = {p.problem_id: confidence[p.problem_id].report for p, _ in probed}
        rates = Counter(f"{sc.successes}/{sc.decided}" for sc in seen.values())
        log.warning(
            "mc: the completer's self-confidence (%s) lets %s place no label within its "
            "budget on any of these %d chains: no rollout made beyond the question's; their "
            "steps stay unverifiable (a stronger completer: labels.mc.model.name=...)",
            ", ".join(f"{r} on {n} problem{'s' * (n > 1)}" for r, n in rates.most_common()),
            self.method.name, len(probed))

    def _estimator(self, idx: int, item: tuple[Problem, Chain], outcome: bool | None | str,
                   known: Confidence | None) -> Estimator | None:
        """The chain's estimator, or None when its outcome could not be checked (bad
        reference data: the reason is the outcome)."""
        if isinstance(outcome, str):
            return None
        problem, chain = item
        # How the chain's own outcome counts (a chain the completer sampled itself) is the
        # method's business: the counts it is given are the problem's other evidence.
        facts = ChainFacts(len(chain.steps), outcome, known.others(idx) if known else (0, 0),
                           self._is_sample(chain), AfterError(self.after_error),
                           known.report if known else None, tuple(chain.steps),
                           problem.question, chain.proven_error)
        return self.method.search(facts)

    # -- self-confidence ------------------------------------------------------------------

    def _is_sample(self, chain: Chain) -> bool:
        return self.samples_of is not None and chain.model == self.samples_of

    def question_request(self, problem: Problem) -> EngineRequest:
        """The request of the bare question's rollouts on `problem` (`verifiers.mc.question`)."""
        return question_request(problem, n=self.self_rollouts, seed=self.seed,
                                max_tokens=self.max_tokens, temperature=self.temperature,
                                top_p=self.top_p, end_loops=self.end_loops,
                                prompt_fn=self.prompt_fn)

    def _self_confidence(self, pid: str, items: Sequence[tuple[Problem, Chain]],
                         outcomes: list[bool | None | str], asked: Asked,
                         stats: RolloutStats, pool: ThreadPoolExecutor) -> Confidence:  # fmt: skip
        """Problem `pid`'s self-confidence (`verifiers.mc.confidence`)."""
        chains = {idx: o for idx, ((p, c), o) in enumerate(zip(items, outcomes, strict=True))
                  if p.problem_id == pid and self._is_sample(c) and isinstance(o, bool)}
        return measure(pid, chains, asked, self.self_rollouts,
                       lambda problem, text: judge_question_rollout(
                           self.check, self.prompt_fn(problem), problem, text, stats),
                       stats, pool)

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


class _Rollouts(Rollouts):
    """The driver's side of the schedule's seam for one `verify` call: chain `i` is
    `items[i]`, its prefix texts `prefixes[i]`."""

    def __init__(self, mc: MonteCarloVerifier, items: Sequence[tuple[Problem, Chain]],
                 prefixes: list[list[str]], stats: RolloutStats) -> None:  # fmt: skip
        self.mc, self.items, self.prefixes, self.stats = mc, items, prefixes, stats

    def request(self, chain: int, step: int, index: int, n: int) -> EngineRequest:
        mc, (problem, item) = self.mc, self.items[chain]
        seed = rollout_seed(mc.seed, problem.problem_id, item.chain_id, step, index)
        return EngineRequest.user(mc.prompt_fn(problem), prefix=self.prefixes[chain][step], n=n,
                                  seed=seed, max_tokens=mc.max_tokens,
                                  temperature=mc.temperature, top_p=mc.top_p,
                                  end_loops=mc.end_loops)

    def check(self, chain: int, step: int, text: str) -> bool | None:
        mc, problem, prefix = self.mc, self.items[chain][0], self.prefixes[chain][step]
        if no_attempt(problem, prefix, text, mc.prompt_fn(problem)):
            self.stats.no_attempts += 1
            return None
        # One pathological completion must not sink the labels of every chain in the batch:
        # a check that raises on model output counts as undecided, and is logged.
        try:
            return mc.check(problem, prefix, text)
        except Exception as exc:
            self.stats.check_errors += 1
            log.warning("outcome check raised on a rollout of %s: %r", problem.problem_id, exc)
            return None

    def submit(self, requests: Sequence[EngineRequest]) -> list[Future[list[Completion]]]:
        return futures(self.mc.completer, requests)
