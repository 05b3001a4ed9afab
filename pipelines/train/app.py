"""prm-train: train a PRM on prm-label's shards, alone or on Ray Train workers.

`train_loop` is the whole per-worker program (it also runs in-process when
`train.workers=1` and `train.use_ray=false`, which is the default and skips Ray's start-up);
`run` decides where it runs; `main` is the Hydra entry point and only calls `run`.

Checkpoints: `<output_dir>/checkpoints/step_NNNNNNN/` is a PRM directory (see
`pipelines.train.model`) plus `trainer_state.pt` (optimizer, schedule, step, data position).
Rank 0 writes them straight to `output_dir`, so with several machines `output_dir` must be a
shared filesystem; on one machine it always is. `<output_dir>/final/` is what prm-eval and
`pipelines.scoring` load. Metrics go to `<output_dir>/metrics.jsonl` (and to Ray Train).
"""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import hydra
import torch
from omegaconf import DictConfig, OmegaConf

from pipelines.train import data as prm_data
from pipelines.train.config import TrainAppConfig, register
from pipelines.train.model import (
    ProcessRewardModel,
    StepFormat,
    collate,
    is_checkpoint,
    load_backbone,
    load_prm,
    load_tokenizer,
    save_prm,
    tokenize_row,
)

STATE_FILE = "trainer_state.pt"
# An absolute path: Hydra reads a relative one as a Python module when run as a console script.
CONF_DIR = str(Path(__file__).resolve().parents[2] / "conf")


def to_config(cfg: Any) -> TrainAppConfig:
    """A typed TrainAppConfig from a dataclass, DictConfig or plain dict (validated)."""
    merged = OmegaConf.merge(OmegaConf.structured(TrainAppConfig), cfg)
    out: TrainAppConfig = OmegaConf.to_object(merged)  # type: ignore[assignment]
    if out.train.grad_accum < 1 or out.train.batch_size < 1 or out.train.workers < 1:
        raise ValueError("train.batch_size, train.grad_accum and train.workers must be >= 1")
    if out.train.bf16 not in ("auto", "true", "false", True, False):
        raise ValueError(f"train.bf16={out.train.bf16!r}; use auto, true or false")
    return out


def bf16_enabled(mode: Any, device: torch.device) -> bool:
    """Whether to autocast to bf16: `auto` asks the device (oneDNN bf16 on CPU)."""
    if str(mode).lower() == "false":
        return False
    if device.type == "cuda":
        supported = torch.cuda.is_bf16_supported()
    else:
        supported = bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    if str(mode).lower() == "true" and not supported:
        raise RuntimeError(f"train.bf16=true but {device} has no bf16 support; use train.bf16=auto")
    return supported


def lr_factor(step: int, warmup: int, total: int, schedule: str) -> float:
    """Multiplier of the peak learning rate at optimizer step `step` (0-based)."""
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


def auroc(scores: list[float], labels: list[bool]) -> float:
    """Area under the ROC curve (Mann-Whitney, ties count half); NaN if one class is absent."""
    pos = sum(labels)
    neg = len(labels) - pos
    if pos == 0 or neg == 0:
        return math.nan
    order = sorted(zip(scores, labels, strict=True), key=lambda x: x[0])
    rank_sum, i = 0.0, 0
    while i < len(order):
        j = i
        while j < len(order) and order[j][0] == order[i][0]:
            j += 1
        mean_rank = (i + j + 1) / 2  # 1-based average rank of the tie block
        rank_sum += mean_rank * sum(1 for k in range(i, j) if order[k][1])
        i = j
    return (rank_sum - pos * (pos + 1) / 2) / (pos * neg)


def _forward_loss(model, batch, soft, device, use_bf16):
    batch = {k: v.to(device) for k, v in batch.items()}
    labeled = ~torch.isnan(batch["targets"])
    autocast = torch.autocast(device.type, dtype=torch.bfloat16, enabled=use_bf16)
    with autocast:
        logits = model(batch["input_ids"], batch["attention_mask"], labeled)
    targets = batch["targets"][labeled]
    core = model.module if hasattr(model, "module") else model
    if targets.numel() == 0:  # every label cut by max_length: a zero loss keeps DDP in step
        return logits.sum() * 0.0, targets, targets
    return core.loss(logits, targets, soft), core.probs(logits).detach(), targets


