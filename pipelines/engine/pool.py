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
node (node affinity) and reserving the CPUs it runs threads on, and started with tcmalloc
and Intel OpenMP preloaded (`preload.py`, `engine.preload`).
A dead actor is restarted by Ray (`max_restarts`) and its call retried (`max_task_retries`).
An engine that cannot come back (its node died: CPU engines are bound to their node) fails
its calls; the pool retires it from the router and sends each failed call to a live engine,
counting what it re-sent (`retries()`, the manifest's `retries`), and `lost_nodes()` names
nodes that died since the last look (the progress lines). A CPU engine's preloaded
libraries are looked up on its own node, by a task placed there, since LD_PRELOAD must be
set before the process starts (`_node_preload_env`).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from typing import Any

from labeling.engine_request import EngineRequest
from pipelines.cli import AppLogger
from pipelines.engine.actor import SimulatedEngine, VLLMEngine
from pipelines.engine.layout import (
    Node,
    PlanError,
    Slot,
    cpu_plan,
    engine_bytes,
    resolve_actors,
)
from pipelines.engine.routing import Router

log = AppLogger()  # [prm-label] or [prm-search]: the app that runs the pool

# Calls one async engine actor serves at once (each may hold many requests); more wait in Ray.
MAX_CONCURRENT_CALLS = 4096
# Sequences an engine may have waiting beyond the least busy one before a request leaves its
# prompt's owner engine (routing.py): small next to an engine's room (256 on CPU).
ROUTE_SLACK = 8


def _engine_class(kind: str) -> type:
    if kind == "vllm":
        return VLLMEngine
    if kind == "simulated":
        return SimulatedEngine
    raise ValueError(f"unknown engine.kind {kind!r}; choose vllm or simulated")


def gpus_per_engine(model: Any, engine: Any) -> float:
    """GPUs one engine holds: `engine.num_gpus`, at least `model.tensor_parallel_size` on GPU."""
    if not engine.num_gpus:
        return 0.0
    return float(max(engine.num_gpus, model.tensor_parallel_size))


def _resolve_preload(existing: str) -> tuple[dict[str, str], str | None, str]:
    """On the node this runs on: (the env that preloads its libraries, advice when one is
    missing, the node's id). A Ray task placed on each node runs it (`_node_preload_env`)."""
    from pipelines.engine import preload

    libs = preload.find_libs()
    node = ""
    try:
        import ray

        if ray.is_initialized():
            node = ray.get_runtime_context().get_node_id()
    except Exception:  # outside Ray: the caller's own process
        node = ""
    return preload.preload_env(libs, existing), preload.missing_advice(libs), node


def _node_preload_env(engine: Any, node_ids: list[str]) -> dict[str, dict[str, str]]:
    """{node id: env preloading that node's tcmalloc and Intel OpenMP} for CPU vLLM engines,
    each looked up by a task on the node itself (a node's paths may differ from the
    driver's); {} when not asked for (`engine.preload`) or not a vLLM engine."""
    import os

    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    if not engine.preload or str(engine.kind) != "vllm":
        return {}
    task = ray.remote(num_cpus=0)(_resolve_preload)
    existing = os.environ.get("LD_PRELOAD", "")
    refs = {n: task.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n, soft=False))
            .remote(existing) for n in node_ids}  # fmt: skip
    out = {}
    for n, ref in refs.items():
        env, advice, _ = ray.get(ref)
        if advice:
            log.warning("engine: node %s: %s", n[:8], advice)
        out[n] = env
    return out


def engine_lost(exc: BaseException) -> bool:
    """Is `exc` an engine that is gone (its actor died for good, or its node did)?"""
    import ray.exceptions as rex

    return isinstance(exc, rex.RayActorError | rex.ActorUnschedulableError | rex.NodeDiedError)


