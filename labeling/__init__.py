"""The pure core: data types, ids and seeds, splitters, MC estimators, label policies, the
shard format and dataset adapters. Imports neither Ray, vLLM, Hydra nor torch.

Public names (the rest is reachable through the submodules):
`Problem`, `Chain`, `GivenChain`, `StepVerdict`, `LabeledChain`, `Quarantined`, `Status`,
`Source`, `Domain`, `AfterError`, `LABEL_COLUMNS`, `LABELED_SCHEMA`, `QUARANTINE_SCHEMA`
(labeling.schema); `split_steps` (labeling.splitters); `combine`, `Policy`
(labeling.combine); `load_problems` (labeling.datasets).
"""

from labeling.combine import Policy, combine
from labeling.datasets import load_problems
from labeling.schema import (
    LABEL_COLUMNS,
    LABELED_SCHEMA,
    QUARANTINE_SCHEMA,
    AfterError,
    Chain,
    Domain,
    GivenChain,
    LabeledChain,
    Problem,
    Quarantined,
    Source,
    Status,
    StepVerdict,
)
from labeling.splitters import split_steps

__all__ = [
    "LABELED_SCHEMA", "LABEL_COLUMNS", "QUARANTINE_SCHEMA", "AfterError", "Chain", "Domain",
    "GivenChain", "LabeledChain", "Policy", "Problem", "Quarantined", "Source", "Status",
    "StepVerdict", "combine", "load_problems", "split_steps",
]  # fmt: skip
