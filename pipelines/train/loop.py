"""The training loop of prm-train: the per-worker program, in-process or on a Ray Train worker.

`train_loop` builds (or resumes) the model, the optimizer and the schedule, streams batches
from the shards (`pipelines.train.data`), steps with gradient accumulation and bf16 autocast
where the device has it, evaluates on the validation rows, and writes checkpoints (a servable
HF directory plus `trainer_state.pt`: optimizer, schedule, step, data position) and metrics.
With several workers, rank 0 writes; `pipelines.train.app.run` decides where it runs.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import time
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import torch

from pipelines.checkpoint.export import load_checkpoint, new_prm, save_checkpoint
from pipelines.checkpoint.format import StepFormat
from pipelines.checkpoint.model import cut_counts, tokenize_row
from pipelines.cli import ConfigError
from pipelines.ticker import duration
from pipelines.train import data as prm_data
from pipelines.train.background import (
    CheckpointWriter,
    Prefetcher,
    micro_batches,
)
from pipelines.train.checkpoints import STATE_FILE, resume_path, snapshot, write_checkpoint
from pipelines.train.config import TrainAppConfig, to_config
from pipelines.train.lineage import dataset_split
from pipelines.train.long_chains import check_something_fits, long_chains, say_first_cut
from pipelines.train.metrics import Interval, _forward_loss, evaluate
from pipelines.train.packing import choose_packing

PROGRESS_EVERY_S = 10.0  # a step line at most this often (every step when steps are slower)
log = logging.getLogger("prm-train")


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


def ray_worker(config: dict[str, Any]) -> None:
    """What each Ray Train worker runs."""
    train_loop(config, in_ray=True)


@dataclass
class _Worker:
    """Everything one worker's loop holds; built once by `_setup`."""

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