def _cpu_slots(model_path: str, model: Any, engine: Any, nodes: list[dict], share: float,
               local: bool) -> list[Slot]:  # fmt: skip
    """The CPU plan over the live nodes; a plan that cannot fit a local Ray is a PlanError
    (on a cluster a warning: an autoscaler may add the room)."""
    from pipelines.engine.device import choose_dtype, cpu_flags

    dtype, _ = choose_dtype(str(model.dtype), False, cpu_flags(), None)
    need = engine_bytes(model_path, dtype, model.kv_cache_gib)
    infos = [Node(n["NodeID"], n["Resources"]["CPU"], n["Resources"].get("memory", 0.0))
             for n in nodes]  # fmt: skip
    slots = cpu_plan(infos, int(engine.actors), int(engine.threads), float(engine.num_cpus),
                     need, share)  # fmt: skip
    for info in infos:
        want = sum(s.cpus for s in slots if s.node_id == info.node_id)
        if want > info.cpus + 1e-9:
            msg = (f"{sum(s.node_id == info.node_id for s in slots)} engines reserve {want:g} "
                   f"CPUs on a node with {info.cpus:g}; lower engine.actors, engine.threads or "
                   "engine.num_cpus (0 = auto)")  # fmt: skip
            if local:
                raise PlanError(msg)
            log.warning("%s; Ray will wait for room", msg)
    return slots


