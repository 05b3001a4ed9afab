"""How many engines, on which nodes, with how many threads: the pool's plan.

GPUs: one engine per `gpus` GPUs of the cluster (`resolve_actors`), each group in a placement
group of its own (`pool.py`). CPUs (`cpu_plan`): by default one engine per core, each
running one torch thread, as many as the node's memory holds. Why one thread: two
single-thread engines (each on half the prompts) generated more tokens per second than one
engine on both cores, over the Monte Carlo stage's requests and when sampling
(docs/benchmarks.md, *Throughput*). A 135M-2B model's matrices
are small, so an OpenMP team spends much of each step waiting at barriers, and a thread the kernel
preempts for Ray's or the labeler's work stalls its whole team; single-thread engines pay
for an interruption only with its own time. Memory caps the count: each engine holds its
own weights and KV cache, so a big model gets fewer engines with more threads each.

Not measured here: nodes with more than 2 cores (set `engine.threads` to give each engine
more; the plan then starts cores / threads engines per node), hybrid cores, NUMA.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from pipelines.cli import UserError

# Resident memory of one CPU engine actor beyond its weights and KV cache (Python, torch,
# vLLM, Ray's worker), measured for SmolLM2-135M and rounded up (docs/benchmarks.md,
# "Engines").
ENGINE_OVERHEAD_BYTES = int(1.5 * 2**30)
# Share of the memory Ray reports for a node that engines may take (the labelers, the
# sandbox and the driver need the rest).
ENGINE_MEMORY_SHARE = 0.8


class PlanError(UserError, ValueError):
    """Engines the cluster cannot hold (one sentence naming the setting to change)."""


@dataclass(frozen=True, slots=True)
class Node:
    """What the plan needs of a Ray node: its id, CPUs and memory (bytes; 0 = unknown)."""

    node_id: str
    cpus: float
    memory: float = 0.0


@dataclass(frozen=True, slots=True)
class Slot:
    """One engine of the plan: the node it runs on, its torch threads, the CPUs it reserves."""

    node_id: str
    threads: int
    cpus: float


def resolve_actors(requested: int, gpus: float, cluster_gpus: float, nodes: int) -> int:
    """GPU engines to start: `requested` when > 0; auto (0): one per `gpus`-sized GPU
    group of the cluster. PlanError when auto finds no GPU group."""
    if requested > 0:
        return requested
    if gpus > 0:
        n = int(math.floor(cluster_gpus / gpus + 1e-9))
        if n < 1:
            raise PlanError(
                f"engine.actors=0 (auto) needs {gpus:g} GPUs per engine but the Ray cluster "
                f"has {cluster_gpus:g}; add GPUs or lower engine.num_gpus"
            )
        return n
    return max(1, nodes)


def engines_on_node(cores: int, threads: int, memory: float, engine_bytes: int) -> int:
    """Engines a node runs on CPU: one per `threads` cores (`threads` 0: one per core), no
    more than `ENGINE_MEMORY_SHARE` of its memory holds (memory or engine_bytes 0: no cap),
    at least one."""
    n = max(1, cores // max(1, threads))
    if memory > 0 and engine_bytes > 0:
        n = min(n, int(memory * ENGINE_MEMORY_SHARE // engine_bytes))
    return max(1, n)


def cpu_plan(
    nodes: list[Node],
    requested: int = 0,
    threads: int = 0,
    num_cpus: float = 0.0,
    engine_bytes: int = 0,
    share: float = 1.0,
) -> list[Slot]:
    """CPU engines over `nodes`: `requested` engines spread round-robin over the nodes
    (0 = auto: `engines_on_node` of each node's `share` of cores); each engine's threads are
    `threads`, or (0) its node's cores shared evenly among the node's engines; each reserves
    `num_cpus` Ray CPUs, or (0) as many as it runs threads. Slots are ordered node by node."""
    live = [n for n in nodes if n.cpus >= 1]
    if not live:
        raise PlanError("the Ray cluster has no node with a CPU to run an engine on")
    cores = {n.node_id: max(1, int(n.cpus * share)) for n in live}
    if requested > 0:
        counts = dict.fromkeys(cores, 0)
        for i in range(requested):
            counts[live[i % len(live)].node_id] += 1
    else:
        counts = {
            n.node_id: engines_on_node(cores[n.node_id], threads, n.memory * share, engine_bytes)
            for n in live
        }
    slots = []
    for node_id, count in counts.items():
        each = threads if threads > 0 else max(1, cores[node_id] // max(1, count))
        slots += [Slot(node_id, each, num_cpus if num_cpus > 0 else float(each))] * count
    return slots


def weights_bytes(model_path: str, dtype: str) -> int:
    """Bytes the weights take in memory at `dtype`: the checkpoint's files, doubled when
    16-bit weights load as float32; 0 when the path is not a local directory (a hub id)."""
    p = Path(model_path)
    if not model_path or not p.is_dir():
        return 0
    size = sum(f.stat().st_size for f in p.iterdir() if f.suffix in (".safetensors", ".bin"))
    return size * 2 if dtype == "float32" and _stored_16bit(p) else size


def _stored_16bit(p: Path) -> bool:
    import json

    try:
        cfg = json.loads((p / "config.json").read_text())
    except (OSError, ValueError):
        return False
    stored = str(cfg.get("torch_dtype") or cfg.get("dtype") or "")
    return stored in ("bfloat16", "float16")


def engine_bytes(model_path: str, dtype: str, kv_cache_gib: float) -> int:
    """Memory one CPU engine needs (0 = unknown: the weights are not on this disk)."""
    w = weights_bytes(model_path, dtype)
    return w + int(kv_cache_gib * 2**30) + ENGINE_OVERHEAD_BYTES if w else 0


__all__ = [
    "Node", "PlanError", "Slot", "cpu_plan", "engine_bytes", "engines_on_node", "resolve_actors",
]  # fmt: skip
