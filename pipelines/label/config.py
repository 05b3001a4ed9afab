"""Structured config of `prm-label`: dataclasses registered in Hydra's ConfigStore.

`LabelJobConfig` extends the generation config prm-search extends too
(`pipelines.generation_config`: model, dataset, sampler, split, engine, ray, answer check,
output) with the label sources, the sandbox and debug output. YAML files under `conf/` only
override these defaults. Hydra checks every key and type when it composes the config, and
enum fields against their members, so a typo such as `split.mode=lines` fails at start-up
(exit 2, one sentence: `pipelines.cli`). Every field carries its help, what it affects (rows
or speed: the unit key is the hash of the row fields) and its range
(`pipelines.config_fields`); `validate` adds the checks that span fields.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, make_dataclass

from hydra.core.config_store import ConfigStore

from labeling import registry
from labeling.combine import DEFAULT_CONSENSUS, OutcomeFill, Policy, after_error_for
from labeling.datasets import gives_sections
from labeling.judge_protocol import JudgeVote
from labeling.mc import MC_DEFAULTS, EstimatorName, MCOptions, RuleName
from labeling.schema import AfterError, Neutral
from labeling.splitters import SplitMode
from pipelines.cli import ConfigError
from pipelines.config_fields import ROWS, SPEED, check_fields, option
from pipelines.generation_config import (
    GenerationConfig,
    ModelConfig,
    SamplerConfig,
    UnitOutputConfig,
    register_groups,
    validate_generation,
)
from verifiers.sandbox.result import NODE_MEMORY_SHARE, SANDBOX_TIMEOUT_S, SANDBOX_WORKERS


@dataclass
class AnswerSourceConfig:
    """On: the final answer (math: `answer_check`) or all unit tests (code: `sandbox`); no
    settings of its own."""


@dataclass
class CalcSourceConfig:
    timeout_s: float = option(2.0, "Wall-clock bound of one sympy claim check.", ROWS, gt=0)


@dataclass
class TestsSourceConfig:
    """On: a syntax verdict per step of code chains (the tests run as the `answer` source)."""


@dataclass
class SandboxSettings:
    """The sandbox every part that runs code uses (the `answer` source on code, MC rollouts
    of code chains)."""

    timeout_s: float = option(
        SANDBOX_TIMEOUT_S, "Wall-clock bound of one program run in the sandbox.", ROWS, gt=0
    )
    # How many run at once and the memory they share change speed and placement; a run that
    # needs more waits for a slot rather than getting less.
    workers: int = option(
        SANDBOX_WORKERS, "Parallel sandbox executions (per verifier actor).", SPEED, gt=0
    )
    node_memory_share: float = option(
        NODE_MEMORY_SHARE, "Share of a node's RAM that all sandboxes running at once on it hold "
        "together (engines plan 0.8 of what Ray reports, about 0.56 of RAM): each run gets "
        "share x RAM / (workers x verifier actors on the node), and runs beyond that many "
        "wait.", SPEED, gt=0, le=1
    )
    allow_unsafe: bool = option(
        False, "Run without isolation when bubblewrap is missing (warns).", ROWS
    )


_MC = MC_DEFAULTS  # MC's defaults are written once, in labeling/mc/options.py


@dataclass
class MCSourceConfig:
    rule: RuleName = option(
        _MC.rule, "How a probed step's rollouts become its label: posterior (the chain's first "
        "error located by its posterior over every probe, the chain's own outcome and the "
        "completer's self-confidence; a label needs probability >= 1 - level and the "
        "rollouts' own support by `factor`) | fall (the completer's success rate falls across "
        "the step, judged against its own self-confidence on the problem; unverifiable where "
        "it cannot tell) | absolute (confirm successes within the budget, or a success rate > "
        "threshold) | any_success (Math-Shepherd: one success in k). See docs/labels.md.",
        ROWS,
    )
    estimator: EstimatorName = option(
        _MC.estimator, "binary_search | per_step (posterior: binary_search only, its "
        "probabilistic bisection).", ROWS,
    )
    level: float = option(
        _MC.level, "fall: the sequential test's level. A step is False only when the Bayes "
        "factor fell:kept of its rollouts reaches 1/level (and True only when it drops to "
        "level); by Wald's bound a step that kept its rate is called fallen with probability "
        "at most about `level` when the self-confidence is known (on average over its "
        "posterior when it is estimated). posterior: every label has posterior probability "
        ">= 1 - level of being right (a located first error: >= 1 - 2 level).", ROWS, gt=0,
        lt=0.5,
    )
    factor: float = option(
        _MC.factor, "posterior: the Bayes factor by which the rollouts themselves (prior and "
        "own outcome aside) must favour a label: no label rests on the prior alone.", ROWS,
        ge=1,
    )
    chain_budget: int = option(
        _MC.chain_budget, "posterior: most rollouts per chain (the question's not counted); "
        "the search stops earlier once the first error is located or every step is right.",
        ROWS, gt=0,
    )
    fell_below: float = option(
        _MC.fell_below, "fall: a step fell when its success rate is at most this share of the "
        "completer's self-confidence.", ROWS, gt=0, lt=1,
    )
    kept_above: float = option(
        _MC.kept_above, "fall: a step kept its rate when it is at least this share of the "
        "self-confidence (between the two: the test waits for more rollouts).", ROWS, gt=0,
        le=1,
    )
    max_rollouts: int = option(
        _MC.max_rollouts, "fall: most rollouts from one step while its test is undecided; "
        "still undecided then: unverifiable, with the counts.", ROWS, gt=0,
    )
    self_rollouts: int = option(
        _MC.self_rollouts, "Completions of the bare question per problem that measure the "
        "completer's self-confidence, on top of the problem's sampled chains when the "
        "completer wrote them with the same settings (every rule reports it; fall and "
        "posterior need it).",
        ROWS, ge=0,
    )
    k: int = option(_MC.k, "absolute, any_success: rollouts per probed prefix (per_step: N per "
                    "step; Math-Shepherd used 8).", ROWS, gt=0)
    chunk: int | None = option(
        _MC.chunk, "fall, absolute, any_success: rollouts per request: a probe stops as soon "
        "as its rule decides (null: all of k, or of max_rollouts, at once).", ROWS, gt=0,
    )
    probe: int = option(
        _MC.probe, "posterior: decided rollouts per probe before the search chooses the next "
        "step (fewer: fewer rollouts, more rounds of the engine).", ROWS, gt=0,
    )
    confirm: int = option(_MC.confirm, "absolute: successes a prefix needs to count as on "
                          "track, each success earning k more rollouts.", ROWS, gt=0)
    threshold: float = option(_MC.threshold, "absolute: a step is on track when its success "
                              "rate is > threshold (with confirm=1).", ROWS, ge=0, lt=1)
    max_tokens: int | None = option(
        None, "Completion cap of one rollout; null = sampler.max_tokens (then, with the same "
        "temperature, the sampled chains are samples of the completer: free self-confidence).",
        ROWS, gt=0,
    )
    temperature: float | None = option(None, "Rollout sampling temperature; null = "
                                       "sampler.temperature.", ROWS, ge=0)
    max_rounds: int = option(_MC.max_rounds, "Safety cap on requests per chain.", ROWS, gt=0)
    probe_right: bool = option(
        _MC.probe_right, "binary_search: search the steps of chains whose answer is right too; "
        "false = OmegaPRM's skip, which labels every step of such a chain right without a "
        "rollout.", ROWS,
    )

    def options(self) -> MCOptions:
        """The labeling knobs as the pure core takes them."""
        return MCOptions(
            rule=RuleName(self.rule), estimator=EstimatorName(self.estimator), level=self.level,
            factor=self.factor, chain_budget=self.chain_budget, fell_below=self.fell_below,
            kept_above=self.kept_above,
            max_rollouts=self.max_rollouts, self_rollouts=self.self_rollouts, k=self.k,
            chunk=self.chunk, probe=self.probe, confirm=self.confirm, threshold=self.threshold,
            probe_right=self.probe_right, max_rounds=self.max_rounds,
        )  # fmt: skip

    def sampling(self, sampler: SamplerConfig) -> tuple[int, float]:
        """(max_tokens, temperature) of a rollout: ours, or the sampler's where unset."""
        return (sampler.max_tokens if self.max_tokens is None else self.max_tokens,
                sampler.temperature if self.temperature is None else self.temperature)

    def same_sampling(self, sampler: SamplerConfig) -> bool:
        """Whether a sampled chain is a sample of the completer: same cap and temperature
        (the model and top_p are the sampler's by construction)."""
        return self.sampling(sampler) == (sampler.max_tokens, sampler.temperature)


