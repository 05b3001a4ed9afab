"""Which engine serves a request: the one holding its prompt in its prefix cache, unless busy.

Every request of one problem shares the prompt (the chat template and the question); the
Monte Carlo rollouts of a chain share its prefix too. vLLM's prefix cache is per engine, so
a rollout sent to the engine that sampled its chain finds those KV blocks there, and one sent
elsewhere computes them again. So each prompt has an *owner*, an engine fixed by a hash of
the prompt: a pure function, so the job's driver (which samples) and each labeler actor
(which sends the rollouts, through its own copy of the pool) agree on it without sharing
state. `Router.pick` (one request: a rollout) sends it to its owner unless that engine has
more than `slack` sequences waiting beyond the least busy one; `Router.split` (a batch sent
at once: a unit's sampling) lets each engine take its own prompts up to an even share and
spreads the rest, so a batch that hashes unevenly still splits evenly.

Load is counted in sequences (a request's `n`) sent and not finished. Thread-safe (finished
calls report back from Ray's threads). An engine that is gone (its node died) is retired:
its prompts get new owners among the live engines (the others keep theirs). Not covered:
the engines' real cache contents (an owner may have evicted the blocks), and the load sent
by other routers (each labeler actor's copy counts only its own requests).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from typing import Any

from labeling.engine_request import EngineRequest


def prompt_key(request: EngineRequest) -> bytes:
    """What requests sharing a cached prompt have in common: the messages (not the prefix:
    the chain prefixes of one problem share the prompt blocks before them)."""
    h = hashlib.blake2b(digest_size=12)
    for role, content in request.messages:
        h.update(role.encode())
        h.update(b"\0")
        h.update(content.encode())
        h.update(b"\1")
    return h.digest()


class Router:
    def __init__(self, engines: int, slack: int) -> None:
        if engines < 1:
            raise ValueError(f"a router needs at least one engine, got {engines}")
        self.load = [0] * engines
        self.slack = slack
        self.retired: set[int] = set()
        self._lock = threading.Lock()

    def live(self) -> list[int]:
        return [i for i in range(len(self.load)) if i not in self.retired]

    def retire(self, engine: int) -> bool:
        """Send nothing more to `engine`. False (and nothing retired) when it is the last."""
        with self._lock:
            if engine in self.retired:
                return True
            if len(self.load) - len(self.retired) <= 1:
                return False
            self.retired.add(engine)
            return True

    def _owner(self, request: EngineRequest, live: list[int]) -> int:
        h = int.from_bytes(prompt_key(request)[:8], "little")
        owner = h % len(self.load)
        return owner if owner not in self.retired else live[h % len(live)]

    def pick(self, request: EngineRequest, weight: int | None = None) -> int:
        """The engine for one request: its owner unless that engine has more than `slack`
        sequences waiting beyond the least busy one. Its `weight` sequences (default: its
        `n`) count as that engine's load until `done`."""
        weight = request.n if weight is None else weight
        with self._lock:
            live = self.live()
            owner = self._owner(request, live) if len(live) > 1 else live[0]
            least = min(live, key=self.load.__getitem__)
            choice = owner if self.load[owner] - self.load[least] <= self.slack else least
            self.load[choice] += weight
        return choice

    def split(self, requests: Sequence[EngineRequest]) -> list[list[int]]:
        """Indices of `requests` per engine, for a batch sent at once: each engine takes its
        own prompts up to an even share of the load (what it has waiting plus the batch),
        the rest go one by one to the least busy engine. So a batch spreads within one
        request of even, and as many requests as that allows stay with their owners."""
        n = len(self.load)
        weights = [r.n for r in requests]
        parts: list[list[int]] = [[] for _ in range(n)]
        with self._lock:
            live = self.live()
            owners = [self._owner(r, live) if len(live) > 1 else live[0] for r in requests]
            share = (sum(self.load[i] for i in live) + sum(weights)) / len(live)
            spill = []
            for i, (owner, w) in enumerate(zip(owners, weights, strict=True)):
                if self.load[owner] + w <= share:
                    parts[owner].append(i)
                    self.load[owner] += w
                else:
                    spill.append(i)
            for i in spill:
                least = min(live, key=self.load.__getitem__)
                parts[least].append(i)
                self.load[least] += weights[i]
        return [sorted(p) for p in parts]

    def done(self, engine: int, sequences: int) -> None:
        with self._lock:
            self.load[engine] -= sequences

    def __getstate__(self) -> dict[str, Any]:
        # A copy (in a labeler actor) starts with no load of its own.
        return {"engines": len(self.load), "slack": self.slack, "retired": set(self.retired)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["engines"], state["slack"])
        self.retired = set(state.get("retired", ()))


__all__ = ["Router", "prompt_key"]
