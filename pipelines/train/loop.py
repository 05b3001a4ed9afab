"""The training loop of prm-train: the per-worker program, in-process or on a Ray Train worker.

`train_loop` builds (or resumes) the model, the optimizer and the schedule
(`pipelines.train.worker`), streams batches from the shards (`pipelines.train.data`) a few
steps ahead (`pipelines.train.background`), steps with gradient accumulation and bf16 autocast
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
from dataclasses import asdict
from typing import Any

import torch

from pipelines.checkpoint.export import save_checkpoint
from pipelines.checkpoint.model import cut_counts, tokenize_row
from pipelines.ticker import duration
from pipelines.train import data as prm_data
from pipelines.train.background import Prefetcher, micro_batches
from pipelines.train.checkpoints import snapshot, write_checkpoint
from pipelines.train.long_chains import check_something_fits, long_chains, say_first_cut
from pipelines.train.metrics import Interval, _forward_loss, evaluate
from pipelines.train.worker import Worker, setup_worker

PROGRESS_EVERY_S = 10.0  # a step line at most this often (every step when steps are slower)
log = logging.getLogger("prm-train")


def ray_worker(config: dict[str, Any]) -> None:
    """What each Ray Train worker runs."""
    train_loop(config, in_ray=True)


def _start_data(w: Worker) -> Prefetcher:
    """The background reader: micro-batches a few steps ahead of the one training."""
    t = w.cfg.train
    pin = w.device.type == "cuda"

    def make():
        return micro_batches(w.stream, w.tok, w.fmt, w.soft, t.batch_size, t.tokens_per_batch,
                             w.pack, pin)  # fmt: skip

    return Prefetcher(make, depth=2 * t.grad_accum + 2)


def _one_step(w: Worker) -> dict[str, Any]:
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


def _due(w: Worker) -> dict[str, bool]:
    """What this step does after training: log a row, validate, checkpoint."""
    t, step = w.cfg.train, w.step
    last = step == t.max_steps
    return {"log": step % max(t.log_every, 1) == 0 or last,
            "eval": bool(t.eval_every and step % t.eval_every == 0) or last,
            "save": bool(t.save_every and step % t.save_every == 0) or last}  # fmt: skip


def _after_step(w: Worker, due: dict[str, bool], interval: Interval,
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


def step_line(w: Worker, row: dict[str, Any], per_step: float) -> str:
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


def _train_steps(w: Worker, val_rows: list, metrics_file: Any) -> dict[str, Any]:
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
    w = setup_worker(config, in_ray)
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
