"""MC's settings and their defaults: the one place they are written.

`MCOptions()` is the default of every MC knob; `pipelines/label/source_configs.py`'s `labels.mc`
section takes its defaults from it, and the estimators and the driver take what they need as
arguments (no defaults of their own). `docs/labels.md` says what each rule claims.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class RuleName(StrEnum):
    """How a probed step's rollouts become its label (`labels.mc.rule`)."""

    posterior = "posterior"  # the first error located by its posterior over every probe
    fall = "fall"  # the success rate falls across the step, against the self-confidence
    absolute = "absolute"  # `confirm` successes within the budget (or a rate > threshold)
    any_success = "any_success"  # Math-Shepherd's hard label: one success in k rollouts


class EstimatorName(StrEnum):
    """Which prefixes are rolled out (`labels.mc.estimator`)."""

    per_step = "per_step"
    binary_search = "binary_search"


@dataclass(frozen=True, slots=True)
class MCOptions:
    """Every MC knob with its default. Field help: `pipelines/label/source_configs.py`."""

    rule: RuleName = RuleName.posterior
    estimator: EstimatorName = EstimatorName.binary_search
    # fall, posterior
    level: float = 0.05
    # posterior
    factor: float = 3.0
    chain_budget: int = 32
    # decided rollouts per probe before the next choice: 2 halves the engine's rounds against
    # 1 for 4-8% more rollouts and the same precision and recall (bench_mc_simulation.py)
    probe: int = 2
    # ... grown up to this on a problem the completer rarely solves (`Posterior.request`):
    # 25-55% fewer rounds at self-confidence 0.05-0.2 for ~5% more rollouts, same labels'
    # precision and recall (bench_mc_simulation.py); probe_max = probe keeps probes fixed
    probe_max: int = 6
    # ... never blaming a step that names nothing or restates, the rate after it its own
    # baseline
    # (`labeling.mc.blame`, `labeling.mc.posterior.DERAIL`)
    spare_steps: bool = True
    # fall
    fell_below: float = 0.1
    kept_above: float = 0.75
    max_rollouts: int = 20
    self_rollouts: int = 16
    # absolute / any_success
    k: int = 5
    confirm: int = 2
    threshold: float = 0.0
    # fall, absolute, any_success: rollouts per request (posterior's is `probe`)
    chunk: int | None = 1
    # every rule
    probe_right: bool = True
    max_rounds: int = 200

    def check(self) -> None:
        """ValueError (one sentence) for a value out of range or a rule name unknown."""
        if self.rule not in RuleName.__members__:
            raise ValueError(f"unknown MC rule {self.rule!r}; choose one of "
                             f"{', '.join(RuleName.__members__)}")
        if self.estimator not in EstimatorName.__members__:
            raise ValueError(f"unknown MC estimator {self.estimator!r}; choose one of "
                             f"{', '.join(EstimatorName.__members__)}")
        if not 0 < self.level < 0.5:
            raise ValueError(f"labels.mc.level={self.level} must be in (0, 0.5)")
        if self.factor < 1:
            raise ValueError(f"labels.mc.factor={self.factor} must be >= 1")
        if self.rule == RuleName.posterior and self.estimator != EstimatorName.binary_search:
            raise ValueError("labels.mc.rule=posterior searches by its own posterior (a "
                             "probabilistic bisection): set labels.mc.estimator=binary_search, "
                             "or choose another rule for per_step")
        if not 0 < self.fell_below < self.kept_above <= 1:
            raise ValueError("labels.mc needs 0 < fell_below < kept_above <= 1, got "
                             f"{self.fell_below} and {self.kept_above}")
        for name in ("max_rollouts", "chain_budget", "probe", "probe_max", "k", "confirm",
                     "max_rounds"):
            if getattr(self, name) < 1:
                raise ValueError(f"labels.mc.{name} must be >= 1, got {getattr(self, name)}")
        if self.probe_max < self.probe:
            raise ValueError(f"labels.mc.probe_max={self.probe_max} must be >= "
                             f"labels.mc.probe={self.probe} (probe_max = probe keeps every "
                             f"probe at that size)")
        if self.self_rollouts < 0:
            raise ValueError(f"labels.mc.self_rollouts must be >= 0, got {self.self_rollouts}")
        if not 0.0 <= self.threshold < 1.0:
            raise ValueError(f"labels.mc.threshold must be in [0, 1), got {self.threshold}")
        if self.confirm > 1 and self.threshold > 0:
            raise ValueError("labels.mc.confirm > 1 and threshold > 0 do not combine")
        if self.chunk is not None and self.chunk < 1:
            raise ValueError(f"labels.mc.chunk must be >= 1 or null, got {self.chunk}")


MC_DEFAULTS = MCOptions()
