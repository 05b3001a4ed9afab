"""Where the pool's engine actors go on a Ray cluster, and what each starts with.

`layout.py` decides the plan from plain numbers; this module asks Ray for them and turns
the plan into actor options:
- GPUs: an engine holds `gpus_per_engine` GPUs, in a STRICT_PACK placement group of its own
  that captures child tasks, so vLLM's tensor-parallel workers stay on its node
  (`gpu_placement`).
- CPUs: `cpu_slots` plans the live nodes (a plan that cannot fit a local Ray is a
  `PlanError`; on a cluster a warning, since an autoscaler may add the room), and
  `node_preload_env` decides whether to preload tcmalloc and Intel OpenMP (`preload.decide`)
  and looks them up on each engine's own node (the driver's node here, another by a task
  placed there): a node's CPU and paths may differ from the driver's, and LD_PRELOAD must be
  set before the engine's process starts.
"""

from __future__ import annotations

import os
from typing import Any

from pipelines.cli import AppLogger
from pipelines.engine import preload
from pipelines.engine.device import choose_dtype, cpu_flags, cpu_kind
from pipelines.engine.layout import Node, PlanError, Slot, cpu_plan, engine_bytes
from pipelines.generation_config import EngineConfig, ModelConfig

log = AppLogger()  # [prm-label] or [prm-search]: the app that runs the pool


def gpus_per_engine(model: ModelConfig, engine: EngineConfig) -> float:
    """GPUs one engine holds: `engine.num_gpus`, at least `model.tensor_parallel_size` on GPU."""
    if not engine.num_gpus:
        return 0.0
    return float(max(engine.num_gpus, model.tensor_parallel_size))


def gpu_placement(gpus: float, cpus: float) -> tuple[Any, dict[str, Any]]:
    """(a placement group of its own, the actor options binding an engine that holds GPUs to
    it); the caller removes the group when the pool shuts down."""
    from ray.util.placement_group import placement_group
    from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

    pg = placement_group([{"CPU": cpus, "GPU": gpus}], strategy="STRICT_PACK")
    # Capture child tasks: vLLM's own workers for tensor parallelism stay in the group.
    strategy = PlacementGroupSchedulingStrategy(pg, placement_group_capture_child_tasks=True)
    return pg, {"scheduling_strategy": strategy}


def resolve_preload(existing: str, requested: bool | None = None,
                    ) -> tuple[dict[str, str], str | None, str]:  # fmt: skip
    """On the node this runs on: (the env its CPU engines start with: the preload decision
    for this node's CPU (`preload.decide`; `requested` is `engine.preload`) and, when it is
    on, the libraries; advice when one is missing; the node's id). `node_preload_env` runs it
    in the driver for the driver's own node and by a task placed on every other node."""
    node = ""
    try:
        import ray

        if ray.is_initialized():
            node = ray.get_runtime_context().get_node_id()
    except Exception:  # outside Ray: the caller's own process
        node = ""
    kind = cpu_kind()
    decision = preload.decide(requested, kind.vendor, kind.tier, kind.key())
    env = {preload.REASON_ENV: decision.reason}
    if not decision.preload:
        return env, None, node
    libs = preload.find_libs()
    return preload.preload_env(libs, existing) | env, preload.missing_advice(libs), node


def node_preload_env(engine: EngineConfig, node_ids: list[str]) -> dict[str, dict[str, str]]:
    """{node id: env of that node's CPU vLLM engines: whether tcmalloc and Intel OpenMP are
    preloaded (`engine.preload`; auto decides per node, see `preload.decide`) and from where}.
    The driver's own node is resolved here, without a task (a worker process to start);
    another node by a task on it (its CPU and paths may differ from the driver's). {} for
    the simulated engine."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    if str(engine.kind) != "vllm":
        return {}
    existing = os.environ.get("LD_PRELOAD", "")
    here = ray.get_runtime_context().get_node_id()
    task = ray.remote(num_cpus=0)(resolve_preload)
    refs = {n: task.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n, soft=False))
            .remote(existing, engine.preload) for n in node_ids if n != here}  # fmt: skip
    found = {n: ray.get(ref) for n, ref in refs.items()}
    if here in node_ids:
        found[here] = resolve_preload(existing, engine.preload)
    out = {}
    for n, (env, advice, _) in found.items():
        if advice:
            log.warning("engine: node %s: %s", n[:8], advice)
        out[n] = env
    return out


def cpu_slots(model_path: str, model: ModelConfig, engine: EngineConfig, nodes: list[dict],
              share: float,
              local: bool) -> list[Slot]:  # fmt: skip
    """The CPU plan over the live nodes (Ray's node dicts); a plan that cannot fit a local
    Ray is a PlanError (on a cluster a warning: an autoscaler may add the room)."""
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


__all__ = ["cpu_slots", "gpu_placement", "gpus_per_engine", "node_preload_env",
           "resolve_preload"]
