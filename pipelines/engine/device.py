"""Engine settings per device: weights dtype, where vLLM's engine core runs, torch threads.

`choose(...)` turns `model.dtype` and the engine's resources into a `DeviceChoice` with one
sentence saying why; `apply(choice)` sets the process up before vLLM is imported. The rules,
each from a measurement (docs/benchmarks.md, "Throughput"):

- dtype `auto`: reproducible first. On CPUs float32: bf16 kernels on CPU are not
  batch-invariant (with AMX a request's completions changed with what it was batched with,
  so the same config and seed gave other chains), float32's are. Where bf16 would be faster,
  the reason says so and `model.dtype=bfloat16` is the opt-in, reported as not reproducible
  at start and in the manifest: native bf16 instructions (`avx512_bf16` or `amx_bf16` on
  x86, `bf16` on Arm) ran faster on AMD CPUs and with AMX on Intel ones; without them the
  CPU emulates bf16 and it ran slower, and an Intel CPU with `avx512_bf16` but no AMX (AMX
  hidden by the VM) decoded bf16 slower than float32 (docs/benchmarks.md).
  On GPUs bfloat16 (float16 on GPUs older than compute capability 8.0, which have no bf16
  units), with vLLM's batch-invariant kernels (`VLLM_BATCH_INVARIANT=1`, documented for
  NVIDIA GPUs of compute capability 8.0 and up); an older GPU runs without them and its run
  is reported as not reproducible.
- CPU: vLLM's engine core in the actor's own process (`VLLM_ENABLE_V1_MULTIPROCESSING=0`).
  The separate core process busy-polls and holds a whole core; in-process the same engine
  started several times sooner and generated faster. GPUs keep the separate core
  (it overlaps scheduling with the GPU's work).
- CPU KV cache blocks of 32 tokens (vLLM's CPU default is 128; the CPU attention kernel
  takes multiples of 32). Prefix caching shares whole blocks only, and a rollout's prompt
  (question + chain prefix) is often shorter than 128 tokens: with 32 the Monte Carlo stage
  read more of its prompt tokens from the cache and took less time than with 64 or 128, and
  sampling ran as fast or faster.
- CPU threads: the pool's plan (`layout.py`: one single-thread engine per core by default,
  which measured faster than one engine on all cores), never more
  than the process can see. torch's pool is sized once, before vLLM starts (its CPU worker
  forbids changes later).

Not covered: NUMA placement, core pinning by id (Ray does not tell which cores it counted),
and hybrid CPUs with unequal cores.
"""

from __future__ import annotations

import logging
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

# Flags that mean the CPU computes in bf16 natively (x86 /proc/cpuinfo "flags", Arm "Features").
NATIVE_BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16", "bf16"})
INTEL = "GenuineIntel"


@dataclass(frozen=True, slots=True)
class DeviceChoice:
    device: str  # "cpu" | "gpu"
    dtype: str  # what vLLM gets: bfloat16 | float16 | float32
    threads: int  # torch threads on CPU (0 on GPU: vLLM decides)
    in_process: bool  # vLLM's engine core in this process
    reason: str  # one sentence: why this dtype
    block_size: int = 0  # KV cache block in tokens (0: vLLM's default)
    # The same request gives the same text whatever it is batched with (`reproducible`).
    batch_invariant: bool = True

    def describe(self) -> str:
        where = "engine core in-process" if self.in_process else "engine core in its own process"
        threads = f", {self.threads} threads" if self.device == "cpu" else ""
        block = f", KV blocks of {self.block_size} tokens" if self.block_size else ""
        same = "" if self.batch_invariant else "; NOT reproducible (not batch-invariant)"
        return f"{self.device}: {self.dtype} ({self.reason}){same}; {where}{threads}{block}"


