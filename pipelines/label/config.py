"""Structured config of `prm-label`: dataclasses registered in Hydra's ConfigStore.

YAML files under `conf/` only override these defaults, so a wrong key or a wrong type fails
at start-up with Hydra's message naming the key. Each field's comment is its help text; the
README's configuration table is made from the same words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING


@dataclass
class ModelConfig:
    name: str = "SmolLM2-135M-Instruct"  # label written to rows; also the cache key
    path: str = ""  # local HF dir or hub id; "" = the embedded default (prepared on demand)
    dtype: str = "bfloat16"  # weights dtype for vLLM
    max_model_len: int = 2048  # context window given to vLLM (prompt + completion)
    enforce_eager: bool = True  # skip torch.compile/graphs: faster start on CPU
    kv_cache_gib: int = 2  # VLLM_CPU_KVCACHE_SPACE for the CPU backend (GiB)
    gpu_memory_utilization: float = 0.85  # GPU backend only
    tensor_parallel_size: int = 1  # GPUs per engine actor (GPU backend only)
    use_chat_template: bool = True  # format prompts with the tokenizer's chat template


@dataclass
class DatasetConfig:
    name: str = "builtin_math"  # label of the dataset in rows, and the adapter by default
    adapter: str | None = None  # adapter to use when it differs from `name` (see README)
    path: str | None = None  # input file (not needed by the builtin sets)
    limit: int | None = None  # read at most this many input records
    seed: int = 0  # seed of the builtin generators
    count: int = 1000  # size of the builtin math set before `limit`
    domain: str | None = None  # generic adapter: math or code
    fields: dict[str, Any] = field(default_factory=dict)  # generic adapter: field mapping


@dataclass
class SamplerConfig:
    n: int = 4  # chains sampled per problem
    temperature: float = 0.8  # sampling temperature
    top_p: float = 0.95  # nucleus sampling
    max_tokens: int = 320  # completion length cap (vLLM's default of 16 is never used)
    seed: int = 0  # base seed; each chain's seed derives from (seed, problem, chain)
    stop: list[str] = field(default_factory=list)  # extra stop strings
    math_instruction: str = (
        "Solve the problem step by step. Write each step as its own paragraph, "
        "and give the final answer as \\boxed{answer}."
    )  # appended to math questions


@dataclass
class SplitConfig:
    mode: str = "auto"  # math steps: auto | blank_line | step_marker | line
    code_mode: str = "statement"  # code steps: line | statement | block
    max_steps: int = 40  # chains with more steps are quarantined (stage "split")


@dataclass
class AnswerSourceConfig:
    timeout_s: float = 5.0  # wall-clock bound of one equivalence check (math)


@dataclass
class CalcSourceConfig:
    timeout_s: float = 2.0  # wall-clock bound of one sympy claim check


@dataclass
class TestsSourceConfig:
    timeout_s: float = 10.0  # wall-clock bound of one program run in the sandbox
    workers: int = 2  # parallel sandbox executions
    allow_unsafe: bool = False  # run without isolation when bubblewrap is missing (warns)


@dataclass
class MCSourceConfig:
    estimator: str = "binary_search"  # binary_search | per_step
    k: int = 5  # rollouts per probed prefix (per_step: N per step; Math-Shepherd used 8)
    chunk: int | None = 1  # rollouts per request: a probe stops early once it is settled
    confirm: int = 2  # successes a prefix needs to count as on track (1 = Math-Shepherd)
    threshold: float = 0.0  # a step is positive when its success rate is > threshold
    max_tokens: int = 256  # completion cap of one rollout
    temperature: float = 0.8  # rollout sampling temperature
    max_rounds: int = 64  # safety cap on search rounds


@dataclass
class LabelsConfig:
    policy: str = "verifier_first"  # outcome | mc | verifier_first | consensus
    after_error: str = "negative"  # steps after the first error: negative | mask | keep
    answer: AnswerSourceConfig | None = None  # outcome source (final answer / all tests)
    calc: CalcSourceConfig | None = None  # calculator checks per step (math)
    tests: TestsSourceConfig | None = None  # sandboxed unit tests + syntax per step (code)
    mc: MCSourceConfig | None = None  # Monte Carlo rollouts


@dataclass
class EngineConfig:
    kind: str = "vllm"  # vllm | simulated (deterministic fake text, no model; benchmarks)
    actors: int = 1  # engine actors (each holds one vllm.LLM)
    num_cpus: float = 1.0  # Ray CPUs reserved per engine actor
    num_gpus: float = 0.0  # Ray GPUs per engine actor (0 = CPU backend)
    batch_size: int = 256  # prompts per generate() call
    enable_prefix_caching: bool = True  # shared prompts/prefixes computed once
    simulated_delay_s: float = 0.0  # simulated engine only: latency per call (fault tests)


@dataclass
class RayConfig:
    enabled: bool = True  # False runs everything in-process (tests, debugging)
    address: str | None = None  # None = start a local Ray; "auto" = join a running cluster
    num_cpus: int | None = None  # CPUs of the local Ray (None = all)
    label_actors: int = 1  # verifier actors labeling units in parallel
    label_num_cpus: float = 1.0  # Ray CPUs reserved per verifier actor
    max_restarts: int = 3  # restarts of a dead actor before the job gives up on it
    max_task_retries: int = 3  # retries of a call whose actor died


@dataclass
class OutputConfig:
    dir: str = "runs/${dataset.name}"  # output directory (stable: a re-run resumes it)
    problems_per_unit: int = 64  # problems per work unit (one shard each)
    row_group_size: int = 20000  # Parquet row group size
    resume: bool = True  # skip units already finished with the same key
    previous: str | None = None  # earlier dataset version to reuse unchanged units from
    report: bool = True  # write report.html at the end (prm-report)


@dataclass
class DebugConfig:
    enabled: bool = False  # debug preset: tiny run, verbose logs
    log_every_s: float = 10.0  # progress line period (seconds)


@dataclass
class LabelJobConfig:
    model: ModelConfig = field(default_factory=ModelConfig)
    dataset: DatasetConfig = field(default_factory=DatasetConfig)
    sampler: SamplerConfig = field(default_factory=SamplerConfig)
    split: SplitConfig = field(default_factory=SplitConfig)
    labels: LabelsConfig = field(default_factory=LabelsConfig)
    engine: EngineConfig = field(default_factory=EngineConfig)
    ray: RayConfig = field(default_factory=RayConfig)
    output: OutputConfig = field(default_factory=OutputConfig)
    debug: DebugConfig = field(default_factory=DebugConfig)
    seed: int = 0  # global seed (the sampler's seed follows it unless set)


def register() -> None:
    """Register the schemas; YAML in conf/ extends `label_schema` and the group schemas."""
    cs = ConfigStore.instance()
    cs.store(name="label_schema", node=LabelJobConfig)
    cs.store(group="model", name="model_schema", node=ModelConfig)
    cs.store(group="dataset", name="dataset_schema", node=DatasetConfig)
    cs.store(group="sampler", name="sampler_schema", node=SamplerConfig)
    cs.store(group="engine", name="engine_schema", node=EngineConfig)
    cs.store(group="ray", name="ray_schema", node=RayConfig)
    cs.store(group="output", name="output_schema", node=OutputConfig)
    cs.store(group="debug", name="debug_schema", node=DebugConfig)


__all__ = ["LabelJobConfig", "MISSING", "register"]
