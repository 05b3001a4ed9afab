"""Start or join the Ray runtime the apps run on (prm-label, prm-search)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from pipelines.generation_config import RayConfig

# Ray warns at every start that token authentication is on (its default in recent Ray); it is
# nothing a user of this tool acts on, and it sat between the progress lines of every run.
# A logger's filters see only its own records, so the emitting module's logger is named.
QUIET = {"ray._private.authentication.authentication_token_setup":
         "Token authentication is enabled for this Ray cluster"}  # fmt: skip


class _Quiet(logging.Filter):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def filter(self, record: logging.LogRecord) -> bool:
        return self.text not in record.getMessage()


def quiet_ray_notices() -> None:
    """Drop Ray's start-up notices listed in QUIET (once per process; everything else the
    same loggers say passes untouched)."""
    for name, text in QUIET.items():
        logger = logging.getLogger(name)
        if not any(isinstance(f, _Quiet) for f in logger.filters):
            logger.addFilter(_Quiet(text))


def init_ray(rc: RayConfig) -> None:
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
    quiet_ray_notices()
    ray.init(**kwargs)
