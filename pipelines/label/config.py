"""Structured config of `prm-label`: dataclasses registered in Hydra's ConfigStore.

`LabelJobConfig` extends the generation config prm-search extends too
(`pipelines.generation_config`: model, dataset, sampler, split, engine, ray, answer check,
output) with the label sources, the sandbox and debug output. YAML files under `conf/` only
override these defaults. Hydra checks every key and type when it composes the config, and
enum fields against their members, so a typo such as `split.mode=lines` fails at start-up
(exit 2, one sentence: `pipelines.cli`). Every field carries its help, what it affects (rows
or speed: the unit key is the hash of the row fields) and its range
(`pipelines.config_fields`); `validate` adds the checks that span fields. The sources'
own sections (`labels.mc`, ...) are in `pipelines.label.source_configs`; `labels_config()`
builds `labels` from the table of `pipelines.label.sources`, where each is registered with
its builder.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, make_dataclass

from hydra.core.config_store import ConfigStore

from labeling import registry
from labeling.combine import DEFAULT_CONSENSUS, OutcomeFill, Policy, after_error_for
from labeling.schema import AfterError, Neutral
from pipelines.cli import ConfigError
from pipelines.config_fields import ROWS, SPEED, check_fields, option
from pipelines.generation_config import (
    GenerationConfig,
    UnitOutputConfig,
    chains_in_sections,
    register_groups,
    validate_generation,
)
from pipelines.label.source_configs import SandboxSettings
from pipelines.label.sources import register_options, sections


@dataclass
class LabelsConfig:
    policy: Policy = option(
        Policy.verifier_first, "outcome | mc | verifier_first | consensus | judge.", ROWS
    )
    after_error: AfterError = option(
        AfterError.auto, "Steps after the first error: negative | mask | keep | auto (keep "
        "for reasoning traces in sections, split.mode=sections or dataset=deltabench: a "
        "slip does not make its correction wrong; negative for chains cut into steps). "
        "Resolved at start; the manifest records the value used.", ROWS,
    )
    outcome_fill: OutcomeFill = option(
        OutcomeFill.none, "Unlabeled steps of a chain whose final answer is right: none (stay "
        "unlabeled) | positive (Math-Shepherd's convention; it labels wrong steps of lucky "
        "chains right, see docs/labels.md).", ROWS
    )
    neutral: Neutral = option(
        Neutral.positive, "What a human's neutral rating (PRM800K's 0) becomes in human_labels: "
        "positive (PRM800K's convention) | negative | mask (null).", ROWS
    )
    consensus: list[str] = option(
        factory=lambda: list(DEFAULT_CONSENSUS),
        help="consensus policy: sources whose located first errors must agree.",
        affects=ROWS,
    )
    # One section per configurable source (`labels.<name>`, None = not run) is not declared
    # here: `labels_config()` adds them from the sources' one registration
    # (`pipelines.label.sources`), so a plug-in source needs no edit of this class.

    def enabled(self) -> list[str]:
        """The sources to run, in registry order: those whose section is set."""
        return [s for s in registry.configurable() if getattr(self, s, None) is not None]


def labels_config() -> type[LabelsConfig]:
    """`LabelsConfig` with one optional section per configurable source that has a builder
    (`labels.calc: CalcSourceConfig | None`, ...), in registry order. The same class for the
    same registrations, so configs composed before and after compare alike."""
    return _with_sections(tuple(sections()))


@functools.cache
def _with_sections(sections: tuple[tuple[str, type, str], ...]) -> type[LabelsConfig]:
    return make_dataclass(
        "SourceLabelsConfig",
        [(name, section | None, option(None, doc)) for name, section, doc in sections],
        bases=(LabelsConfig,),
    )


def new_labels() -> LabelsConfig:
    """A `labels` section with every registered source's section slot, none set."""
    return labels_config()()


LABELS_HELP = "Label sources and the policy."


@dataclass
class LabelOutputConfig(UnitOutputConfig):
    row_group_size: int = option(20000, "Parquet row group size.", SPEED, gt=0)
    previous: str | None = option(
        None, "Earlier dataset version to reuse unchanged units from.", SPEED
    )
    max_quarantined_share: float | None = option(
        None, "Exit 3 (after writing the dataset) when more than this share of the input's "
        "problems is quarantined; null = only when every problem is (nothing labeled).",
        SPEED, ge=0, le=1,
    )


