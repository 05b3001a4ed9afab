"""A pool of engine actors on Ray (or one engine in-process), fed continuously.

Each actor is an async Ray actor around one `VLLMEngine`, whose `EngineFeed` merges every
call it is serving into one running batch. So callers never wait for each other's rounds:
- `submit(requests, tag)` spreads the requests over the engines (`routing.Router`: each
  prompt to its owner engine, whose prefix cache holds it, within a load slack), in calls of
  at most `engine.batch_size`, and returns a ticket at once; `collect(ticket)` waits for the
  results in request order; `generate` is both.
- `future(requests, tag)` sends one call to the engine the router picks and returns a
  `concurrent.futures.Future` of its results (the Monte Carlo driver: one per probe).
- `stats()` sums the actors' request/token counters per tag (the job's progress lines).

`engine.actors: 0` (auto) sizes the pool from the cluster (`layout.py`): one engine per GPU
group (`engine.num_gpus`, or `model.tensor_parallel_size` GPUs for tensor parallelism, each
group reserved with a STRICT_PACK placement group so its GPUs sit on one node); on CPU nodes
one single-thread engine per core, as many as the node's memory holds, each placed on its
node (node affinity) and reserving the CPUs it runs threads on, with tcmalloc and Intel
OpenMP preloaded where measured faster (`preload.py`, `engine.preload`); `placement.py`
turns the plan into actor options and `start.py` starts the actors. `wait=False` returns
while the engines load (`ready()`).
A dead actor is restarted by Ray (`max_restarts`) and its call retried (`max_task_retries`).
An engine that cannot come back (its node died: CPU engines are bound to their node) fails
its calls; the pool retires it from the router and sends each failed call to a live engine,
counting what it re-sent (`retries()`, the manifest's `retries`), and `lost_nodes()` names
nodes that died since the last look (the progress lines).
The pool pickles (a labeler actor holds a copy, to send its own rollouts) with the engines'
Ray names instead of their handles; the copy looks them up when it is unpickled.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from typing import Any

from labeling.engine_request import EngineRequest
from labeling.engine_result import EngineResult
from pipelines.cli import AppLogger
from pipelines.engine.actor import SimulatedEngine, VLLMEngine, describe_startup
from pipelines.engine.feed import sum_stats
from pipelines.engine.routing import Router
from pipelines.engine.start import start_engines
from pipelines.generation_config import EngineConfig, ModelConfig, RayConfig

log = AppLogger()  # [prm-label] or [prm-search]: the app that runs the pool

# Sequences an engine may have waiting beyond the least busy one before a request leaves its
# prompt's owner engine (routing.py): small next to an engine's room (256 on CPU).
ROUTE_SLACK = 8


def _engine_class(kind: str) -> type:
    if kind == "vllm":
        return VLLMEngine
    if kind == "simulated":
        return SimulatedEngine
    raise ValueError(f"unknown engine.kind {kind!r}; choose vllm or simulated")


def engine_lost(exc: BaseException) -> bool:
    """Is `exc` an engine that is gone (its actor died for good, or its node did)?"""
    import ray.exceptions as rex

    return isinstance(exc, rex.RayActorError | rex.ActorUnschedulableError | rex.NodeDiedError)


class EnginePool:
    def __init__(
        self,
        model_path: str,
        model: ModelConfig,
        engine: EngineConfig,
        ray_cfg: RayConfig,
        verbose: bool = False,  # vLLM's own INFO logs (debug.verbose_engine)
        cpu_share: float = 1.0,  # of each node's cores, when another pool shares them
        every_s: float = 10.0,  # start-up progress line period (debug.log_every_s)
        wait: bool = True,  # False: return once the engines are asked to start (see ready())
    ) -> None:
        self.started_at = time.time()  # the start-up timeline's zero (verbose lines)
        self.verbose, self.every_s, self.kind = verbose, every_s, str(engine.kind)
        self._ready = False  # every engine answered (ready() ran to its end)
        self._ready_lock = threading.Lock()
        self.batch_size = int(engine.batch_size)
        cls = _engine_class(str(engine.kind))
        self.use_ray = bool(ray_cfg.enabled)
        self.placement_groups: list[Any] = []
        self._room: tuple[int, int] | None = None
        self.nodes: list[str] = []  # each engine's node id (Ray only)
        self._retries = {"engine_calls_resent": 0, "engine_requests_resent": 0}
        self._lost: list[int] = []  # retired engines, in the order they were lost
        self._known_dead: set[str] = set()
        self._lock = threading.Lock()
        self.names: list[str] = []  # each engine actor's Ray name (Ray only)
        if not self.use_ray:
            self.actors: list[Any] = [cls(model_path, model, engine, int(engine.threads), verbose)]
            self.units = [1.0]
            self.router = Router(1, ROUTE_SLACK)
            self._ready = True
            log.info("engine: %s", self.actors[0].choice())
            return
        started = start_engines(cls, model_path, model, engine, ray_cfg, verbose, cpu_share)
        self.actors, self.names, self.units = started.actors, started.names, started.units
        self.nodes, self.placement_groups = started.nodes, started.placement_groups
        self.router = Router(len(self.actors), ROUTE_SLACK)
        if wait:
            self.ready()

    def ready(self) -> None:
        """Wait until every engine has started (idempotent, thread-safe): progress lines
        while they load, then each engine's choice line (and its start-up timeline at
        `debug.verbose_engine`). A pool made with `wait=False` lets its caller start other
        work (labelers, reading input) while the engines load; calls sent before this
        returns wait in Ray until their engine is up. Raises an engine's own start error."""
        if self._ready:
            return
        with self._ready_lock:
            if self._ready:
                return
            import ray

            self._wait_started(self.every_s)
            n = len(self.actors)
            log.info("engine ready in %.1fs", time.time() - self.started_at)
            for i, text in enumerate(ray.get([a.choice.remote() for a in self.actors])):
                where = f"node {self.nodes[i][:8]}: " if self.nodes else ""
                log.info("engine %d/%d: %s%s", i + 1, n, where, text)
            if self.verbose and self.kind == "vllm":
                for i, marks in enumerate(ray.get([a.startup.remote() for a in self.actors])):
                    log.info("engine %d/%d start-up after the pool began: %s", i + 1, n,
                             describe_startup(marks, self.started_at))
            self._ready = True

    def _wait_started(self, every_s: float) -> None:
        """Wait for every engine to load, with a line every `every_s` seconds (a big model
        loads for minutes); an engine that fails to start raises its own error here, rather
        than at the first batch."""
        import ray

        waiting = [a.ping.remote() for a in self.actors]
        t0 = time.monotonic()
        while waiting:
            ready, waiting = ray.wait(waiting, num_returns=len(waiting), timeout=every_s)
            ray.get(ready)
            if waiting:
                log.info("engine: starting, %d/%d engines ready after %.0fs",
                         len(self.actors) - len(waiting), len(self.actors),
                         time.monotonic() - t0)  # fmt: skip

    def _call(self, i: int, requests: list[EngineRequest], tag: str,
              outer: Future | None = None) -> Future:  # fmt: skip
        """One call to engine `i` (the router counted its sequences); they leave the
        router's load when it is done. If engine `i` is gone for good, the call goes to a
        live engine (`outer` is the caller's future, kept across such re-sends)."""
        outer = outer if outer is not None else Future()
        seqs = sum(r.n for r in requests)
        if self.use_ray:
            fut = self.actors[i].agenerate.remote(requests, tag).future()
        else:
            fut = self.actors[i].submit(requests, tag)

        def done(f: Future) -> None:
            self.router.done(i, seqs)
            exc = f.exception()
            if exc is None:
                outer.set_result(f.result())
            elif self.use_ray and engine_lost(exc) and self._retire(i, exc):
                j = self.router.pick(requests[0], seqs)
                with self._lock:
                    self._retries["engine_calls_resent"] += 1
                    self._retries["engine_requests_resent"] += len(requests)
                self._call(j, requests, tag, outer)
            else:
                outer.set_exception(exc)

        fut.add_done_callback(done)
        return outer

    def _retire(self, i: int, exc: BaseException) -> bool:
        """Stop sending to engine `i` (gone: `exc`); False when it was the last engine."""
        with self._lock:
            first = i not in self._lost
            if first:
                self._lost.append(i)
        if not self.router.retire(i):
            return False
        if first:
            where = f" on node {self.nodes[i][:8]}" if self.nodes else ""
            log.warning("engine %d/%d%s is gone (%s); its calls go to the %d engines left",
                        i + 1, len(self.actors), where, type(exc).__name__,
                        len(self.router.live()))  # fmt: skip
        return True

    def retries(self) -> dict[str, Any]:
        """What was re-sent because engines were lost (the manifest's `retries`)."""
        with self._lock:
            lost = list(self._lost)
            out: dict[str, Any] = dict(self._retries)
        out["engines_lost"] = len(lost)
        out["engine_nodes_lost"] = sorted({self.nodes[i] for i in lost} if self.nodes else ())
        return out

    def lost_nodes(self) -> list[str]:
        """Lines about nodes holding engines of this pool that died since the last call
        (Ray's view of the cluster); [] off Ray."""
        if not self.use_ray or not self.nodes:
            return []
        import ray

        try:
            dead = {n["NodeID"]: n for n in ray.nodes() if not n.get("Alive")}
        except Exception:  # the GCS is busy: next period
            return []
        lines = []
        for node in sorted(set(self.nodes) & set(dead) - self._known_dead):
            self._known_dead.add(node)
            held = sum(1 for n in self.nodes if n == node)
            info = dead[node]
            lines.append(
                f"node {node[:8]} ({info.get('NodeManagerAddress', '?')}) is dead: "
                f"{held} of {len(self.actors)} engines were on it; their calls go to the "
                f"engines left, labelers on it restart elsewhere"
            )
        return lines

    def submit(self, requests: list[EngineRequest], tag: str = "sample") -> list[Any]:
        """A ticket for `collect`: the requests spread over the engines (see the module)."""
        self.ready()
        ticket = []
        for i, part in enumerate(self.router.split(requests)):
            for k in range(0, len(part), self.batch_size):
                chunk = part[k : k + self.batch_size]
                ticket.append((chunk, self._call(i, [requests[j] for j in chunk], tag)))
        return ticket

    def collect(self, ticket: list[Any]) -> list[EngineResult]:
        results: list[Any] = [None] * sum(len(chunk) for chunk, _ in ticket)
        for chunk, fut in ticket:
            for j, res in zip(chunk, fut.result(), strict=True):
                results[j] = res
        return results

    def generate(self, requests: list[EngineRequest],
                 tag: str = "sample") -> list[EngineResult]:  # fmt: skip
        return self.collect(self.submit(requests, tag))

    def future(self, requests: list[EngineRequest], tag: str = "rollout") -> Future:
        """One call to the engine the router picks for the first request; a future of its
        results."""
        self.ready()
        i = self.router.pick(requests[0], sum(r.n for r in requests))
        return self._call(i, requests, tag)

    def room(self) -> tuple[int, int]:
        """(Sequences all engines run at once, the least MC look-ahead any asks); asked once."""
        if self._room is None:
            self.ready()
            if self.use_ray:
                import ray

                rooms = ray.get([self.actors[i].room.remote() for i in self.router.live()])
            else:
                rooms = [self.actors[0].room()]
            self._room = sum(r[0] for r in rooms), min((r[1] for r in rooms), default=0)
        return self._room

    def stats(self, timeout_s: float = 5.0) -> dict[str, Any]:
        """Counters summed over the actors: per tag (requests, done, budget, done_budget,
        tokens), busy_s, steps, live_tokens (see `EngineFeed.stats`); `actors` and `units`
        (GPUs held, or on CPU the share of their nodes' cores: engine-hours = units x hours)."""
        units = round(sum(self.units), 6)
        if not self._ready:  # still starting: nothing to count, and no wait here
            return sum_stats([], units)
        if self.use_ray:
            import ray

            live = [self.actors[i] for i in self.router.live()]
            refs = [a.stats.remote() for a in live]
            ready, _ = ray.wait(refs, num_returns=len(refs), timeout=timeout_s)
            parts = []
            for ref in ready:  # an engine that is gone or slow is left out of this look
                try:
                    parts.append(ray.get(ref))
                except ray.exceptions.RayError:
                    continue
            if not parts:
                raise TimeoutError("no engine answered within the timeout")
        else:
            parts = [self.actors[0].stats()]
        return sum_stats(parts, units)

    def shutdown(self) -> None:
        if self.use_ray:
            import ray
            from ray.util.placement_group import remove_placement_group

            for a in self.actors:
                if a is not None:  # a copy's engine that was gone when it looked
                    ray.kill(a)
            for pg in self.placement_groups:
                remove_placement_group(pg)
        self.actors, self.placement_groups = [], []

    def __getstate__(self) -> dict[str, Any]:
        # A copy (in a labeler actor) keeps the engines' names, not their handles: it looks
        # them up when it is unpickled, at its actor's every (re)start. The driver keeps the
        # placement groups.
        state = dict(self.__dict__)
        state["placement_groups"] = []
        if self.use_ray:
            state["actors"] = []
        del state["_lock"], state["_ready_lock"]
        # A copy never waits or logs the start: its calls queue in Ray until the engines run.
        state["_ready"] = True
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
        self._ready_lock = threading.Lock()
        if self.use_ray:
            self.actors = [self._lookup(i, name) for i, name in enumerate(self.names)]

    def _lookup(self, i: int, name: str) -> Any:
        """The handle of engine `i` by its name; an engine gone for good is retired (None)."""
        import ray

        try:
            return ray.get_actor(name)
        except ValueError as exc:  # no live actor of that name: it died for good
            if self.router.retire(i):
                with self._lock:
                    self._lost.append(i)
                return None
            raise RuntimeError(f"every engine of the pool is gone ({exc})") from exc


__all__ = ["EnginePool", "engine_lost"]
