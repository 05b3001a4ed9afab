"""The pure core: data types, ids and seeds, splitters, MC estimators, label policies, the
shard format and dataset adapters. Imports neither Ray, vLLM, Hydra nor torch.

Public names (the rest is reachable through the submodules):
`Problem`, `Chain`, `GivenChain`, `StepVerdict`, `LabeledChain`, `Quarantined`, `Status`,
`Domain`, `AfterError`, `LABELED_SCHEMA`, `QUARANTINE_SCHEMA`
(labeling.schema); `split_steps` (labeling.steps.splitters); `combine`, `Policy`
(labeling.combine); `first_error` (labeling.first_error, the one first-error rule);
`load_problems` (labeling.datasets).
"""

from labeling.combine import Policy, combine
from labeling.datasets import load_problems
from labeling.first_error import first_error
from labeling.schema import (
    LABELED_SCHEMA,
    QUARANTINE_SCHEMA,
    AfterError,
    Chain,
    Domain,
    GivenChain,
    LabeledChain,
    Problem,
    Quarantined,
    Status,
    StepVerdict,
)
from labeling.steps.splitters import split_steps

__all__ = [
    "LABELED_SCHEMA", "QUARANTINE_SCHEMA", "AfterError", "Chain", "Domain",
    "GivenChain", "LabeledChain", "Policy", "Problem", "Quarantined", "Status",
    "StepVerdict", "combine", "first_error", "load_problems", "split_steps",
]  # fmt: skip