@torch.no_grad()
def evaluate(model, rows, pad_id, soft, batch_size, device, use_bf16) -> dict[str, float]:
    """Validation loss, step accuracy (p >= 0.5 vs target >= 0.5) and AUROC over `rows`."""
    model.eval()
    losses, scores, labels = [], [], []
    for i in range(0, len(rows), batch_size):
        loss, probs, targets = _forward_loss(
            model, collate(rows[i : i + batch_size], pad_id, soft), soft, device, use_bf16
        )
        losses.append(loss.item() * len(targets))
        scores += probs.float().cpu().tolist()
        labels += (targets >= 0.5).cpu().tolist()
    model.train()
    n = len(labels)
    if n == 0:
        return {"val_steps": 0}
    acc = sum((s >= 0.5) == y for s, y in zip(scores, labels, strict=True)) / n
    return {
        "val_loss": sum(losses) / n,
        "val_acc": acc,
        "val_auroc": auroc(scores, labels),
        "val_steps": n,
    }


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


def _save(model, tok, fmt, optimizer, scheduler, step, stream, out: Path, keep: int) -> Path:
    final = out / "checkpoints" / f"step_{step:07d}"
    tmp = final.with_name(final.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    save_prm(model, tok, fmt, tmp)
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


def _ray_worker(config: dict[str, Any]) -> None:
    """What each Ray Train worker runs."""
    train_loop(config, in_ray=True)


def train_loop(config: dict[str, Any], in_ray: bool = False) -> dict[str, Any]:
    """The per-worker training program; returns the summary (rank 0) or {} (other ranks)."""
    cfg = to_config(config)
    rank, world = 0, 1
    if in_ray:
        import ray.train

        rank, world = (
            ray.train.get_context().get_world_rank(),
            ray.train.get_context().get_world_size(),
        )
    if cfg.train.torch_threads > 0:
        torch.set_num_threads(cfg.train.torch_threads)
    torch.manual_seed(cfg.train.seed)
    out = Path(cfg.output_dir).expanduser().resolve()
    out.mkdir(parents=True, exist_ok=True)
    resume = _resume_path(cfg, out)
    source = resume or (Path(cfg.model.path) if is_checkpoint(cfg.model.path) else None)
    if source is not None:
        model, tok, fmt = load_prm(source)
        model.train()
    else:
        m = cfg.model
        fmt = StepFormat(m.separator, m.prompt_template, m.max_length, m.max_prompt_length, m.head)
        model, tok = ProcessRewardModel(load_backbone(m.path), m.head), load_tokenizer(m.path)
    soft = cfg.data.label_source in prm_data.SOFT_SOURCES
    core = model
    if in_ray:
        import ray.train.torch

        model = ray.train.torch.prepare_model(model)
        device = ray.train.torch.get_device()
    else:
        device = torch.device("cuda" if cfg.train.use_gpu else "cpu")
        model.to(device)
    use_bf16 = bf16_enabled(cfg.train.bf16, device)
    head_lr = cfg.optim.head_lr or cfg.optim.lr
    optimizer = torch.optim.AdamW(
        [
            {"params": core.backbone.parameters(), "lr": cfg.optim.lr},
            {"params": core.head.parameters(), "lr": head_lr},
        ],
        weight_decay=cfg.optim.weight_decay,
    )
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda s: lr_factor(s, cfg.optim.warmup_steps, cfg.train.max_steps, cfg.optim.schedule),
    )
    stream = prm_data.ChainStream(cfg.data, cfg.train.seed, rank, world)
    step = 0
    if resume is not None:
        state = torch.load(resume / STATE_FILE, weights_only=False)
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        step = state["step"]
        stream.skip(state["data"])
        torch.set_rng_state(state["rng"])
    val_rows = []
    if rank == 0 and cfg.data.val_fraction > 0:
        val_rows = [
            tokenize_row(e.prompt, e.steps, e.targets, tok, fmt, soft)
            for e in prm_data.validation_examples(cfg.data, cfg.train.seed)
        ]

    def validate() -> dict[str, float]:
        if not val_rows:
            return {}
        return evaluate(
            core, val_rows, tok.pad_token_id, soft, cfg.train.batch_size, device, use_bf16
        )

    metrics_file = (out / "metrics.jsonl").open("a") if rank == 0 else None
    tokens_total, train_time, last, started = 0, 0.0, {}, step
    model.train()
    t_last = time.perf_counter()
    while step < cfg.train.max_steps:
        losses, correct, counted, tokens = [], 0, 0, 0
        for micro in range(cfg.train.grad_accum):
            rows = [
                tokenize_row(e.prompt, e.steps, e.targets, tok, fmt, soft)
                for e in (next(stream) for _ in range(cfg.train.batch_size))
            ]
            batch = collate(rows, tok.pad_token_id, soft)
            tokens += batch["input_ids"].numel()
            sync = micro == cfg.train.grad_accum - 1 or not hasattr(model, "no_sync")
            with contextlib.nullcontext() if sync else model.no_sync():
                loss, probs, targets = _forward_loss(model, batch, soft, device, use_bf16)
                (loss / cfg.train.grad_accum).backward()
            losses.append(loss.item())
            correct += int(((probs >= 0.5) == (targets >= 0.5)).sum())
            counted += targets.numel()
        if cfg.optim.max_grad_norm > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.optim.max_grad_norm)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        dt = time.perf_counter() - t_last  # reading, tokenizing, collating, compute
        tokens_total, train_time = tokens_total + tokens, train_time + dt
        row: dict[str, Any] = {}
        if step % max(cfg.train.log_every, 1) == 0 or step == cfg.train.max_steps:
            row = {
                "step": step,
                "loss": sum(losses) / len(losses),
                "acc": correct / max(counted, 1),
                "lr": scheduler.get_last_lr()[0],
                "tokens": tokens,
                "step_seconds": dt,
                "tokens_per_s": tokens / dt,
                "epoch": stream.epoch,
            }
        ev = cfg.train.eval_every
        if rank == 0 and ((ev and step % ev == 0) or step == cfg.train.max_steps):
            row = {"step": step, **row, **validate()}
        sv = cfg.train.save_every
        if (sv and step % sv == 0) or step == cfg.train.max_steps:
            if rank == 0:
                path = _save(
                    core,
                    tok,
                    fmt,
                    optimizer,
                    scheduler,
                    step,
                    stream,
                    out,
                    cfg.train.save_total_limit,
                )
                row = {"step": step, **row, "checkpoint": str(path)}
            if world > 1:
                torch.distributed.barrier()  # nobody races ahead of a half-written checkpoint
        if row and metrics_file:
            metrics_file.write(json.dumps(row) + "\n")
            metrics_file.flush()
            last.update(row)
        if in_ray and (step % max(cfg.train.log_every, 1) == 0 or step == cfg.train.max_steps):
            import ray.train

            ray.train.report({k: v for k, v in row.items() if k != "checkpoint"})
        t_last = time.perf_counter()  # validation, checkpoint and log I/O are not counted
    if rank != 0:
        return {}
    metrics_file.close()
    save_prm(core, tok, fmt, out / "final")
    summary = {
        **last,
        "final": str(out / "final"),
        "steps_this_run": step - started,
        "resumed_from": str(resume) if resume else None,
        "train_tokens_per_s": tokens_total / train_time if train_time else 0.0,
        "bf16": use_bf16,
        "workers": world,
        "format": asdict(fmt),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def run(cfg: Any) -> dict[str, Any]:
    """Train as configured; returns the summary written to `<output_dir>/summary.json`."""
    conf = to_config(cfg)
    plain = OmegaConf.to_container(OmegaConf.structured(conf), resolve=True)
    if conf.train.workers == 1 and not conf.train.use_ray:
        return train_loop(plain)
    import ray
    from ray.train import RunConfig, ScalingConfig
    from ray.train.torch import TorchTrainer

    started_ray = not ray.is_initialized()
    if started_ray:
        if conf.ray.address:
            ray.init(address=conf.ray.address)
        else:
            ray.init(num_cpus=conf.ray.num_cpus or conf.train.workers * conf.train.cpus_per_worker)
    out = Path(conf.output_dir).expanduser().resolve()
    trainer = TorchTrainer(
        _ray_worker,
        train_loop_config=plain,
        scaling_config=ScalingConfig(
            num_workers=conf.train.workers,
            use_gpu=conf.train.use_gpu,
            resources_per_worker={"CPU": conf.train.cpus_per_worker},
        ),
        run_config=RunConfig(name="prm-train", storage_path=str(out / "ray")),
    )
    try:
        trainer.fit()
    finally:
        if started_ray:  # a caller's own Ray session stays up; ours does not leak
            ray.shutdown()
    return json.loads((out / "summary.json").read_text())


@hydra.main(version_base=None, config_path=CONF_DIR, config_name="train")
def _hydra_main(cfg: DictConfig) -> None:
    summary = run(cfg)
    print(json.dumps({k: v for k, v in summary.items() if k != "format"}, indent=2))


def main() -> None:
    register()
    _hydra_main()


if __name__ == "__main__":
    main()
