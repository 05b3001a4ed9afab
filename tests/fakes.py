"""Fakes for tests and the MC simulation benchmark (never imported by production code)."""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from collections.abc import Callable, Sequence

from labeling.engine_request import EngineRequest
from labeling.mc import METHODS, Absolute, ChainFacts, PerStep, Posterior, PosteriorSearch, method
from labeling.schema import AfterError
from verifiers.mc.driver import Completion, MonteCarloVerifier


def absolute(k: int = 8, chunk: int | None = None, confirm: int = 1,
             threshold: float = 0.0) -> Absolute:
    """The `absolute` rule in the setting most tests were written for (Math-Shepherd's k=8,
    no early stop, one success settles): a test's choice, not MC's defaults."""
    return Absolute(k=k, chunk=chunk, confirm=confirm, threshold=threshold)


@dataclasses.dataclass(frozen=True)
class PosteriorCase:
    """A `posterior` method and a problem's self-confidence counts as the driver reports
    them (`SelfConfidence`: this chain's own outcome in them when the completer `sampled` it)."""

    method: Posterior
    base: tuple[int, int]
    sampled: bool = True


def posterior_case(base, sampled=True, level=0.05, factor=3.0, budget=32, chunk=1,
                   chunk_max=None) -> PosteriorCase:
    """Probes of `chunk` rollouts (grown up to `chunk_max` on a weak problem; None: fixed)."""
    return PosteriorCase(Posterior(level=level, factor=factor, chain_budget=budget, probe=chunk,
                                   probe_max=chunk if chunk_max is None else chunk_max),
                         base, sampled)


def posterior_search(n_steps, case: PosteriorCase, *, outcome=None, after_error="negative",
                     self_confidence=None, probe_right=True, may_err=None) -> PosteriorSearch:
    """The chain's `posterior` search, given counts as the driver reports them: the chain's
    own outcome comes out of them as the driver leaves it out of `ChainFacts.base`."""
    own = case.sampled and outcome is not None
    base = (case.base[0] - int(own and bool(outcome)), case.base[1] - int(own))
    chain = ChainFacts(n_steps, outcome, base, case.sampled, AfterError(after_error),
                       self_confidence)
    return PosteriorSearch(chain, dataclasses.replace(case.method, probe_right=probe_right),
                           may_err=may_err)


def mc_verifier(completer, check=None, *, rule: str = "absolute", max_tokens: int = 64,
                temperature: float = 0.8, domain: str | None = None, seed: int = 0,
                after_error: str = "negative", prompt_fn=None, samples_of: str | None = None,
                check_workers: int | None = None, tests_cfg=None, self_rollouts: int = 0,
                max_rounds: int = 200, speculate: bool = True, end_loops: int = 0,
                look_ahead: int | None = None, **settings) -> MonteCarloVerifier:
    """A `MonteCarloVerifier` with test settings: method `rule` (the `absolute` method with
    k=8, no early stop and confirm=1 unless `settings` say otherwise) and no self-confidence
    rollouts."""
    base = {"k": 8, "chunk": None, "confirm": 1}
    keys = {f.name for f in dataclasses.fields(METHODS[rule])}
    chosen = {**{k: v for k, v in base.items() if k in keys}, **settings}
    return MonteCarloVerifier(
        completer, check, method=method(rule, **chosen), self_rollouts=self_rollouts,
        max_rounds=max_rounds, speculate=speculate, end_loops=end_loops, look_ahead=look_ahead,
        max_tokens=max_tokens, temperature=temperature, domain=domain, seed=seed,
        after_error=after_error, prompt_fn=prompt_fn, samples_of=samples_of,
        check_workers=check_workers, tests_cfg=tests_cfg,
    )


class FakeCompleter:
    """A deterministic stand-in for the engine, for tests and the simulation benchmark.

    Completion j of a request succeeds with probability `p_success(request)`, drawn from a
    generator seeded with request.seed + j, the seed vLLM gives a request's j-th completion:
    the same rollouts in any batch order and any grouping into requests. The text is
    `template` with `{answer}` = `right` on success, `wrong` on failure (default: a boxed
    math answer); each completion reports `tokens` generated tokens. `batches` records every
    call's size.
    """

    def __init__(
        self,
        p_success: Callable[[EngineRequest], float],
        right: str = "42",
        wrong: str = "41",
        tokens: int = 100,
        template: str = "So the answer is \\boxed{{{answer}}}.",
    ) -> None:
        self.p_success, self.right, self.wrong, self.tokens = p_success, right, wrong, tokens
        self.template = template
        self.batches: list[tuple[int, int]] = []  # (requests, completions) per call

    def complete(self, requests: Sequence[EngineRequest]) -> list[list[Completion]]:
        self.batches.append((len(requests), sum(r.n for r in requests)))
        out = []
        for req in requests:
            p = self.p_success(req)
            got = []
            for j in range(req.n):
                ok = random.Random(req.seed + j).random() < p
                answer = self.right if ok else self.wrong
                got.append(Completion(self.template.format(answer=answer), self.tokens))
            out.append(got)
        return out


def drive(est, success):
    """Run an MC estimator to the end, rollout j from step i having the outcome success(i, j):
    True, False, or None (undecided). Each rollout reports one token."""
    for _ in range(2000):
        probes = est.pending()
        if not probes:
            return est
        for p in probes:
            start = est.rollouts_at(p.step)
            est.record(p.step, [success(p.step, start + j) for j in range(p.n)], tokens=p.n)
    raise AssertionError("the estimator never finished")


def every(k):
    """Succeeds on every k-th rollout: a success rate of 1/k, deterministically."""
    return lambda j: j % k == k - 1


def mean_score(rule, p: float, rollouts: int) -> float:
    """The exact mean of step 0's score under `rule` when each rollout succeeds with
    probability p: every sequence of `rollouts` outcomes (at least what the rule can use),
    weighed by its probability, recorded probe by probe until the rule stops."""
    total = 0.0
    for seq in itertools.product([True, False], repeat=rollouts):
        weight = math.prod(p if x else 1 - p for x in seq)
        est = PerStep(ChainFacts(2, outcome=False), rule)
        used = 0
        while est.pending():
            n = est.pending()[0].n
            est.record(0, list(seq[used : used + n]))
            used += n
        total += weight * est.score(0)
    return total
