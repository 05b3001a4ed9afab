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
import shutil
import time
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import torch

from pipelines.checkpoint.export import load_checkpoint, new_prm, save_checkpoint
from pipelines.checkpoint.format import StepFormat
from pipelines.checkpoint.model import collate, cut_counts, tokenize_row
from pipelines.cli import ConfigError, UserError
from pipelines.ticker import duration
from pipelines.train import data as prm_data
from pipelines.train.config import TrainAppConfig, to_config
from pipelines.train.lineage import dataset_split
from pipelines.train.metrics import _forward_loss, evaluate

STATE_FILE = "trainer_state.pt"
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


def latest_checkpoint(output_dir: Path) -> Path | None:
    found = sorted((output_dir / "checkpoints").glob("step_*/" + STATE_FILE))
    return found[-1].parent if found else None


def _resume_path(cfg: TrainAppConfig, out: Path) -> Path | None:
    choice = str(cfg.train.resume)
    if choice.lower() in ("none", "null", "false", ""):
        return None
    if choice == "auto":
        return latest_checkpoint(out)
    path = Path(choice).expanduser()
    if not (path / STATE_FILE).exists():
        raise FileNotFoundError(f"train.resume={path} has no {STATE_FILE}; use auto or none")
    return path


def _save(model, tok, optimizer, scheduler, step, stream, out: Path, keep: int) -> Path:
    final = out / "checkpoints" / f"step_{step:07d}"
    tmp = final.with_name(final.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    save_checkpoint(model, tok, tmp)
    state = {
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "step": step,
        "data": stream.position,
        "rng": torch.get_rng_state(),
    }
    torch.save(state, tmp / STATE_FILE)
    shutil.rmtree(final, ignore_errors=True)
    tmp.rename(final)  # a checkpoint is either complete or absent
    for old in sorted((out / "checkpoints").glob("step_???????"))[: -max(keep, 1)]:
        shutil.rmtree(old, ignore_errors=True)
    return final


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
    out: Path
    rank: int
    world: int
    in_ray: bool
    resume: Path | None
    step: int = 0
    cut: Counter = field(default_factory=Counter)  # what max_length dropped (`cut_counts`)


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
    resume = _resume_path(cfg, out)
    core, tok, fmt = _initial_model(cfg, resume)
    split = dataset_split(list(cfg.data.shards))
    if split is not None:  # saved with every checkpoint: a reward cuts completions the same way
        core.fmt = fmt = replace(fmt, split=split)
    core.train()
    model = core
    if in_ray:
        import ray.train.torch

        model = ray.train.torch.prepare_model(core)
        device = ray.train.torch.get_device()
    else:
        device = torch.device("cuda" if cfg.train.use_gpu else "cpu")
        core.to(device)
    optimizer = torch.optim.AdamW(_param_groups(core, cfg), weight_decay=cfg.optim.weight_decay)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda s: lr_factor(s, cfg.optim.warmup_steps, cfg.train.max_steps, cfg.optim.schedule),
    )
    w = _Worker(
        cfg, model, core, tok, fmt, prm_data.is_soft(cfg.data), device,
        bf16_enabled(cfg.train.bf16, device), optimizer, scheduler,
        prm_data.ChainStream(cfg.data, cfg.train.seed, rank, world), out, rank, world, in_ray,
        resume,
    )  # fmt: skip
    if resume is not None:
        state = torch.load(resume / STATE_FILE, weights_only=False)
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        w.step = state["step"]
        w.stream.skip(state["data"])
        torch.set_rng_state(state["rng"])
    return w


def _count_cut(w: _Worker, example: Any, row: dict[str, Any]) -> None:
    """Count what `model.max_length` dropped from one chain; say so the first time."""
    counts = cut_counts(row, example.targets)
    if counts["chains_cut"] and not w.cut["chains_cut"] and w.rank == 0:
        log.warning(
            "chain %s is longer than model.max_length=%d tokens: trained on the question and "
            "its first %d of %d steps (whole steps only); the other %d steps (%d labeled) are "
            "dropped, never trained against cut text. Every such chain is counted in "
            "summary.json's `long_chains`", example.chain_id, w.fmt.max_length,
            counts["steps"] - counts["steps_dropped"], counts["steps"], counts["steps_dropped"],
            counts["labels_dropped"])
    w.cut.update(counts)