def _setup(config: dict[str, Any], in_ray: bool) -> _Worker:
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
    w = _Worker(
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


def _start_data(w: _Worker) -> Prefetcher:
    """The background reader: micro-batches a few steps ahead of the one training."""
    t = w.cfg.train
    pin = w.device.type == "cuda"

    def make():
        return micro_batches(w.stream, w.tok, w.fmt, w.soft, t.batch_size, t.tokens_per_batch,
                             w.pack, pin)  # fmt: skip

    return Prefetcher(make, depth=2 * t.grad_accum + 2)


def _one_step(w: _Worker) -> dict[str, Any]:
    """One optimizer step over `grad_accum` micro-batches; returns its statistics, the loss
    and the correct count still on the device (read at the logging interval, not here)."""
    assert w.data is not None
    accum = w.cfg.train.grad_accum
    loss_sum: Any = 0.0
    correct: Any = 0
    counted = tokens = chain_tokens = 0
    waited = 0.0
    for micro in range(accum):
        mb, wait = w.data.get()
        waited += wait
        if w.rank == 0 and not w.cut["chains_cut"]:
            say_first_cut(mb.first_cut, w.fmt.max_length)
        w.cut.update(mb.cut)
        tokens += mb.tensors["input_ids"].numel()
        chain_tokens += mb.chain_tokens
        counted += mb.tensors["labels"].numel()
        sync = micro == accum - 1 or not hasattr(w.model, "no_sync")
        with contextlib.nullcontext() if sync else w.model.no_sync():
            loss, probs, targets = _forward_loss(w.model, mb.tensors, w.soft, w.device,
                                                 w.use_bf16)  # fmt: skip
            (loss / accum).backward()
        loss_sum = loss_sum + loss.detach()
        correct = correct + ((probs >= 0.5) == (targets >= 0.5)).sum()
        w.position = mb.position
    if w.cfg.optim.max_grad_norm > 0:
        torch.nn.utils.clip_grad_norm_(w.model.parameters(), w.cfg.optim.max_grad_norm)
    w.optimizer.step()
    w.scheduler.step()
    w.optimizer.zero_grad(set_to_none=True)
    w.step += 1
    return {"loss": loss_sum / accum, "correct": correct, "counted": counted, "tokens": tokens,
            "chain_tokens": chain_tokens, "data_wait_s": waited}  # fmt: skip


def _due(w: _Worker) -> dict[str, bool]:
    """What this step does after training: log a row, validate, checkpoint."""
    t, step = w.cfg.train, w.step
    last = step == t.max_steps
    return {"log": step % max(t.log_every, 1) == 0 or last,
            "eval": bool(t.eval_every and step % t.eval_every == 0) or last,
            "save": bool(t.save_every and step % t.save_every == 0) or last}  # fmt: skip


def _after_step(w: _Worker, due: dict[str, bool], interval: Interval,
                val_rows: list) -> dict[str, Any]:  # fmt: skip
    """The metrics row of this step: training figures over the interval, validation, the
    checkpoint (written in the background from a snapshot of this step)."""
    t, step = w.cfg.train, w.step
    row: dict[str, Any] = {}
    if due["log"]:
        row = {"step": step, **interval.row(), "lr": w.scheduler.get_last_lr()[0],
               "epoch": w.position["epoch"]}  # fmt: skip
    if w.rank == 0 and val_rows and due["eval"]:
        figures = evaluate(w.core, val_rows, w.tok.pad_token_id, w.soft, t.batch_size,
                           w.device, w.use_bf16)  # fmt: skip
        row = {"step": step, **row, **figures}
    if due["save"]:
        if w.rank == 0:
            weights, state = snapshot(w.core, w.optimizer, w.scheduler, step, w.position)
            w.writer.submit(write_checkpoint, w.core, w.tok, weights, state, w.out,
                            t.save_total_limit)  # fmt: skip
            path = w.out / "checkpoints" / f"step_{step:07d}"
            row = {"step": step, **row, "checkpoint": str(path)}
        if w.world > 1:
            torch.distributed.barrier()  # every rank is at the same step when one is taken
    return row


def step_line(w: _Worker, row: dict[str, Any], per_step: float) -> str:
    """`step 12/100: loss 0.642, acc 0.71, lr 1.2e-05, 11.8s/step, ETA 17m18s` (+ validation
    figures and the checkpoint when this step has them)."""
    left = w.cfg.train.max_steps - w.step
    parts = [f"step {w.step}/{w.cfg.train.max_steps}:"]
    if "loss" in row:
        parts[0] += f" loss {row['loss']:.4f}"
        parts.append(f"acc {row['acc']:.3f}")
    parts += [f"lr {w.scheduler.get_last_lr()[0]:.2e}", f"{per_step:.2f}s/step"]
    if left:
        parts.append(f"ETA {duration(per_step * left)}")
    parts += [f"{k} {v:.4f}" for k, v in row.items() if k.startswith("val_") and
              isinstance(v, float)]  # fmt: skip
    if "checkpoint" in row:
        parts.append(f"saved {row['checkpoint']}")
    return ", ".join(parts)


def _train_steps(w: _Worker, val_rows: list, metrics_file: Any) -> dict[str, Any]:
    """Step until `max_steps`; returns the last values of every metrics key and the totals.
    The device is waited for only at a step that logs, validates or checkpoints."""
    cfg = w.cfg
    interval = Interval()
    tokens_total, train_time, last, started = 0, 0.0, {}, w.step
    said = -math.inf  # when the last progress line was logged
    while w.step < cfg.train.max_steps:
        t0 = time.perf_counter()
        stats = _one_step(w)
        if w.step == started + 1:
            check_something_fits(w.cut, w.cfg.model)
        due = _due(w)
        if any(due.values()) and w.device.type == "cuda":
            torch.cuda.synchronize(w.device)  # the interval's time is the device's time
        dt = time.perf_counter() - t0  # waiting for data and compute; not validation or I/O
        interval.add(stats, dt)
        tokens_total, train_time = tokens_total + stats["tokens"], train_time + dt
        row = _after_step(w, due, interval, val_rows)
        if due["log"]:
            interval = Interval()
        if w.rank == 0 and (w.step == cfg.train.max_steps or "checkpoint" in row or (
                due["log"] and time.monotonic() - said >= PROGRESS_EVERY_S)):  # fmt: skip
            said = time.monotonic()
            log.info(step_line(w, row, train_time / (w.step - started)))
        if row and metrics_file:
            metrics_file.write(json.dumps(row) + "\n")
            metrics_file.flush()
            last.update(row)
        if w.in_ray and due["log"]:
            import ray.train

            ray.train.report({k: v for k, v in row.items() if k != "checkpoint"})
    return {**last, "_tokens": tokens_total, "_seconds": train_time, "_started": started}


def train_loop(config: dict[str, Any], in_ray: bool = False) -> dict[str, Any]:
    """The per-worker training program; returns the summary (rank 0) or {} (other ranks)."""
    w = _setup(config, in_ray)
    cfg = w.cfg
    val_rows = []
    val_cut: Counter = Counter()
    if w.rank == 0 and cfg.data.val_fraction > 0:
        for e in prm_data.validation_examples(cfg.data, cfg.train.seed):
            val_rows.append(tokenize_row(e.prompt, e.steps, e.targets, w.tok, w.fmt, w.soft))
            val_cut.update(cut_counts(val_rows[-1], e.targets))
        if not val_rows:  # the split is by problem: a handful of problems may give none
            log.warning("data.val_fraction=%s put no chain into validation (it holds out whole "
                        "problems, and these shards have too few): no val_ metrics will be "
                        "logged; add problems or set data.val_fraction=0",
                        cfg.data.val_fraction)  # fmt: skip
    metrics_file = (w.out / "metrics.jsonl").open("a") if w.rank == 0 else None
    if w.rank == 0:
        log.info("training %d steps (from step %d) into %s", cfg.train.max_steps - w.step,
                 w.step, w.out)  # fmt: skip
    w.data = _start_data(w)
    try:
        last = _train_steps(w, val_rows, metrics_file)
    except BaseException:
        w.data.close()
        if metrics_file:
            metrics_file.close()
        with contextlib.suppress(Exception):  # the step's error is the one to report
            w.writer.join()
        raise
    w.data.close()
    w.writer.join()  # the last checkpoint is on disk before the summary says so
    tokens_total, train_time = last.pop("_tokens"), last.pop("_seconds")
    started = last.pop("_started")
    if w.rank != 0:
        return {}
    metrics_file.close()
    save_checkpoint(w.core, w.tok, w.out / "final")
    long = long_chains(w.cut, w.fmt, w.world, val_cut)
    summary = {
        **last,
        "final": str(w.out / "final"),
        "steps_this_run": w.step - started,
        "resumed_from": str(w.resume) if w.resume else None,
        "train_tokens_per_s": tokens_total / train_time if train_time else 0.0,
        "bf16": w.use_bf16,
        "workers": w.world,
        "format": asdict(w.fmt),
        "long_chains": long,
    }
    (w.out / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary
