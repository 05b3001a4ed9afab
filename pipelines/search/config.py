"""Structured config of `prm-search`, registered in Hydra's ConfigStore as `search_schema`.

The generator reuses `prm-label`'s model, engine, ray, sampler and split sections (and their
`conf/` groups); the PRM, the strategies and the output are this app's own. Enum fields fail
at compose time (exit 2, one sentence); `validate` adds the checks that span fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from hydra.core.config_store import ConfigStore

from labeling.datasets import check_adapter
from labeling.search import Aggregation
from pipelines.cli import ConfigError, option
from pipelines.label.config import (
    DatasetConfig,
    EngineConfig,
    ModelConfig,
    RayConfig,
    SamplerConfig,
    SplitConfig,
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
    backend: PRMBackend = option(PRMBackend.checkpoint, "checkpoint | server | none.")
    checkpoint: str = option("", "PRM directory (prm-train's `final`, or a third-party one).")
    url: str = option("", "backend=server: base URL of `vllm serve <checkpoint>`.")
    served_name: str | None = option(None, "backend=server: the served model name if not the path.")
    batch_size: int = option(16, "Chains per PRM forward pass (checkpoint) or request (server).")
    device: str = option("cpu", "backend=checkpoint: torch device.")


@dataclass
class SearchSection:
    strategies: list[Strategy] = option(  # type: ignore[valid-type]
        factory=lambda: list(Strategy), help=registry.help_text()
    )
    budgets: list[int] = option(
        factory=lambda: [1, 4, 16],
        help="N per strategy: chains (majority, best-of-N) or generations per step (beam, DVTS).",
    )
    aggregations: list[Aggregation] = option(
        factory=lambda: [Aggregation.last, Aggregation.min, Aggregation.prod],
        help="best_of_n and weighted_vote: step-score aggregations, one row each.",
    )
    aggregation: Aggregation = option(
        Aggregation.last, "beam and dvts: aggregation that ranks prefixes and finished beams."
    )
    width: int = option(4, "beam and dvts: M, children per kept beam (search-and-learn: 4).")
    max_depth: int = option(12, "beam and dvts: step rounds; the last one completes the chain.")
    step_max_tokens: int = option(160, "beam and dvts: token cap of one step's generation.")
    step_stop: str = option("\n\n", "beam and dvts: where one step's generation stops.")


@dataclass
class SearchOutputConfig:
    dir: str = option("runs/search_${dataset.name}", "Output dir (stable: a re-run resumes).")
    problems_per_unit: int = option(32, "Problems per unit (one shard; searched together).")
    resume: bool = option(True, "Skip units already finished with the same key.")
    report: bool = option(True, "Write report.html (accuracy vs generated tokens).")


@dataclass
class SearchConfig:
    model: ModelConfig = option(factory=ModelConfig, help="The generator model.")
    dataset: DatasetConfig = option(factory=DatasetConfig, help="Where problems come from.")
    sampler: SamplerConfig = option(
        factory=SamplerConfig,
        help="Temperature, top_p, max_tokens (per chain), seed, instruction; `n` is unused.",
    )
    split: SplitConfig = option(factory=SplitConfig, help="How chains are cut into steps.")
    engine: EngineConfig = option(factory=EngineConfig, help="Engine actors.")
    ray: RayConfig = option(factory=RayConfig, help="Ray runtime.")
    prm: PRMConfig = option(factory=PRMConfig, help="The process reward model.")
    search: SearchSection = option(factory=SearchSection, help="Strategies and budgets.")
    output: SearchOutputConfig = option(factory=SearchOutputConfig, help="Rows and resume.")
    answer_timeout_s: float = option(5.0, "Wall-clock bound of one answer equivalence check.")


# Sections that change rows (and so unit keys); `dataset.limit` only cuts the input.
SEARCH_AFFECTING = ("model", "dataset", "sampler", "split", "prm", "search")


def validate(cfg: SearchConfig) -> None:
    """Cross-field and range checks; raises `ConfigError` with one sentence."""
    s = cfg.search
    try:  # the registered adapters now, not the enum frozen at import
        check_adapter(cfg.dataset.adapter or cfg.dataset.name)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if not s.strategies:
        raise ConfigError("search.strategies is empty; name at least one strategy")
    unknown = [str(x) for x in s.strategies if str(x) not in registry.names()]
    if unknown:
        raise ConfigError(f"search.strategies names {', '.join(unknown)}; choose from "
                          f"{', '.join(registry.names())}")
    if not s.budgets or min(s.budgets) <= 0:
        raise ConfigError(f"search.budgets={s.budgets} must be a non-empty list of positive ints")
    needs_prm = registry.needs_prm(s.strategies)
    if cfg.prm.backend == PRMBackend.none and needs_prm:
        raise ConfigError(f"strategies {', '.join(needs_prm)} need a PRM; set prm.checkpoint "
                          "(and prm.backend) or search.strategies=[majority]")  # fmt: skip
    if cfg.prm.backend != PRMBackend.none and needs_prm and not cfg.prm.checkpoint:
        raise ConfigError("prm.checkpoint is empty; set it to a PRM directory (prm-train's "
                          "output_dir/final) or use prm.backend=none search.strategies=[majority]")
    if cfg.prm.backend == PRMBackend.server and not cfg.prm.url:
        raise ConfigError("prm.backend=server needs prm.url (the vLLM pooling server)")
    for key, value in [
        ("search.width", s.width),
        ("search.max_depth", s.max_depth),
        ("search.step_max_tokens", s.step_max_tokens),
        ("sampler.max_tokens", cfg.sampler.max_tokens),
        ("output.problems_per_unit", cfg.output.problems_per_unit),
        ("prm.batch_size", cfg.prm.batch_size),
        ("engine.batch_size", cfg.engine.batch_size),
    ]:
        if value <= 0:
            raise ConfigError(f"{key}={value} must be > 0")
    if not 0 < cfg.sampler.top_p <= 1 or cfg.sampler.temperature < 0:
        raise ConfigError("sampler.top_p must be in (0, 1] and sampler.temperature >= 0")
    if not s.step_stop:
        raise ConfigError("search.step_stop is empty; beam search needs a step boundary")
    registry.check(cfg)  # each selected strategy's own checks


def register() -> None:
    """Register the schema and the group schemas the YAML extends; called by `main()`."""
    from pipelines.label.config import register as register_label

    register_label()  # model_schema, dataset_schema, sampler_schema, engine_schema, ...
    ConfigStore.instance().store(name="search_schema", node=SearchConfig)


__all__ = ["PRMBackend", "SearchConfig", "Strategy", "register", "validate"]
