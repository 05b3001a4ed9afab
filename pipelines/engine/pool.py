"""A pool of engine actors on Ray (or one engine in-process) with batched, asynchronous calls.

`submit(requests)` cuts the requests into batches of `engine.batch_size`, spreads them over
the actors (each actor's queue keeps it busy while the driver does other work) and returns a
ticket; `collect(ticket)` waits for the results in request order. `generate` is both at once.
A dead actor is restarted by Ray (`max_restarts`) and its call retried (`max_task_retries`).
"""

from __future__ import annotations

import logging
import os
from typing import Any

from pipelines.engine.actor import SimulatedEngine, VLLMEngine

log = logging.getLogger(__name__)


def _engine_class(kind: str) -> type:
    if kind == "vllm":
        return VLLMEngine
    if kind == "simulated":
        return SimulatedEngine
    raise ValueError(f"unknown engine.kind {kind!r}; choose vllm or simulated")


class EnginePool:
    def __init__(
        self,
        model_path: str,
        model: Any,  # ModelConfig
        engine: Any,  # EngineConfig
        ray_cfg: Any,  # RayConfig
    ) -> None:
        self.batch_size = int(engine.batch_size)
        cls = _engine_class(engine.kind)
        self.use_ray = bool(ray_cfg.enabled)
        self._calls = 0  # round-robin position (a plain int keeps the pool picklable)
        if not self.use_ray:
            self.actors: list[Any] = [cls(model_path, model, engine)]
            return
        import ray

        env = {
            "VLLM_CPU_KVCACHE_SPACE": str(model.kv_cache_gib),
            # vLLM's INFO lines (config dumps) would drown the job's own progress lines.
            "VLLM_LOGGING_LEVEL": os.environ.get("VLLM_LOGGING_LEVEL", "WARNING"),
        }
        remote_cls = ray.remote(
            num_cpus=engine.num_cpus,
            num_gpus=engine.num_gpus,
            max_restarts=ray_cfg.max_restarts,
            max_task_retries=ray_cfg.max_task_retries,
            runtime_env={"env_vars": env},
        )(cls)
        self.actors = [
            remote_cls.remote(model_path, model, engine) for _ in range(int(engine.actors))
        ]
        # Fail here, with the engine's own error, rather than at the first batch.
        ray.get([a.ping.remote() for a in self.actors])

    def submit(self, requests: list[dict[str, Any]]) -> list[Any]:
        batches = [
            requests[i : i + self.batch_size] for i in range(0, len(requests), self.batch_size)
        ]
        if not self.use_ray:
            return [self.actors[0].generate(b) for b in batches]
        tickets = []
        for b in batches:
            tickets.append(self.actors[self._calls % len(self.actors)].generate.remote(b))
            self._calls += 1
        return tickets

    def collect(self, ticket: list[Any]) -> list[dict[str, Any]]:
        if self.use_ray:
            import ray

            ticket = ray.get(ticket)
        return [r for batch in ticket for r in batch]

    def generate(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return self.collect(self.submit(requests))

    def shutdown(self) -> None:
        if self.use_ray:
            import ray

            for a in self.actors:
                ray.kill(a)
        self.actors = []