def _check_something_fits(w: _Worker) -> None:
    """After the first step: a run in which no label of any chain fits `max_length` would
    train on nothing; stop it with the fix instead."""
    if w.cut["labels"] and w.cut["labels_dropped"] == w.cut["labels"]:
        m = w.cfg.model
        raise UserError(
            f"no label of the first {w.cut['chains']} chains fits model.max_length="
            f"{m.max_length}: each chain's first labeled step ends past it (the prompt keeps up "
            f"to model.max_prompt_length={m.max_prompt_length} tokens); raise model.max_length "
            "or lower model.max_prompt_length")


def long_chains(cut: Counter, fmt: StepFormat, world: int) -> dict[str, Any]:
    """The summary's account of chains longer than `max_length` (the policy, and what it
    dropped among the chains this worker saw: a chain seen in two epochs counts twice)."""
    return {
        "policy": "the question (its last model.max_prompt_length tokens) and as many whole "
                  "steps as fit, from the first; the first step that does not fit and all "
                  "after it are dropped",
        "max_length": fmt.max_length,
        "counted_on": "rank 0" + (f" of {world} workers" if world > 1 else ""),
        **{k: cut.get(k, 0) for k in ("chains", "chains_cut", "steps", "steps_dropped",
                                      "labels", "labels_dropped", "prompts_cut")},
        "steps_trained": cut.get("steps", 0) - cut.get("steps_dropped", 0),
    }


def _one_step(w: _Worker) -> dict[str, Any]:
    """One optimizer step over `grad_accum` micro-batches; returns its raw statistics."""
    losses, correct, counted, tokens = [], 0, 0, 0
    accum = w.cfg.train.grad_accum
    for micro in range(accum):
        examples = [next(w.stream) for _ in range(w.cfg.train.batch_size)]
        rows = [tokenize_row(e.prompt, e.steps, e.targets, w.tok, w.fmt, w.soft)
                for e in examples]
        for e, row in zip(examples, rows, strict=True):
            _count_cut(w, e, row)
        batch = collate(rows, w.tok.pad_token_id, w.soft)
        tokens += batch["input_ids"].numel()
        sync = micro == accum - 1 or not hasattr(w.model, "no_sync")
        with contextlib.nullcontext() if sync else w.model.no_sync():
            loss, probs, targets = _forward_loss(w.model, batch, w.soft, w.device, w.use_bf16)
            (loss / accum).backward()
        losses.append(loss.item())
        correct += int(((probs >= 0.5) == (targets >= 0.5)).sum())
        counted += targets.numel()
    if w.cfg.optim.max_grad_norm > 0:
        torch.nn.utils.clip_grad_norm_(w.model.parameters(), w.cfg.optim.max_grad_norm)
    w.optimizer.step()
    w.scheduler.step()
    w.optimizer.zero_grad(set_to_none=True)
    w.step += 1
    return {"loss": sum(losses) / len(losses), "acc": correct / max(counted, 1), "tokens": tokens}


