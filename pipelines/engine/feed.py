"""Continuous feeding of one vLLM engine: requests from any caller join the running batch.

`EngineFeed` owns a `vllm.LLMEngine` and one thread that steps it while any request is
unfinished. `submit(items)` hands requests over and returns a `concurrent.futures.Future`
at once; the future resolves when the last of those requests is done. Calls from many callers
(units being sampled, rollouts of many chains) therefore share every forward pass, and a short
request never waits for a long one of another call: vLLM's scheduler admits new requests
between steps (continuous batching), which `LLM.generate` only does within one call.

Only the feed's thread touches the engine (`LLMEngine` is not thread-safe), and that thread
also builds it: on CPU, torch runs measurably slower in a thread other than the one that
made its first OpenMP team (a matmul loop and a generate call alike). The feed also counts
requests, prompt, cached and generated tokens per tag (sample, rollout, ...) for the job's
progress lines and the manifest.
Not covered: priorities and cancellation (a submitted request always runs to its end).
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import asdict, dataclass
from typing import Any

from labeling.engine_result import EngineResult, Finish
from labeling.text.unicode import repair

log = logging.getLogger(__name__)


@dataclass(slots=True)
class TagStats:
    """Requests of one tag: added/done counts, token budget (n * max_tokens) and tokens."""

    requests: int = 0
    done: int = 0
    budget: int = 0  # tokens the added requests may generate at most
    done_budget: int = 0  # the same, of the finished ones
    tokens: int = 0  # tokens the finished ones generated
    prompt_tokens: int = 0  # prompt tokens of the finished ones
    cached_tokens: int = 0  # of those, read from vLLM's prefix cache instead of computed


@dataclass(slots=True)
class _Call:
    future: Future
    results: list[EngineResult]
    left: int
    tag: str
    tokens: int = 0


class EngineFeed:
    """Steps a `vllm.LLMEngine` in a thread of its own; see the module docstring.

    `build()` runs in that thread and returns (engine, max_num_seqs); the constructor waits
    for it and raises what it raised.
    """

    def __init__(self, build: Callable[[], tuple[Any, int]],
                 finish_of: Callable[[Any, Any], Finish] | None = None) -> None:
        self.engine: Any = None
        self.max_num_seqs = 0
        self._inbox: queue.SimpleQueue = queue.SimpleQueue()
        # request id -> call, index, budget, sampling params
        self._owner: dict[str, tuple[_Call, int, int, Any]] = {}
        # (params, completion) -> its finish reason: vLLM's, unless the owner knows better
        self._finish_of = finish_of or (lambda params, c: Finish.of(c.finish_reason))
        self._ids = itertools.count()
        self._lock = threading.Lock()  # guards the counters below (read by stats())
        self.tags: dict[str, TagStats] = {}
        self.busy_s = 0.0  # time inside engine.step()
        self.steps = 0
        self.live_tokens = 0  # ~generated tokens so far, counted per step (progress only)
        self.error: BaseException | None = None
        ready = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(build, ready), name="engine-feed", daemon=True
        )
        self._thread.start()
        ready.wait()
        if self.engine is None:
            assert self.error is not None
            raise self.error

    def _run(self, build: Callable[[], tuple[Any, int]], ready: threading.Event) -> None:
        try:
            self.engine, self.max_num_seqs = build()
        except BaseException as exc:  # the constructor re-raises it in the caller's thread
            self.error = exc
            return
        finally:
            ready.set()
        self._loop()

    def submit(self, items: list[tuple[Any, Any] | None], tag: str,
               empty: EngineResult) -> Future:  # fmt: skip
        """`items`: per request (prompt, SamplingParams) or None (answered with `empty` at
        once, e.g. a prompt too long for the context). Returns a future of the results."""
        fut: Future = Future()
        if self.error is not None:
            fut.set_exception(RuntimeError(f"the engine failed earlier: {self.error!r}"))
            return fut
        call = _Call(fut, [empty] * len(items), sum(x is not None for x in items), tag)
        budget = [x[1].n * x[1].max_tokens if x is not None else 0 for x in items]
        with self._lock:
            t = self.tags.setdefault(tag, TagStats())
            t.requests += len(items)
            t.done += len(items) - call.left
            t.budget += sum(budget)
        if call.left == 0:
            fut.set_result(call.results)
            return fut
        adds = [
            (str(next(self._ids)), x[0], x[1], i, budget[i])
            for i, x in enumerate(items)
            if x is not None
        ]
        self._inbox.put((call, adds))
        return fut

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {
                "tags": {k: asdict(v) for k, v in self.tags.items()},
                "busy_s": self.busy_s,
                "steps": self.steps,
                "live_tokens": self.live_tokens,
            }

    def _take(self, block: bool) -> None:
        """Move waiting submissions into the engine (blocking when it is idle)."""
        while True:
            try:
                call, adds = self._inbox.get(block=block)
            except queue.Empty:
                return
            block = False
            for rid, prompt, params, index, budget in adds:
                self._owner[rid] = (call, index, budget, params)
                self.engine.add_request(rid, prompt, params)

    def _loop(self) -> None:
        while True:
            try:
                self._take(block=not self.engine.has_unfinished_requests())
                live = min(self.engine.get_num_unfinished_requests(), self.max_num_seqs)
                t0 = time.perf_counter()
                outputs = self.engine.step()
                dt = time.perf_counter() - t0
                with self._lock:
                    self.busy_s += dt
                    self.steps += 1
                    self.live_tokens += live
                for out in outputs:
                    if out.finished:
                        self._finish(out)
            except BaseException as exc:  # fail every waiting call, then refuse new ones
                log.error("engine step failed: %r", exc)
                self.error = exc
                for call, *_ in list(self._owner.values()):
                    if not call.future.done():
                        call.future.set_exception(exc)
                self._owner.clear()
                return

    def _finish(self, out: Any) -> None:
        call, index, budget, params = self._owner.pop(out.request_id)
        tokens = [len(c.token_ids) for c in out.outputs]
        call.results[index] = EngineResult.of(
            # Model output is untrusted: a lone surrogate could not be written to a shard.
            [repair(c.text) for c in out.outputs],
            tokens,
            [self._finish_of(params, c) for c in out.outputs],
        )
        call.left -= 1
        with self._lock:
            t = self.tags[call.tag]
            t.done += 1
            t.done_budget += budget
            t.tokens += sum(tokens)
            t.prompt_tokens += len(out.prompt_token_ids or ())
            t.cached_tokens += int(getattr(out, "num_cached_tokens", 0) or 0)
        if call.left == 0:
            call.future.set_result(call.results)


def sum_stats(parts: list[dict[str, Any]], units: float) -> dict[str, Any]:
    """Several engines' `EngineFeed.stats()` as one: per tag counts, busy_s, steps and
    live_tokens added up; `actors` (how many answered) and `units` (what they hold:
    GPUs, or on CPU their share of the nodes' cores) beside them."""
    total: dict[str, Any] = {"tags": {}, "busy_s": 0.0, "steps": 0, "live_tokens": 0,
                             "actors": len(parts), "units": units}
    for p in parts:
        for k in ("busy_s", "steps", "live_tokens"):
            total[k] += p[k]
        for tag, counts in p["tags"].items():
            into = total["tags"].setdefault(tag, dict.fromkeys(counts, 0))
            for k, v in counts.items():
                into[k] += v
    return total
