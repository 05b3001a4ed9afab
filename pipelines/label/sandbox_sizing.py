"""The sandbox's size on a node: how many sandboxed runs the labelers run there at once, and
the limits each gets from the `sandbox` section (they share the node's memory share)."""

from __future__ import annotations

import shutil
from typing import Any

from pipelines.label.job_config import JobConfig
from pipelines.label.labelers import labelers_per_node
from pipelines.label.source_configs import SandboxSettings


def node_sandbox_slots(cfg: JobConfig) -> int:
    """Sandboxes the labelers run at once on one node: sandbox.workers per verifier actor."""
    return cfg.sandbox.workers * labelers_per_node(cfg)


def sandbox_config(settings: SandboxSettings, node_slots: int) -> Any:
    """The sandbox's limits from the `sandbox` section, with `node_slots` runs at once on a
    node sharing its `node_memory_share`; unsafe mode only when asked for and needed."""
    from verifiers.sandbox.result import SandboxConfig

    unsafe = settings.allow_unsafe and shutil.which("bwrap") is None
    return SandboxConfig(timeout_s=settings.timeout_s, isolation="none" if unsafe else "bwrap",
                         node_memory_share=settings.node_memory_share, node_slots=node_slots)
