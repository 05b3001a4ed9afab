"""A pool of engine actors on Ray (or one engine in-process), fed continuously.

Each actor is an async Ray actor around one `VLLMEngine`, whose `EngineFeed` merges every
call it is serving into one running batch. So callers never wait for each other's rounds:
- `submit(requests, tag)` cuts the requests into batches of `engine.batch_size`, spreads them
  over the actors and returns a ticket at once; `collect(ticket)` waits for the results in
  request order; `generate` is both.
- `future(requests, tag)` sends one call to the least busy actor and returns a
  `concurrent.futures.Future` of its results (the Monte Carlo driver: one per probe).
- `stats()` sums the actors' request/token counters per tag (the job's progress lines).

`engine.actors: 0` (auto) starts one engine per GPU group of the cluster (`engine.num_gpus`,
or `model.tensor_parallel_size` GPUs for tensor parallelism, each group reserved with a
STRICT_PACK placement group so its GPUs sit on one node), and one per node on CPUs.
A dead actor is restarted by Ray (`max_restarts`) and its call retried (`max_task_retries`).
"""

from __future__ import annotations

import logging
import math
from concurrent.futures import Future
from typing import Any

from pipelines.engine.actor import SimulatedEngine, VLLMEngine

log = logging.getLogger("prm-label")

# Calls one async engine actor serves at once (each may hold many requests); more wait in Ray.
MAX_CONCURRENT_CALLS = 4096


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


def resolve_actors(requested: int, gpus: float, cluster_gpus: float, nodes: int) -> int:
    """Engine actors to start: `requested` when > 0; auto (0): one per `gpus`-sized GPU
    group of the cluster, or one per node on CPUs. ValueError when auto finds no GPU group."""
    if requested > 0:
        return requested
    if gpus > 0:
        n = int(math.floor(cluster_gpus / gpus + 1e-9))
        if n < 1:
            raise ValueError(
                f"engine.actors=0 (auto) needs {gpus:g} GPUs per engine but the Ray cluster "
                f"has {cluster_gpus:g}; add GPUs or lower engine.num_gpus"
            )
        return n
    return max(1, nodes)


class EnginePool:
    def __init__(
        self,
        model_path: str,
        model: Any,  # ModelConfig
        engine: Any,  # EngineConfig
        ray_cfg: Any,  # RayConfig
        verbose: bool = False,  # vLLM's own INFO logs (debug.verbose_engine)
    ) -> None:
        self.batch_size = int(engine.batch_size)
        cls = _engine_class(str(engine.kind))
        self.use_ray = bool(ray_cfg.enabled)
        self._calls = 0  # round-robin position (plain ints keep the pool picklable)
        self.placement_groups: list[Any] = []
        self._capacity: int | None = None
        if not self.use_ray:
            self.actors: list[Any] = [cls(model_path, model, engine, 1, verbose)]
            log.info("engine: %s", self.actors[0].choice())
            self.load = [0]
            return
        import ray

        gpus = gpus_per_engine(model, engine)
        nodes = [n for n in ray.nodes() if n.get("Alive") and n["Resources"].get("CPU")]
        n = resolve_actors(
            int(engine.actors), gpus, ray.cluster_resources().get("GPU", 0.0), len(nodes)
        )
        env = {
            "VLLM_CPU_KVCACHE_SPACE": str(model.kv_cache_gib),
            # vLLM's INFO lines (config dumps) would drown the job's own progress lines.
            "VLLM_LOGGING_LEVEL": "INFO" if verbose else "ERROR",
        }
        options = {
            "num_cpus": engine.num_cpus,
            "num_gpus": gpus,
            "max_restarts": ray_cfg.max_restarts,
            "max_task_retries": ray_cfg.max_task_retries,
            "max_concurrency": MAX_CONCURRENT_CALLS,
            "runtime_env": {"env_vars": env},
        }
        remote_cls = ray.remote(cls)
        share = max(1, math.ceil(n / max(1, len(nodes))))  # engines sharing a node's cores
        self.actors = [
            remote_cls.options(**options, **self._placement(gpus, engine.num_cpus)).remote(
                model_path, model, engine, share, verbose
            )
            for _ in range(n)
        ]
        self.load = [0] * n
        # Fail here, with the engine's own error, rather than at the first batch.
        ray.get([a.ping.remote() for a in self.actors])
        for i, text in enumerate(ray.get([a.choice.remote() for a in self.actors])):
            log.info("engine %d/%d: %s", i + 1, n, text)

    def _placement(self, gpus: float, cpus: float) -> dict[str, Any]:
        """Options binding an engine that holds GPUs to a placement group of its own."""
        if not gpus:
            return {}
        from ray.util.placement_group import placement_group
        from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

        pg = placement_group([{"CPU": cpus, "GPU": gpus}], strategy="STRICT_PACK")
        self.placement_groups.append(pg)
        # Capture child tasks: vLLM's own workers for tensor parallelism stay in the group.
        strategy = PlacementGroupSchedulingStrategy(pg, placement_group_capture_child_tasks=True)
        return {"scheduling_strategy": strategy}

    def submit(self, requests: list[dict[str, Any]], tag: str = "sample") -> list[Any]:
        batches = [
            requests[i : i + self.batch_size] for i in range(0, len(requests), self.batch_size)
        ]
        if not self.use_ray:
            return [self.actors[0].submit(b, tag) for b in batches]
        tickets = []
        for b in batches:
            tickets.append(self.actors[self._calls % len(self.actors)].agenerate.remote(b, tag))
            self._calls += 1
        return tickets

    def collect(self, ticket: list[Any]) -> list[dict[str, Any]]:
        if self.use_ray:
            import ray

            batches = ray.get(ticket)
        else:
            batches = [f.result() for f in ticket]
        return [r for batch in batches for r in batch]

    def generate(self, requests: list[dict[str, Any]], tag: str = "sample") -> list[dict]:
        return self.collect(self.submit(requests, tag))

    def future(self, requests: list[dict[str, Any]], tag: str = "rollout") -> Future:
        """One call to the actor with the fewest requests waiting; a future of its results."""
        n = len(self.actors)
        i = min(range(n), key=lambda j: (self.load[j], (j - self._calls) % n))
        self._calls += 1
        self.load[i] += len(requests)
        if self.use_ray:
            fut = self.actors[i].agenerate.remote(requests, tag).future()
        else:
            fut = self.actors[0].submit(requests, tag)
        fut.add_done_callback(lambda _: self._unload(i, len(requests)))
        return fut

    def _unload(self, i: int, n: int) -> None:
        if i < len(self.load):
            self.load[i] -= n

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
        tokens), busy_s, steps, live_tokens (see `EngineFeed.stats`)."""
        if self.use_ray:
            import ray

            parts = ray.get([a.stats.remote() for a in self.actors], timeout=timeout_s)
        else:
            parts = [self.actors[0].stats()]
        total: dict[str, Any] = {"tags": {}, "busy_s": 0.0, "steps": 0, "live_tokens": 0,
                                 "actors": len(parts)}
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
        state["load"] = [0] * len(self.actors)
        return state


__all__ = ["EnginePool", "gpus_per_engine", "resolve_actors"]
