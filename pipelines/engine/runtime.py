"""Start or join the Ray runtime the apps run on (prm-label, prm-search)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def init_ray(rc: Any) -> None:
    """`rc` is a `RayConfig`: join `rc.address` (a cluster) or start a local Ray with
    `rc.num_cpus`; nothing when Ray is off or already up. Workers import the project from
    the driver's checkout (PYTHONPATH), so a cluster needs no install of it to run the job."""
    if not rc.enabled:
        return
    import ray

    if ray.is_initialized():
        return
    kwargs: dict[str, Any] = {"log_to_driver": True, "include_dashboard": False}
    if rc.address:
        kwargs["address"] = rc.address
    elif rc.num_cpus:
        kwargs["num_cpus"] = rc.num_cpus
    kwargs["runtime_env"] = {"env_vars": {"PYTHONPATH": str(Path(__file__).parents[2])}}
    ray.init(**kwargs)