@dataclass
class JudgeSourceConfig:
    """An LLM critic names each chain's earliest wrong step (ProcessBench's protocol), m votes
    per chain. Its model is the sampler's unless `model.name` is set (e.g.
    `labels.judge.model.name=Qwen2.5-Coder-0.5B-Instruct` for the prepared Qwen model)."""

    votes: int = option(
        3, "Critic samples per chain (m); `vote` turns them into labels.", ROWS, gt=0
    )
    vote: JudgeVote = option(
        JudgeVote.majority, "majority (a strict majority of ALL votes, unparsable ones "
        "included, must place the first error at or before a step to flag it, or after it to "
        "call it right) | unanimous (every vote) | plurality (the most-named index among "
        "parsed votes, when most votes parsed). See labeling/judge_protocol.py.", ROWS
    )
    max_tokens: int = option(
        512, "Completion cap of one critic answer (cut ones are errors).", ROWS, gt=0
    )
    temperature: float = option(
        0.7, "Critic sampling temperature (0 with votes=1: greedy).", ROWS, ge=0
    )
    max_evidence: int = option(
        400, "Characters of the critic's rationale kept as evidence.", ROWS, ge=0
    )
    model: ModelConfig = option(
        factory=lambda: ModelConfig(name=""),
        help="The judge's model (name, path, dtype...); name '' = the sampler's (same pool).",
    )

    def own_model(self, sampler: ModelConfig) -> ModelConfig | None:
        """The judge's model when it is not the sampler's, else None (share its pool)."""
        if not self.model.name or self.model == sampler:
            return None
        return self.model


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
    from pipelines.label import sources

    return _with_sections(tuple(sources.sections()))


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


