"""What one prm-train worker holds before its first step, built once: the model (resumed from
a checkpoint, a PRM to fine-tune, or a fresh one), the optimizer and its parameter groups, the
learning-rate schedule, whether to autocast to bf16, this rank's stream over the shards, and,
when resuming, the optimizer, schedule, step, data position and RNG state of `trainer_state.pt`.

`setup_worker` returns the `Worker` that `pipelines.train.loop` steps.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch

from pipelines.checkpoint.export import load_checkpoint, new_prm
from pipelines.checkpoint.format import StepFormat
from pipelines.cli import ConfigError
from pipelines.train import data as prm_data
from pipelines.train.background import CheckpointWriter, Prefetcher
from pipelines.train.checkpoints import STATE_FILE, resume_path
from pipelines.train.config import TrainAppConfig, to_config
from pipelines.train.lineage import dataset_split
from pipelines.train.packing import choose_packing


def _value(x: Any) -> str:
    return str(getattr(x, "value", x)).lower()


def bf16_enabled(mode: Any, device: torch.device) -> bool:
    """Whether to autocast to bf16: `auto` asks the device (oneDNN bf16 on CPU)."""
    if _value(mode) in ("off", "false"):
        return False
    if device.type == "cuda":
        supported = torch.cuda.is_bf16_supported()
    else:
        supported = bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    if _value(mode) in ("on", "true") and not supported:
        raise ConfigError(f"train.bf16=on but {device} has no bf16 support; use train.bf16=auto")
    return supported


def lr_factor(step: int, warmup: int, total: int, schedule: Any) -> float:
    """Multiplier of the peak learning rate at optimizer step `step` (0-based)."""
    schedule = _value(schedule)
    if step < warmup:
        return (step + 1) / (warmup + 1)
    if schedule == "constant":
        return 1.0
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    if schedule == "linear":
        return 1.0 - progress
    if schedule == "cosine":
        return 0.5 * (1.0 + math.cos(math.pi * progress))
    raise ValueError(f"optim.schedule={schedule!r}; use cosine, linear or constant")


def _initial_model(cfg: TrainAppConfig, resume: Path | None):
    """(model, tokenizer, format): a resumed checkpoint, a PRM to fine-tune, or a fresh one."""
    path = Path(cfg.model.path).expanduser() if cfg.model.path else None
    source = resume or (path if path and (path / "prm_format.json").exists() else None)
    if source is not None:
        model, tok, fmt = load_checkpoint(source)
        if _value(cfg.export.format) != fmt.format:
            raise ConfigError(
                f"{source} is a {fmt.format} checkpoint; set export.format={fmt.format}"
            )
        return model, tok, fmt
    m, e = cfg.model, cfg.export
    request = StepFormat(
        format=_value(e.format),
        prompt_template=m.prompt_template,
        step_template=m.step_template,
        step_tag=e.step_tag,
        label_tokens=list(e.label_tokens),
        max_length=m.max_length,
        max_prompt_length=m.max_prompt_length,
    )
    return new_prm(m.path, request)


def _param_groups(core, cfg: TrainAppConfig) -> list[dict[str, Any]]:
    """qwen2_prm: the fresh score head may get its own rate. causal_lm: the head is two rows
    of the LM's own output matrix, trained at `lr` with everything else."""
    if core.fmt.format == "causal_lm":
        return [{"params": core.parameters(), "lr": cfg.optim.lr}]
    return [
        {"params": core.backbone.parameters(), "lr": cfg.optim.lr},
        {"params": core.score.parameters(), "lr": cfg.optim.head_lr or cfg.optim.lr},
    ]


@dataclass
class Worker:
    """Everything one worker's loop holds; built once by `setup_worker`."""

    cfg: TrainAppConfig
    model: Any  # what forward/backward run on (DDP-wrapped under Ray)
    core: Any  # the ProcessRewardModel itself (saved, evaluated)
    tok: Any
    fmt: StepFormat
    soft: bool
    device: torch.device
    use_bf16: bool
    optimizer: Any
    scheduler: Any
    stream: prm_data.ChainStream
    pack: bool  # packed rows (else padded batches)
    out: Path
    rank: int
    world: int
    in_ray: bool
    resume: Path | None
    step: int = 0
    cut: Counter = field(default_factory=Counter)  # what max_length dropped (`cut_counts`)
    position: dict[str, int] = field(default_factory=dict)  # data consumed (resume point)
    data: Prefetcher | None = None
    writer: CheckpointWriter = field(default_factory=CheckpointWriter)


def setup_worker(config: dict[str, Any], in_ray: bool) -> Worker:
    """Config, model, device, optimizer, schedule, data stream; resumed state if any."""
    cfg = to_config(config)
    rank, world = 0, 1
    if in_ray:
        import ray.train

        ctx = ray.train.get_context()
        rank, world = ctx.get_world_rank(), ctx.get_world_size()
    if cfg.train.torch_threads > 0:
        torch.set_num_threads(cfg.train.torch_threads)
    torch.manual_seed(cfg.train.seed)
    out = Path(cfg.output.dir).expanduser().resolve()
    out.mkdir(parents=True, exist_ok=True)
    resume = resume_path(str(cfg.train.resume), out)
    core, tok, fmt = _initial_model(cfg, resume)
    split = dataset_split(list(cfg.data.shards))
    if split is not None:  # saved with every checkpoint: a reward cuts completions the same way
        core.fmt = fmt = replace(fmt, split=split)
    core.train()
    if cfg.train.gradient_checkpointing:  # the HF model under the head recomputes its layers
        hf = core.lm if fmt.format == "causal_lm" else core.backbone
        hf.config.use_cache = False
        hf.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    model = core
    if in_ray:
        import ray.train.torch

        model = ray.train.torch.prepare_model(core)
        device = ray.train.torch.get_device()
    else:
        device = torch.device("cuda" if cfg.train.use_gpu else "cpu")
        core.to(device)
    use_bf16 = bf16_enabled(cfg.train.bf16, device)
    pack = cfg.train.tokens_per_batch > 0 and choose_packing(core.body, device, use_bf16) \
        is not None
    optimizer = torch.optim.AdamW(_param_groups(core, cfg), weight_decay=cfg.optim.weight_decay)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda s: lr_factor(s, cfg.optim.warmup_steps, cfg.train.max_steps, cfg.optim.schedule),
    )
    w = Worker(
        cfg, model, core, tok, fmt, prm_data.is_soft(cfg.data), device, use_bf16, optimizer,
        scheduler, prm_data.ChainStream(cfg.data, cfg.train.seed, rank, world), pack, out, rank,
        world, in_ray, resume,
    )  # fmt: skip
    if resume is not None:
        state = torch.load(resume / STATE_FILE, weights_only=False)
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        w.step = state["step"]
        w.stream.skip(state["data"])
        torch.set_rng_state(state["rng"])
    w.position = dict(w.stream.position)
    return w