class EnginePool:
    def __init__(
        self,
        model_path: str,
        model: Any,  # ModelConfig
        engine: Any,  # EngineConfig
        ray_cfg: Any,  # RayConfig
        verbose: bool = False,  # vLLM's own INFO logs (debug.verbose_engine)
        cpu_share: float = 1.0,  # of each node's cores, when another pool shares them
        every_s: float = 10.0,  # start-up progress line period (debug.log_every_s)
    ) -> None:
        self.batch_size = int(engine.batch_size)
        cls = _engine_class(str(engine.kind))
        self.use_ray = bool(ray_cfg.enabled)
        self.placement_groups: list[Any] = []
        self._capacity: int | None = None
        self.nodes: list[str] = []  # each engine's node id (Ray only)
        self._retries = {"engine_calls_resent": 0, "engine_requests_resent": 0}
        self._lost: list[int] = []  # retired engines, in the order they were lost
        self._known_dead: set[str] = set()
        self._lock = threading.Lock()
        if not self.use_ray:
            self.actors: list[Any] = [cls(model_path, model, engine, int(engine.threads), verbose)]
            self.units = [1.0]
            self.router = Router(1, ROUTE_SLACK)
            log.info("engine: %s", self.actors[0].choice())
            return
        import ray

        gpus = gpus_per_engine(model, engine)
        nodes = [n for n in ray.nodes() if n.get("Alive") and n["Resources"].get("CPU")]
        env = {
            "VLLM_CPU_KVCACHE_SPACE": str(model.kv_cache_gib),
            # vLLM's INFO lines (config dumps) would drown the job's own progress lines.
            "VLLM_LOGGING_LEVEL": "INFO" if verbose else "ERROR",
            # torch's C++ warnings (the CPU engine's NUMA binding notice at every start) are
            # read when torch loads, so they are set for the engine process from the start.
            "TORCH_CPP_LOG_LEVEL": "INFO" if verbose else "ERROR",
        }
        options = {
            "max_restarts": ray_cfg.max_restarts,
            "max_task_retries": ray_cfg.max_task_retries,
            "max_concurrency": MAX_CONCURRENT_CALLS,
            "runtime_env": {"env_vars": env},
        }
        remote_cls = ray.remote(cls)
        if gpus:
            n = resolve_actors(int(engine.actors), gpus, ray.cluster_resources().get("GPU", 0.0),
                               len(nodes))  # fmt: skip
            cpus = float(engine.num_cpus) or 1.0
            self.actors = [
                remote_cls.options(**options, num_cpus=cpus, num_gpus=gpus,
                                   **self._placement(gpus, cpus)).remote(
                    model_path, model, engine, 0, verbose)
                for _ in range(n)
            ]  # fmt: skip
            self.units = [gpus] * n  # engine-hours are GPU-hours
        else:
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            slots = _cpu_slots(model_path, model, engine, nodes, cpu_share, not ray_cfg.address)
            cores = {n["NodeID"]: n["Resources"]["CPU"] for n in nodes}
            preload = _node_preload_env(engine, sorted({s.node_id for s in slots}))
            self.actors = [
                remote_cls.options(**options | {"runtime_env": {"env_vars": env | preload.get(
                                       s.node_id, {})}},
                                   num_cpus=s.cpus, num_gpus=0,
                                   scheduling_strategy=NodeAffinitySchedulingStrategy(
                                       s.node_id, soft=False)).remote(
                    model_path, model, engine, s.threads, verbose)
                for s in slots
            ]  # fmt: skip
            self.nodes = [s.node_id for s in slots]
            # Engine-hours are node-hours: an engine counts the share of its node's cores it runs.
            self.units = [s.threads / cores[s.node_id] for s in slots]
        self.router = Router(len(self.actors), ROUTE_SLACK)
        self._wait_started(every_s)
        n = len(self.actors)
        for i, text in enumerate(ray.get([a.choice.remote() for a in self.actors])):
            where = f"node {self.nodes[i][:8]}: " if self.nodes else ""
            log.info("engine %d/%d: %s%s", i + 1, n, where, text)

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

    def _placement(self, gpus: float, cpus: float) -> dict[str, Any]:
        """Options binding an engine that holds GPUs to a placement group of its own."""
        from ray.util.placement_group import placement_group
        from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

        pg = placement_group([{"CPU": cpus, "GPU": gpus}], strategy="STRICT_PACK")
        self.placement_groups.append(pg)
        # Capture child tasks: vLLM's own workers for tensor parallelism stay in the group.
        strategy = PlacementGroupSchedulingStrategy(pg, placement_group_capture_child_tasks=True)
        return {"scheduling_strategy": strategy}

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
        ticket = []
        for i, part in enumerate(self.router.split(requests)):
            for k in range(0, len(part), self.batch_size):
                chunk = part[k : k + self.batch_size]
                ticket.append((chunk, self._call(i, [requests[j] for j in chunk], tag)))
        return ticket

    def collect(self, ticket: list[Any]) -> list[dict[str, Any]]:
        results: list[Any] = [None] * sum(len(chunk) for chunk, _ in ticket)
        for chunk, fut in ticket:
            for j, res in zip(chunk, fut.result(), strict=True):
                results[j] = res
        return results

    def generate(self, requests: list[EngineRequest], tag: str = "sample") -> list[dict]:
        return self.collect(self.submit(requests, tag))

    def future(self, requests: list[EngineRequest], tag: str = "rollout") -> Future:
        """One call to the engine the router picks for the first request; a future of its
        results."""
        i = self.router.pick(requests[0], sum(r.n for r in requests))
        return self._call(i, requests, tag)

    def capacity(self) -> int:
        """Sequences all engines run at once (0 for the simulated engine); asked once."""
        if self._capacity is None:
            if self.use_ray:
                import ray

                self._capacity = sum(ray.get([a.capacity.remote() for a in self.actors]))
            else:
                self._capacity = self.actors[0].capacity()
        return self._capacity

    def stats(self, timeout_s: float = 5.0) -> dict[str, Any]:
        """Counters summed over the actors: per tag (requests, done, budget, done_budget,
        tokens), busy_s, steps, live_tokens (see `EngineFeed.stats`); `actors` and `units`
        (GPUs held, or on CPU the share of their nodes' cores: engine-hours = units x hours)."""
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
        total: dict[str, Any] = {"tags": {}, "busy_s": 0.0, "steps": 0, "live_tokens": 0,
                                 "actors": len(parts), "units": round(sum(self.units), 6)}
        for p in parts:
            for k in ("busy_s", "steps", "live_tokens"):
                total[k] += p[k]
            for tag, counts in p["tags"].items():
                into = total["tags"].setdefault(tag, dict.fromkeys(counts, 0))
                for k, v in counts.items():
                    into[k] += v
        return total

    def shutdown(self) -> None:
        if self.use_ray:
            import ray
            from ray.util.placement_group import remove_placement_group

            for a in self.actors:
                ray.kill(a)
            for pg in self.placement_groups:
                remove_placement_group(pg)
        self.actors, self.placement_groups = [], []

    def __getstate__(self) -> dict[str, Any]:
        # Copies (in verifier actors) keep the handles; the driver keeps the groups.
        state = dict(self.__dict__)
        state["placement_groups"] = []
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()


__all__ = ["EnginePool", "engine_lost", "gpus_per_engine", "resolve_actors"]
