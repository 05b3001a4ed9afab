"""Starting a pool's engine actors on Ray: one per GPU group, or one per CPU slot.

`start_engines` asks for the actors (it does not wait for them to load: the pool does, in
`EnginePool.ready`) and returns what the pool keeps of them (`Started`): their handles and
Ray names, what each holds (GPUs, or its share of its node's cores), their nodes and the
placement groups to remove at shutdown. `placement.py` turns the plan into each actor's
options; this module only creates the actors with them.

Every actor is named (`<prefix>-<i>`), so that a copy of the pool (in a labeler actor) finds
the engines by name and is never created with actor handles among its arguments: Ray cannot
keep those for the copy's restarts (ray-project/ray#53727; it logs an error line for them).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from pipelines.cli import AppLogger
from pipelines.engine.layout import resolve_actors
from pipelines.engine.placement import (
    cpu_slots,
    gpu_placement,
    gpus_per_engine,
    node_preload_env,
)
from pipelines.generation_config import EngineConfig, ModelConfig, RayConfig

log = AppLogger()  # [prm-label] or [prm-search]: the app that runs the pool

MAX_CONCURRENT_CALLS = 4096  # calls one async engine actor serves at once; more wait in Ray


@dataclass
class Started:
    """The engine actors of one pool, as `start_engines` asked Ray for them."""

    actors: list[Any]  # Ray actor handles, in engine order
    names: list[str]  # each actor's Ray name
    units: list[float]  # what each holds: GPUs, or on CPU its share of its node's cores
    nodes: list[str] = field(default_factory=list)  # each engine's node id (CPU engines)
    placement_groups: list[Any] = field(default_factory=list)  # GPU engines' groups


def engine_env(model: ModelConfig, verbose: bool) -> dict[str, str]:
    """The environment every engine process starts with."""
    return {
        "VLLM_CPU_KVCACHE_SPACE": str(model.kv_cache_gib),
        # vLLM's INFO lines (config dumps) would drown the job's own progress lines.
        "VLLM_LOGGING_LEVEL": "INFO" if verbose else "ERROR",
        # torch's C++ warnings (the CPU engine's NUMA binding notice at every start) are
        # read when torch loads, so they are set for the engine process from the start.
        "TORCH_CPP_LOG_LEVEL": "INFO" if verbose else "ERROR",
    }


def start_engines(cls: type, model_path: str, model: ModelConfig, engine: EngineConfig,
                  ray_cfg: RayConfig, verbose: bool, cpu_share: float) -> Started:  # fmt: skip
    """Ask Ray for the pool's engine actors of class `cls` (see the module docstring);
    `cpu_share`: the share of each node's cores this pool may take."""
    import ray

    nodes = [n for n in ray.nodes() if n.get("Alive") and n["Resources"].get("CPU")]
    env = engine_env(model, verbose)
    options = {
        "max_restarts": ray_cfg.max_restarts,
        "max_task_retries": ray_cfg.max_task_retries,
        "max_concurrency": MAX_CONCURRENT_CALLS,
        "runtime_env": {"env_vars": env},
    }
    remote_cls = ray.remote(cls)
    prefix = f"prm-engine-{uuid.uuid4().hex[:12]}"
    gpus = gpus_per_engine(model, engine)
    if gpus:
        n = resolve_actors(int(engine.actors), gpus, ray.cluster_resources().get("GPU", 0.0),
                           len(nodes))  # fmt: skip
        cpus = float(engine.num_cpus) or 1.0
        started = Started([], [f"{prefix}-{i}" for i in range(n)], [gpus] * n)  # GPU-hours
        for name in started.names:
            pg, placed = gpu_placement(gpus, cpus)
            started.placement_groups.append(pg)
            started.actors.append(remote_cls.options(
                **options, name=name, num_cpus=cpus, num_gpus=gpus, **placed).remote(
                model_path, model, engine, 0, verbose))  # fmt: skip
        return started
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    slots = cpu_slots(model_path, model, engine, nodes, cpu_share, not ray_cfg.address)
    cores = {n["NodeID"]: n["Resources"]["CPU"] for n in nodes}
    t = time.time()
    preload = node_preload_env(engine, sorted({s.node_id for s in slots}))
    if verbose:
        log.info("engine: preload decided and looked up in %.1fs", time.time() - t)
    names = [f"{prefix}-{i}" for i in range(len(slots))]
    actors = [
        remote_cls.options(**options | {"runtime_env": {"env_vars": env | preload.get(
                               s.node_id, {})}},
                           name=name, num_cpus=s.cpus, num_gpus=0,
                           scheduling_strategy=NodeAffinitySchedulingStrategy(
                               s.node_id, soft=False)).remote(
            model_path, model, engine, s.threads, verbose)
        for name, s in zip(names, slots, strict=True)
    ]  # fmt: skip
    # Engine-hours are node-hours: an engine counts the share of its node's cores it runs.
    units = [s.threads / cores[s.node_id] for s in slots]
    return Started(actors, names, units, [s.node_id for s in slots])


__all__ = ["MAX_CONCURRENT_CALLS", "Started", "engine_env", "start_engines"]
