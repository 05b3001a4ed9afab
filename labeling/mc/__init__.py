"""Monte Carlo step labels: the rules (`rules`), the searches (`estimators`), their settings
(`options`) and the statistics behind the `fall` rule (`stats`). Pure: no engine, no I/O."""

from labeling.mc.estimators import (
    ESTIMATORS,
    BinarySearch,
    Estimator,
    PerStep,
    Probe,
    make_estimator,
)
from labeling.mc.options import MC_DEFAULTS, EstimatorName, MCOptions, RuleName
from labeling.mc.rules import Absolute, Fall, Rule, make_rule, unbiased_rate

__all__ = [
    "ESTIMATORS", "MC_DEFAULTS", "Absolute", "BinarySearch", "Estimator", "EstimatorName",
    "Fall", "MCOptions", "PerStep", "Probe", "Rule", "RuleName", "make_estimator", "make_rule",
    "unbiased_rate",
]  # fmt: skip
