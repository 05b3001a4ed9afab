"""How many verifier actors (labelers) a label job starts, and how many one node holds (a
Ray cluster's live CPU nodes asked when the job runs on one)."""

from __future__ import annotations

import logging
import math
from collections.abc import Collection

from pipelines.label.job_config import JobConfig

log = logging.getLogger(__name__)


def labelers(cfg: JobConfig, units: int, domains: Collection[str]) -> int:
    """Verifier actors the job starts: `ray.label_actors`, or when it is null, 2 on a local
    Ray for several units of problems that run no code, else 1. A second labeler runs one
    unit's Monte Carlo stage while the other's tail leaves the engines half idle (faster, the
    same labels: docs/benchmarks.md, the MC stage's tail). Code stays at one: each labeler's
    sandbox runs share the node's sandbox memory (`node_sandbox_slots`), so a second one would
    halve every run's memory limit, and that can change a test's outcome."""
    rc = cfg.ray
    if rc.label_actors is not None:
        return int(rc.label_actors)
    local = rc.enabled and not rc.address
    return 2 if local and units > 1 and "code" not in domains else 1


def settle_labelers(cfg: JobConfig, units: int, domains: Collection[str]) -> None:
    """Resolve a null `ray.label_actors` in `cfg` (the labelers and the manifest read it) once
    the job knows its units and their problems' domains, and say what it chose."""
    rc = cfg.ray
    if rc.label_actors is None:
        rc.label_actors = labelers(cfg, units, domains)
        log.info("%d verifier actor%s for %d unit%s (ray.label_actors null)", rc.label_actors,
                 "s" * (rc.label_actors > 1), units, "s" * (units > 1))


def labelers_per_node(cfg: JobConfig) -> int:
    """Verifier actors one node may hold: 1 in-process; every one on a local Ray (one node);
    on a cluster ceil(actors / live CPU nodes), as SPREAD places them. When more land on a
    node (SPREAD is best effort, or a node died), the node's sandbox slots make the extra
    runs wait rather than exceed the memory share."""
    rc = cfg.ray
    if not rc.enabled:
        return 1
    n = int(rc.label_actors or 1)
    if rc.address:
        import ray

        if ray.is_initialized():
            nodes = sum(1 for x in ray.nodes() if x.get("Alive") and x["Resources"].get("CPU"))
            n = math.ceil(n / max(1, nodes))
    return max(1, n)