# Keys that moved, kept working for one release (`pipelines.cli.renamed`).
RENAMED = {
    **{f"labels.tests.{k}": f"sandbox.{k}"
       for k in ("timeout_s", "workers", "node_memory_share", "allow_unsafe")},
    "labels.answer.timeout_s": "answer_check.timeout_s",
}  # fmt: skip


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
            cfg.labels.mc.options().check()
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    judge = cfg.labels.judge
    if judge is not None and judge.votes > 1 and judge.temperature == 0:
        raise ConfigError("labels.judge.votes > 1 needs labels.judge.temperature > 0 "
                          "(greedy votes are all the same)")


def labels_sections(cfg: LabelJobConfig) -> bool:
    """Whether the run labels reasoning traces in sections: `split.mode=sections`, or a
    dataset whose chains come as sections (DeltaBench's)."""
    return cfg.split.mode == SplitMode.sections or gives_sections(
        str(cfg.dataset.adapter or cfg.dataset.name))


def resolve(cfg: LabelJobConfig) -> LabelJobConfig:
    """`cfg` with what `auto` stands for written in, once at start, so that the unit keys,
    the manifest and every source see the value used: `labels.after_error=auto` becomes
    `keep` for traces in sections (`labels_sections`) and `negative` otherwise
    (labeling.combine)."""
    rule = after_error_for(cfg.labels.after_error, labels_sections(cfg))
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
    from pipelines.label.sources import register_options

    register_groups()
    register_options()
    cs = ConfigStore.instance()
    cs.store(name="label_schema", node=label_job_schema())
    cs.store(group="output", name="output_schema", node=LabelOutputConfig)
    cs.store(group="debug", name="debug_schema", node=DebugConfig)


__all__ = ["RENAMED", "LabelJobConfig", "label_job_schema", "labels_config", "labels_sections",
           "register", "resolve", "validate"]
