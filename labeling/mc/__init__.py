"""Monte Carlo step labels: the rules (`rules`), the searches (`estimators`, `bisection`,
chosen by `searches`), their settings (`options`), the statistics behind the `fall` rule
(`stats`) and the model behind the `posterior` rule (`posterior`). Pure: no engine, no I/O."""

from labeling.mc.bisection import PosteriorSearch
from labeling.mc.estimators import ESTIMATORS, BinarySearch, Estimator, PerStep, Probe
from labeling.mc.options import MC_DEFAULTS, EstimatorName, MCOptions, RuleName
from labeling.mc.posterior import FirstErrorModel
from labeling.mc.rules import Absolute, Fall, Posterior, Rule, make_rule, unbiased_rate
from labeling.mc.searches import make_estimator

__all__ = [
    "ESTIMATORS", "MC_DEFAULTS", "Absolute", "BinarySearch", "Estimator", "EstimatorName",
    "Fall", "FirstErrorModel", "MCOptions", "PerStep", "Posterior", "PosteriorSearch", "Probe",
    "Rule", "RuleName", "make_estimator", "make_rule", "unbiased_rate",
]  # fmt: skip
