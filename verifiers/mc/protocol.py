"""What the Monte Carlo driver asks of an engine: completions of `EngineRequest`s (the one
request type, `labeling.engine_request`: the problem as the user message, the chain's prefix
as the start of the answer) and the two ways to ask (`Completer`: a batch, answered at once;
`AsyncCompleter`: one future per request).

Pure types, no engine: `pipelines/engine/completer.py` implements both protocols with the
vLLM engine actors, `tests.fakes.FakeCompleter` the batch one for tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import asdict, dataclass
from typing import Protocol, runtime_checkable

from labeling.engine_request import EngineRequest
from labeling.engine_result import Completion  # the engine's one completion type (re-exported)


@runtime_checkable
class Completer(Protocol):
    def complete(self, requests: Sequence[EngineRequest]) -> list[list[Completion]]:
        """For each request, in order, exactly `request.n` completions."""
        ...


@runtime_checkable
class AsyncCompleter(Protocol):
    """May also have `capacity`: requests the engines can run at once (enables speculation,
    see `verifiers.mc.schedule`)."""

    def submit(
        self, requests: Sequence[EngineRequest]
    ) -> list[Future[list[Completion]]]:
        """One future per request, in order, each resolving to exactly `request.n`
        completions as soon as that request is done (not when the whole call is).
        Must not block on generation."""
        ...


@dataclass(slots=True)
class RolloutStats:
    """What the driver asked of the engine (for the throughput benchmarks)."""

    chains: int = 0
    rounds: int = 0  # submissions to the Completer (one per batch of newly pending probes)
    requests: int = 0  # probes sent (each asks for n completions)
    completions: int = 0
    self_completions: int = 0  # of them: rollouts from the bare question (self-confidence)
    tokens: int = 0  # generated tokens reported by the Completer
    max_batch_requests: int = 0
    max_batch_completions: int = 0
    max_in_flight: int = 0  # most requests waiting for the engine at once
    wasted_rollouts: int = 0  # speculative rollouts a settled step did not need (dropped)
    wasted_tokens: int = 0  # their tokens (included in `tokens`)
    ahead_requests: int = 0  # rollouts sent for probes that were not pending yet
    unfinished_chains: int = 0  # chains still undecided when max_rounds ran out
    hopeless_chains: int = 0  # chains the method could place no label on: no rollout made
    bounded_chains: int = 0  # chains with a step an exact check proved wrong (calc, tests)
    bounded_prefixes: int = 0  # of their prefixes, those at or after it: never rolled out
    checks: int = 0  # outcome checks actually run (cache hits excluded)
    undecided_checks: int = 0  # checks that returned None (undecided: they cost budget only)
    no_attempts: int = 0  # of them: math rollouts that made no attempt at an answer (wrote
    # nothing, or copied the placeholder: `outcome.no_attempt`); one per distinct text of a prefix
    check_errors: int = 0  # checks that raised on a completion (undecided; logged)
    generate_seconds: float = 0.0  # wall time of the stage while requests were in flight
    check_seconds: float = 0.0

    def merge(self, other: RolloutStats) -> None:
        for name, value in asdict(other).items():
            if name.startswith("max_"):
                setattr(self, name, max(getattr(self, name), value))
            else:
                setattr(self, name, getattr(self, name) + value)


def futures(completer: Completer | AsyncCompleter, requests: Sequence[EngineRequest]
            ) -> list[Future[list[Completion]]]:  # fmt: skip
    """One future per request, in order: the completer's own (`AsyncCompleter`), or done
    futures around one batch `complete()` call. RuntimeError when the completer answers
    another number of requests."""
    if isinstance(completer, AsyncCompleter):
        out = completer.submit(requests)
    else:
        out = []
        for got in completer.complete(requests):
            fut: Future[list[Completion]] = Future()
            fut.set_result(got)
            out.append(fut)
    if len(out) != len(requests):
        raise RuntimeError(f"Completer answered {len(out)} of {len(requests)} requests")
    return out