def _after_step(w: _Worker, stats: dict[str, Any], dt: float, val_rows: list) -> dict[str, Any]:
    """The metrics row of this step: training figures, validation, checkpoint path."""
    t, step = w.cfg.train, w.step
    last = step == t.max_steps
    row: dict[str, Any] = {}
    if step % max(t.log_every, 1) == 0 or last:
        row = {"step": step, **stats, "lr": w.scheduler.get_last_lr()[0], "step_seconds": dt,
               "tokens_per_s": stats["tokens"] / dt, "epoch": w.stream.epoch}  # fmt: skip
    if w.rank == 0 and val_rows and ((t.eval_every and step % t.eval_every == 0) or last):
        figures = evaluate(w.core, val_rows, w.tok.pad_token_id, w.soft, t.batch_size,
                           w.device, w.use_bf16)  # fmt: skip
        row = {"step": step, **row, **figures}
    if (t.save_every and step % t.save_every == 0) or last:
        if w.rank == 0:
            path = _save(w.core, w.tok, w.optimizer, w.scheduler, step, w.stream, w.out,
                         t.save_total_limit)  # fmt: skip
            row = {"step": step, **row, "checkpoint": str(path)}
        if w.world > 1:
            torch.distributed.barrier()  # nobody races ahead of a half-written checkpoint
    return row


def step_line(w: _Worker, stats: dict[str, Any], row: dict[str, Any], per_step: float) -> str:
    """`step 12/100: loss 0.642, acc 0.71, lr 1.2e-05, 11.8s/step, ETA 17m18s` (+ validation
    figures and the checkpoint when this step has them)."""
    left = w.cfg.train.max_steps - w.step
    parts = [f"step {w.step}/{w.cfg.train.max_steps}: loss {stats['loss']:.4f}",
             f"acc {stats['acc']:.3f}", f"lr {w.scheduler.get_last_lr()[0]:.2e}",
             f"{per_step:.2f}s/step"]  # fmt: skip
    if left:
        parts.append(f"ETA {duration(per_step * left)}")
    parts += [f"{k} {v:.4f}" for k, v in row.items() if k.startswith("val_") and
              isinstance(v, float)]  # fmt: skip
    if "checkpoint" in row:
        parts.append(f"saved {row['checkpoint']}")
    return ", ".join(parts)


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
    tokens_total, train_time, last, started = 0, 0.0, {}, w.step
    t_last = time.perf_counter()
    said = -math.inf  # when the last progress line was logged
    if w.rank == 0:
        log.info("training %d steps (from step %d) into %s", cfg.train.max_steps - w.step,
                 w.step, w.out)  # fmt: skip
    while w.step < cfg.train.max_steps:
        stats = _one_step(w)
        if w.step == started + 1:
            _check_something_fits(w)
        dt = time.perf_counter() - t_last  # reading, tokenizing, collating, compute
        tokens_total, train_time = tokens_total + stats["tokens"], train_time + dt
        row = _after_step(w, stats, dt, val_rows)
        if w.rank == 0 and (w.step == cfg.train.max_steps or "checkpoint" in row or (
                w.step % max(cfg.train.log_every, 1) == 0
                and time.monotonic() - said >= PROGRESS_EVERY_S)):  # fmt: skip
            said = time.monotonic()
            log.info(step_line(w, stats, row, train_time / (w.step - started)))
        if row and metrics_file:
            metrics_file.write(json.dumps(row) + "\n")
            metrics_file.flush()
            last.update(row)
        if in_ray and (w.step % max(cfg.train.log_every, 1) == 0 or w.step == cfg.train.max_steps):
            import ray.train

            ray.train.report({k: v for k, v in row.items() if k != "checkpoint"})
        t_last = time.perf_counter()  # validation, checkpoint and log I/O are not counted
    if w.rank != 0:
        return {}
    metrics_file.close()
    save_checkpoint(w.core, w.tok, w.out / "final")
    long = long_chains(w.cut, w.fmt, w.world)
    long["validation"] = {k: val_cut.get(k, 0) for k in ("chains", "chains_cut", "steps_dropped",
                                                        "labels_dropped")}
    if long["chains_cut"] or val_cut["chains_cut"]:
        log.warning(
            "%d of %d chains seen were longer than model.max_length=%d: %d of %d steps "
            "dropped (%d of %d labels), validation %d of %d chains cut; see summary.json",
            long["chains_cut"], long["chains"], w.fmt.max_length, long["steps_dropped"],
            long["steps"], long["labels_dropped"], long["labels"], val_cut["chains_cut"],
            val_cut["chains"])
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