@dataclass
class DebugConfig:
    log_every_s: float = option(10.0, "Progress line period (seconds).", SPEED, gt=0)
    verbose_engine: bool = option(
        False, "Show vLLM's own INFO logs (start-up details).", SPEED
    )


@dataclass
class LabelJobConfig(GenerationConfig):
    output: LabelOutputConfig = option(
        factory=LabelOutputConfig, help="Shards, resume and refresh."
    )
    labels: LabelsConfig = option(factory=new_labels, help=LABELS_HELP)
    sandbox: SandboxSettings = option(
        factory=SandboxSettings, help="The sandbox code answers and code rollouts run in."
    )
    debug: DebugConfig = option(factory=DebugConfig, help="Logging.")
    dry_run: bool = option(
        False, "Read and check the input, plan the units against output.dir (resume) and "
        "output.previous (refresh), print what would be labeled and reused with an estimate "
        "of chains, tokens, rollouts and time, and stop: no engine, nothing written.", SPEED,
    )


def validate(cfg: LabelJobConfig) -> None:
    """Every value in its field's range, then the checks that span fields; raises
    `ConfigError` (one sentence)."""
    check_fields(cfg)
    validate_generation(cfg)
    enabled = cfg.labels.enabled()
    if not enabled:
        raise ConfigError("no label source enabled; set labels=[answer,calc] or similar")
    policy = cfg.labels.policy
    able = registry.consensus_sources()
    cannot = [str(s) for s in cfg.labels.consensus if s not in able]
    if cannot:
        raise ConfigError(
            f"labels.consensus cannot use {', '.join(cannot)} (not a source that locates "
            f"errors); choose from {', '.join(able)}"
        )
    if policy == Policy.mc and "mc" not in enabled:
        raise ConfigError(f"labels.policy={policy} needs the mc source: add mc to labels=[...]")
    if policy == Policy.judge and "judge" not in enabled:
        raise ConfigError("labels.policy=judge needs the judge source: add judge to labels")
    if policy == Policy.consensus:
        missing = [str(s) for s in cfg.labels.consensus if s not in enabled]
        if missing:
            raise ConfigError(
                "labels.policy=consensus needs the sources it compares: add "
                f"{', '.join(missing)} to labels=[...] (or change labels.consensus)"
            )
        if len(set(cfg.labels.consensus)) < 2:
            raise ConfigError("labels.consensus needs two or more different sources")
    if policy == Policy.outcome and "answer" not in enabled:
        raise ConfigError("labels.policy=outcome needs the answer source: add answer to labels")
    if cfg.labels.mc is not None:
        try:
            cfg.labels.mc.make_method()  # ranges and settings that must combine
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    judge = cfg.labels.judge
    if judge is not None and judge.votes > 1 and judge.temperature == 0:
        raise ConfigError("labels.judge.votes > 1 needs labels.judge.temperature > 0 "
                          "(greedy votes are all the same)")


def resolve(cfg: LabelJobConfig) -> LabelJobConfig:
    """`cfg` with what `auto` stands for written in, once at start, so that the unit keys,
    the manifest and every source see the value used: `labels.after_error=auto` becomes
    `keep` for traces in sections (`chains_in_sections`) and `negative` otherwise
    (labeling.combine)."""
    rule = after_error_for(cfg.labels.after_error, chains_in_sections(cfg))
    cfg.labels.after_error = AfterError(rule)
    return cfg


def label_job_schema() -> type[LabelJobConfig]:
    """`LabelJobConfig` whose `labels` declares every registered source's section
    (`labels_config`): the schema Hydra composes, `--help` lists and the field tests walk."""
    return _job_with(labels_config())


@functools.cache
def _job_with(labels: type[LabelsConfig]) -> type[LabelJobConfig]:
    return make_dataclass("SourceLabelJobConfig",
                          [("labels", labels, option(factory=labels, help=LABELS_HELP))],
                          bases=(LabelJobConfig,))  # fmt: skip


def register() -> None:
    """Register the schemas (with the sources registered now); YAML in conf/ extends
    `label_schema` and the group schemas. Called by the app's `main()`, never at import."""
    register_groups()
    register_options()
    cs = ConfigStore.instance()
    cs.store(name="label_schema", node=label_job_schema())
    cs.store(group="output", name="output_schema", node=LabelOutputConfig)
    cs.store(group="debug", name="debug_schema", node=DebugConfig)


__all__ = ["LabelJobConfig", "label_job_schema", "labels_config", "register",
           "resolve", "validate"]
