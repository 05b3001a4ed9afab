"""Structured config of `prm-search`, registered in Hydra's ConfigStore as `search_schema`.

`SearchConfig` extends the generation config prm-label extends too
(`pipelines.generation_config`: model, dataset, sampler, split, engine, ray, answer check,
output, and their `conf/` groups); the PRM and the strategies are this app's own. Enum fields
fail at compose time (exit 2, one sentence); every field says what it affects (the unit key
hashes the row fields) and its range (`pipelines.config_fields`); `validate` adds the checks
that span fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from hydra.core.config_store import ConfigStore

from labeling.prm.search import Aggregation
from pipelines.cli import ConfigError
from pipelines.config_fields import ROWS, SPEED, check_fields, option
from pipelines.generation_config import (
    GenerationConfig,
    SamplerConfig,
    UnitOutputConfig,
    register_groups,
    validate_generation,
)
from pipelines.search import registry

# One member per strategy registered in pipelines/search/registry.py (the only list of them).
Strategy = registry.strategy_enum()


class PRMBackend(StrEnum):
    checkpoint = "checkpoint"  # in-process torch scorer (pipelines.scoring.PRMScorer)
    server = "server"  # a vLLM pooling server (pipelines.serve.PRMClient.for_server)
    none = "none"  # no PRM: only strategies=[majority]


@dataclass
class PRMConfig:
    backend: PRMBackend = option(PRMBackend.checkpoint, "checkpoint | server | none.", ROWS)
    checkpoint: str = option(
        "", "PRM directory (prm-train's `final`, or a third-party one).", ROWS
    )
    # Where the PRM runs and how many chains go per call change speed, not scores.
    url: str = option("", "backend=server: base URL of `vllm serve <checkpoint>`.", SPEED)
    served_name: str | None = option(
        None, "backend=server: the served model name if not the path.", SPEED
    )
    batch_size: int = option(
        16, "Chains per PRM forward pass (checkpoint) or request (server).", SPEED, gt=0
    )
    device: str = option("cpu", "backend=checkpoint: torch device.", SPEED)


@dataclass
class SearchSection:
    strategies: list[Strategy] = option(  # type: ignore[valid-type]
        factory=lambda: list(Strategy), help=registry.help_text(), affects=ROWS
    )
    budgets: list[int] = option(
        factory=lambda: [1, 4, 16],
        help="N per strategy: chains (majority, best-of-N) or generations per step (beam, DVTS).",
        affects=ROWS, gt=0,
    )
    aggregations: list[Aggregation] = option(
        factory=lambda: [Aggregation.last, Aggregation.min, Aggregation.prod],
        help="best_of_n and weighted_vote: step-score aggregations, one row each.",
        affects=ROWS,
    )
    aggregation: Aggregation = option(
        Aggregation.last, "beam and dvts: aggregation that ranks prefixes and finished beams.",
        ROWS,
    )
    width: int = option(
        4, "beam and dvts: M, children per kept beam (search-and-learn: 4).", ROWS, gt=0
    )
    max_depth: int = option(
        12, "beam and dvts: step rounds; the last one completes the chain.", ROWS, gt=0
    )
    step_max_tokens: int = option(
        160, "beam and dvts: token cap of one step's generation.", ROWS, gt=0
    )
    step_stop: str = option("\n\n", "beam and dvts: where one step's generation stops.", ROWS)


@dataclass
class SearchOutputConfig(UnitOutputConfig):
    dir: str = option(
        "runs/search_${dataset.name}", "Output dir (stable: a re-run resumes).", SPEED
    )
    problems_per_unit: int = option(
        32, "Problems per unit (one shard; searched together).", SPEED, gt=0
    )
    report: bool = option(True, "Write report.html (accuracy vs generated tokens).", SPEED)


@dataclass
class SearchConfig(GenerationConfig):
    sampler: SamplerConfig = option(
        factory=SamplerConfig,
        help="Temperature, top_p, max_tokens (per chain), seed, instruction; `n` is unused.",
    )
    output: SearchOutputConfig = option(factory=SearchOutputConfig, help="Rows and resume.")
    prm: PRMConfig = option(factory=PRMConfig, help="The process reward model.")
    search: SearchSection = option(factory=SearchSection, help="Strategies and budgets.")




def validate(cfg: SearchConfig) -> None:
    """Every value in its field's range, then the checks that span fields; raises
    `ConfigError` with one sentence."""
    check_fields(cfg)
    validate_generation(cfg)
    s = cfg.search
    if not s.strategies:
        raise ConfigError("search.strategies is empty; name at least one strategy")
    unknown = [str(x) for x in s.strategies if str(x) not in registry.names()]
    if unknown:
        raise ConfigError(f"search.strategies names {', '.join(unknown)}; choose from "
                          f"{', '.join(registry.names())}")
    if not s.budgets:
        raise ConfigError("search.budgets is empty; name at least one budget (e.g. [1,4,16])")
    needs_prm = registry.needs_prm(s.strategies)
    if cfg.prm.backend == PRMBackend.none and needs_prm:
        raise ConfigError(f"strategies {', '.join(needs_prm)} need a PRM; set prm.checkpoint "
                          "(and prm.backend) or search.strategies=[majority]")  # fmt: skip
    if cfg.prm.backend != PRMBackend.none and needs_prm and not cfg.prm.checkpoint:
        raise ConfigError("prm.checkpoint is empty; set it to a PRM directory (prm-train's "
                          "output.dir/final) or use prm.backend=none search.strategies=[majority]")
    if cfg.prm.backend == PRMBackend.server and not cfg.prm.url:
        raise ConfigError("prm.backend=server needs prm.url (the vLLM pooling server)")
    if not s.step_stop:
        raise ConfigError("search.step_stop is empty; beam search needs a step boundary")
    registry.check(cfg)  # each selected strategy's own checks


def register() -> None:
    """Register the schema and the group schemas the YAML extends; called by `main()`."""
    register_groups()  # model_schema, dataset_schema, sampler_schema, engine_schema, ...
    ConfigStore.instance().store(name="search_schema", node=SearchConfig)


__all__ = ["PRMBackend", "SearchConfig", "Strategy", "register", "validate"]
