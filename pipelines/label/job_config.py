"""The label job's config as its parts read it (the source builders, the labeler count, the
sandbox's size): a protocol, so that they need not import `pipelines.label.config`, which
reads the source table and would close a circle."""

from __future__ import annotations

from typing import Any, Protocol

from pipelines.generation_config import (
    AnswerCheckConfig,
    DatasetConfig,
    ModelConfig,
    RayConfig,
    SamplerConfig,
    SplitConfig,
)
from pipelines.label.source_configs import SandboxSettings


class JobConfig(Protocol):
    """The label job's config as a builder reads it. `pipelines.label.config.LabelJobConfig`
    is the one implementation; it is not imported here because the config reads this
    module's table, and an import back (even for types) would close a circle."""

    model: ModelConfig
    dataset: DatasetConfig
    sampler: SamplerConfig
    split: SplitConfig
    ray: RayConfig
    answer_check: AnswerCheckConfig
    sandbox: SandboxSettings
    labels: Any  # `labels_config()`: one optional section per registered source