def cpu_flags(path: str = "/proc/cpuinfo") -> frozenset[str]:
    """The first CPU's feature flags (empty when the file is missing: not Linux)."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()


@dataclass(frozen=True, slots=True)
class CpuKind:
    """What a CPU-dependent default is decided on: the vendor, the widest vector/bf16 tier
    (`amx` > `avx512_bf16` > `avx512` > `avx2` > `other`) and the model name."""

    vendor: str  # /proc/cpuinfo vendor_id: GenuineIntel, AuthenticAMD, ... ("" off Linux)
    tier: str
    model: str = ""

    def family(self) -> str:
        return f"{self.vendor or 'unknown vendor'} {self.tier}"

    def key(self) -> str:
        """A file-name-safe key for what was measured on this kind of CPU."""
        raw = f"{self.vendor}-{self.tier}-{self.model}".lower()
        return "".join(c if c.isalnum() or c in "-_" else "_" for c in raw)


def isa_tier(flags: frozenset[str]) -> str:
    if "amx_bf16" in flags:
        return "amx"
    if "avx512_bf16" in flags:
        return "avx512_bf16"
    if "avx512f" in flags:
        return "avx512"
    if "avx2" in flags:
        return "avx2"
    return "other"


def look_ahead(choice: DeviceChoice, flags: frozenset[str] | None = None) -> int:
    """Probes deep a Monte Carlo search looks ahead on this engine while it has room
    (`labels.mc.look_ahead` null; `verifiers/mc/schedule.py`). 2 where a sequence more costs
    a small decode step little: a GPU, or a CPU with AMX, whose small batches wait on the
    weights (two deep shortened the MC stage there). 1 on other CPUs, where every sequence
    more slows the step of all the others: two deep made `make run`'s job slower there in
    bf16 and float32 alike, one deep the same as none (docs/benchmarks.md, "The MC stage's
    tail")."""
    if choice.device == "gpu":
        return 2
    return 2 if isa_tier(cpu_flags() if flags is None else flags) == "amx" else 1


def cpu_kind(path: str = "/proc/cpuinfo") -> CpuKind:
    """This machine's CPU kind (the first CPU's entry)."""
    fields: dict[str, str] = {}
    try:
        for line in Path(path).read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if not key:
                break  # the first CPU's block ends at its blank line
            fields.setdefault(key, value.strip())
    except OSError:
        pass
    return CpuKind(fields.get("vendor_id", ""), isa_tier(cpu_flags(path)),
                   fields.get("model name", ""))


def choose_dtype(
    requested: str,
    gpu: bool,
    flags: frozenset[str],
    gpu_capability: tuple[int, int] | None,
    vendor: str | None = None,
) -> tuple[str, str]:
    """(dtype, reason) for `model.dtype` = `requested` (auto | bfloat16 | float16 | float32);
    `vendor` is /proc/cpuinfo's vendor_id (None: this machine's)."""
    if requested != "auto":
        return requested, "set by model.dtype"
    if gpu:
        if gpu_capability is not None and gpu_capability < (8, 0):
            return "float16", f"GPU of compute capability {gpu_capability} has no bf16 units"
        return "bfloat16", "GPU"
    faster, why = fastest_cpu_dtype(flags, vendor)
    if faster == "bfloat16":
        return "float32", (f"reproducible: bf16 on CPU is not batch-invariant; {why}, so "
                           "model.dtype=bfloat16 is faster but not reproducible")
    return "float32", why


def fastest_cpu_dtype(flags: frozenset[str], vendor: str | None = None) -> tuple[str, str]:
    """(dtype, reason): what this kind of CPU decodes fastest (see the module docstring)."""
    native = sorted(NATIVE_BF16_FLAGS & flags)
    # Tier `avx512_bf16` means no AMX (that is tier `amx`); the vendor is read only then.
    if isa_tier(flags) == "avx512_bf16" and INTEL == (
            cpu_kind().vendor if vendor is None else vendor):
        return "float32", ("an Intel CPU with avx512_bf16 but no AMX: bf16 decoded batches "
                           "slower than float32 there (docs/benchmarks.md)")  # fmt: skip
    if native:
        return "bfloat16", f"the CPU has native bf16 ({', '.join(native)})"
    return "float32", "the CPU has no native bf16 (it would be emulated, and slower)"


def batch_invariant(dtype: str, gpu: bool, gpu_capability: tuple[int, int] | None) -> bool:
    """Whether an engine of `dtype` gives a request the same text whatever it is batched with:
    float32 on CPU; on a GPU of compute capability 8.0 and up, with vLLM's batch-invariant
    kernels (`apply` sets `VLLM_BATCH_INVARIANT=1` for them)."""
    if gpu:
        return gpu_capability is not None and gpu_capability >= (8, 0)
    return dtype == "float32"


def visible_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# vLLM's CPU attention takes blocks in multiples of 32; 32 shares the most prompt prefixes.
CPU_BLOCK_SIZE = 32


def choose(
    requested_dtype: str,
    num_gpus: float,
    threads: int,
    flags: frozenset[str] | None = None,
    block_size: int = 0,
    vendor: str | None = None,
) -> DeviceChoice:
    """The settings for one engine: GPU when `num_gpus` > 0, else CPU with `threads` torch
    threads (0 = every core this process can see). `block_size` 0: the device's best.
    `flags` and `vendor` default to this machine's."""
    gpu = num_gpus > 0
    capability = None
    if gpu:
        try:
            import torch

            if torch.cuda.is_available():
                capability = tuple(torch.cuda.get_device_capability(0))
        except Exception:  # no CUDA torch: vLLM will say so itself
            capability = None
    dtype, reason = choose_dtype(
        str(requested_dtype), gpu, cpu_flags() if flags is None else flags, capability, vendor
    )
    same = batch_invariant(dtype, gpu, capability)
    if gpu:
        return DeviceChoice("gpu", dtype, 0, False, reason, block_size, same)
    cores = visible_cores()
    n = min(cores, threads) if threads > 0 else cores
    return DeviceChoice("cpu", dtype, max(1, n), True, reason, block_size or CPU_BLOCK_SIZE,
                        same)


def apply(choice: DeviceChoice, verbose: bool = False) -> None:
    """Set this process up for `choice`; call before vLLM is imported (it reads the
    environment once). `verbose` keeps vLLM's INFO logs (start-up details)."""
    # Quiet by default: vLLM's start-up INFO and its advice (LD_PRELOAD, deprecations) are
    # not the user's to act on; errors still show.
    os.environ["VLLM_LOGGING_LEVEL"] = "INFO" if verbose else "ERROR"
    if not verbose:
        # Start-up noise: transformers/torch warnings the user cannot act on (vLLM's own
        # modules raise FutureWarnings about torch names at import).
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        warnings.filterwarnings("ignore", category=FutureWarning)
        # vLLM warns at import, before its own log level applies, that the CPU build has no
        # Triton backend: true on every CPU engine, and nothing to act on.
        logging.getLogger("vllm.triton_utils.importing").setLevel(logging.ERROR)
    if choice.device != "cpu":
        if choice.batch_invariant:  # read by vLLM at import: the same text in any batch
            os.environ["VLLM_BATCH_INVARIANT"] = "1"
        return
    os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"
    os.environ["OMP_NUM_THREADS"] = str(choice.threads)
    import torch

    torch.set_num_threads(choice.threads)
